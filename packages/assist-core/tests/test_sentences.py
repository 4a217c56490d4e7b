"""Sentence splitting (behaviour 8.4) and the clause cut that brings the first sound sooner."""

from __future__ import annotations

import re

from assist.core.sentences import LONG_SENTENCE, ends_sentence, speech_chunks, split_sentences
from hypothesis import given
from hypothesis import strategies as st


def _visible(text: str) -> str:
    return "".join(text.split())


def test_the_behaviour_example_splits_into_its_three_sentences():
    text = "Sure. It shipped Monday! Any questions?  "
    assert split_sentences(text) == ["Sure.", "It shipped Monday!", "Any questions?"]


def test_text_without_sentence_marks_is_one_stripped_sentence():
    assert split_sentences("  just some words  ") == ["just some words"]


def test_empty_and_blank_text_have_no_sentences():
    assert split_sentences("") == []
    assert split_sentences(" \n\t ") == []
    assert speech_chunks("   ") == []


def test_a_mark_not_followed_by_whitespace_does_not_split():
    assert split_sentences("Version 3.5 is out.Really?Yes") == ["Version 3.5 is out.Really?Yes"]


def test_any_whitespace_after_a_mark_splits_and_repeated_marks_stay_together():
    assert split_sentences("Wait...\nwhat?! Fine.") == ["Wait...", "what?!", "Fine."]


def test_short_first_sentences_are_left_whole():
    text = "Yes, we can. The rest, as they say, is history."
    assert speech_chunks(text) == ["Yes, we can.", "The rest, as they say, is history."]


def test_a_long_first_sentence_is_cut_at_its_first_clause_boundary_keeping_the_comma():
    text = (
        "The rate limit is one hundred requests a minute, and the burst allowance "
        "covers about ten more. Anything else?"
    )
    assert len(split_sentences(text)[0]) > LONG_SENTENCE
    assert speech_chunks(text) == [
        "The rate limit is one hundred requests a minute,",
        "and the burst allowance covers about ten more.",
        "Anything else?",
    ]


def test_only_the_first_sentence_is_cut():
    second = "After that, the second sentence is long enough to cut but it is never cut at all."
    assert speech_chunks("Sure. " + second) == ["Sure.", second]


def test_a_boundary_leaving_too_few_words_on_a_side_is_passed_over():
    text = "Well, I think the migration will finish well before the deadline; it is on track now."
    assert speech_chunks(text) == [
        "Well, I think the migration will finish well before the deadline;",
        "it is on track now.",
    ]


def test_a_long_sentence_with_no_usable_boundary_stays_whole():
    text = "The deployment of the new billing service happens on Thursday afternoon at four"
    assert speech_chunks(text) == [text]


def test_numbers_with_commas_colons_and_points_are_never_cut():
    text = "We processed 1,000,000 events at 12:30 with latency of 3.5 ms across eleven regions."
    assert speech_chunks(text) == [text]


def test_semicolons_colons_and_dashes_are_clause_boundaries():
    for mark in (";", ":", " -", " –", " —"):
        head = f"The first part has plenty of words in it{mark}"
        text = f"{head} and the second part has enough too."
        assert speech_chunks(text) == [head, "and the second part has enough too."], mark


sentence_like = st.text(alphabet=st.sampled_from(list("ab1 .!?,;:-–—\n\t\u00a0é3")), max_size=200)


@given(st.text() | sentence_like)
def test_splitting_never_loses_or_reorders_visible_characters(text):
    assert _visible("".join(split_sentences(text))) == _visible(text)
    assert _visible("".join(speech_chunks(text))) == _visible(text)


@given(st.text() | sentence_like)
def test_every_piece_is_stripped_and_non_empty(text):
    for piece in split_sentences(text) + speech_chunks(text):
        assert piece and piece == piece.strip()


@given(st.text() | sentence_like)
def test_speech_chunks_only_ever_cut_the_first_sentence_in_two(text):
    sentences = split_sentences(text)
    chunks = speech_chunks(text)
    assert chunks[len(chunks) - len(sentences) + 1 :] == sentences[1:]
    assert len(sentences) <= len(chunks) <= len(sentences) + 1


@given(st.text() | sentence_like)
def test_every_sentence_ends_at_a_mark_followed_by_whitespace_and_holds_no_such_break(text):
    sentences = split_sentences(text)
    for sentence in sentences:
        assert not re.search(r"[.!?]\s", sentence)
    for sentence in sentences[:-1]:
        assert sentence[-1] in ".!?"


def test_a_sentence_ends_at_its_mark_and_a_cut_clause_does_not():
    head, tail = speech_chunks(
        "Yes, it did, and the release went out on Monday morning exactly as we planned."
    )
    assert not ends_sentence(head)
    assert ends_sentence(tail)
    assert ends_sentence("Any questions?  ") and ends_sentence("It shipped!")
    assert not ends_sentence("no mark at all") and not ends_sentence("")


@given(st.text(alphabet=" abc,;.!?\n-", max_size=200))
def test_every_piece_but_the_last_ends_a_sentence_unless_it_is_the_cut_first_clause(text):
    pieces = speech_chunks(text)
    whole = split_sentences(text)
    for index, piece in enumerate(pieces[:-1]):
        cut_clause = index == 0 and len(pieces) == len(whole) + 1
        assert ends_sentence(piece) is not cut_clause
