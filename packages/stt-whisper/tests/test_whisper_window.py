"""The fitted window: its size, what counts as a loop, and that it says what the full one does."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from assist.core.recognisers import Recognised, RecogniserOptions
from assist.stt.whisper import window
from assist.stt.whisper.engine import WhisperRecogniser
from assist.stt.whisper.plugin import build
from hypothesis import given
from hypothesis import strategies as st


def test_a_short_turn_gets_the_floor_a_long_one_its_length_and_margin_never_past_30_s():
    assert window.window_frames(120) == window.FLOOR_FRAMES
    assert window.window_frames(1200) == 1200 + window.MARGIN_FRAMES
    assert window.window_frames(2600) == window.FULL_FRAMES


@pytest.mark.parametrize(
    "text",
    [
        "No? No? No? No? No? No?",
        "What time is it? What time is it? What time is it?",
        "Yes do it. Yes do it.",
        "We should ship the billing page. ship ship ship ship ship ship",
    ],
)
def test_what_whisper_says_on_too_short_a_window_is_a_loop(text):
    assert window.repeats_itself(text)


@pytest.mark.parametrize(
    "text",
    ["What time is it?", "No, no.", "Yes, please do.", "I think, I think we can.", "a b a b a"],
)
def test_ordinary_speech_is_not_a_loop(text):
    assert not window.repeats_itself(text)


@given(st.lists(st.sampled_from(["go", "on", "then", "now"]), min_size=1, max_size=4))
def test_any_phrase_said_again_and_again_is_a_loop(phrase):
    times = -(-window.LOOP_WORDS // len(phrase))
    assert window.repeats_itself(" ".join(phrase * max(times, 2)))


def test_the_token_budget_grows_with_the_turn():
    assert window.token_budget(1.0) < window.token_budget(5.0)
    assert window.token_budget(0.0) == window.SPARE_TOKENS


def test_the_last_word_is_its_tokens_and_the_marks_after_it_are_not_part_of_it():
    assert window.last_word([" We", " could", " look", " at", " her", "?"]) == range(4, 5)
    assert window.last_word([" the", " crack", "ed", " pots", "."]) == range(3, 4)
    assert window.last_word([" flower", " pot", "ted", "..."]) == range(1, 3)
    assert window.last_word(["Hello"]) == range(0, 1)
    assert window.last_word(["..."]) is None
    assert window.last_word([]) is None


@given(st.lists(st.sampled_from([" yes", " no", "ed", "s", " 10", ".", "?", ","]), max_size=12))
def test_the_last_word_ends_on_the_last_token_with_a_letter_and_starts_a_word(pieces):
    word = window.last_word(pieces)
    spoken = [at for at, piece in enumerate(pieces) if piece.strip(".?,")]
    if not spoken:
        assert word is None
        return
    assert word is not None
    assert word[-1] == spoken[-1]
    assert word[0] == 0 or pieces[word[0]].startswith(" ")
    assert not any(pieces[at].startswith(" ") for at in word[1:])


def test_a_chosen_token_gets_its_softmax_probability():
    assert window.chosen_probability([0.0, 0.0], 1) == pytest.approx(0.5)
    assert window.chosen_probability([1000.0, 0.0, 0.0], 0) == pytest.approx(1.0)
    assert window.chosen_probability([2.0, 1.0], 0) == pytest.approx(
        1 / (1 + 2.718281828459045**-1)
    )


@pytest.fixture(scope="module")
def recogniser() -> Iterator[WhisperRecogniser]:
    built = build(RecogniserOptions())
    assert isinstance(built, WhisperRecogniser)
    yield built
    built.close()


@pytest.mark.parametrize(
    "line", ["What time is it?", "Shall I throw away the cracked flower pots?"]
)
def test_the_fitted_window_hears_what_the_full_window_hears(recogniser, line):
    import numpy as np
    from assist.engine_kit.recognisers import speak

    audio = np.concatenate([np.zeros(3200, dtype=np.float32), speak(line)])
    assert recogniser.transcribe(audio).text == recogniser.transcribe_full(audio).text


def test_a_decoding_the_fitted_window_does_not_trust_goes_round_the_full_window(
    recogniser, monkeypatch
):
    import numpy as np
    from assist.engine_kit.recognisers import speak

    audio = np.concatenate([np.zeros(3200, dtype=np.float32), speak("Yes, please do.")])
    monkeypatch.setattr(window, "repeats_itself", lambda text: True)
    full = []
    real_full = recogniser.transcribe_full
    monkeypatch.setattr(
        recogniser, "transcribe_full", lambda a, p="": full.append(p) or real_full(a, p)
    )
    heard = recogniser.transcribe(audio, prompt="mm-hm")
    assert full == ["mm-hm"]
    assert "please" in heard.text.lower()


def test_a_peek_is_a_20_s_window_alone_and_one_it_does_not_trust_is_nothing_heard(
    recogniser, monkeypatch
):
    """A look must land within the hold: told the backchannels, whisper looped on the 10 s
    window at 76 of 180 looks, and going round the full window then took 0.7-1.0 s. What the
    window does not trust (a loop, a guess) the listener would drop as unsure anyway."""
    import numpy as np
    from assist.engine_kit.recognisers import speak

    audio = np.concatenate([np.zeros(3200, dtype=np.float32), speak("Wait, stop.")])
    windows = []
    real_encode = recogniser._model.encode
    monkeypatch.setattr(
        recogniser._model, "encode", lambda f: windows.append(f.shape[-1]) or real_encode(f)
    )
    assert "stop" in recogniser.peek(audio, "Mm-hm. Yeah.").text.lower()
    assert windows == [window.PEEK_FLOOR_FRAMES]
    full = []
    monkeypatch.setattr(recogniser, "transcribe_full", lambda *a, **k: full.append(a))
    monkeypatch.setattr(window, "repeats_itself", lambda text: True)
    assert recogniser.peek(audio, "Mm-hm. Yeah.") == Recognised("", 0.0)
    assert recogniser.peek(np.zeros(0, dtype=np.float32)).text == ""
    assert full == []


def test_a_finished_question_ends_on_a_word_whisper_is_sure_of(recogniser):
    """The words' veto waits on a last word whisper doubts; a clearly spoken question's
    last word is not one, or every question would wait for the limit. The full window
    gives no token's probability, so it leaves the last word unknown."""
    import numpy as np
    from assist.core.turn_words import UNSURE_BELOW
    from assist.engine_kit.recognisers import speak

    audio = np.concatenate(
        [np.zeros(3200, dtype=np.float32), speak("Shall I throw away the cracked flower pots?")]
    )
    sure = recogniser.transcribe(audio).last_word_confidence
    assert sure is not None
    assert UNSURE_BELOW <= sure <= 1.0
    assert recogniser.transcribe_full(audio).last_word_confidence is None
