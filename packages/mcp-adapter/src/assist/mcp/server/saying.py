"""Saying a line (behaviour 3.4 step 5.7, 3.6, 13, 14): the one path every line of the watch
takes once it holds the floor (`say`), and the way to it for a line the agent asks for
(`speak_line`: the gate, the floor, the gate again; its outcome `Turned` or `Delivered`).

What differs between lines is their kind, and `WAYS` says what each kind means, so the rules
read as a table: whether the gate counts it and the log shows it as an utterance (`speaking`,
then `spoke` or `error`), which also means it is cut off when the assistant is switched off
while it plays; whether it is the server's own (logged `filler`); whether it opens the watch
(remembered for the echo test only once said, the heartbeat back to `listening` only once
the floor is given back, by the join). Every line tells the conversation and the barge-in
when it starts and stops, so the user can cut any of them off.
"""

from __future__ import annotations

import enum
import uuid
from typing import Any

import anyio
import attrs
from assist.app.logs import log
from assist.app.store.lock import LockBusy
from assist.core import meeting_log, refusals
from assist.core.consent import LeaveReason
from assist.core.echo import Said
from assist.core.files import LOCK_WAIT_S
from assist.core.speech import SpeechOk
from assist.mcp.server.barge_in import LineEnd
from assist.mcp.server.desk import Desk
from assist.mcp.server.held_meeting import Activity, HeldMeeting, Leave, Watched
from assist.mcp.server.playing import play
from assist.mcp.speech.supervisor import SayResult, Voice, VoiceFailure


class Kind(enum.Enum):
    """Which line it is."""

    NOTICE = "notice"  # the consent notice a watch of a meeting opens with (3.4)
    GREETING = "greeting"  # the greeting a conversation opens with (13)
    LINE = "line"  # the agent's `speak` (3.6)
    QUESTION = "question"  # the agent's `confirm` (14.1)
    FILLER = "filler"  # the server's own while the agent works in silence (13)
    GOODBYE = "goodbye"  # the server's own when a ceiling ends a conversation (13)


@attrs.frozen
class Way:
    """What saying a line of one kind involves."""

    utterance: bool
    """Counted by the gate, logged `speaking` then `spoke` or `error`, cut off when the
    assistant is switched off while it plays (3.6, 5.3, 14.1)."""
    own: bool
    """The server's own words in a conversation, logged as `filler` (13)."""
    opening: bool
    """A watch's first words: tested for echoes only once said, as the notice or (in a
    conversation) as an utterance (6.3); the join puts the heartbeat back to `listening`."""


WAYS = {
    Kind.NOTICE: Way(utterance=False, own=False, opening=True),
    Kind.GREETING: Way(utterance=False, own=False, opening=True),
    Kind.LINE: Way(utterance=True, own=False, opening=False),
    Kind.QUESTION: Way(utterance=True, own=False, opening=False),
    Kind.FILLER: Way(utterance=False, own=True, opening=False),
    Kind.GOODBYE: Way(utterance=False, own=True, opening=False),
}


@attrs.frozen
class Spoken:
    """The line was played (perhaps cut off); `through` is, for a question, how many lines
    the transcript held when it ended (an answer comes after them), and `asked_ms` the
    listener's capture clock then, when its signals tell it (a line starting before began
    while the question played, 14.1)."""

    audio_s: float
    cut_off: bool
    interrupted: bool
    switched_off: bool
    through: int | None = None
    asked_ms: int | None = None
    paused_ms: int | None = None
    """How long a loud onset held the line paused, in all (16.3); None when it never paused."""


@attrs.frozen
class Broken:
    """The voice failed; `chain` says why, outermost first."""

    chain: tuple[str, ...]
    switched_off: bool

    @property
    def reason(self) -> str:
        return ": ".join(self.chain)


async def say(
    desk: Desk, meeting: HeldMeeting, text: str, emotion: str, kind: Kind
) -> Spoken | Broken:
    """Say `text` on the meeting's voice, which holds the floor, and keep the books `kind`
    asks for.

    Until its first await it only changes memory, so a `stop_watching` arriving later finds
    the line counted (its `left` says so) and waits for `line_done` before it closes the
    voice."""
    voice = meeting.voice
    assert voice is not None
    way = WAYS[kind]
    said: Said | None = None
    if way.utterance:
        meeting.gate.started(desk.clock())
    if not way.opening:
        said = Said(text, None)
        meeting.utterances.append(said)
    meeting.line_done = anyio.Event()
    try:
        if way.own:
            await meeting.append(_own_event(desk, text, kind))
        await meeting.set_state(Activity.SPEAKING)
        utterance = uuid.uuid4().hex
        if way.utterance:
            event = meeting_log.speaking(desk.stamp(), desk.pid, utterance, text, emotion)
            await meeting.append(event)
        handed_at = desk.clock()
        _started(meeting, voice)
        try:
            if way.utterance:
                line = SpeechOk(text, emotion)
                outcome, switched_off = await play(
                    voice,
                    line,
                    left=meeting.left,
                    poll_s=desk.pacing.poll_s,
                    load_settings=desk.load_settings,
                )
            else:
                outcome, switched_off = await _plain(voice, text, emotion), False
        finally:
            heard = _stopped(meeting)
        through = asked_ms = None
        if kind is Kind.QUESTION:  # where the answer may begin
            if meeting.barge_in is not None:
                asked_ms = meeting.barge_in.capture_ms(desk.clock())
            _, through = await anyio.to_thread.run_sync(meeting.reader.read, meeting.cursor)
        took_ms = round((desk.clock() - handed_at) * 1000)
        _ended(desk, meeting, kind, text, said, failed=isinstance(outcome, VoiceFailure))
    finally:
        meeting.line_done.set()
    if isinstance(outcome, VoiceFailure):
        said_as: Spoken | Broken = Broken(tuple(outcome.chain), switched_off)
    else:
        cut_by_user = heard.interrupted and outcome.cut_off
        said_as = Spoken(
            outcome.audio_s,
            outcome.cut_off,
            cut_by_user,
            switched_off,
            through,
            asked_ms,
            heard.paused_ms,
        )
    if way.utterance:
        await meeting.append(_closing_event(desk, utterance, text, emotion, outcome, took_ms))
    elif way.own and isinstance(said_as, Broken):
        log.warning(f"the {kind.value} could not be said: {said_as.reason}")
    if not (switched_off or way.opening):
        await meeting.set_state(Activity.LISTENING)
    return said_as


def _ended(
    desk: Desk, meeting: HeldMeeting, kind: Kind, text: str, said: Said | None, *, failed: bool
) -> None:
    """The line is over: the gate's cooldown runs from now, and the echo test knows when it
    ended."""
    ended = desk.clock()
    if WAYS[kind].utterance:
        meeting.gate.ended(ended)
    if said is not None:
        meeting.utterances = [
            Said(item.text, ended) if item is said else item for item in meeting.utterances
        ]
    elif failed:
        return  # an opening line never heard cannot come back as an echo
    elif kind is Kind.GREETING:  # a greeting is tested as an utterance, not as a notice
        meeting.utterances.append(Said(text, ended))
    else:
        meeting.notice_said = Said(text, ended)


def _closing_event(
    desk: Desk,
    utterance: str,
    text: str,
    emotion: str,
    outcome: SayResult | VoiceFailure,
    took_ms: int,
) -> dict[str, Any]:
    """The event that closes an utterance's `speaking`: `spoke`, or `error` at stage `voice`."""
    if isinstance(outcome, VoiceFailure):
        message = ": ".join(outcome.chain)
        return meeting_log.voice_error(desk.stamp(), desk.pid, utterance, text, message)
    return meeting_log.spoke(
        desk.stamp(),
        desk.pid,
        utterance,
        text,
        emotion,
        first_audio_ms=outcome.first_audio_ms,
        audio_s=outcome.audio_s,
        took_ms=took_ms,
        cut_off=outcome.cut_off,
    )


async def _plain(voice: Voice, text: str, emotion: str) -> SayResult | VoiceFailure:
    """A line that plays to its end, unless the user cuts it off."""
    try:
        return await anyio.to_thread.run_sync(voice.say, text, emotion)
    except VoiceFailure as failure:
        return failure


def _started(meeting: HeldMeeting, voice: Voice) -> None:
    """A line of the assistant begins: no idle time, and the user may cut it off."""
    if meeting.conversation is not None:
        meeting.conversation.assistant_started()
    if meeting.barge_in is not None:
        meeting.barge_in.started(voice, meeting.log)


def _stopped(meeting: HeldMeeting) -> LineEnd:
    """The line is over; whether a barge-in cut it, and how long it paused."""
    if meeting.conversation is not None:
        meeting.conversation.assistant_stopped()
    return meeting.barge_in.stopped() if meeting.barge_in is not None else LineEnd()


def _own_event(desk: Desk, text: str, kind: Kind) -> dict[str, Any]:
    """The log event of a line the server said itself: `filler`, or a `filler` marked goodbye."""
    event = meeting_log.filler(desk.stamp(), desk.pid, text)
    if kind is not Kind.FILLER:
        event["kind"] = kind.value
    return event


@attrs.frozen
class Turned:
    """The line was not said; `why` is what the agent reads."""

    why: str


@attrs.frozen
class Delivered:
    """The line was said in `meeting`."""

    meeting: HeldMeeting
    spoken: Spoken


async def speak_line(
    desk: Desk, watched: Watched, leave: Leave, line: SpeechOk, kind: Kind
) -> Turned | Delivered:
    """A checked line: the gate, then the floor (waited for up to `LOCK_WAIT_S`), the gate
    again, then `say`."""
    settings = await anyio.to_thread.run_sync(desk.load_settings)
    if not settings.assistant.enabled:
        await leave(LeaveReason.SWITCHED_OFF)
        return Turned(refusals.off_refusal(desk.config.ambient))
    meeting = watched()
    if meeting is None:
        return Turned(refusals.not_watching())
    if meeting.conversation is not None:
        meeting.conversation.agent_called()
    await meeting.record_call()
    await meeting.catch_up(settings)
    hold = meeting.gate.may_speak(desk.clock())
    if hold is not None:
        return Turned(refusals.held(hold.text))
    async with desk.floor.take(LOCK_WAIT_S) as refused:
        if isinstance(refused, LockBusy):
            return Turned(refusals.lock_busy(refused.who, refused.pid))
        if refused is not None:
            return Turned(refusals.floor_unavailable(str(refused)))
        await meeting.catch_up(settings)
        hold = meeting.gate.may_speak(desk.clock())
        if hold is not None:
            return Turned(refusals.held(hold.text))
        if watched() is not meeting:  # stopped while this call queued
            return Turned(refusals.not_watching())
        said = await say(desk, meeting, line.text, line.emotion, kind)
        if said.switched_off:
            await leave(LeaveReason.SWITCHED_OFF)
            return Turned(refusals.off_refusal(desk.config.ambient))
        if isinstance(said, Broken):
            return Turned(refusals.voice_failed(said.chain))
        return Delivered(meeting, said)
