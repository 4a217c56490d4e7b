"""`assist demo --talk`: the scripted user (`talk_story`) talks with the stand-in agent
(`talk_policy`) through a real `assist mcp` in conversation mode, over the official MCP client.

Everything is real but the room: the server's own listener (Silero VAD, whisper tiny.en) hears
the software room (`talk_room`), the user's lines are Piper speech, and the voice helper plays
each line at real time into the room (`ASSIST_PLAY_INTO`), so a line can be talked over and its
echo is what actually played. The story moves on events (the greeting heard, the question
heard, the answer playing, each wait's lines), never on fixed sleeps alone; a step that does
not happen fails the run naming it (`TalkFailed`). As it goes it notes, for each of the user's
phrases, the latency they feel (`talk_latency`: end of the phrase to its line, and to the
reply's first sound), and at the end which turn model ended their turns.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import attrs
import mcp_types as types
from assist.core.environment import CONFIG, HOME, LISTEN_FROM, PLAY_INTO
from assist.core.files import RAW_FILE
from assist.core.lines import LineError, parse_raw_line
from assist.mcp.demo import talk_latency, talk_policy, talk_story
from assist.mcp.demo.summary import read_log, remarks_from_log

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

if TYPE_CHECKING:
    import numpy as np
    from assist.mcp.demo.rooms.live import Playing
    from assist.mcp.demo.talk_room import TalkRoom

FILLER_BOUNDS_S = (6.0, 9.0)
"""When the first filler is due after the turn was handed over (behaviour 13)."""
HEARD_WITHIN_S = 90.0
"""A line reaches a wait within this, whisper on two busy cores included; never a speed claim."""
CONFIRM_TIMEOUT_S = 30
SILENT_CONFIRM_TIMEOUT_S = 5
"""The silent variant's question waits the least `confirm` allows. Both are whole seconds:
`confirm` reads any other `timeout_s` as its 90 s default (the first silent run waited 94 s)."""
WORK_WITHIN_S = 60.0
"""The simulated work goes on, past `talk_policy.WORK_S`, until a filler has been said."""
FOLLOW_S = 0.02
"""How often `raw.jsonl` is read for new lines: the line figures are this precise."""
SESSION_WITHIN_S = 10.0
"""The listener writes `session.json` (its turn model) within this of `stop_watching`."""

Progress = Callable[[dict[str, Any]], None]


class TalkFailed(RuntimeError):
    """A step of the story did not happen; `step` names it."""

    def __init__(self, step: str, detail: str) -> None:
        super().__init__(f"the step {step!r} did not happen: {detail}")
        self.step = step


@attrs.frozen
class TalkPlan:
    """One run of the story: where its files go, the voice, and the user's answer."""

    workdir: Path
    engine: str
    answer: str = "yes"  # a key of talk_story.ANSWERS

    def __attrs_post_init__(self) -> None:
        if self.answer not in talk_story.ANSWERS:
            known = ", ".join(talk_story.ANSWERS)
            raise ValueError(f"the user's answer {self.answer!r} is not one of {known}")


class Felt:
    """The user's phrases as they played and the lines as they reached `raw.jsonl`; notes
    each phrase's figures once they are all in."""

    def __init__(self, room: TalkRoom, story: Story) -> None:
        self.phrases: list[talk_latency.Phrase] = []
        self.arrivals: list[talk_latency.Arrival] = []
        self.folder: Path | None = None
        self._room = room
        self._story = story
        self._noted = 0

    def said(self, step: str, text: str, playing: Playing, replied: bool = False) -> None:
        end = self._room.wall_time(playing.end_s)
        self.phrases.append(
            talk_latency.Phrase(step, text, playing.start_s, playing.end_s, end, replied)
        )

    async def follow(self, folder: Path) -> None:
        """Stamp each line of the session's `raw.jsonl` as it arrives, until cancelled."""
        self.folder = folder
        offset = 0
        looked = time.time()
        while True:
            try:
                with open(folder / RAW_FILE, "rb") as raw:
                    raw.seek(offset)
                    data = raw.read()
            except FileNotFoundError:
                data = b""
            now = time.time()
            whole = data[: data.rfind(b"\n") + 1]
            offset += len(whole)
            for row in whole.decode("utf-8", errors="replace").splitlines():
                try:
                    line = parse_raw_line(row)
                except LineError:
                    continue  # not a line of speech: no figure to take from it
                start, end = line.start_ms / 1000, line.end_ms / 1000
                self.arrivals.append(talk_latency.Arrival(start, end, line.text, now, looked))
            looked = now
            await anyio.sleep(FOLLOW_S)

    def figures(self) -> list[dict[str, Any]]:
        remarks = remarks_from_log(read_log(self.folder)) if self.folder else []
        return talk_latency.felt(self.phrases, self.arrivals, remarks)

    def note(self, final: bool = False) -> None:
        """Note the phrases, in order, whose figures are in (all of them when `final`)."""
        for figure in self.figures()[self._noted :]:
            done = figure["line_s"] is not None and (
                not figure["replied"] or figure["reply_s"] is not None
            )
            if not (done or final):
                return
            self._story.note("felt", **figure)
            self._noted += 1


class Story:
    """The steps as they happen, each with its time since the start, told to `progress`."""

    def __init__(self, progress: Progress) -> None:
        self.started = time.monotonic()
        self.steps: list[dict[str, Any]] = []
        self._progress = progress

    def note(self, step: str, **what: Any) -> None:
        entry = {"step": step, "t": round(time.monotonic() - self.started, 1), **what}
        self.steps.append(entry)
        self._progress(entry)


def user_lines(plan: TalkPlan) -> dict[str, np.ndarray]:
    """The scripted user's lines in Piper's voice, each text to its samples.

    Called before the event loop starts: inside `anyio.run`, Ctrl-C only cancels the task at
    its next `await`, and this is seconds of CPU with none (far more on busy cores), so the
    demo would not end at once."""
    from assist.mcp.demo.rooms.voiced import Voice

    answer_line = talk_story.ANSWERS[plan.answer]
    lines = [talk_story.REQUEST, talk_story.BARGE_IN, talk_story.GOODBYE, answer_line]
    voice = Voice()
    try:
        return {text: voice.say(text) for text in lines if text is not None}
    finally:
        voice.close()


async def run_talk(
    plan: TalkPlan, progress: Progress, said: dict[str, np.ndarray]
) -> dict[str, Any]:
    """Run the story with the user's lines `said` (`user_lines`); its steps and the fields
    the summary shows."""
    from assist.mcp.demo.talk_room import TalkRoom

    sessions = plan.workdir / "sessions"
    sessions.mkdir(parents=True)
    config = plan.workdir / "config.json"
    settings = {"assistant": {"enabled": True, "name": "Claude"}, "voice": {"engine": plan.engine}}
    config.write_text(json.dumps(settings))
    room = TalkRoom(plan.workdir)
    env = {
        **os.environ,
        CONFIG.name: str(config),
        HOME.name: str(sessions),
        LISTEN_FROM.name: str(room.microphone),
        PLAY_INTO.name: str(room.speaker),
    }
    command = [sys.executable, "-m", "assist.mcp.commands.cli", "mcp"]
    server = StdioServerParameters(command=command[0], args=command[1:], env=env)
    story = Story(progress)
    felt = Felt(room, story)
    result: dict[str, Any] = {"variant": plan.answer}
    try:
        with open(plan.workdir / "server.log", "w") as errlog:
            async with (
                stdio_client(server, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                await _tell(_Tools(session), room, said, plan, story, result, sessions, felt)
    except BaseExceptionGroup as group:  # the client's task groups wrap a failed step
        failed, _ = group.split(TalkFailed)
        if failed is None:
            raise
        raise _first(failed) from group
    finally:
        room.close()
    figures = felt.figures()
    result["felt"] = figures
    result["felt_p50"] = {key: talk_latency.p50(figures, key) for key in ("line_s", "reply_s")}
    result["turn"] = await _turn(felt.folder)
    result["steps"] = story.steps
    result["run_s"] = round(time.monotonic() - story.started, 1)
    return result


class _Tools:
    """The MCP tools as plain calls: JSON in, JSON out, a refusal raised."""

    def __init__(self, session: ClientSession) -> None:
        self._session = session

    async def __call__(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        reply = await self._session.call_tool(tool, arguments)
        text = "".join(b.text for b in reply.content if isinstance(b, types.TextContent))
        if reply.is_error:
            raise TalkFailed(tool, f"{tool} refused: {text}")
        value: dict[str, Any] = json.loads(text)
        return value

    async def turn(self, step: str, want: tuple[str, ...]) -> tuple[talk_policy.Turn, list[str]]:
        """Wait until a wait hands over lines the stand-in takes as one of `want`."""
        deadline = time.monotonic() + HEARD_WITHIN_S
        heard: list[str] = []
        while time.monotonic() < deadline:
            waited = await self("wait_for_transcript", {"timeout_s": 5})
            if waited["status"] != "live":
                raise TalkFailed(step, f"the conversation {waited['status']} ({waited})")
            heard += waited["lines"]
            turn = talk_policy.decide(waited["lines"])
            if turn.kind in want:
                return turn, heard
        raise TalkFailed(step, f"not heard within {HEARD_WITHIN_S:.0f} s (heard: {heard})")


async def _tell(
    call: _Tools,
    room: TalkRoom,
    said: dict[str, np.ndarray],
    plan: TalkPlan,
    story: Story,
    result: dict[str, Any],
    sessions: Path,
    felt: Felt,
) -> None:
    asked = time.monotonic()
    begun = await call("start_conversation", {})
    if not await room.assistant_speaks(asked, within_s=30):
        raise TalkFailed("greeting", "the greeting never came out of the speaker")
    story.note("greeting", text=begun.get("greeting_spoken"))
    folder = sessions / begun["conversation"]
    async with anyio.create_task_group() as group:
        group.start_soon(felt.follow, folder)
        await _converse(call, room, said, plan, story, result, folder, felt)
        group.cancel_scope.cancel()
    felt.note(final=True)


async def _converse(
    call: _Tools,
    room: TalkRoom,
    said: dict[str, np.ndarray],
    plan: TalkPlan,
    story: Story,
    result: dict[str, Any],
    folder: Path,
    felt: Felt,
) -> None:
    playing = await room.say_in_turn(said[talk_story.REQUEST])
    felt.said("request", talk_story.REQUEST, playing, replied=True)
    story.note("request said", text=talk_story.REQUEST)
    turn, heard = await call.turn("request heard", ("request",))
    story.note("request heard", lines=heard)
    await call("speak", {"text": turn.ack})
    story.note("ack", text=turn.ack)
    felt.note()

    answer_line = talk_story.ANSWERS[plan.answer]
    timeout_s = CONFIRM_TIMEOUT_S if answer_line else SILENT_CONFIRM_TIMEOUT_S
    async with anyio.create_task_group() as group:
        if answer_line is not None:
            question, samples = turn.question, said[answer_line]
            group.start_soon(_answer, room, folder, question, samples, story, felt, answer_line)
        story.note("question", text=turn.question)
        confirmed = await call("confirm", {"question": turn.question, "timeout_s": timeout_s})
        group.cancel_scope.cancel()
    handed_over = time.time()
    result["confirm"] = {"question": turn.question, "answer": confirmed["answer"]}
    story.note("confirm", answer=confirmed["answer"], heard=confirmed.get("heard"))
    felt.note()

    if confirmed["answer"] == "yes":
        await _work(call, room, said, story, result, folder, handed_over, felt)
    else:
        await call("speak", {"text": talk_policy.DECLINED})
        story.note("declined", text=talk_policy.DECLINED)
        result["fillers"] = []
        result["answer_spoken"] = None

    playing = await room.say_in_turn(said[talk_story.GOODBYE])
    felt.said("goodbye", talk_story.GOODBYE, playing)
    story.note("goodbye said", text=talk_story.GOODBYE)
    _, heard = await call.turn("goodbye heard", ("goodbye",))
    story.note("goodbye heard", lines=heard)
    felt.note()
    stopped = await call("stop_watching", {})
    result["ended"] = stopped.get("stopped_watching") == folder.name
    if not result["ended"]:
        raise TalkFailed("ended", f"stop_watching did not end the conversation ({stopped})")
    story.note("ended", spoken=stopped.get("spoken"))


async def _answer(
    room: TalkRoom,
    folder: Path,
    question: str,
    samples: np.ndarray,
    story: Story,
    felt: Felt,
    text: str,
) -> None:
    """The user answers once the question has been said (its `spoke` event) and the room is
    quiet again; if it never is, confirm returns on its own and the run fails on its answer."""
    if await _logged(folder, "spoke", question):
        felt.said("answer", text, await room.say_in_turn(samples))
        story.note("user answers", text=text)


async def _work(
    call: _Tools,
    room: TalkRoom,
    said: dict[str, np.ndarray],
    story: Story,
    result: dict[str, Any],
    folder: Path,
    handed_over: float,
    felt: Felt,
) -> None:
    """The simulated work, the fillers that cover it, and the long answer talked over."""
    await anyio.sleep(talk_policy.WORK_S)
    deadline = time.monotonic() + WORK_WITHIN_S
    while not _fillers(folder, handed_over) and time.monotonic() < deadline:
        await anyio.sleep(0.2)
    fillers = _fillers(folder, handed_over)
    result["fillers"] = fillers
    story.note("fillers", fillers=fillers, bounds_s=list(FILLER_BOUNDS_S))
    if not fillers:
        raise TalkFailed("fillers", f"no filler covered {WORK_WITHIN_S:.0f} s of work")

    async def talk_over() -> None:
        """Into the answer itself, not a filler that was still sounding when it was asked."""
        logged = await _logged(folder, "speaking", talk_policy.ANSWER)
        if logged and await room.assistant_speaks(time.monotonic() - 0.1, within_s=30):
            await anyio.sleep(talk_story.BARGE_IN_AFTER_S)
            felt.said("interruption", talk_story.BARGE_IN, room.play(said[talk_story.BARGE_IN]))
            story.note("user interrupts", text=talk_story.BARGE_IN)

    async with anyio.create_task_group() as group:
        group.start_soon(talk_over)
        story.note("answer", text=talk_policy.ANSWER)
        spoke = await call("speak", {"text": talk_policy.ANSWER})
        group.cancel_scope.cancel()
    answer = {
        "cut_off": bool(spoke.get("cut_off")),
        "interrupted": bool(spoke.get("interrupted")),
        "said_approx": spoke.get("said_approx"),
        "audio_s": spoke.get("audio_s"),
    }
    result["answer_spoken"] = answer
    story.note("answer ended", **answer)
    if not answer["cut_off"]:
        raise TalkFailed("barge-in", f"the answer played to its end ({spoke})")


async def _turn(folder: Path | None) -> dict[str, Any] | None:
    """What ended the user's turns: the listener's `session.json` `turn`, written as it ends."""
    deadline = time.monotonic() + SESSION_WITHIN_S
    while folder is not None and time.monotonic() < deadline:
        try:
            turn: dict[str, Any] = json.loads((folder / "session.json").read_text())["turn"]
            return turn
        except (OSError, ValueError, KeyError):
            await anyio.sleep(0.1)
    return None


def _first(group: BaseExceptionGroup[TalkFailed]) -> TalkFailed:
    inner: BaseException = group
    while isinstance(inner, BaseExceptionGroup):
        inner = inner.exceptions[0]
    assert isinstance(inner, TalkFailed)
    return inner


async def _logged(folder: Path, event: str, text: str, within_s: float = 60) -> bool:
    """Whether the server logs `event` for the line `text` within the time."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if any(e.get("event") == event and e.get("text") == text for e in _events(folder)):
            return True
        await anyio.sleep(0.05)
    return False


def _events(folder: Path) -> list[dict[str, Any]]:
    log = folder / "assistant.jsonl"
    lines = log.read_text().splitlines() if log.exists() else []
    return [json.loads(line) for line in lines if line.endswith("}")]  # not one half written


def _fillers(folder: Path, handed_over: float) -> list[dict[str, Any]]:
    """The fillers said since the turn was handed over, each with its delay after it."""
    return [
        {"text": e["text"], "after_s": round(_seconds(e["at"]) - handed_over, 1)}
        for e in _events(folder)
        if e.get("event") == "filler" and "kind" not in e and _seconds(e["at"]) >= handed_over
    ]


def _seconds(at: str) -> float:
    return datetime.fromisoformat(at).timestamp()
