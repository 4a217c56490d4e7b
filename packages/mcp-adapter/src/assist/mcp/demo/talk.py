"""`assist demo --talk`: the scripted user (`talk_story`) talks with the stand-in
(`talk_policy`) through `assist mcp`'s conversation mode. DRAFT: not yet passing.

The server's own listener hears a software room (`assist.listen.rooms.MixedRoom`) through a
FIFO (`ASSIST_LISTEN_FROM`); the user's lines are Piper speech; the assistant's saved replies
enter the room at -20 dB, well under the barge-in gate.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
import time
import wave
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import numpy as np
from assist.mcp.demo import talk_policy
from assist.mcp.demo.talk_story import STORY

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

ECHO_GAIN = 0.1
"""-20 dB: the assistant's own voice, a metre from the microphone, stays under the gate."""


class Room:
    """The FIFO the listener reads, fed by a MixedRoom pumped in a thread."""

    def __init__(self, folder: Path) -> None:
        from assist.listen.rooms import MixedRoom

        self.path = folder / "microphone.fifo"
        os.mkfifo(self.path)
        self._fd = os.open(self.path, os.O_RDWR)
        self.room = MixedRoom(os.fdopen(os.dup(self._fd), "wb"))
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self.quiet_from = 0.0
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def play(self, samples: np.ndarray, gain: float = 1.0) -> None:
        with self._lock:
            playing = self.room.play(samples, gain=gain)
            self.quiet_from = max(self.quiet_from, playing.end_s)

    async def say(self, samples: np.ndarray, pause_s: float = 1.5) -> None:
        """A polite user: speaks once the room has been quiet for `pause_s`."""
        await anyio.sleep(0.3)  # a reply's WAV reaches the room a moment after speak returns
        while self.room.now() < self.quiet_from + pause_s:
            await anyio.sleep(0.05)
        self.play(samples)

    def _run(self) -> None:
        self.room.open()
        while not self._stop.is_set():
            with self._lock:
                self.room.pump()
            time.sleep(0.02)

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.room.close()
        os.close(self._fd)


def _wav16k(path: Path) -> np.ndarray:
    import soxr

    with wave.open(str(path), "rb") as source:
        rate = source.getframerate()
        pcm = np.frombuffer(source.readframes(source.getnframes()), "<i2")
    return soxr.resample(pcm.astype(np.float32) / 32768, rate, 16_000).astype(np.float32)


async def run_talk(workdir: Path, engine: str) -> dict[str, Any]:
    """Run the story; the steps as they happened."""
    from assist.listen.voiced import Voice

    config, sessions, audio = workdir / "config.json", workdir / "sessions", workdir / "audio"
    sessions.mkdir(parents=True)
    audio.mkdir()
    settings = {"assistant": {"enabled": True, "name": "Claude"}, "voice": {"engine": engine}}
    config.write_text(json.dumps(settings))
    voice = Voice()
    said = {step.name: voice.say(step.text) for step in STORY}
    room = Room(workdir)
    env = {
        **os.environ,
        "ASSIST_CONFIG": str(config),
        "ASSIST_HOME": str(sessions),
        "ASSIST_LISTEN_FROM": str(room.path),
    }
    command = [sys.executable, "-m", "assist.mcp.commands.cli", "mcp"]
    command += ["--save-audio", str(audio), "--no-play"]
    server = StdioServerParameters(command=command[0], args=command[1:], env=env)
    steps: list[dict[str, Any]] = []
    started = time.monotonic()
    seen: set[str] = set()

    def note(step: str, **what: Any) -> None:
        steps.append({"step": step, "t": round(time.monotonic() - started, 1), **what})

    async def echoes() -> None:
        while True:
            for wav in sorted(audio.glob("*.wav")):
                if wav.name not in seen and wav.stat().st_size > 44:
                    seen.add(wav.name)
                    await anyio.sleep(0.05)
                    room.play(_wav16k(wav), gain=ECHO_GAIN)
            await anyio.sleep(0.05)

    try:
        with open(workdir / "server.log", "w") as errlog:
            async with (
                stdio_client(server, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
                anyio.create_task_group() as group,
            ):
                await session.initialize()
                group.start_soon(echoes)

                async def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
                    reply = await session.call_tool(tool, arguments)
                    text = "".join(
                        b.text for b in reply.content if isinstance(b, types.TextContent)
                    )
                    if reply.is_error:
                        raise RuntimeError(f"{tool} refused: {text}")
                    return json.loads(text)

                begun = await call("start_conversation", {})
                note("greeting", text=begun["greeting_spoken"])
                folder = sessions / begun["conversation"]
                await room.say(said["request"])
                waited = await _lines(call)
                turn = talk_policy.decide(waited.get("lines", []))
                note("heard", lines=waited.get("lines", []), kind=turn.kind)
                await call("speak", {"text": turn.ack})
                note("ack", text=turn.ack)

                async def answer_yes() -> None:
                    await room.say(said["yes"])

                group.start_soon(answer_yes)
                confirmed = await call("confirm", {"question": turn.question, "timeout_s": 30})
                note("confirm", question=turn.question, answer=confirmed["answer"])
                work_from = time.time()
                await anyio.sleep(talk_policy.WORK_S)  # the simulated work: fillers cover it
                fillers = [
                    {"text": e["text"], "after_s": round(_seconds(e["at"]) - work_from, 1)}
                    for e in _events(folder)
                    if e["event"] == "filler" and "kind" not in e
                ]
                note("fillers", fillers=fillers)

                async def interrupt() -> None:
                    await anyio.sleep(3.0)
                    room.play(said["barge_in"])

                group.start_soon(interrupt)
                spoke = await call("speak", {"text": talk_policy.ANSWER})
                note(
                    "answer",
                    cut_off=bool(spoke.get("cut_off")),
                    interrupted=bool(spoke.get("interrupted")),
                    said_approx=spoke.get("said_approx"),
                )
                await room.say(said["goodbye"])
                waited = await _lines(call)
                note("goodbye", lines=waited.get("lines", []))
                await call("stop_watching", {})
                note("ended")
                group.cancel_scope.cancel()
    finally:
        room.close()
    return {"steps": steps, "run_s": round(time.monotonic() - started, 1)}


async def _lines(call: Any, within_s: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + within_s
    while True:
        waited = await call("wait_for_transcript", {"timeout_s": 5})
        if waited["status"] != "live" or waited["lines"] or time.monotonic() > deadline:
            return waited


def _seconds(at: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(at).timestamp()


def _events(folder: Path) -> list[dict[str, Any]]:
    log = folder / "assistant.jsonl"
    return [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []


def talk_command(engine: str) -> int:
    workdir = Path(tempfile.mkdtemp(prefix="assist-talk-"))
    summary = anyio.run(run_talk, workdir, engine)
    sys.stdout.write(json.dumps({**summary, "workdir": str(workdir)}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    from assist.mcp.demo.voice_choice import demo_engine

    raise SystemExit(talk_command(demo_engine(os.environ, None)))
