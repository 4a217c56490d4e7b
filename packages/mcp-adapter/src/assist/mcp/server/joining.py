"""Joining (behaviour 3.4 step 5, 13): holding a new meeting or conversation and saying its
notice or greeting, which every new watch does before anything else.

`watch_meeting` joins the meeting being recorded; `start_conversation` starts our own listener
and holds its session; both hold the new meeting through `hold`, which starts the beat, logs
`joined` and says the notice (a conversation's greeting), and leaves again when it cannot be
said. Like `waiting`, it reaches into the `Watcher` for its meeting.
"""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import mcp_types as types
from assist.core import consent, meeting_log, refusals, results
from assist.core.ceilings import Ceilings
from assist.core.consent import LeaveReason
from assist.core.conversation import greeting_text
from assist.core.echo import Said
from assist.core.files import LOCK_WAIT_S, RAW_FILE
from assist.core.fillers import Fillers
from assist.core.gate import Gate
from assist.core.lines import render
from assist.core.settings import Settings, VoiceSettings
from assist.mcp.server import leaving, speaking
from assist.mcp.server.barge_in import BargeIn, SignalSocket
from assist.mcp.server.conversation import NO_CAP, Conversation
from assist.mcp.server.held_meeting import HeldMeeting
from assist.mcp.server.tools import refusal, result
from assist.mcp.speech.listener_process import ListenerError, ListenerProcess
from assist.mcp.speech.supervisor import VoiceFailure
from assist.mcp.store.heartbeat import Beat
from assist.mcp.store.lock import LockBusy
from assist.mcp.store.meeting_log_file import MeetingLogFile, now
from assist.mcp.store.session_files import SessionRefusal
from assist.mcp.store.transcript import TranscriptReader

if TYPE_CHECKING:
    from assist.mcp.server.watch import Watcher

RECENT_LINES = 40
"""Lines of context `watch_meeting` returns: enough to follow the topic, few enough to read."""
NOTICE_EMOTION = "warm"
"""The consent notice is said warmly (3.4 step 5.7)."""


async def watch_meeting(watcher: Watcher, arguments: dict[str, Any]) -> types.CallToolResult:
    settings = await anyio.to_thread.run_sync(watcher.load_settings)
    if watcher._closed:
        return refusal(refusals.shutting_down())
    if not settings.assistant.enabled:
        await leaving.leave(watcher, LeaveReason.OFF_AT_WATCH)
        return refusal(refusals.off_refusal(watcher._config.ambient))
    asked = arguments.get("session")
    now = watcher._wall()
    live = await anyio.to_thread.run_sync(watcher._store.live_session, now)
    if not (isinstance(asked, str) and asked):
        if live is None:
            return refusal(refusals.no_recording())
        asked = live
    if asked != live:
        return refusal(refusals.not_live(asked))
    held = (
        watcher._meeting if watcher._meeting is not None and watcher._meeting.id == asked else None
    )
    try:
        folder = watcher._store.session_dir(asked, now)
        reader = held.reader if held is not None else TranscriptReader(folder / RAW_FILE)
        lines, next_line = await anyio.to_thread.run_sync(reader.read, 0)
    except (SessionRefusal, OSError) as error:
        return refusal(refusals.transcript_unreadable(asked, str(error)))
    meeting = held
    if meeting is None:
        await leaving.leave(watcher, LeaveReason.REPLACED)
        meeting, failure = await _join(watcher, asked, folder, reader, next_line, settings)
        if failure is not None:
            return refusal(refusals.notice_failed(failure))
        if settings.barge_in and watcher._meeting is meeting:
            meeting.barge_in = BargeIn(True, meeting)
            meeting.signals = await anyio.to_thread.run_sync(
                SignalSocket.open, folder, meeting.barge_in
            )
    await watcher._record_call(meeting)
    await watcher._catch_up(meeting, settings)
    kept = [line for line in lines if line.text.strip()]
    recent_lines = [render(line) for line in kept[-RECENT_LINES:]]
    return result(
        results.watching(meeting.id, settings.assistant, meeting.notice, recent_lines, meeting.gate)
    )


async def _join(
    watcher: Watcher,
    session: str,
    folder: Path,
    reader: TranscriptReader,
    cursor: int,
    settings: Settings,
) -> tuple[HeldMeeting, str | None]:
    """3.4 step 5: hold a new meeting and say the notice; the failure reason, if any."""
    rules = settings.assistant
    meeting = HeldMeeting(
        id=session,
        folder=folder,
        reader=reader,
        log=log_file(watcher, folder),
        gate=Gate(rules.cooldown_s, rules.max_per_meeting),
        notice=consent.notice_text(rules.name),
        cursor=cursor,
    )
    return meeting, await hold(watcher, meeting, settings)


def log_file(watcher: Watcher, folder: Path) -> MeetingLogFile:
    return MeetingLogFile(folder)


async def hold(watcher: Watcher, meeting: HeldMeeting, settings: Settings) -> str | None:
    """Hold `meeting`: the beat, `joined`, the notice (a conversation's greeting); None,
    or why the notice could not be said (the meeting is then left)."""
    watcher._meeting = meeting
    watcher._lifecycle = watcher._lifecycle.join()
    await watcher._record_call(meeting)
    meeting.beat = Beat(
        watcher._heartbeat,
        claim=lambda: (meeting.id, meeting.state),
        activity=lambda: (watcher._calls > 0, watcher._last_call_end),
        interval=watcher._beat_s,
        clock=watcher._clock,
    )
    meeting.beat.start()
    await watcher._append(meeting, meeting_log.joined(now(), watcher._pid, meeting.notice))
    failure = await _say_notice(watcher, meeting, settings.voice)
    if failure is None and watcher._meeting is not meeting:
        return refusals.stopped_during_notice()
    if failure is not None:
        await watcher._append(meeting, meeting_log.notice_error(now(), watcher._pid, failure))
        await leaving.leave(watcher, LeaveReason.NOTICE_FAILED)
        return failure
    watcher._lifecycle = watcher._lifecycle.notice_spoken()
    return None


async def _say_notice(
    watcher: Watcher, meeting: HeldMeeting, voice_settings: VoiceSettings
) -> str | None:
    """Build the voice, take the floor, say the notice; None, or why it could not be said."""
    try:
        meeting.voice = watcher._voice_factory(voice_settings)
    except Exception as error:
        return refusals.voice_not_set_up(str(error))
    try:
        await anyio.to_thread.run_sync(watcher._floor.acquire, "assistant", LOCK_WAIT_S)
    except LockBusy as busy:
        return refusals.notice_floor_busy(busy.who, busy.pid, LOCK_WAIT_S)
    except OSError as error:
        return refusals.notice_floor_unavailable(str(error))
    talk = meeting.conversation
    try:
        await watcher._set_state(meeting, "speaking")
        meeting.line_done = anyio.Event()
        speaking.line_started(meeting)
        try:
            await anyio.to_thread.run_sync(meeting.voice.say, meeting.notice, NOTICE_EMOTION)
        except VoiceFailure as failure:
            return ": ".join(failure.chain)
        finally:
            meeting.line_done.set()
            speaking.line_stopped(meeting)
        if talk is not None:  # a greeting is tested as an utterance, not as a notice
            meeting.utterances.append(Said(meeting.notice, watcher._clock()))
        else:
            meeting.notice_said = Said(meeting.notice, watcher._clock())
    finally:
        await anyio.to_thread.run_sync(watcher._floor.release)
        await watcher._set_state(meeting, "listening")
    return None


async def start_conversation(watcher: Watcher) -> types.CallToolResult:
    """13: start our listener, greet the user, and hold the conversation as a watch."""
    settings = await anyio.to_thread.run_sync(watcher.load_settings)
    if watcher._closed:
        return refusal(refusals.shutting_down())
    if not settings.assistant.enabled:
        await leaving.leave(watcher, LeaveReason.OFF_AT_WATCH)
        return refusal(refusals.off_refusal(watcher._config.ambient))
    await leaving.leave(watcher, LeaveReason.REPLACED)
    watcher._ended = None
    rules = settings.conversation
    conversation = Conversation(
        ceilings=Ceilings(time.monotonic(), rules.max_s, rules.idle_s),
        fillers=Fillers(random.Random()) if rules.fillers else None,
        barge_in=BargeIn(settings.barge_in),
    )

    def listen() -> ListenerProcess:
        listener = ListenerProcess(
            watcher._store.root, rules.end_silence_ms, conversation.on_event, watcher._environ
        )
        try:
            listener.wait_capturing()
        except ListenerError:
            listener.kill()
            raise
        return listener

    try:
        listener = await anyio.to_thread.run_sync(listen)
    except ListenerError as error:
        return refusal(refusals.listener_failed(str(error)))
    conversation.listener = listener
    assert listener.session_id is not None and listener.folder is not None
    greeting = greeting_text(settings.assistant.name)
    meeting = HeldMeeting(
        id=listener.session_id,
        folder=listener.folder,
        reader=TranscriptReader(listener.folder / RAW_FILE),
        log=log_file(watcher, listener.folder),
        gate=Gate(0, NO_CAP),
        notice=greeting,
        cursor=0,
        conversation=conversation,
        barge_in=conversation.barge_in,
    )
    conversation.barge_in.meeting = meeting
    failure = await hold(watcher, meeting, settings)
    if failure is not None:
        return refusal(refusals.greeting_failed(failure))
    with conversation.lock:
        conversation.ceilings = Ceilings(time.monotonic(), rules.max_s, rules.idle_s)
    return result(
        results.conversation_started(
            meeting.id, settings.assistant, greeting, rules.max_s, rules.idle_s
        )
    )
