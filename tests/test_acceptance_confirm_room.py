"""`confirm` through a room simulated in software, on real parts end to end (behaviour 14.1, 6).

`assist listen --from -` is the room's microphone: a thread feeds it 16 kHz PCM at real time,
silence unless something is "heard". `assist mcp` watches that session with the real Piper
voice (`--no-play --save-audio`), driven through the SDK's stdio client. The question asks for
something with yes-words in it ("Okay to go ahead ..."); its own saved audio is fed back into
the microphone, as loudspeakers would, and the real recogniser (whisper tiny.en, shipped in a
package, so nothing is downloaded) writes it into the transcript. That echo must be passed over:
only the user's spoken "No, don't do that." (Piper's joe voice, the listener tests' speaker)
answers, so the answer is `no` and `heard` holds that one line. Had the echo been taken, the
answer would have been `yes`.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time
import wave
from pathlib import Path
from typing import Any

import anyio
import numpy as np
import pytest
from assist.core.answers import classify
from assist.core.words import normalise_words
from mcp_harness import ASSIST, Place, connect, value_of

pytestmark = pytest.mark.anyio

RATE_HZ = 16_000
CHUNK_S = 0.02
QUESTION = "Okay to go ahead and delete the old release branch?"
ANSWER = "No, don't do that."
STEP_S = 120.0
"""Bound for a step (a voice starting, a turn being recognised) with both cores busy."""


class Microphone:
    """Feeds `assist listen --from -` in real time: silence, or whatever `hear` queued."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self._process = process
        self._queued: queue.Queue[np.ndarray] = queue.Queue()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._feed, daemon=True)
        self._thread.start()

    def hear(self, samples: np.ndarray) -> None:
        """Queue float32 mono 16 kHz audio, followed by the silence that ends a turn."""
        self._queued.put(np.concatenate([samples, np.zeros(int(1.5 * RATE_HZ), np.float32)]))

    def _feed(self) -> None:
        assert self._process.stdin is not None
        chunk = int(CHUNK_S * RATE_HZ)
        pending = np.zeros(0, np.float32)
        started = time.monotonic()
        sent = 0
        while not self._stop.is_set():
            if pending.size == 0:
                try:
                    pending = self._queued.get_nowait()
                except queue.Empty:
                    pending = np.zeros(chunk, np.float32)
            piece, pending = pending[:chunk], pending[chunk:]
            data = (np.clip(piece, -1, 1) * 32767).round().astype("<i2").tobytes()
            try:
                self._process.stdin.write(data)
                self._process.stdin.flush()
            except (BrokenPipeError, ValueError):
                return
            sent += piece.size
            ahead = sent / RATE_HZ - (time.monotonic() - started)
            if ahead > 0:
                time.sleep(ahead)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        assert self._process.stdin is not None
        self._process.stdin.close()


def wav_16k(path: Path) -> np.ndarray:
    import soxr

    with wave.open(str(path)) as clip:
        rate = clip.getframerate()
        data = np.frombuffer(clip.readframes(clip.getnframes()), dtype="<i2")
    samples = data.astype(np.float32) / 32768
    return soxr.resample(samples, rate, RATE_HZ).astype(np.float32)


def raw_texts(folder: Path) -> list[str]:
    path = folder / "raw.jsonl"
    if not path.exists():
        return []
    return [json.loads(line)["text"] for line in path.read_text(encoding="utf-8").splitlines()]


def events(folder: Path) -> list[dict[str, Any]]:
    path = folder / "assistant.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def question_said(folder: Path) -> bool:
    return any(e["event"] == "spoke" and e["text"] == QUESTION for e in events(folder))


async def until(check: Any, timeout: float = STEP_S) -> Any:
    deadline = time.monotonic() + timeout
    while not (value := check()):
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        await anyio.sleep(0.05)
    return value


async def test_the_questions_own_voice_heard_back_through_the_room_never_answers_it(
    tmp_path: Path,
) -> None:
    from assist.mcp.demo.rooms.voiced import Voice

    place = Place(tmp_path)
    place.configure(cooldown_s=0, engine="piper")
    offline = {"HF_HUB_OFFLINE": "1", "XDG_CACHE_HOME": str(tmp_path / "empty-cache")}
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("ASSIST_", "AMBIENT_"))}
    listener = subprocess.Popen(
        [str(ASSIST), "listen", "--into", str(place.sessions), "--from", "-", "--quiet"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**clean, **place.environment(), **offline},
    )
    microphone = Microphone(listener)
    try:
        assert listener.stdout is not None
        first = listener.stdout.readline().decode()
        folder = Path(first.split(" in ", 1)[1].strip())
        voice = Voice()
        answer = voice.say(ANSWER)
        async with connect(
            place, "--no-play", "--save-audio", str(place.audio), env=offline
        ) as agent:
            value_of(await agent.call_tool("watch_meeting", {}))
            reply: dict[str, Any] = {}

            async def ask() -> None:
                arguments = {"question": QUESTION, "timeout_s": 120}
                reply.update(value_of(await agent.call_tool("confirm", arguments)))

            async with anyio.create_task_group() as group:
                group.start_soon(ask)
                await until(lambda: question_said(folder))
                said = sorted(place.audio.glob("reply-*.wav"), key=lambda p: p.stat().st_mtime)
                microphone.hear(wav_16k(said[-1]))  # the loudspeakers, heard by the microphone
                echo = await until(lambda: raw_texts(folder))
                await anyio.sleep(1.5)  # three polls: the echo was read and passed over
                assert not reply, f"the echo {echo} was taken as the answer: {reply}"
                microphone.hear(answer)
        assert reply["answer"] == "no", (reply, raw_texts(folder))
        # The answer may come as one line or, ended at its first sentence by the turn model,
        # as "No." alone: either way the first line heard decides, and it is the user's.
        # Compared by its words: whisper may end it "No, don't do that..." when the turn trails off.
        heard = (
            normalise_words(reply["heard"][0].split(": ", 1)[1]) if len(reply["heard"]) == 1 else []
        )
        assert heard in (["no"], normalise_words(ANSWER)), reply
        texts = raw_texts(folder)
        assert len(texts) == 2 and "branch" in texts[0].lower(), texts
        assert classify(texts[0]) == "yes", f"on its own words the echo {texts[0]!r} says yes"
    finally:
        microphone.close()
        try:
            listener.wait(timeout=60)
        except subprocess.TimeoutExpired:
            listener.kill()
            listener.wait()
