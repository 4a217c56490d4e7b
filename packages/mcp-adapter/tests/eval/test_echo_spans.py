"""The echo set gives each line handed to the agent to the trial it was said in (its span on
the listener's clock), not to the trial whose wait it arrived in."""

from __future__ import annotations

from pathlib import Path

from assist.core.echo_scoring import Trial, judge
from assist.mcp.eval.echo import HeardAt, TrialRun
from assist.mcp.eval.echo_rooms import PLACES
from assist.mcp.eval.echo_spans import by_span, line_starts, stamp_s

REPLY = "Tokyo is nine hours ahead of London."
INTERRUPTION = "No, no, that's not it."


def run(
    kind: str, started_ms: int | None, heard: tuple[HeardAt, ...], started_s: float
) -> TrialRun:
    trial = Trial(kind=kind, said=(REPLY,), heard=tuple(line.text for line in heard))  # type: ignore[arg-type]
    return TrialRun(PLACES["software"], 1, trial, None, None, (), heard, "", started_s, started_ms)


def late_interruption(second_starts_ms: int | None) -> list[TrialRun]:
    """An interruption said at 61.2 s in the first trial, handed over only in the second
    trial's wait (which started at 70 s), 2 s into it."""
    late = HeardAt(INTERRUPTION, 2.0, stamp_s(f"[01:01] room: {INTERRUPTION}"))
    return [
        run("interruption", 50_000 if second_starts_ms else None, (), 100.0),
        run("echo", second_starts_ms, (late,), 120.0),
    ]


STARTS = [(61_200, INTERRUPTION), (71_000, REPLY)]


def test_a_line_handed_over_in_the_next_trial_is_counted_in_the_trial_it_was_said_in() -> None:
    first, second = by_span(late_interruption(70_000), STARTS)
    assert first.trial.heard == (INTERRUPTION,) and second.trial.heard == ()
    assert first.heard[0].at_s == 22.0  # 2 s into the second trial, which began 20 s later
    assert first.heard[0].start_ms == 61_200
    assert judge(second.trial).own_lines == 0


def test_where_the_room_cannot_say_the_lines_stay_where_they_arrived() -> None:
    first, second = by_span(late_interruption(None), STARTS)
    assert first.trial.heard == () and second.trial.heard == (INTERRUPTION,)


def test_a_line_said_in_a_trial_stays_there() -> None:
    own = HeardAt(REPLY, 4.0, 71)
    runs = [run("interruption", 50_000, (), 0.0), run("echo", 70_000, (own,), 20.0)]
    assert [taken.trial for taken in by_span(runs, STARTS)] == [run.trial for run in runs]


def test_a_line_is_placed_by_its_raw_line_to_the_millisecond(tmp_path: Path) -> None:
    raw = tmp_path / "raw.jsonl"
    raw.write_text(
        '{"track":"room","start_ms":69100,"end_ms":69300,"text":"Sure."}\n'
        "not a line\n"
        '{"track":"room","start_ms":69400,"end_ms":71000,"text":"Wait, stop."}\n',
        encoding="utf-8",
    )
    starts = line_starts(raw)
    heard = HeardAt("Wait, stop.", 1.0, stamp_s("[01:09] room: Wait, stop."))
    runs = [run("interruption", 50_000, (), 0.0), run("echo", 69_500, (heard,), 20.0)]
    first, second = by_span(runs, starts)
    assert first.trial.heard == () and second.heard[0].start_ms == 69_400  # in 69.5 s - lead
    assert line_starts(tmp_path / "missing.jsonl") == []


def test_a_line_begun_in_the_pre_roll_before_its_trial_is_that_trials() -> None:
    """The voice came 20 ms into the trial, and the listener began its line with the 200 ms of
    audio before the turn: the line starts 180 ms before the trial."""
    question = HeardAt("Yes, please do.", 9.0, 69)
    runs = [run("back_to_back", 50_000, (), 0.0), run("answer", 70_000, (question,), 20.0)]
    starts = [(69_820, "Shall I order more compost? Yes, please do.")]
    first, second = by_span(runs, starts)
    assert first.trial.heard == () and second.trial.heard == ("Yes, please do.",)
