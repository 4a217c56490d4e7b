"""The espeak engine against the real espeak-ng library from the espeakng-loader wheel."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from assist.core.engines import VoiceOptions
from assist.core.tones import TONES
from assist.voice.espeak import library
from assist.voice.espeak.data import short_data_path
from assist.voice.espeak.engine import EspeakEngine
from assist.voice.espeak.plugin import build

REPLY = "The budget was approved this morning. We can start hiring next week."
LONG_LINE = " ".join(["We will keep talking about the quarterly plan for a good while."] * 12)
SPEECH_RMS_FLOOR = 0.02
"""espeak-ng speaks at about 0.1 RMS; silence or a click is far below this."""
SECONDS_PER_WORD = (0.2, 0.8)
"""espeak-ng's default 175 words a minute is 0.34 s a word; anything outside this is broken."""
SAME_LENGTH = 0.01
"""espeak-ng varies a line's length by a few samples from one call to the next (its voicing
has a random element), so "the same line" means within 1 %; moods differ by 5 % or more."""


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> EspeakEngine:
    built = build(VoiceOptions(cache_root=str(tmp_path_factory.mktemp("cache"))))
    assert isinstance(built, EspeakEngine)
    return built


def speak(engine: EspeakEngine, text: str, tone: str = "neutral") -> np.ndarray:
    return np.concatenate(list(engine.stream(text, tone)))


def same_length(audio: np.ndarray, reference: int) -> bool:
    return abs(len(audio) - reference) <= SAME_LENGTH * reference


def synth_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "espeak-synth"]


def test_a_two_sentence_reply_is_speech_of_plausible_length(engine: EspeakEngine) -> None:
    audio = speak(engine, REPLY)
    seconds = len(audio) / engine.sample_rate
    words = len(REPLY.split())
    assert engine.sample_rate == 22050
    assert audio.dtype == np.float32 and audio.ndim == 1
    assert SECONDS_PER_WORD[0] * words <= seconds <= SECONDS_PER_WORD[1] * words
    assert float(np.sqrt(np.mean(audio**2))) > SPEECH_RMS_FLOOR
    assert np.abs(audio).max() <= 1.0


def test_chunks_are_about_a_tenth_of_a_second(engine: EspeakEngine) -> None:
    chunks = list(engine.stream(REPLY, "neutral"))
    lengths = [len(chunk) / engine.sample_rate for chunk in chunks[:-1]]
    assert len(chunks) > 10
    assert all(0.1 <= length <= 0.25 for length in lengths)


def test_a_long_line_is_still_being_synthesised_when_its_first_chunk_is_handed_out(
    engine: EspeakEngine,
) -> None:
    stream = engine.stream(LONG_LINE, "neutral")
    first = next(stream)
    assert len(first) > 0
    assert synth_threads(), "espeak-ng had already finished the whole line"
    stream.close()


def test_closing_a_stream_early_aborts_synthesis_and_the_next_line_is_whole(
    engine: EspeakEngine,
) -> None:
    whole = len(speak(engine, REPLY))
    stream = engine.stream(LONG_LINE, "neutral")
    next(stream)
    next(stream)
    stream.close()
    assert not synth_threads()
    assert same_length(speak(engine, REPLY), whole)


def test_a_line_dropped_without_closing_is_aborted_too(engine: EspeakEngine) -> None:
    whole = len(speak(engine, REPLY))
    stream = engine.stream(LONG_LINE, "neutral")
    next(stream)
    del stream  # the generator's finaliser closes it
    assert not synth_threads()
    assert same_length(speak(engine, REPLY), whole)


def test_a_line_left_unread_makes_the_next_fail_clearly_instead_of_hanging(
    engine: EspeakEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(library, "LOCK_WAIT_S", 0.2)
    held = engine.stream(LONG_LINE, "neutral")
    next(held)  # its worker fills the queue and waits, holding espeak-ng
    with pytest.raises(library.EspeakError, match="neither read to the end nor closed"):
        list(engine.stream(REPLY, "neutral"))
    held.close()
    assert float(np.sqrt(np.mean(speak(engine, REPLY) ** 2))) > SPEECH_RMS_FLOOR


def test_livelier_moods_speak_faster_and_graver_ones_slower(engine: EspeakEngine) -> None:
    length = {tone: len(speak(engine, REPLY, tone)) for tone in TONES}
    assert length["excited"] < length["neutral"] < length["apologetic"] < length["concerned"]
    assert length["warm"] > length["neutral"] > length["amused"]


def test_an_unknown_tone_is_spoken_as_neutral(engine: EspeakEngine) -> None:
    assert same_length(speak(engine, REPLY, "furious"), len(speak(engine, REPLY, "neutral")))


def test_a_mood_does_not_stick_to_the_next_neutral_line(engine: EspeakEngine) -> None:
    neutral = len(speak(engine, REPLY))
    assert not same_length(speak(engine, REPLY, "concerned"), neutral)
    assert same_length(speak(engine, REPLY), neutral)


def test_two_threads_speaking_at_once_each_get_their_whole_line(engine: EspeakEngine) -> None:
    alone = speak(engine, REPLY)
    results: list[np.ndarray] = []

    def speak_in_thread() -> None:
        other = build(VoiceOptions())
        assert isinstance(other, EspeakEngine)
        results.append(speak(other, REPLY))

    threads = [threading.Thread(target=speak_in_thread) for _ in range(3)]
    for thread in threads:
        thread.start()
    results.append(speak(engine, REPLY))
    for thread in threads:
        thread.join()
    assert len(results) == 4
    assert all(same_length(result, len(alone)) for result in results)


def test_the_voice_option_chooses_an_espeak_ng_voice(engine: EspeakEngine) -> None:
    british = build(VoiceOptions(voice="en-gb"))
    german = build(VoiceOptions(voice="German"))
    american = len(speak(engine, REPLY))
    assert not same_length(speak(british, REPLY), american)
    assert not same_length(speak(german, REPLY), american)


def test_an_unknown_voice_is_refused_naming_it() -> None:
    with pytest.raises(ValueError, match=r"no voice named 'zz-nothing'.*en-us"):
        build(VoiceOptions(voice="zz-nothing"))


def test_empty_text_is_refused(engine: EspeakEngine) -> None:
    with pytest.raises(ValueError, match="empty"):
        engine.stream("  \n ", "neutral")


def test_a_data_path_espeak_cannot_take_is_copied_once_to_the_cache(tmp_path: Path) -> None:
    shipped = tmp_path / ("deep" * 40) / "espeak-ng-data"
    (shipped / "voices").mkdir(parents=True)
    (shipped / "phontab").write_bytes(b"data")
    cache = tmp_path / "cache"
    copy = short_data_path(shipped, cache)
    assert copy == cache / "espeak-ng-data"
    assert (copy / "phontab").read_bytes() == b"data"
    (copy / "phontab").write_bytes(b"kept")
    assert short_data_path(shipped, cache) == copy
    assert (copy / "phontab").read_bytes() == b"kept", "copied again"
    assert [p.name for p in cache.iterdir()] == ["espeak-ng-data"]


def test_a_short_data_path_is_used_where_it_is(tmp_path: Path) -> None:
    assert short_data_path(tmp_path, tmp_path / "cache") == tmp_path
    assert not (tmp_path / "cache").exists()


def test_espeak_speaks_from_the_copy_when_the_wheel_sits_too_deep(tmp_path: Path) -> None:
    script = (
        "import json, os, sys, espeakng_loader\n"
        "from assist.core.engines import VoiceOptions\n"
        "from assist.voice.espeak.plugin import build\n"
        "deep = os.path.join(sys.argv[1], 'x' * 120, 'espeak-ng-data')\n"
        "os.makedirs(os.path.dirname(deep))\n"
        "os.symlink(espeakng_loader.get_data_path(), deep)\n"
        "espeakng_loader.get_data_path = lambda: deep\n"
        "engine = build(VoiceOptions(cache_root=os.path.join(sys.argv[1], 'c')))\n"
        "samples = sum(len(c) for c in engine.stream('Hello from the copy.', 'neutral'))\n"
        "print(json.dumps([samples, os.listdir(os.path.join(sys.argv[1], 'c'))]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONWARNINGS": "error"},
    )
    samples, cached = json.loads(out.stdout)
    assert samples > 22050 // 2
    assert cached == ["espeak-ng-data"]
