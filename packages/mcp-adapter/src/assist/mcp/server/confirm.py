"""`confirm` (behaviour.md 14.1): ask a yes-or-no question aloud, then listen for the answer.

The question is said exactly as `speak` says a line: the same checks, the same gate in a
meeting (it counts as an utterance and is logged like one), the same floor and voice. Then the
watch's transcript is read every poll from its cursor, and `assist.core.confirmation` decides
which lines are taken and which answers: the echo of the question (or of anything said in this
watch) never does, nor a line that was already there when the question ended, nor one that
began before it finished sounding on the listener's clock (known from its signals, 14.1). The
lines taken come back in `heard` and the cursor moves past them, so the next wait starts after
them.

Results, in the shapes of `wait_for_transcript`'s (3.5), since a confirm is a wait too:
- `{"answer": "yes" | "no" | "no answer", "heard": [...]}` while the watch goes on;
- the assistant switched off, or the recording ended, while it listened: the watch is left as a
  wait would leave it, and the result is `{"answer": "no answer", "heard": [...], "status":
  "off" | "ended", "next": <the wait's hint>}`: nobody confirmed anything, so the agent must
  not act, and it learns the watch is over as it would from a wait;
- `stop_watching` while it listened: a refusal saying the watch was stopped and there is no
  answer (a wait gives the not-watching refusal there).
A client cancelling the call leaves the cursor where it was: the lines come back in the next
wait. While a confirm listens, `wait_for_transcript` is refused as a second wait, and a confirm
is refused while a wait runs: both would take the same lines.

This module reaches into the watch (`assist.mcp.server.watch.Watcher`) for its meeting and
helpers: it is the watch's fifth tool, kept apart so the four of 3.4-3.7 read as specified.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Literal

import anyio
import attrs
import mcp_types as types
from assist.core import meeting_log, refusals, results
from assist.core.confirmation import NO_ANSWER, Listened, listen, listening_deadline
from assist.core.consent import LeaveReason
from assist.core.echo import recent
from assist.core.echo_words import users_words
from assist.core.lines import RawLine
from assist.core.settings import Settings
from assist.core.speech import Refusal, check_question
from assist.mcp.logs import log
from assist.mcp.server import leaving, progress, speaking, waiting
from assist.mcp.server.tools import refusal, result
from assist.mcp.store.session_files import SessionRefusal

if TYPE_CHECKING:
    from assist.mcp.server.held_meeting import HeldMeeting
    from assist.mcp.server.watch import Watcher


@attrs.frozen
class _Look:
    """One poll's reading while listening: settings, lines with their numbers, the cursor
    after them, and the log's tally for the echo test."""

    settings: Settings
    lines: list[tuple[int, RawLine]]
    next: int
    tally: meeting_log.Tally


async def confirm(
    watcher: Watcher, arguments: dict[str, Any], report: progress.Report | None
) -> types.CallToolResult:
    """14.1: say the question, then wait up to `timeout_s` for a yes or a no, reporting
    progress when the client asked for it."""
    checked = check_question(arguments.get("question"))
    if isinstance(checked, Refusal):
        return refusal(checked.text)
    confirming = progress.Progress(report, progress.CONFIRMING, watcher._clock)
    async with watcher._watching_call():
        meeting = watcher._watched()
        if meeting is not None and meeting.waiting:
            return refusal(refusals.confirm_during_wait())
        if meeting is not None:
            meeting.waiting = True
            if meeting.conversation is not None:
                meeting.conversation.agent_called()
        asked_through: list[tuple[int, int | None]] = []

        async def question_ended(held: HeldMeeting) -> None:
            barge_in = held.barge_in
            asked_ms = barge_in.capture_ms(time.monotonic()) if barge_in is not None else None
            _, through = await anyio.to_thread.run_sync(held.reader.read, held.cursor)
            asked_through.append((through, asked_ms))

        try:
            with anyio.CancelScope(shield=True):
                asked = await speaking.speak_line(watcher, checked, question_ended)
            if asked.is_error:
                return refusal(refusals.not_asked(_text(asked)))
            if meeting is None or watcher._meeting is not meeting or not asked_through:
                return refusal(refusals.confirm_watch_stopped())
            deadline = listening_deadline(
                arguments.get("timeout_s"),
                progress=confirming.asked,
                called_at=confirming.began,
                asked_at=watcher._clock(),
            )
            through, asked_ms = asked_through[0]
            return await _listen(
                watcher, meeting, deadline, checked.text, through, asked_ms, confirming.tick
            )
        finally:
            if meeting is not None:
                meeting.waiting = False


async def _listen(
    watcher: Watcher,
    meeting: HeldMeeting,
    deadline: float,
    question: str,
    asked_through: int,
    asked_ms: int | None,
    tick: progress.Tick,
) -> types.CallToolResult:
    """Poll the transcript from the cursor until a line answers or the `deadline` passes;
    lines numbered below `asked_through` were in the file when the question ended, and lines
    starting before `asked_ms` on the listener's clock began while it played."""
    cursor = meeting.cursor
    heard: list[str] = []
    while True:
        look = await anyio.to_thread.run_sync(_look, watcher, meeting, cursor)
        if watcher._meeting is not meeting:
            return _after_leaving(meeting, heard)
        if look == "off":
            await leaving.leave(watcher, LeaveReason.SWITCHED_OFF)
            return _after_leaving(meeting, heard)
        if look == "ended":
            await leaving.leave(watcher, LeaveReason.RECORDING_ENDED)
            return _after_leaving(meeting, heard)
        step = _weigh(watcher, meeting, look, question, asked_through, asked_ms)
        heard.extend(step.heard)
        cursor = step.next
        now = watcher._clock()
        if step.answer is not None or now >= deadline:
            meeting.cursor = cursor
            if meeting.conversation is not None:
                meeting.conversation.turn_handed()  # the agent acts on it, often silently
            return result(results.confirmed(step.answer or NO_ANSWER, heard))
        await tick()
        await waiting.nap(watcher, meeting, min(deadline, now + watcher._pacing.poll_s))
        if watcher._meeting is not meeting:
            return _after_leaving(meeting, heard)


def _look(watcher: Watcher, meeting: HeldMeeting, cursor: int) -> _Look | Literal["off", "ended"]:
    """One poll's reading (as 4.2 steps 1-3), in a worker thread: "off", "ended" or a _Look."""
    settings = watcher.load_settings()
    if not settings.assistant.enabled:
        return "off"
    if not watcher._store.is_the_live_session(meeting.id, watcher._wall()):
        return "ended"
    try:
        lines, next_line = meeting.reader.read_numbered(cursor)
    except (SessionRefusal, OSError) as error:
        log.warning(f"could not read the transcript of {meeting.id} ({error}); trying again")
        lines, next_line = [], cursor
    tally = watcher._tally(meeting) if lines else meeting_log.Tally()
    return _Look(settings, lines, next_line, tally)


def _weigh(
    watcher: Watcher,
    meeting: HeldMeeting,
    look: _Look,
    question: str,
    asked_through: int,
    asked_ms: int | None,
) -> Listened:
    """Ask the core which of the new lines are heard and whether one answers: its own voice
    is looked for in everything said in this watch, not only the last 120 s (14.1)."""
    now = watcher._clock()
    said = [item.text for item in [*meeting.utterances, *look.tally.utterances]]
    own_notice = [meeting.notice_said] if meeting.notice_said is not None else []
    notices = [item.text for item in recent([*own_notice, *look.tally.notices], now)]
    words = look.settings.confirm
    return listen(
        look.lines,
        look.next,
        asked_through=asked_through,
        users_words=lambda text: users_words(text, said, notices),
        question=question,
        asked_ms=asked_ms,
        yes_words=words.yes_words,
        no_words=words.no_words,
    )


def _after_leaving(meeting: HeldMeeting, heard: list[str]) -> types.CallToolResult:
    """The watch ended while listening: off or ended with no answer, else a refusal."""
    if meeting.left_reason is LeaveReason.SWITCHED_OFF:
        return result(results.confirm_switched_off(heard))
    if meeting.left_reason is LeaveReason.RECORDING_ENDED:
        return result(results.confirm_recording_ended(heard))
    return refusal(refusals.confirm_watch_stopped())


def _text(answer: types.CallToolResult) -> str:
    return "".join(block.text for block in answer.content if isinstance(block, types.TextContent))
