"""The echo set's scoring rules (behaviour 16.4), as properties."""

from __future__ import annotations

import attrs
from assist.core.echo_scoring import (
    GOES_ON,
    HANDED,
    KINDS,
    OWN_WORDS,
    SILENT,
    STOPS,
    Trial,
    compared_words,
    judge,
    own_line,
    score_echo,
)
from assist.core.words import scored_words
from hypothesis import given
from hypothesis import strategies as st

WORDS = st.sampled_from(
    ["tokyo", "is", "nine", "twenty", "hours", "ahead", "wait", "stop", "yes", "please", "mm-hm"]
)
TEXT = st.lists(WORDS, max_size=8).map(" ".join)
trials = st.builds(
    Trial,
    kind=st.sampled_from(KINDS),
    said=st.lists(TEXT, min_size=1, max_size=3).map(tuple),
    person=TEXT,
    heard=st.lists(TEXT, max_size=4).map(tuple),
    paused=st.booleans(),
    resumed=st.booleans(),
    stopped=st.booleans(),
    to_pause_s=st.one_of(st.none(), st.floats(0, 5)),
    wanted=st.sampled_from(["yes", "no", None]),
    answered=st.sampled_from(["yes", "no", "no answer", None]),
)


@given(trials)
def test_with_the_person_silent_every_line_handed_over_is_its_own_voice(trial: Trial) -> None:
    if trial.kind in SILENT:
        assert judge(trial).own_lines == len(trial.heard)


@given(trials, TEXT)
def test_a_line_of_the_persons_words_alone_never_counts_as_its_own_voice(
    trial: Trial, words: str
) -> None:
    if trial.kind not in SILENT:
        assert not own_line(trial.person, trial)
        said = {word for text in trial.said for word in compared_words(text)}
        mine = " ".join(word for word in compared_words(words) if word not in said)
        assert not own_line(mine, trial)


@given(trials, TEXT, TEXT)
def test_a_line_with_more_of_the_persons_words_than_its_own_is_the_persons(
    trial: Trial, ours: str, theirs: str
) -> None:
    said = {word for text in trial.said for word in compared_words(text)}
    person = set(compared_words(trial.person))
    mine = [word for word in compared_words(ours) if word in said - person]
    their = [word for word in compared_words(theirs) if word in person - said]
    if trial.kind not in SILENT and len(their) >= len(mine):
        assert not own_line(" ".join(mine + their), trial)


@given(st.sampled_from(sorted(set(KINDS) - SILENT)))
def test_the_assistants_words_heard_over_a_sound_count_as_its_own_voice(kind: str) -> None:
    said = "Tokyo is nine hours ahead of London, and it is late there by now."
    trial = Trial(kind, (said,), person="Wait, stop there please.")  # type: ignore[arg-type]
    assert own_line(said, trial)
    assert own_line(f"{said} Wait, stop there please.", trial)
    assert not own_line("Wait, stop there please.", trial)
    assert not own_line("Tokyo", trial), f"fewer than {OWN_WORDS} of its words"
    assert not own_line("Now make it stop there please.", trial), "more of the person's words"


@given(trials)
def test_a_stop_is_false_or_an_interruption_missed_never_both(trial: Trial) -> None:
    judged = judge(trial)
    assert not (judged.false_stop and judged.missed)
    assert judged.false_stop == (trial.stopped and trial.kind not in STOPS)
    assert judged.missed == (trial.kind in STOPS and not trial.stopped)


@given(trials)
def test_a_line_resumes_only_over_a_cough_or_backchannel_it_paused_for_and_did_not_stop(
    trial: Trial,
) -> None:
    judged = judge(trial)
    if judged.resumed:
        assert trial.kind in GOES_ON and trial.paused and not trial.stopped
    if trial.stopped or not trial.paused:
        assert not judged.resumed


@given(trials)
def test_an_answer_is_lost_exactly_when_confirm_gave_another(trial: Trial) -> None:
    assert judge(trial).answer_lost == (trial.kind == "answer" and trial.answered != trial.wanted)


@given(trials)
def test_words_are_lost_only_of_answers_and_interruptions_and_none_once_all_are_handed_over(
    trial: Trial,
) -> None:
    judged = judge(trial)
    assert 0 <= judged.words_lost <= judged.words_said
    if trial.kind not in HANDED:
        assert judged.words_said == judged.words_lost == 0
    else:
        assert judged.words_said == len(scored_words(trial.person))
        handed = attrs.evolve(trial, heard=(*trial.heard, trial.person))
        assert judge(handed).words_lost == 0
        if not trial.heard:
            assert judged.words_lost == judged.words_said


def test_an_interruption_handed_over_without_its_first_word_lost_one() -> None:
    trial = Trial("interruption", ("Tokyo is late.",), person="No, no, that's not it.")
    assert judge(attrs.evolve(trial, heard=("No, that's not it.",))).words_lost == 1
    assert judge(attrs.evolve(trial, heard=("No, no,", "that's not it."))).words_lost == 0
    said_nine = Trial("answer", ("Which platform?",), person="nine", heard=("twenty", "nine"))
    assert judge(said_nine).words_lost == 0, "no number runs across two lines"


@given(st.lists(trials, max_size=12))
def test_each_kind_counts_its_own_trials_and_the_totals_add_up(given_trials: list[Trial]) -> None:
    score = score_echo(given_trials)
    assert [kind.kind for kind in score.kinds] == [
        kind for kind in KINDS if any(trial.kind == kind for trial in given_trials)
    ]
    assert score.total("trials") == len(given_trials)
    assert score.total("own_lines") == sum(judge(trial).own_lines for trial in given_trials)
    assert score.total("words_lost") == sum(judge(trial).words_lost for trial in given_trials)
    for kind in score.kinds:
        assert 0 <= kind.resumed <= kind.paused <= kind.trials
        assert kind.went_on + kind.stopped == kind.trials
        assert kind.false_stops + kind.missed <= kind.trials
        assert len(kind.to_pause_s) <= kind.paused
        if kind.to_pause_s:
            assert kind.pause_p50_s is not None and kind.pause_p95_s is not None
            assert min(kind.to_pause_s) <= kind.pause_p50_s <= kind.pause_p95_s
        else:
            assert kind.pause_p50_s is None


def test_a_number_said_in_words_and_heard_in_digits_is_its_own_voice() -> None:
    trial = Trial(kind="cough", said=("The train leaves at ten past nine.",))
    assert own_line("Train at 10 past 9.", trial)
