"""`confirm` (behaviour.md 14.1): ask a yes-or-no question aloud, then listen for the answer.

The question is said exactly as `speak` says a line: the same checks, the same gate in a
meeting (it counts as an utterance and is logged like one), the same floor and voice. Then the
watch's transcript is read every poll from its cursor (`polling`, as a wait reads it), and
`assist.core.confirmation` decides which lines are taken and which answers: the echo of the
question (or of anything said in this watch) never does, nor a line that was already there
when the question ended, nor one that began before it finished sounding on the listener's
clock (known from its signals, 14.1). The lines taken come back in `heard` and the cursor
moves past them, so the next wait starts after them. While it listens it reports progress
when the client asked for it (`progress`); without that its default wait fits under a minute.

Results, in the shapes of `wait_for_transcript`'s (3.5), since a confirm is a wait too:
- `{"answer": "yes" | "no" | "no answer", "heard": [...]}` while the watch goes on;
- the assistant switched off, or the session over (in a conversation, the conversation's own
  end; never another session going live, 13), while it listened: the watch is left as a
  wait would leave it, and the result is `{"answer": "no answer", "heard": [...], "status":
  "off" | "ended", "next": <the wait's hint>}`: nobody confirmed anything, so the agent must
  not act, and it learns the watch is over as it would from a wait;
- `stop_watching` while it listened: a refusal saying the watch was stopped and there is no
  answer (a wait gives the not-watching refusal there).
A client cancelling the call leaves the cursor where it was: the lines come back in the next
wait. While a confirm listens, `wait_for_transcript` is refused as a second wait, and a confirm
is refused while a wait runs: both would take the same lines.

It is the watch's fifth tool, kept apart so the four of 3.4-3.7 read as specified; it is
handed the desk, the meeting watched and the way to leave it.
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from assist.core import refusals, results
from assist.core.confirmation import NO_ANSWER, Listened, listen, listening_deadline
from assist.core.echo import recent
from assist.core.echo_words import users_words
from assist.core.speech import Refusal, SpeechOk, check_question
from assist.mcp.server import polling, progress
from assist.mcp.server.desk import Desk
from assist.mcp.server.held_meeting import HeldMeeting, Leave, Watched
from assist.mcp.server.polling import Ending, Read
from assist.mcp.server.saying import Kind, Turned, speak_line
from assist.mcp.server.tools import refusal, result


def read_arguments(arguments: dict[str, Any]) -> types.CallToolResult | tuple[SpeechOk, object]:
    """14.1: the checked question and the `timeout_s` asked for (read by `listening_deadline`
    once the question is said), or the refusal of a question that cannot be asked (before
    anything is said or waited for)."""
    checked = check_question(arguments.get("question"))
    if isinstance(checked, Refusal):
        return refusal(checked.text)
    return checked, arguments.get("timeout_s")


async def confirm(
    desk: Desk,
    watched: Watched,
    leave: Leave,
    question: SpeechOk,
    timeout_s: object,
    confirming: progress.Progress,
) -> types.CallToolResult:
    """14.1: say the checked question, then wait until `listening_deadline` for a yes or a
    no, reporting progress when the client asked for it."""
    meeting = watched()
    if meeting is not None and meeting.waiting:
        return refusal(refusals.confirm_during_wait())
    if meeting is not None:
        meeting.waiting = True
        if meeting.conversation is not None:
            meeting.conversation.agent_called()
    try:
        with anyio.CancelScope(shield=True):
            asked = await speak_line(desk, watched, leave, question, Kind.QUESTION)
        if isinstance(asked, Turned):
            return refusal(refusals.not_asked(asked.why))
        through = asked.spoken.through
        if meeting is None or not meeting.held or through is None:
            return refusal(refusals.confirm_watch_stopped())
        deadline = listening_deadline(
            timeout_s,
            progress=confirming.asked,
            called_at=confirming.began,
            asked_at=desk.clock(),
        )
        return await _listen(
            desk,
            meeting,
            leave,
            deadline,
            question.text,
            through,
            asked.spoken.asked_ms,
            confirming.tick,
        )
    finally:
        if meeting is not None:
            meeting.waiting = False


async def _listen(
    desk: Desk,
    meeting: HeldMeeting,
    leave: Leave,
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
        look = await polling.poll(desk, meeting, cursor, leave)
        if look is None:
            return _after_leaving(meeting, heard)
        step = _weigh(desk, meeting, look, question, asked_through, asked_ms)
        heard.extend(step.heard)
        cursor = step.next
        now = desk.clock()
        if step.answer is not None or now >= deadline:
            meeting.cursor = cursor
            if meeting.conversation is not None:
                meeting.conversation.turn_handed()  # the agent acts on it, often silently
            return result(results.confirmed(step.answer or NO_ANSWER, heard))
        await tick()
        if not await polling.nap(desk, meeting, min(deadline, now + desk.pacing.poll_s)):
            return _after_leaving(meeting, heard)


def _weigh(
    desk: Desk,
    meeting: HeldMeeting,
    look: Read,
    question: str,
    asked_through: int,
    asked_ms: int | None,
) -> Listened:
    """Ask the core which of the new lines are heard and whether one answers: its own voice
    is looked for in everything said in this watch, not only the last 120 s (14.1)."""
    now = desk.clock()
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
    ending = polling.ending(meeting)
    if ending is Ending.SWITCHED_OFF:
        return result(results.confirm_switched_off(heard))
    if ending is Ending.RECORDING_ENDED:
        return result(results.confirm_recording_ended(heard))
    return refusal(refusals.confirm_watch_stopped())
