"""Speaking a line (3.6): `speak`, and every line the watch says with the floor and the log
around it.

A line is checked, waits its turn for the floor (this server's lines queue on one lock, other
processes on the speaking lock), is logged `speaking`, counted by the gate and tested as an
utterance for echoes, played (cut off when the assistant is switched off or the user barges
in) and logged with its outcome. `confirm` says its question through `speak_line`, and a
conversation its fillers and goodbye through `say_own`. Kept apart from the watch so the path
of a line reads on its own; like `waiting`, it reaches into the `Watcher` for its meeting.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import anyio
import mcp_types as types
from assist.core import meeting_log, refusals, results
from assist.core.consent import LeaveReason
from assist.core.echo import Said
from assist.core.files import LOCK_WAIT_S
from assist.core.speech import Refusal, SpeechOk, check_speech
from assist.mcp.logs import log
from assist.mcp.server import conversation, leaving
from assist.mcp.server.playing import play
from assist.mcp.server.tools import refusal, result
from assist.mcp.speech.supervisor import VoiceFailure
from assist.mcp.store.lock import LockBusy
from assist.mcp.store.meeting_log_file import now

if TYPE_CHECKING:
    from assist.mcp.server.held_meeting import HeldMeeting
    from assist.mcp.server.watch import Watcher

LineEnded = Callable[["HeldMeeting"], Awaitable[None]]


async def speak(watcher: Watcher, arguments: dict[str, Any]) -> types.CallToolResult:
    """3.6: say one line in the room, if the gate and the floor allow it."""
    checked = check_speech(arguments.get("text"), arguments.get("emotion"))
    if isinstance(checked, Refusal):
        return refusal(checked.text)
    async with watcher._watching_call():
        with anyio.CancelScope(shield=True):
            answer = await speak_line(watcher, checked)
    return answer


async def speak_line(
    watcher: Watcher, line: SpeechOk, on_ended: LineEnded | None = None
) -> types.CallToolResult:
    """A checked line: the gate, then this server's turn and the floor (each waited for up to
    `LOCK_WAIT_S` in all), the gate again, then `_say_line`."""
    settings = await anyio.to_thread.run_sync(watcher.load_settings)
    if not settings.assistant.enabled:
        await leaving.leave(watcher, LeaveReason.SWITCHED_OFF)
        return refusal(refusals.off_refusal(watcher._config.ambient))
    meeting = watcher._watched()
    if meeting is None:
        return refusal(refusals.not_watching())
    if meeting.conversation is not None:
        meeting.conversation.agent_called()
    await watcher._record_call(meeting)
    await watcher._catch_up(meeting, settings)
    hold = meeting.gate.may_speak(watcher._clock())
    if hold is not None:
        return refusal(refusals.held(hold.text))
    asked_at = watcher._clock()
    queued = False
    with anyio.move_on_after(LOCK_WAIT_S):
        await watcher._speaking.acquire()
        queued = True
    if not queued:  # a line of this server kept the floor for the whole wait
        return refusal(refusals.lock_busy("assistant", watcher._pid))
    try:
        wait = max(0.0, LOCK_WAIT_S - (watcher._clock() - asked_at))
        try:
            await anyio.to_thread.run_sync(watcher._floor.acquire, "assistant", wait)
        except LockBusy as busy:
            return refusal(refusals.lock_busy(busy.who, busy.pid))
        except OSError as error:
            return refusal(refusals.floor_unavailable(str(error)))
        try:
            await watcher._catch_up(meeting, settings)
            hold = meeting.gate.may_speak(watcher._clock())
            if hold is not None:
                return refusal(refusals.held(hold.text))
            if watcher._watched() is not meeting:  # stopped while this call queued
                return refusal(refusals.not_watching())
            return await _say_line(watcher, meeting, line, on_ended)
        finally:
            await anyio.to_thread.run_sync(watcher._floor.release)
    finally:
        watcher._speaking.release()


async def _say_line(
    watcher: Watcher,
    meeting: HeldMeeting,
    line: SpeechOk,
    on_ended: LineEnded | None = None,
) -> types.CallToolResult:
    """3.6 steps 9-11: log, count, speak (cut off if switched off), log the outcome.

    `on_ended` runs as soon as the voice is done, before anything is logged (`confirm`
    marks there where the answer may begin).

    Called with the meeting watched. Until its first await it only changes memory, so a
    `stop_watching` arriving later finds the line counted (its `left` says so) and waits
    for `line_done` before it closes the voice.
    """
    voice = meeting.voice
    assert voice is not None
    utterance = uuid.uuid4().hex
    meeting.gate.started(watcher._clock())
    said = Said(line.text, None)
    meeting.utterances.append(said)
    meeting.line_done = anyio.Event()
    await watcher._set_state(meeting, "speaking")
    await watcher._append(
        meeting,
        meeting_log.speaking(now(), watcher._pid, utterance, line.text, line.emotion),
    )
    handed_at = time.monotonic()
    talk = meeting.conversation
    line_started(meeting)
    try:
        outcome, switched_off = await play(
            voice,
            line,
            left=meeting.left,
            poll_s=watcher._pacing.poll_s,
            load_settings=watcher.load_settings,
        )
    finally:
        interrupted = line_stopped(meeting)
    if on_ended is not None:
        await on_ended(meeting)
    took_ms = round((time.monotonic() - handed_at) * 1000)
    ended = watcher._clock()
    meeting.gate.ended(ended)
    meeting.utterances = [
        Said(item.text, ended) if item is said else item for item in meeting.utterances
    ]
    meeting.line_done.set()
    if isinstance(outcome, VoiceFailure):
        message = ": ".join(outcome.chain)
        event = meeting_log.voice_error(now(), watcher._pid, utterance, line.text, message)
        await watcher._append(meeting, event)
        if switched_off:
            await leaving.leave(watcher, LeaveReason.SWITCHED_OFF)
            return refusal(refusals.off_refusal(watcher._config.ambient))
        await watcher._set_state(meeting, "listening")
        return refusal(refusals.voice_failed(outcome.chain))
    event = meeting_log.spoke(
        now(),
        watcher._pid,
        utterance,
        line.text,
        line.emotion,
        first_audio_ms=outcome.first_audio_ms,
        audio_s=outcome.audio_s,
        took_ms=took_ms,
        cut_off=outcome.cut_off,
    )
    await watcher._append(meeting, event)
    if switched_off:
        await leaving.leave(watcher, LeaveReason.SWITCHED_OFF)
        return refusal(refusals.off_refusal(watcher._config.ambient))
    await watcher._set_state(meeting, "listening")
    return result(
        results.spoken(
            line.text,
            outcome.audio_s,
            meeting.gate if talk is None else None,
            cut_off=outcome.cut_off,
            interrupted=interrupted and outcome.cut_off,
        )
    )


def line_started(meeting: HeldMeeting) -> None:
    """A line of the assistant begins: no idle time, and the user may cut it off."""
    if meeting.conversation is not None:
        meeting.conversation.assistant_started()
    if meeting.barge_in is not None:
        meeting.barge_in.started()


def line_stopped(meeting: HeldMeeting) -> bool:
    """The line is over; whether a barge-in cut it."""
    if meeting.conversation is not None:
        meeting.conversation.assistant_stopped()
    return meeting.barge_in.stopped() if meeting.barge_in is not None else False


async def say_own(
    watcher: Watcher, meeting: HeldMeeting, text: str, emotion: str, *, kind: str
) -> None:
    """A line of the server's own in a conversation (a filler, the goodbye): said only
    when no other line holds the floor, logged as `filler`, tested for echoes (13)."""
    talk = meeting.conversation
    voice = meeting.voice
    if talk is None or voice is None or watcher._meeting is not meeting:
        return
    try:
        watcher._speaking.acquire_nowait()
    except anyio.WouldBlock:
        return  # the agent is speaking: its own words cover the silence
    try:
        try:
            await anyio.to_thread.run_sync(watcher._floor.acquire, "assistant", 0.5)
        except (LockBusy, OSError):
            return
        try:
            await watcher._append(meeting, conversation.filler_event(watcher._pid, text, kind))
            said = Said(text, None)
            meeting.utterances.append(said)
            meeting.line_done = anyio.Event()
            await watcher._set_state(meeting, "speaking")
            line_started(meeting)
            try:
                await anyio.to_thread.run_sync(voice.say, text, emotion)
            except VoiceFailure as failure:
                log.warning(f"the {kind} could not be said: {': '.join(failure.chain)}")
            finally:
                line_stopped(meeting)
                meeting.line_done.set()
                ended = watcher._clock()
                meeting.utterances = [
                    Said(item.text, ended) if item is said else item for item in meeting.utterances
                ]
            await watcher._set_state(meeting, "listening")
        finally:
            await anyio.to_thread.run_sync(watcher._floor.release)
    finally:
        watcher._speaking.release()
