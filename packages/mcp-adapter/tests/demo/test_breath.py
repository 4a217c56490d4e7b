"""A hesitant phrase said in one breath: where `breath.piece_ends` cuts a sentence, on espeak's
phonemes as Piper writes them, then on Piper's own audio, heard by whisper."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from assist.core.recognisers import Recogniser, RecogniserOptions
from assist.core.words import normalise_words
from assist.mcp.demo.rooms.breath import phoneme_words, piece_ends
from assist.mcp.demo.rooms.voiced import Voice
from hypothesis import given
from hypothesis import strategies as st

# "… ahead with" + "the migration", as Piper said them (samples per phoneme, shortened): espeak
# writes "with the" as one word of phonemes, "wɪððə", when the two are said together.
AHEAD_WITH = list("ɐhˈɛd wɪð")
THE_MIGRATION = list("ðə maɪɡɹˈeɪʃən.")
SHORT_PAUSE = np.zeros(3200, np.float32)
"""The listener's 200 ms short pause after a piece, as the turn model and whisper get it."""
SENTENCE = [("^", 7), *[(p, 10) for p in "ɐhˈɛd wɪððə maɪɡɹˈeɪʃən."], ("$", 3)]


def test_a_piece_ends_where_its_last_word_does_when_espeak_keeps_the_words_apart() -> None:
    # "ahead" + "with the migration": the cut is the end of "ɐhˈɛd", before the gap.
    (end,) = piece_ends(SENTENCE, [(list("ɐhˈɛd"), list("wɪððə maɪɡɹˈeɪʃən."))])
    assert end == 7 + 5 * 10  # the start, then ɐ h ˈ ɛ d


def test_a_piece_whose_last_word_espeak_joined_to_the_next_ends_inside_the_joined_word() -> None:
    (end,) = piece_ends(SENTENCE, [(AHEAD_WITH, THE_MIGRATION)])
    assert end == 7 + 6 * 10 + 3 * 10  # "ɐhˈɛd", the gap, then w ɪ ð: not "ðə"


def test_a_joined_word_said_otherwise_than_alone_is_cut_before_the_next_words_sounds() -> None:
    # "… people for" + "the night shift": "for" is "fɔːɹ" alone but "fɚ" in "fɚðə".
    sentence = [(p, 10) for p in "pˈiːpəl fɚðə nˈaɪt"]
    (end,) = piece_ends(sentence, [(list("pˈiːpəl fˈɔːɹ"), list("ðə nˈaɪt ʃˈɪft."))])
    assert end == 7 * 10 + 10 + 2 * 10  # "pˈiːpəl", the gap, then f ɚ: not "ðə"


def test_a_word_said_otherwise_but_not_joined_is_cut_at_its_own_end() -> None:
    # "what about the" + "other one": "the" is "ðə" alone, "ðɪʲ" before a vowel, still a word.
    sentence = [(p, 10) for p in "əbˈaʊt ðɪʲ ˈʌðɚ wˈʌn."]
    (end,) = piece_ends(sentence, [(list("əbˈaʊt ðə"), list("ˈʌðɚ wˈʌn."))])
    assert end == 6 * 10 + 1 * 10 + 3 * 10  # "əbˈaʊt", the gap, then ð ɪ ʲ


def test_a_cut_past_the_sentences_words_is_refused() -> None:
    with pytest.raises(ValueError, match="a cut after 5 words of a 3-word sentence"):
        piece_ends(SENTENCE, [(list("a b c d e"), [])])


def test_the_words_of_phonemes_leave_out_stress_marks_and_punctuation() -> None:
    assert phoneme_words(list("ˈɐhɛd, wɪð.")) == [list("ɐhɛd"), list("wɪð")]


@given(st.lists(st.integers(1, 6), min_size=2, max_size=8), st.data())
def test_cuts_fall_in_order_inside_the_sentence(lengths: list[int], data: st.DataObject) -> None:
    words = ["a" * length for length in lengths]
    alignments = [("^", 5)]
    for number, word in enumerate(words):
        if number:
            alignments.append((" ", 4))
        alignments.extend((sound, 10) for sound in word)
    total = sum(samples for _, samples in alignments)
    cuts = sorted(data.draw(st.sets(st.integers(1, len(words) - 1), min_size=1)))
    splits = [(list(" ".join(words[:cut])), list(" ".join(words[cut:]))) for cut in cuts]
    ends = piece_ends(alignments, splits)
    assert ends == sorted(ends) and all(0 < end < total for end in ends)
    assert len(set(ends)) == len(ends), "each piece keeps some sound"


@pytest.fixture(scope="module")
def voice() -> Iterator[Voice]:
    said = Voice(alignments=True)
    yield said
    said.close()


@pytest.fixture(scope="module")
def whisper() -> Recogniser:
    from assist.stt.whisper.plugin import build

    return build(RecogniserOptions())


@pytest.mark.parametrize(
    ("first", "rest"),
    [
        ("Yesterday the team in Berlin told me that", "the servers are ready."),  # "ðætðə"
        ("The reason the build failed last night was", "a missing setting on the server."),
        ("Next month we are planning to", "open a second office in Leeds."),
        ("I am not sure we have enough people for", "the night shift next month."),  # "fɚðə"
    ],
)
def test_piper_said_in_one_breath_is_cut_after_the_pieces_last_word(
    voice: Voice, whisper: Recogniser, first: str, rest: str
) -> None:
    head, tail = voice.say_in_one_breath((first, rest))
    whole = voice.say(f"{first} {rest}")
    assert abs(len(head) + len(tail) - len(whole)) < 0.2 * 16_000, "nothing lost but the edges"
    edges = np.abs(np.concatenate([head[-8:], tail[:8]]))
    assert edges.max() < 0.02, "faded at the cut, not a step (0.17 unfaded at 'was | a')"
    heard = whisper.transcribe(np.concatenate([head, SHORT_PAUSE]))
    assert normalise_words(heard.text)[-1] == normalise_words(first)[-1], heard.text


def test_every_hesitant_phrase_of_the_turn_sets_is_cut_before_its_next_pieces_first_word(
    voice: Voice, whisper: Recogniser
) -> None:
    from assist.mcp.eval.turn_sets import TURN_SETS

    said = {phrase.pieces for turn_set in TURN_SETS.values() for phrase in turn_set.phrases}
    leaked = []
    for pieces in sorted(piece for piece in said if len(piece) > 1):
        parts = voice.say_in_one_breath(pieces)
        assert len(parts) == len(pieces), pieces
        assert all(len(part) > 0.2 * 16_000 for part in parts), pieces
        heard = normalise_words(whisper.transcribe(np.concatenate([parts[0], SHORT_PAUSE])).text)
        last, following = normalise_words(pieces[0])[-1], normalise_words(pieces[1])[0]
        assert last != following, "a leak would not show"
        if heard[-1:] == [following]:
            leaked.append((pieces[0], " ".join(heard)))
    assert not leaked, "the next piece's first word is heard before the pause"


def test_a_voice_loaded_without_alignments_refuses_one_breath_saying_why() -> None:
    plain = Voice()
    try:
        with pytest.raises(ValueError, match="cannot be said in one breath"):
            plain.say_in_one_breath(("Next month we are planning to", "open an office."))
    finally:
        plain.close()
