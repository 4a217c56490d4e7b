"""`assist eval --echo`: the echo set played through a real conversation, trial by trial.

Everything is real but the room: a real `assist mcp` holds a conversation; its listener (the
real `assist listen`: Silero VAD, the turn segmenter, the recogniser) hears one of the rooms
of `echo_rooms` (the software room at -20 dB, the PulseAudio room at 0 dB with the real
canceller), where the real voice helper (Piper, or the best offline voice) plays each line
at real time and what played comes back into the microphone. The person's sounds (Piper
speech, `voiced.cough`) are played into the same room when the trial says.

This module drives each trial as an agent would (`speak`, `confirm`, `wait_for_transcript`
over the server's pipes), reads what became of the line from the conversation's log (`paused`,
`resumed`, `barge_in`) and the tools' results, and hands it to `assist.core.echo_scoring`.
Every wait has a bound; a conversation that fails is reported, not waited on.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
from assist.core.echo_scoring import KINDS, EchoScore, Kind, Trial, score_echo
from assist.mcp.eval.conversation import Conversation, ServerGone
from assist.mcp.eval.echo_rooms import PLACES, EchoRoom, Place, RoomUnavailable, open_room
from assist.mcp.eval.echo_sets import (
    ANSWER_AFTER_S,
    BACK_TO_BACK,
    BACKCHANNELS,
    INTERRUPTIONS,
    INTO_S,
    QUESTIONS,
    REPLIES,
    ROUNDS_PER_CONVERSATION,
    SAID_AS,
    EchoSet,
)
from assist.mcp.eval.echo_spans import by_span, line_starts, stamp_s

if TYPE_CHECKING:
    from assist.mcp.demo.rooms.voiced import Phrases

VOICE_WITHIN_S = 60.0
"""A line is heard coming out of the speaker within this of `speak` (the voice renders it)."""
LINE_WITHIN_S = 90.0
"""A `speak` or `confirm` returns within this: the line's own seconds and a busy machine."""
SETTLE_S = 3
"""After a trial, waits of this long (whole seconds, as `wait_for_transcript` takes them) take
what reached the agent, until one brings nothing."""
MAX_WAITS = 6
"""At most this many settling waits that bring lines: a room that keeps producing lines ends
the trial anyway."""
WORDS_WITHIN_S = 20.0
"""After an interruption, how long the settling waits go on while none has brought a line: its
words reach the agent once the listener's turn ends and is recognised, behind the peeks of
16.3; on a busy machine that took more than one empty wait, and the last trial of a set lost
them."""
CONFIRM_TIMEOUT_S = 10
"""How long `confirm` listens for the answer (whole seconds)."""
GREETING_S = 1.5
"""Before the first trial, the room is quiet this long after the greeting."""


class EchoUnavailable(Exception):
    """What the echo set needs is missing here (Piper, numpy, a voice); the message says what
    to install."""


class EchoFailed(Exception):
    """A conversation did not start, or a trial did not finish in time."""


@attrs.frozen
class Mark:
    """Something that happened to a trial's line, seconds from the trial's start."""

    kind: str  # paused, resumed, stopped
    at_s: float


@attrs.frozen
class HeardAt:
    """A line handed to the agent and when it came back, seconds from the trial's start."""

    text: str
    at_s: float
    stamp_s: int | None = None
    """The whole second of the capture clock the line starts at, as the wait rendered it."""
    start_ms: int | None = None
    """Where it starts on the capture clock, from raw.jsonl, once the trials are known."""


@attrs.frozen
class TrialRun:
    """One trial as played: its place in the set, its observation for the scoring, and its
    times (seconds from the trial's start) for the timeline."""

    place: Place
    round: int
    trial: Trial
    line_s: tuple[float, float] | None
    sound_s: tuple[float, float] | None
    marks: tuple[Mark, ...]
    heard: tuple[HeardAt, ...]
    session: str
    started_s: float = 0.0
    """When the trial started, monotonic seconds."""
    started_ms: int | None = None
    """Where it started on the listener's capture clock, None where the room cannot say."""


@attrs.frozen
class PlaceResult:
    """The set in one room: every trial and the score."""

    place: Place
    runs: tuple[TrialRun, ...]
    score: EchoScore
    warnings: tuple[str, ...]


def load_phrases() -> Phrases:
    """Piper's voice for the person's sounds (EchoUnavailable without it)."""
    try:
        from assist.mcp.demo.rooms.voiced import Phrases
    except ImportError as error:
        raise EchoUnavailable(
            f"the echo set is voiced by Piper with numpy, which cannot be imported here "
            f"({error}); install assist-mcp[demo] (the workspace has it)"
        ) from None
    try:
        return Phrases()
    except (ImportError, OSError, LookupError) as error:
        raise EchoUnavailable(
            f"Piper's voice cannot load here ({error}); install assist-voice-piper, which "
            "brings its bundled voice"
        ) from None


def run_echo(
    echo_set: EchoSet,
    phrases: Phrases,
    engine: str,
    workdir: Path,
    environ: Mapping[str, str],
    told: Callable[[TrialRun], None] = lambda run: None,
) -> tuple[list[PlaceResult], list[tuple[Place, str]]]:
    """Every room of the set in turn: the results, and the rooms that failed with why."""
    cast = _Cast(phrases, engine, environ, told)
    results: list[PlaceResult] = []
    failures: list[tuple[Place, str]] = []
    for place in (PLACES[name] for name in echo_set.rooms):
        runs: list[TrialRun] = []
        warnings: list[str] = []
        try:
            for first in range(0, echo_set.rounds, ROUNDS_PER_CONVERSATION):
                rounds = range(first, min(echo_set.rounds, first + ROUNDS_PER_CONVERSATION))
                folder = workdir / f"{place.room}-{first + 1}"
                warnings += _conversation(folder, place, rounds, cast, runs)
        except (EchoFailed, RoomUnavailable, ServerGone, RuntimeError, OSError) as error:
            failures.append((place, str(error)))
            continue
        score = score_echo([run.trial for run in runs])
        results.append(PlaceResult(place, tuple(runs), score, tuple(dict.fromkeys(warnings))))
    return results, failures


@attrs.frozen
class _Cast:
    """What every conversation of a run shares: the person's voice, the assistant's engine,
    the environment, and who is told of each trial."""

    phrases: Phrases
    engine: str
    environ: Mapping[str, str]
    told: Callable[[TrialRun], None]


def _conversation(
    folder: Path, place: Place, rounds: range, cast: _Cast, runs: list[TrialRun]
) -> list[str]:
    """One conversation's rounds in `place`, appended to `runs`; its listener's warnings."""
    folder.mkdir(parents=True, exist_ok=True)
    room = open_room(place, folder, cast.environ)
    settings = {
        "assistant": {"enabled": True, "name": "Claude"},
        "voice": {"engine": cast.engine},
        "conversation": {"fillers": False},
    }
    try:
        talk = Conversation(folder, settings, room.env, command=("mcp",))
    except BaseException:
        room.close()
        raise
    played: list[TrialRun] = []
    try:
        _settle_greeting(talk, room)
        for number in rounds:
            for kind in KINDS:
                played.append(_trial(kind, number, place, talk, room, cast.phrases))
        for run in by_span(played, line_starts(talk.folder / "raw.jsonl")):
            runs.append(run)
            cast.told(run)
        return _warnings(talk.folder)
    finally:
        try:
            talk.close()
        finally:
            room.close()


def _trial(
    kind: Kind, number: int, place: Place, talk: Conversation, room: EchoRoom, phrases: Phrases
) -> TrialRun:
    """Play one trial and read what became of it."""
    from assist.mcp.demo.rooms.voiced import RATE_HZ, cough

    clock = _Clock()
    started_ms = room.clock_ms(clock.started)
    before = len(talk.events())
    person, sound, wanted, answered = "", None, None, None
    line: tuple[float, float] | None = None
    sound_s: tuple[float, float] | None = None
    stopped = False
    heard: list[HeardAt] = []
    said: tuple[str, ...]
    if kind == "back_to_back":
        said = BACK_TO_BACK[number % len(BACK_TO_BACK)]
        first: float | None = None
        for text in said:
            call = _Call(talk, "speak", {"text": text})
            if first is None:
                first = _first_heard(room, clock.started)
            stopped = stopped or bool(call.result().get("interrupted"))
        assert first is not None
        line = (clock.since(first), clock.now())
    elif kind == "answer":
        question, person, wanted = QUESTIONS[number % len(QUESTIONS)]
        said = (question,)
        sound = phrases(person)
        outcome = _Call(talk, "confirm", {"question": question, "timeout_s": CONFIRM_TIMEOUT_S})
        first = _first_heard(room, clock.started)
        ended = _spoken(talk, before)
        line = (clock.since(first), clock.since(ended))
        time.sleep(max(0.0, ended + ANSWER_AFTER_S - time.monotonic()))
        at = room.play(sound)
        sound_s = (clock.since(at), clock.since(at) + len(sound) / RATE_HZ)
        result = outcome.result()
        answered = str(result.get("answer"))
        heard = [_heard(rendered, clock) for rendered in result["heard"]]
    else:
        said = (REPLIES[number % len(REPLIES)],)
        if kind == "cough":
            sound = cough(number)
        elif kind == "backchannel":
            person = BACKCHANNELS[number % len(BACKCHANNELS)]
            sound = phrases(SAID_AS.get(person, person))
        elif kind == "interruption":
            person = INTERRUPTIONS[number % len(INTERRUPTIONS)]
            sound = phrases(person)
        outcome = _Call(talk, "speak", {"text": said[0]})
        first = _first_heard(room, clock.started)
        if sound is not None:
            time.sleep(max(0.0, first + INTO_S - time.monotonic()))
            at = room.play(sound)
            sound_s = (clock.since(at), clock.since(at) + len(sound) / RATE_HZ)
        result = outcome.result()
        stopped = bool(result.get("interrupted"))
        line = (clock.since(first), clock.now())
    heard += _settle(talk, clock, words_due=kind == "interruption")
    marks = _marks(talk.events()[before:], clock)
    pauses = [mark.at_s for mark in marks if mark.kind == "paused"]
    to_pause = [at - sound_s[0] for at in pauses if at >= sound_s[0]] if sound_s else []
    trial = Trial(
        kind=kind,
        said=tuple(said),
        person=person,
        heard=tuple(found.text for found in heard),
        paused=bool(pauses),
        resumed=any(mark.kind == "resumed" for mark in marks),
        stopped=stopped,
        to_pause_s=to_pause[0] if to_pause else None,
        wanted=wanted,
        answered=answered,
    )
    return TrialRun(
        place,
        number + 1,
        trial,
        line,
        sound_s,
        tuple(marks),
        tuple(heard),
        str(talk.folder),
        clock.started,
        started_ms,
    )


class _Clock:
    """A trial's clock: seconds since it started, from monotonic or wall-clock moments."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self._wall = time.time()

    def now(self) -> float:
        return time.monotonic() - self.started

    def since(self, monotonic: float) -> float:
        return monotonic - self.started

    def since_wall(self, wall: float) -> float:
        return wall - self._wall


class _Call:
    """A tool called on its own thread, so the room can be played while it runs."""

    def __init__(self, talk: Conversation, tool: str, arguments: dict[str, Any]) -> None:
        self._tool = tool
        self._result: dict[str, Any] = {}
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._call, args=(talk, arguments), daemon=True)
        self._thread.start()

    def _call(self, talk: Conversation, arguments: dict[str, Any]) -> None:
        try:
            self._result = talk.tool(self._tool, arguments)
        except BaseException as error:  # handed to the trial, which reports it
            self._error = error

    def result(self) -> dict[str, Any]:
        self._thread.join(timeout=LINE_WITHIN_S)
        if self._thread.is_alive():
            raise EchoFailed(f"{self._tool} did not return within {LINE_WITHIN_S:.0f} s")
        if self._error is not None:
            raise EchoFailed(f"{self._tool} failed: {self._error}")
        return self._result


def _first_heard(room: EchoRoom, after: float) -> float:
    """When the voice was first heard after `after` (monotonic)."""
    deadline = time.monotonic() + VOICE_WITHIN_S
    while room.assistant_heard_at <= after:
        if time.monotonic() > deadline:
            raise EchoFailed(f"the voice was not heard within {VOICE_WITHIN_S:.0f} s")
        time.sleep(0.005)
    return room.assistant_heard_at


def _spoken(talk: Conversation, before: int) -> float:
    """When the line being said finished: its `spoke` entry appears in the log (it is written as
    the line ends), looked for every 10 ms from the log's entry `before`."""
    deadline = time.monotonic() + LINE_WITHIN_S
    while not any(entry.get("event") == "spoke" for entry in talk.events()[before:]):
        if time.monotonic() > deadline:
            raise EchoFailed(f"the question did not end within {LINE_WITHIN_S:.0f} s")
        time.sleep(0.01)
    return time.monotonic()


def _settle(talk: Conversation, clock: _Clock, words_due: bool = False) -> list[HeardAt]:
    """What reaches the agent after the trial: waits until one brings nothing, or, where the
    person's words are due (an interruption), until one brings nothing after a line came or
    WORDS_WITHIN_S passed without one."""
    found: list[HeardAt] = []
    deadline = time.monotonic() + WORDS_WITHIN_S
    brought = 0
    while brought < MAX_WAITS:
        waited = talk.tool("wait_for_transcript", {"timeout_s": SETTLE_S})
        found += [_heard(line, clock) for line in waited["lines"]]
        if waited.get("status", "live") != "live":
            break
        if waited["lines"]:
            brought += 1
        elif found or not words_due or time.monotonic() > deadline:
            break
    return found


def _settle_greeting(talk: Conversation, room: EchoRoom) -> None:
    """Let the greeting play out and take whatever of it reached the agent, before trial one."""
    deadline = time.monotonic() + LINE_WITHIN_S
    while not room.quiet_for(GREETING_S) and time.monotonic() < deadline:
        time.sleep(0.05)
    _settle(talk, _Clock())


def _marks(entries: Sequence[dict[str, Any]], clock: _Clock) -> list[Mark]:
    names = {"paused": "paused", "resumed": "resumed", "barge_in": "stopped"}
    return [
        Mark(
            names[entry["event"]], clock.since_wall(datetime.fromisoformat(entry["at"]).timestamp())
        )
        for entry in entries
        if entry.get("event") in names and "at" in entry
    ]


def _heard(rendered: str, clock: _Clock) -> HeardAt:
    return HeardAt(_words(rendered), clock.now(), stamp_s(rendered))


def _words(rendered: str) -> str:
    """A line as a wait renders it (`[00:12] room: words`, `assist.core.lines`), its words."""
    return rendered.split("] ", 1)[-1].split(": ", 1)[-1]


def _wall(stamp: str) -> float:
    return datetime.fromisoformat(stamp).timestamp()


def _warnings(folder: Path) -> list[str]:
    try:
        meta = json.loads((folder / "session.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [str(warning) for warning in meta.get("warnings", [])]


def voice_engine(environ: Mapping[str, str], wanted: str | None = None) -> str:
    """The offline voice the assistant speaks with, `wanted` or the best one ready
    (EchoUnavailable when there is none)."""
    from assist.mcp.demo.voice_choice import NoVoice, demo_engine

    try:
        return demo_engine(environ, wanted)
    except NoVoice as error:
        raise EchoUnavailable(str(error)) from None
