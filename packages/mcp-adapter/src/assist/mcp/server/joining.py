"""Joining (behaviour 3.4 step 5, 13): holding a new meeting or conversation and saying its
notice or greeting, which every new watch does before anything else.

`watch_meeting` joins the meeting being recorded; `start_conversation` starts our own listener
and holds its session; both hold the new meeting through `hold`, which starts the beat, logs
`joined` and says the notice (a conversation's greeting), and leaves again when it cannot be
said. It is handed the desk and a `Seat`: what it needs of the watch.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import attrs
import mcp_types as types
from assist.app.store.heartbeat import Beat
from assist.app.store.lock import LockBusy
from assist.app.store.session_files import SessionRefusal
from assist.app.store.transcript import TranscriptReader
from assist.core import consent, meeting_log, refusals, results
from assist.core.ceilings import Ceilings
from assist.core.consent import LeaveReason
from assist.core.conversation import GREETING_TONE, greeting_text
from assist.core.files import LOCK_WAIT_S, RAW_FILE
from assist.core.fillers import Fillers
from assist.core.gate import Gate
from assist.core.lines import render
from assist.core.settings import Settings
from assist.mcp.server.barge_in import BargeIn, SignalSocket
from assist.mcp.server.conversation import NO_CAP, Conversation
from assist.mcp.server.desk import Desk
from assist.mcp.server.held_meeting import Activity, HeldMeeting, Leave
from assist.mcp.server.saying import Broken, Kind, say
from assist.mcp.server.tools import refusal, result
from assist.mcp.speech.listener_process import ListenerError, ListenerProcess
from assist.mcp.speech.meeting_reference import ReferenceRoute

RECENT_LINES = 40
"""Lines of context `watch_meeting` returns: enough to follow the topic, few enough to read."""


@attrs.frozen
class Seat:
    """What a join needs of the watch besides the desk."""

    held: HeldMeeting | None
    """The meeting the watch holds now, if any."""
    closed: Callable[[], bool]
    """The server is shutting down: nothing is joined. Asked afresh at each step, since a
    signal may land while a join waits for the listener or the disk."""
    leave: Leave
    hold: Callable[[HeldMeeting], None]
    """The watch holds this meeting from now on."""
    activity: Callable[[], tuple[bool, float | None]]
    """For the beat: a watching call is in flight, and when the last one ended (7)."""
    forget_ended: Callable[[], None]
    """A new conversation: the end of the one before need not be told any more."""


async def watch_meeting(desk: Desk, seat: Seat, arguments: dict[str, Any]) -> types.CallToolResult:
    """3.4: join the meeting being recorded, say the notice, hand back the latest lines."""
    settings = await anyio.to_thread.run_sync(desk.load_settings)
    if seat.closed():
        return refusal(refusals.shutting_down())
    if not settings.assistant.enabled:
        await seat.leave(LeaveReason.OFF_AT_WATCH)
        return refusal(refusals.off_refusal(desk.config.ambient))
    asked = arguments.get("session")
    now = desk.wall()
    live = await anyio.to_thread.run_sync(desk.store.live_session, now)
    if not (isinstance(asked, str) and asked):
        if live is None:
            return refusal(refusals.no_recording())
        asked = live
    if asked != live:
        return refusal(refusals.not_live(asked))
    held = seat.held if seat.held is not None and seat.held.id == asked else None
    try:
        folder = desk.store.session_dir(asked, now)
        reader = held.reader if held is not None else TranscriptReader(folder / RAW_FILE)
        lines, next_line = await anyio.to_thread.run_sync(reader.read, 0)
    except (SessionRefusal, OSError) as error:
        return refusal(refusals.transcript_unreadable(asked, str(error)))
    meeting = held
    if meeting is None:
        await seat.leave(LeaveReason.REPLACED)
        meeting, failure = await _join(desk, seat, asked, folder, reader, next_line, settings)
        if failure is not None:
            return refusal(refusals.notice_failed(failure))
        if settings.barge_in and meeting.held:
            meeting.barge_in = BargeIn(
                True, desk.stamp, desk.pid, desk.clock, settings.interruptions
            )
            meeting.signals = await anyio.to_thread.run_sync(
                SignalSocket.open, folder, meeting.barge_in
            )
    await meeting.record_call()
    await meeting.catch_up(settings)
    kept = [line for line in lines if line.text.strip()]
    recent_lines = [render(line) for line in kept[-RECENT_LINES:]]
    return result(
        results.watching(meeting.id, settings.assistant, meeting.notice, recent_lines, meeting.gate)
    )


async def _join(
    desk: Desk,
    seat: Seat,
    session: str,
    folder: Path,
    reader: TranscriptReader,
    cursor: int,
    settings: Settings,
) -> tuple[HeldMeeting, str | None]:
    """3.4 step 5: hold a new meeting and say the notice; the failure reason, if any. The
    voice goes to the recorder's canceller from the notice on, where it takes it (16.3)."""
    rules = settings.assistant
    meeting = HeldMeeting(
        desk=desk,
        id=session,
        folder=folder,
        reader=reader,
        log=desk.log_file(folder),
        gate=Gate(rules.cooldown_s, rules.max_per_meeting),
        notice=consent.notice_text(rules.name),
        cursor=cursor,
    )
    meeting.reference = await anyio.to_thread.run_sync(ReferenceRoute.open, folder)
    return meeting, await hold(desk, seat, meeting, settings)


async def hold(desk: Desk, seat: Seat, meeting: HeldMeeting, settings: Settings) -> str | None:
    """Hold `meeting`: the beat, `joined`, the notice (a conversation's greeting); None,
    or why the notice could not be said (the meeting is then left). A shutdown that came
    while the join was under way found nothing to leave, so it is left here, unsaid."""
    seat.hold(meeting)
    meeting.joined()
    await meeting.record_call()
    meeting.beat = Beat(
        desk.heartbeat,
        claim=lambda: (meeting.id, meeting.activity.value),
        activity=seat.activity,
        interval=desk.beat_s,
        clock=desk.clock,
    )
    meeting.beat.start()
    await meeting.append(meeting_log.joined(desk.stamp(), desk.pid, meeting.notice))
    if seat.closed():
        await seat.leave(LeaveReason.SHUTDOWN)
        return refusals.stopped_during_notice()
    failure = await _say_notice(desk, meeting, settings)
    if failure is None and not meeting.held:
        return refusals.stopped_during_notice()
    if failure is not None:
        await meeting.append(meeting_log.notice_error(desk.stamp(), desk.pid, failure))
        await seat.leave(LeaveReason.NOTICE_FAILED)
        return failure
    meeting.notice_spoken()
    return None


async def _say_notice(desk: Desk, meeting: HeldMeeting, settings: Settings) -> str | None:
    """Build the voice (a conversation's renders its own lines ahead, 16.2), take the floor,
    say the notice warmly, as a greeting is (3.4 step 5.7); None, or why it could not be
    said."""
    own_lines = settings.assistant.name if meeting.conversation is not None else None
    try:
        meeting.voice = desk.voice_factory(settings.voice, own_lines=own_lines)
    except Exception as error:
        return refusals.voice_not_set_up(str(error))
    kind = Kind.GREETING if meeting.conversation is not None else Kind.NOTICE
    spoke = False
    try:
        async with desk.floor.take(LOCK_WAIT_S) as refused:
            if isinstance(refused, LockBusy):
                return refusals.notice_floor_busy(refused.who, refused.pid, LOCK_WAIT_S)
            if refused is not None:
                return refusals.notice_floor_unavailable(str(refused))
            spoke = True
            said = await say(desk, meeting, meeting.notice, GREETING_TONE, kind)
            if isinstance(said, Broken):
                return said.reason
    finally:
        if spoke:  # back to listening once the floor is given back (3.4 step 5.7)
            await meeting.set_state(Activity.LISTENING)
    return None


async def start_conversation(desk: Desk, seat: Seat) -> types.CallToolResult:
    """13: start our listener, greet the user, and hold the conversation as a watch."""
    settings = await anyio.to_thread.run_sync(desk.load_settings)
    if seat.closed():
        return refusal(refusals.shutting_down())
    if not settings.assistant.enabled:
        await seat.leave(LeaveReason.OFF_AT_WATCH)
        return refusal(refusals.off_refusal(desk.config.ambient))
    await seat.leave(LeaveReason.REPLACED)
    seat.forget_ended()
    rules = settings.conversation
    conversation = Conversation(
        ceilings=Ceilings(desk.clock(), rules.max_s, rules.idle_s),
        fillers=Fillers(random.Random()) if rules.fillers else None,
        barge_in=BargeIn(
            settings.barge_in, desk.stamp, desk.pid, desk.clock, settings.interruptions
        ),
        clock=desk.clock,
    )

    def listen() -> ListenerProcess:
        listener = ListenerProcess(
            desk.store.root,
            rules.end_silence_ms,
            conversation.on_event,
            desk.environ,
            settings.listen.turn,
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
    if seat.closed():  # a signal came while the listener started: it goes, nothing is said
        await anyio.to_thread.run_sync(listener.interrupt)
        return refusal(refusals.shutting_down())
    conversation.listener = listener
    assert listener.session_id is not None and listener.folder is not None
    greeting = greeting_text(settings.assistant.name)
    meeting = HeldMeeting(
        desk=desk,
        id=listener.session_id,
        folder=listener.folder,
        reader=TranscriptReader(listener.folder / RAW_FILE),
        log=desk.log_file(listener.folder),
        gate=Gate(0, NO_CAP),
        notice=greeting,
        cursor=0,
        conversation=conversation,
        barge_in=conversation.barge_in,
    )
    failure = await hold(desk, seat, meeting, settings)
    if failure is not None:
        return refusal(refusals.greeting_failed(failure))
    with conversation.lock:
        conversation.ceilings = Ceilings(desk.clock(), rules.max_s, rules.idle_s)
    return result(
        results.conversation_started(
            meeting.id, settings.assistant, greeting, rules.max_s, rules.idle_s
        )
    )
