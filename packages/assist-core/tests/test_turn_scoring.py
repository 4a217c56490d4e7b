"""Scoring turn-taking on a voiced set (behaviour.md 16.4), by example and over generated sets
of phrases and the lines a listener could have written for them."""

from __future__ import annotations

import statistics

import attrs
import pytest
from assist.core.turn_ends import ANSWER_WITHIN_MS
from assist.core.turn_scoring import (
    EDGE_S,
    HeardLine,
    Pause,
    Phrase,
    ToldVerdict,
    owning_phrase,
    percentile,
    score_turns,
)
from hypothesis import given
from hypothesis import strategies as st

GAP_S = 2.0
"""Silence between phrases, as the built-in sets have."""

FINISHED = Phrase("What time is it?", 1.0, 2.0)
HESITANT = Phrase("So the main problem … is the latency.", 4.0, 7.0, (Pause(5.0, 5.8),))


def whole(phrase: Phrase, after_s: float = 0.4) -> HeardLine:
    """The line of a listener that heard the phrase as one turn."""
    return HeardLine(phrase.start_s - 0.2, phrase.end_s, phrase.end_s + after_s)


def at_its_pauses(phrase: Phrase, after_s: float = 0.4) -> list[HeardLine]:
    """The lines of a listener that ended a turn at each of the phrase's pauses."""
    edges = [phrase.start_s, *(e for p in phrase.pauses for e in (p.start_s, p.end_s))]
    edges.append(phrase.end_s)
    return [
        HeardLine(start, end, end + after_s)
        for start, end in zip(edges[::2], edges[1::2], strict=True)
    ]


@st.composite
def turn_sets(draw: st.DrawFn) -> list[Phrase]:
    """Phrases GAP_S apart, each finished or hesitant with pauses of 0.5 to 1.2 s between
    pieces of 0.5 to 3 s."""
    phrases: list[Phrase] = []
    at = draw(st.floats(0.5, 2.0))
    for _ in range(draw(st.integers(1, 8))):
        start = at
        pauses: list[Pause] = []
        for number in range(draw(st.integers(1, 3))):
            if number:
                pause = draw(st.floats(0.5, 1.2))
                pauses.append(Pause(at, at + pause))
                at += pause
            at += draw(st.floats(0.5, 3.0))
        phrases.append(Phrase(f"phrase {len(phrases)}", start, at, tuple(pauses)))
        at += GAP_S
    return phrases


delays = st.floats(0.0, 1.5)


def test_a_phrase_heard_whole_is_neither_cut_nor_split_and_its_latency_is_its_lines() -> None:
    scored = score_turns([FINISHED, HESITANT], [whole(FINISHED, 0.3), whole(HESITANT, 0.6)])
    score = scored.score
    assert (score.false_cut_offs, score.split_finished, score.missed, score.stray) == (0, 0, 0, 0)
    assert [o.lines for o in scored.outcomes] == [(0,), (1,)]
    assert score.latencies_s == pytest.approx((0.3, 0.6))
    assert score.false_cut_off_share == 0.0


def test_a_hesitant_phrase_written_as_two_lines_is_a_false_cut_off_at_its_pause() -> None:
    scored = score_turns([FINISHED, HESITANT], [whole(FINISHED), *at_its_pauses(HESITANT)])
    assert scored.score.false_cut_offs == 1 and scored.score.hesitant == 1
    assert scored.outcomes[1].cut_at == (0,) and scored.outcomes[1].split
    assert scored.outcomes[1].latency_s is not None
    assert abs(scored.outcomes[1].latency_s - 0.4) < 1e-9  # from its last line, not its first


def test_a_line_between_phrases_is_stray_and_a_phrase_without_lines_is_missed() -> None:
    noise = HeardLine(2.6, 3.2, 3.5, "mm")
    scored = score_turns([FINISHED, HESITANT], [noise, whole(HESITANT)])
    assert scored.stray == (0,) and scored.score.stray == 1
    assert scored.score.missed == 1 and scored.outcomes[0].latency_s is None
    assert scored.score.latencies_s == (scored.outcomes[1].latency_s,)


def test_a_line_over_two_phrases_belongs_to_the_one_it_overlaps_most() -> None:
    merged = HeardLine(1.5, 6.0, 7.0)
    assert owning_phrase([FINISHED, HESITANT], merged) == 1
    assert owning_phrase([FINISHED, HESITANT], HeardLine(0.8, 4.2, 5.0)) == 0


def test_verdicts_are_placed_at_the_pause_the_end_or_the_speech_and_a_slow_one_is_late() -> None:
    verdicts = [
        ToldVerdict(5.0, False, 60),  # the labelled pause: incomplete
        ToldVerdict(6.2, True, 40),  # between words of the last piece
        ToldVerdict(7.0, True, ANSWER_WITHIN_MS + 1),  # the end, answered too late
        ToldVerdict(2.0, True, 80),  # the end of the finished phrase
        ToldVerdict(5.05, True, 30, words_end=False),  # the pause again, held by its words
    ]
    scored = score_turns([FINISHED, HESITANT], [], verdicts)
    assert [(j.place, j.kind) for j in scored.outcomes[0].verdicts] == [("end", "complete")]
    assert [(j.place, j.kind, j.complete) for j in scored.outcomes[1].verdicts] == [
        ("pause", "incomplete", False),
        ("pause", "held", True),
        ("speech", "complete", True),
        ("end", "late", True),  # what the model said, though too late to count
    ]
    score = scored.score
    assert (score.verdicts, score.late, score.complete_in_time, score.held) == (5, 1, 2, 1)
    assert score.took_ms_median == statistics.median([60, 40, ANSWER_WITHIN_MS + 1, 80, 30])


def test_nothing_heard_gives_every_phrase_missed_and_no_latency() -> None:
    score = score_turns([FINISHED, HESITANT], []).score
    assert score.missed == 2 and score.latencies_s == ()
    assert score.p50_s is None and score.p95_s is None and score.took_ms_median is None


def test_a_set_without_hesitant_phrases_has_no_share_of_false_cut_offs() -> None:
    assert score_turns([FINISHED], [whole(FINISHED)]).score.false_cut_off_share is None


@given(turn_sets(), st.lists(delays, min_size=8, max_size=8))
def test_a_listener_that_hears_each_phrase_whole_cuts_and_splits_nothing(
    phrases: list[Phrase], after: list[float]
) -> None:
    lines = [whole(phrase, delay) for phrase, delay in zip(phrases, after, strict=False)]
    scored = score_turns(phrases, lines)
    assert scored.score.false_cut_offs == scored.score.split_finished == scored.score.missed == 0
    assert [o.lines for o in scored.outcomes] == [(n,) for n in range(len(phrases))]
    assert all(o.cut_at == () for o in scored.outcomes)
    for outcome, delay in zip(scored.outcomes, after, strict=False):
        assert outcome.latency_s is not None and abs(outcome.latency_s - delay) < 1e-6


@given(turn_sets())
def test_a_listener_that_ends_a_turn_at_every_pause_cuts_off_every_hesitant_phrase(
    phrases: list[Phrase],
) -> None:
    lines = [line for phrase in phrases for line in at_its_pauses(phrase)]
    scored = score_turns(phrases, lines)
    assert scored.score.false_cut_offs == scored.score.hesitant
    assert scored.score.split_finished == scored.score.missed == scored.score.stray == 0
    for phrase, outcome in zip(phrases, scored.outcomes, strict=True):
        assert outcome.cut_at == tuple(range(len(phrase.pauses)))
        assert len(outcome.lines) == len(phrase.pauses) + 1


@given(turn_sets(), st.data())
def test_each_line_belongs_to_one_phrase_at_most_and_the_counts_add_up(
    phrases: list[Phrase], data: st.DataObject
) -> None:
    end = phrases[-1].end_s + GAP_S
    spans = st.tuples(st.floats(0, end), st.floats(0.05, 6.0), delays)
    lines = [
        HeardLine(start, start + length, start + length + delay)
        for start, length, delay in data.draw(st.lists(spans, max_size=12))
    ]
    scored = score_turns(phrases, lines)
    owned = sorted([*(n for o in scored.outcomes for n in o.lines), *scored.stray])
    assert owned == list(range(len(lines)))
    score = scored.score
    assert score.phrases == len(phrases)
    assert 0 <= score.false_cut_offs <= score.hesitant
    assert 0 <= score.split_finished <= score.finished
    assert score.missed + len(score.latencies_s) == len(phrases)
    for phrase, outcome in zip(phrases, scored.outcomes, strict=True):
        if outcome.lines:
            last = max(lines[n].arrived_s for n in outcome.lines)
            assert outcome.latency_s == last - phrase.end_s


@given(turn_sets(), st.lists(delays, min_size=8, max_size=8), st.floats(0.0, 2.0))
def test_a_listener_slower_by_a_constant_moves_every_latency_and_percentile_by_it(
    phrases: list[Phrase], after: list[float], slower: float
) -> None:
    lines = [whole(phrase, delay) for phrase, delay in zip(phrases, after, strict=False)]
    late = [attrs.evolve(line, arrived_s=line.arrived_s + slower) for line in lines]
    quick, slow = score_turns(phrases, lines).score, score_turns(phrases, late).score
    for before, later in ((quick.p50_s, slow.p50_s), (quick.p95_s, slow.p95_s)):
        assert before is not None and later is not None
        assert abs(later - before - slower) < 1e-6


@given(st.lists(st.floats(-100, 100), max_size=30), st.floats(0.0, 1.0))
def test_a_percentile_lies_among_the_values_and_the_p50_is_the_median(
    values: list[float], fraction: float
) -> None:
    found = percentile(values, fraction)
    if not values:
        assert found is None
        return
    assert found is not None and min(values) <= found <= max(values)
    assert percentile(values, 0.0) == min(values) and percentile(values, 1.0) == max(values)
    middle = percentile(values, 0.5)
    assert middle is not None and abs(middle - statistics.median(values)) < 1e-9


@given(st.lists(st.floats(-100, 100), min_size=1, max_size=30), st.floats(0, 1), st.floats(0, 1))
def test_a_higher_fraction_never_gives_a_lower_percentile(
    values: list[float], one: float, other: float
) -> None:
    low, high = sorted((one, other))
    below, above = percentile(values, low), percentile(values, high)
    assert below is not None and above is not None and below <= above


@given(turn_sets(), st.data())
def test_a_verdict_too_slow_is_late_whatever_the_model_said(
    phrases: list[Phrase], data: st.DataObject
) -> None:
    end = phrases[-1].end_s
    told = data.draw(
        st.lists(
            st.builds(ToldVerdict, st.floats(phrases[0].start_s, end), st.booleans(),
                      st.floats(0, 3 * ANSWER_WITHIN_MS), st.sampled_from([None, True, False])),
            max_size=10,
        )
    )  # fmt: skip
    scored = score_turns(phrases, [], told)
    judged = [j for o in scored.outcomes for j in o.verdicts]
    assert len(judged) == len(told) == scored.score.verdicts
    assert scored.score.late == sum(v.took_ms > ANSWER_WITHIN_MS for v in told)
    in_time = [v for v in told if v.complete and v.took_ms <= ANSWER_WITHIN_MS]
    assert scored.score.complete_in_time == sum(v.words_end is not False for v in in_time)
    assert scored.score.held == sum(v.words_end is False for v in in_time)
    for phrase, outcome in zip(phrases, scored.outcomes, strict=True):
        for verdict in outcome.verdicts:
            assert phrase.start_s - EDGE_S <= verdict.at_s
            if verdict.place == "pause":
                assert phrase.hesitant
