"""Scoring an agent on a labelled meeting (behaviour.md 15), by example and over generated
meetings and utterance logs."""

from __future__ import annotations

import itertools
import math

import attrs
import pytest
from assist.core.scoring import (
    DEFAULT_WITHIN_S,
    HeardLine,
    Label,
    LabelError,
    Limits,
    Measured,
    Score,
    Utterance,
    combined,
    limits_held,
    read_label,
    score_meeting,
    spread,
    stretches,
)
from hypothesis import assume, given, settings
from hypothesis import strategies as st

NAME = "Claude"
LOOSE = Limits(max_per_meeting=100, cooldown_s=0)
ANSWER = Label("answer")
QUIET = Label("quiet")


def said(start: float, text: str = "It is six hundred a minute.", after: float = 0.5) -> Utterance:
    return Utterance(start, text, first_sound_after_s=after, end=start + after + 2)


def score(lines: list[HeardLine], utterances: list[Utterance]) -> Score:
    return score_meeting(lines, utterances, NAME, limits=LOOSE).score


SAMPLE = [
    HeardLine(1.0, "Morning, everyone.", QUIET),
    HeardLine(5.0, "We went hiking along the coast."),
    HeardLine(10.0, "Claude, what's the rate limit?", ANSWER),
    HeardLine(14.0, "Good, that matches.", QUIET),
    HeardLine(20.0, "Anything else?"),
]


# Labels ---------------------------------------------------------------------------------


def test_a_line_without_expect_has_no_label() -> None:
    assert read_label({"text": "Hi."}) is None


def test_answer_defaults_to_ten_seconds_and_quiet_has_no_window() -> None:
    assert read_label({"expect": "answer"}) == Label("answer", DEFAULT_WITHIN_S)
    assert read_label({"expect": "quiet"}) == Label("quiet")


def test_an_answer_may_set_its_own_window() -> None:
    assert read_label({"expect": "answer", "within_s": 4}) == Label("answer", 4.0)
    assert read_label({"expect": "answer", "within_s": 2.5}) == Label("answer", 2.5)


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"expect": "reply"}, '"expect" is "reply"; it must be "answer"'),
        ({"expect": "Answer"}, '"expect" is "Answer"'),
        ({"expect": 1}, '"expect" is 1'),
        ({"expect": True}, '"expect" is true'),
        ({"expect": ["answer"]}, '"expect" is a list'),
        ({"expect": "answer", "within_s": 0}, "within_s is 0; it must be a positive number"),
        ({"expect": "answer", "within_s": -3}, "within_s is -3"),
        ({"expect": "answer", "within_s": math.inf}, "within_s is inf"),
        ({"expect": "answer", "within_s": math.nan}, "within_s is nan"),
        ({"expect": "answer", "within_s": "10"}, 'within_s is "10"; it must be a number'),
        ({"expect": "answer", "within_s": True}, "within_s is true"),
        ({"expect": "quiet", "within_s": 5}, 'within_s goes with "expect": "answer" only'),
        ({"within_s": 5}, 'within_s is given without "expect": "answer"'),
    ],
)
def test_a_malformed_label_is_refused_with_what_is_wrong(
    fields: dict[str, object], says: str
) -> None:
    with pytest.raises(LabelError) as raised:
        read_label(fields)
    assert says in str(raised.value)


# Scoring by example ----------------------------------------------------------------------


def test_an_answer_in_time_is_counted_with_its_latency_and_nothing_else_is_false() -> None:
    result = score(SAMPLE, [said(11.0, after=0.75)])
    assert (result.answers_expected, result.answers_missed, result.false_speech) == (1, 0, 0)
    assert result.latencies_s == (1.75,)
    assert result.latency_median_s == result.latency_max_s == 1.75


def test_a_remark_in_a_quiet_stretch_is_false_speech() -> None:
    result = score(SAMPLE, [said(6.0), said(11.0)])
    assert result.false_speech == 1 and result.answers_missed == 0


def test_an_answer_first_heard_after_its_window_is_missed() -> None:
    result = score(SAMPLE, [said(10.5, after=DEFAULT_WITHIN_S)])
    assert result.answers_missed == 1 and result.latencies_s == ()


def test_an_answer_that_lands_after_the_next_labelled_line_still_answers() -> None:
    """At --speed the meeting runs on while the voice does not."""
    result = score(SAMPLE, [said(15.0)])
    assert (result.answers_missed, result.false_speech) == (0, 0)


def test_a_remark_started_before_the_question_does_not_answer_it() -> None:
    result = score(SAMPLE, [said(9.5, after=1.0)])
    assert result.answers_missed == 1 and result.false_speech == 1


def test_a_remark_that_never_sounded_answers_nothing() -> None:
    silent = Utterance(11.0, "It is six hundred.", first_sound_after_s=None, end=11.2)
    result = score(SAMPLE, [silent])
    assert result.answers_missed == 1


def test_unlabelled_talk_is_quiet_until_a_line_names_the_assistant() -> None:
    lines = [
        HeardLine(1.0, "Morning."),
        HeardLine(4.0, "So Claude, any thoughts?"),
        HeardLine(9.0, "Let's move on.", QUIET),
    ]
    assert score(lines, [said(2.0)]).false_speech == 1
    assert score(lines, [said(5.0)]).false_speech == 0
    assert score(lines, [said(9.5)]).false_speech == 1


def test_a_name_that_only_starts_like_the_assistants_does_not_free_the_stretch() -> None:
    lines = [HeardLine(1.0, "Claudia, can you share your screen?")]
    assert score(lines, [said(2.0)]).false_speech == 1


def test_a_second_remark_after_an_answer_by_name_is_not_counted_against_it() -> None:
    """The rest of an answer's stretch is unlabelled, and its line named the assistant."""
    result = score(SAMPLE[:3], [said(11.0), said(12.0)])
    assert (result.false_speech, result.answers_missed) == (0, 0)


def test_a_second_remark_after_an_unnamed_room_question_is_false_speech() -> None:
    lines = [HeardLine(1.0, "Does anyone know the rate limit?", ANSWER)]
    result = score(lines, [said(2.0), said(5.0)])
    assert (result.false_speech, result.answers_missed) == (1, 0)


def test_one_remark_answers_one_question_the_oldest_first() -> None:
    lines = [
        HeardLine(1.0, "Claude, the limit?", ANSWER),
        HeardLine(2.0, "And Claude, the status code?", ANSWER),
    ]
    scored = score_meeting(lines, [said(3.0), said(4.0)], NAME, limits=LOOSE)
    assert [answer.utterance for answer in scored.answers] == [0, 1]
    assert score(lines, [said(3.0)]).answers_missed == 1


def test_words_and_utterances_are_counted_and_measured_counts_carried() -> None:
    scored = score_meeting(
        SAMPLE,
        [said(11.0, "Six hundred a minute.")],
        NAME,
        limits=LOOSE,
        measured=Measured(turns=7, echoes_fed=2, echoes_left_out=2),
    ).score
    assert (scored.utterances, scored.words_spoken) == (1, 4)
    assert (scored.turns, scored.echoes_fed, scored.echoes_left_out) == (7, 2, 2)


def test_the_stretches_tile_the_meeting_and_mark_the_answer_window() -> None:
    spans = stretches(SAMPLE, NAME)
    assert [(span.start, span.end, span.region) for span in spans] == [
        (-math.inf, 1.0, "quiet"),
        (1.0, 10.0, "quiet"),
        (10.0, 20.0, "answer"),
        (10.0, 14.0, "free"),
        (14.0, None, "quiet"),
    ]


def test_limits_hold_within_the_cap_and_with_the_cooldown_between_remarks() -> None:
    rules = Limits(max_per_meeting=2, cooldown_s=10)
    assert limits_held([said(0.0), said(13.0)], rules)
    assert not limits_held([said(0.0), said(5.0)], rules), "inside the cooldown"
    assert not limits_held([said(0.0), said(20.0), said(40.0)], rules), "over the cap"
    assert limits_held([said(0.0), said(12.3)], rules), "within the clock slack"


def test_scores_combine_by_adding_and_pooling_latencies() -> None:
    first = score(SAMPLE, [said(11.0, after=1.0)])
    second = score(SAMPLE, [said(6.0)])
    total = combined([first, second])
    assert (total.answers_expected, total.answers_missed, total.false_speech) == (2, 1, 1)
    assert total.latencies_s == (2.0,) and total.turns is None
    assert combined([attrs.evolve(first, turns=3), attrs.evolve(second, turns=4)]).turns == 7


def test_spread_gives_lowest_median_and_highest() -> None:
    result = spread([3.0, 1.0, 2.0, 10.0])
    assert result is not None and (result.low, result.median, result.high) == (1.0, 2.5, 10.0)
    assert spread([]) is None


# Properties ----------------------------------------------------------------------------

TEXTS = st.sampled_from(
    ["Morning all.", "Claude, what's the limit?", "Claudia, share your screen.", "Moving on."]
)
LABELS = st.one_of(
    st.none(),
    st.just(QUIET),
    st.builds(Label, st.just("answer"), st.floats(0.5, 20)),
)
TIMES = st.floats(0, 300, allow_nan=False)


@st.composite
def meetings(draw: st.DrawFn) -> list[HeardLine]:
    return draw(st.lists(st.builds(HeardLine, TIMES, TEXTS, LABELS), max_size=12))


@st.composite
def utterance_logs(draw: st.DrawFn) -> list[Utterance]:
    one = st.builds(
        Utterance,
        TIMES,
        st.sampled_from(["Six hundred.", "It is four twenty nine, too many requests.", ""]),
        st.one_of(st.none(), st.floats(0, 5)),
        st.none(),
    )
    return draw(st.lists(one, max_size=10))


many = settings(max_examples=300, deadline=None)


@many
@given(meetings())
def test_an_agent_that_never_speaks_has_no_false_speech_and_misses_every_answer(
    lines: list[HeardLine],
) -> None:
    result = score(lines, [])
    assert result.false_speech == 0
    assert result.answers_missed == result.answers_expected
    assert result.latencies_s == () and result.limits_held


@many
@given(meetings(), utterance_logs(), st.data())
def test_a_remark_added_in_a_quiet_stretch_never_lowers_false_speech(
    lines: list[HeardLine], utterances: list[Utterance], data: st.DataObject
) -> None:
    quiet = [span for span in stretches(lines, NAME) if span.region == "quiet"]
    assume(quiet)
    span = data.draw(st.sampled_from(quiet))
    low = max(span.start, -1000.0)
    high = min(span.end if span.end is not None else 1000.0, low + 1000.0)
    assume(high > low)
    moment = data.draw(st.floats(low, high, exclude_max=True))
    extra = Utterance(moment, "Anyway.", data.draw(st.one_of(st.none(), st.floats(0, 5))))
    before = score(lines, utterances).false_speech
    assert score(lines, [*utterances, extra]).false_speech >= before


@many
@given(meetings(), utterance_logs())
def test_latency_is_never_negative_nor_past_the_window(
    lines: list[HeardLine], utterances: list[Utterance]
) -> None:
    scored = score_meeting(lines, utterances, NAME, limits=LOOSE)
    for answer in scored.answers:
        if answer.latency_s is not None:
            assert 0 <= answer.latency_s <= answer.within_s


@many
@given(meetings(), utterance_logs())
def test_every_utterance_is_an_answer_false_or_free_and_every_answer_met_or_missed(
    lines: list[HeardLine], utterances: list[Utterance]
) -> None:
    scored = score_meeting(lines, utterances, NAME, limits=LOOSE)
    result = scored.score
    assert len(scored.verdicts) == result.utterances == len(utterances)
    met = result.answers_expected - result.answers_missed
    assert scored.verdicts.count("answer") == met == len(result.latencies_s)
    assert result.false_speech + met <= result.utterances
    used = [answer.utterance for answer in scored.answers if answer.utterance is not None]
    assert len(used) == len(set(used)), "one remark answers one question"


@many
@given(meetings(), utterance_logs(), st.floats(-1000, 1000))
def test_moving_the_whole_meeting_in_time_changes_no_count(
    lines: list[HeardLine], utterances: list[Utterance], shift: float
) -> None:
    assume(shift == 0 or abs(shift) > 1e-3)
    moved_lines = [attrs.evolve(line, at=line.at + shift) for line in lines]
    moved = [attrs.evolve(utterance, start=utterance.start + shift) for utterance in utterances]
    original, shifted = score(lines, utterances), score(moved_lines, moved)
    assume(_no_ties(lines, utterances))
    assert (original.false_speech, original.answers_missed) == (
        shifted.false_speech,
        shifted.answers_missed,
    )


@many
@given(meetings())
def test_an_answer_heard_at_once_after_each_answer_line_meets_every_label(
    lines: list[HeardLine],
) -> None:
    answers = sorted(line.at for line in lines if line.label and line.label.expect == "answer")
    utterances = [Utterance(at, "Yes.", 0.0, at) for at in answers]
    result = score(lines, utterances)
    assert result.answers_missed == 0


@many
@given(meetings())
def test_stretches_other_than_answer_windows_tile_the_meeting(lines: list[HeardLine]) -> None:
    spans = [span for span in stretches(lines, NAME) if span.region != "answer"]
    assert spans[0].start == -math.inf and spans[-1].end is None
    for before, after in itertools.pairwise(spans):
        assert before.end == after.start


def _no_ties(lines: list[HeardLine], utterances: list[Utterance]) -> bool:
    """Float rounding of a shift can swap two moments that were a hair apart."""
    moments = sorted(
        [line.at for line in lines]
        + [u.start for u in utterances]
        + [u.first_sound for u in utterances if u.first_sound is not None]
        + [
            line.at + line.label.within_s
            for line in lines
            if line.label is not None and line.label.expect == "answer"
        ]
    )
    return all(b - a > 1e-6 or a == b for a, b in itertools.pairwise(moments))
