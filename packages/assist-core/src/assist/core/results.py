"""The shapes of the watching tools' results (behaviour 3.4 to 3.7, 14.1), as JSON-ready objects.

The server fills them in; what each result holds, and what it is worked out from (the gate's
count and holds, the batch), is decided here, once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from assist.core import hints
from assist.core.batcher import Batch
from assist.core.confirmation import NO_ANSWER
from assist.core.conversation import said_approx
from assist.core.gate import Gate, Hold
from assist.core.settings import AssistantSettings

Result = dict[str, Any]


def watching(
    session: str,
    assistant: AssistantSettings,
    notice_spoken: str,
    recent: Sequence[str],
    gate: Gate,
) -> Result:
    """`watch_meeting` (3.4): the meeting held, who speaks, the notice said, the limits."""
    return {
        "watching": session,
        "you_are": assistant.name,
        "notice_spoken": notice_spoken,
        "recent": list(recent),
        "limits": {
            "cooldown_s": assistant.cooldown_s,
            "max_per_meeting": assistant.max_per_meeting,
            "spoken": gate.spoken,
        },
        "next": hints.next_after_watch(),
    }


def live(batch: Batch, hold: Hold | None, gate: Gate) -> Result:
    """A wait on a live meeting (3.5): its lines, whether the assistant may speak now."""
    answer: Result = {
        "status": "live",
        "lines": list(batch.lines),
        "may_speak": "yes" if hold is None else f"not now: {hold.text}",
        "spoken": gate.spoken,
    }
    if batch.left_out_as_your_own_voice > 0:
        answer["left_out_as_your_own_voice"] = batch.left_out_as_your_own_voice
    if batch.named_you:
        answer["named_you"] = True
    return answer


def switched_off(batch: Batch) -> Result:
    """A wait whose watch ended because the assistant was switched off."""
    return {"status": "off", "lines": list(batch.lines), "next": hints.next_after_off()}


def recording_ended(batch: Batch) -> Result:
    """A wait whose watch ended with the recording."""
    return {"status": "ended", "lines": list(batch.lines), "next": hints.next_after_ended()}


def spoken(
    text: str,
    audio_s: float,
    gate: Gate | None,
    *,
    cut_off: bool,
    interrupted: bool = False,
    paused_ms: int | None = None,
) -> Result:
    """`speak` (3.6): what was said, for how long, and how many more lines the cap allows
    (no cap in a conversation: `gate` None). A line the user talked over (14.2) also says
    roughly what of it was heard; one a loud onset paused (16.3), for how long in all."""
    answer: Result = {"said": text, "audio_s": audio_s}
    if gate is not None:
        answer["may_still_speak"] = gate.may_still_speak
    if cut_off:
        answer["cut_off"] = True
    if interrupted:
        answer["interrupted"] = True
        answer["said_approx"] = said_approx(text, audio_s)
    if paused_ms is not None:
        answer["paused_ms"] = paused_ms
    return answer


def conversation_started(
    session: str, assistant: AssistantSettings, greeting: str, max_s: int, idle_s: int
) -> Result:
    """`start_conversation` (13): the conversation, who speaks, the greeting, the ceilings."""
    return {
        "conversation": session,
        "you_are": assistant.name,
        "greeting_spoken": greeting,
        "limits": {"max_s": max_s, "idle_s": idle_s},
        "next": hints.next_after_start(),
    }


def conversation_ended(batch: Batch, why: str, detail: str | None = None) -> Result:
    """A wait whose conversation is over (13): its lines, why, and what to do."""
    answer: Result = {"status": "ended", "lines": list(batch.lines), "why": why}
    if detail:
        answer["detail"] = detail
    answer["next"] = hints.next_after_conversation_ended(why)
    return answer


def confirmed(answer: str, heard: Sequence[str]) -> Result:
    """`confirm` (14.1): the answer, and the lines heard while listening for it."""
    return {"answer": answer, "heard": list(heard)}


def confirm_switched_off(heard: Sequence[str]) -> Result:
    """A `confirm` whose watch ended because the assistant was switched off: no answer."""
    return {**confirmed(NO_ANSWER, heard), "status": "off", "next": hints.next_after_off()}


def confirm_recording_ended(heard: Sequence[str]) -> Result:
    """A `confirm` whose watch ended with the recording: no answer."""
    return {**confirmed(NO_ANSWER, heard), "status": "ended", "next": hints.next_after_ended()}


def stopped(session: str | None, gate: Gate | None) -> Result:
    """`stop_watching` (3.7): the meeting left and its count, or a note that none was held."""
    if session is None or gate is None:
        return {"stopped_watching": None, "note": hints.nothing_to_stop()}
    return {"stopped_watching": session, "spoken": gate.spoken}
