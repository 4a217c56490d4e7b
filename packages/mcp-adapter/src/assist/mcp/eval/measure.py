"""From what one run left to its score: the labelled lines, the utterance log, the counts.

Every time is wall-clock seconds since the meeting started (the replay's `started` event),
measured and never scaled by `--speed`: when each line reached `raw.jsonl` (the replay's
`line` events), when each utterance started and first sounded (the `speaking` event and the
voice's `first_audio_ms` in `assistant.jsonl`), when each echo was fed back. The judgement is
`assist.core.scoring`'s; this module only reads and converts.
"""

from __future__ import annotations

from typing import Any

import attrs
from assist.core.scoring import HeardLine, Limits, Measured, Scored, Utterance, score_meeting
from assist.mcp.demo.run import MAX_PER_MEETING, NAME, Plan, Run
from assist.mcp.demo.summary import echoes_seen, read_log, remarks_from_log, utterances


@attrs.frozen
class Turn:
    """A line of the meeting as replayed: who, on which track, when it was spoken (its
    `start_ms`/`end_ms` on the run's clock) and when it reached the transcript."""

    speaker: str
    track: str
    start: float
    end: float
    heard: HeardLine


@attrs.frozen
class Echo:
    """A line the feeder wrote back into the room: when, and its words."""

    at: float
    text: str


@attrs.frozen
class MeetingResult:
    """One meeting run by one agent: the score and the timeline behind it."""

    meeting: str
    title: str
    agent: str
    run: int
    speed: float
    scored: Scored
    turns: tuple[Turn, ...]
    utterances: tuple[Utterance, ...]
    echoes: tuple[Echo, ...]
    ended_at: float


def measure(plan: Plan, run: Run, number: int) -> MeetingResult:
    """Score one run of `plan` (run `number`, counted from 1)."""
    started = next(event["at"] for event in run.events if event["event"] == "started")
    ended = next((event["at"] for event in run.events if event["event"] == "ended"), None)
    line_events = [event for event in run.events if event["event"] == "line"]
    echo_events = [event for event in run.events if event["event"] == "echo"]
    turns = []
    for script, event in zip(plan.meeting.lines, line_events, strict=False):
        line = script.line
        turns.append(
            Turn(
                speaker=line.speaker or line.track,
                track=line.track,
                start=line.start_ms / 1000 / plan.speed,
                end=line.end_ms / 1000 / plan.speed,
                heard=HeardLine(event["at"] - started, line.text, script.label),
            )
        )
    said = [
        attrs.evolve(
            utterance,
            start=utterance.start - started,
            end=None if utterance.end is None else utterance.end - started,
        )
        for utterance in utterances(remarks_from_log(read_log(run.session_dir)))
    ]
    scored = score_meeting(
        [turn.heard for turn in turns],
        said,
        NAME,
        limits=Limits(MAX_PER_MEETING, plan.cooldown_s),
        measured=_measured(run, echo_events),
    )
    last = max([u.end or u.start for u in said] + [0.0])
    return MeetingResult(
        meeting=plan.meeting_spec,
        title=plan.meeting.title,
        agent=plan.agent,
        run=number,
        speed=plan.speed,
        scored=scored,
        turns=tuple(turns),
        utterances=tuple(said),
        echoes=tuple(Echo(e["at"] - started, e["line"]["text"]) for e in echo_events),
        ended_at=max(last, (ended - started) if ended is not None else last),
    )


def _measured(run: Run, echo_events: list[dict[str, Any]]) -> Measured:
    """Turns and echoes left out are seen only with a built-in agent: an echo was left out
    when its words never reached the agent in a batch."""
    if run.record is None:
        return Measured(turns=None, echoes_fed=len(echo_events), echoes_left_out=None)
    seen = echoes_seen(run.record, echo_events)
    return Measured(
        turns=run.record.turns,
        echoes_fed=len(echo_events),
        echoes_left_out=max(0, len(echo_events) - seen),
    )
