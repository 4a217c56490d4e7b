"""The voice engine conformance kit: the checks every engine package runs in its own tests.

An engine package subclasses `EngineConformance` in a test module and overrides its
class-scoped `engine` fixture with one that builds (and afterwards closes) its engine:

    from assist.engine_kit.voices import EngineConformance

    class TestEspeakConformance(EngineConformance):
        engine_name = "espeak"

        @pytest.fixture(scope="class")
        @classmethod
        def engine(cls):
            engine = build(VoiceOptions())
            yield engine
            engine.close()

The checks (design.md, Plugins): empty, long and non-ASCII text, every tone (and an
unknown one), float32 mono chunks at the declared rate, the first chunk before the whole
line is done, no silent output, stopping between chunks, (opt in with
`max_word_error_rate`, which needs the `hearing` extra) the words coming back through a
speech recogniser, and (opt in with `entry_point`) the plugin: offered through its entry
point, and listing it in a fresh process imports none of `heavy_modules`. Class attributes
tune the checks per engine.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any, ClassVar

import attrs
import numpy as np
import pytest
from assist.core.engines import ENGINE_PACKAGES, GROUP, Engine
from assist.core.sentences import split_sentences
from assist.core.tones import NEUTRAL, TONES
from assist.core.words import word_error_rate

MOST_SECONDS_PER_WORD = 1.0
"""Even slow, deliberate speech stays well under a second a word; more means the audio
was made at a higher rate than the engine declares."""

FIRST_CHUNK_SLACK_S = 0.005
"""A first chunk this soon came before the line was made, however short the line: an
engine that makes the whole line first takes longer than this for any real sentence."""

SHORTEST_TIMED_LINE_S = 0.05
"""Below this, a whole line's time is mostly thread scheduling (one preempted time slice on
a busy two-core machine is 10 to 30 ms), so the first chunk's share of it says nothing."""

LISTING_TIMEOUT_S = 60.0
"""The fresh process that lists a plugin starts Python and imports assist.core: a few
seconds at most, even on a busy machine."""

LISTING_SCRIPT = """
import json, sys
from importlib import metadata
from assist.core.engines import VOICES, VoiceOptions
from assist.core.plugins import Registry
group, name, cache_root, kinds = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
registry = Registry(VOICES)
registry.load(metadata.entry_points(group=group, name=name), {})
assert not registry.broken, registry.broken
ready = {}
for spec in registry.specs.values():
    spec.check()
    ready[spec.name] = [spec.ready_offline(VoiceOptions(cache_root=cache_root, **kind))
                        for kind in kinds]
maps = open("/proc/self/maps").read().split() if sys.platform == "linux" else []
libraries = sorted({word.rsplit("/", 1)[-1] for word in maps if word.startswith("/")})
print(json.dumps({"modules": sorted(sys.modules), "libraries": libraries, "ready": ready}))
"""
"""Run in a fresh process, so that what the test process imported cannot hide an import:
loads one entry point as the voice helper does, asks each engine whether it can run and is
ready offline, and prints the modules then imported, the mapped libraries and the answers."""


def rms(chunk: Any) -> float:
    """Root mean square of an audio chunk (0.0 for an empty one)."""
    samples = np.asarray(chunk, dtype=np.float64)
    return float(np.sqrt(np.mean(np.square(samples)))) if samples.size else 0.0


@attrs.frozen
class Recording:
    """One line as an engine streamed it, with when its first and last chunks came."""

    chunks: list[Any]
    sample_rate: int
    first_chunk_s: float | None
    total_s: float

    @property
    def samples(self) -> int:
        return sum(len(chunk) for chunk in self.chunks)

    @property
    def audio_s(self) -> float:
        return self.samples / self.sample_rate

    def audio(self) -> Any:
        return np.concatenate(self.chunks) if self.chunks else np.zeros(0, dtype=np.float32)


def record(engine: Engine, text: str, tone: str = NEUTRAL) -> Recording:
    """Stream one line from `engine` to the end, timing the first chunk and the whole."""
    start = time.perf_counter()
    first: float | None = None
    chunks: list[Any] = []
    for chunk in engine.stream(text, tone):
        if first is None:
            first = time.perf_counter() - start
        chunks.append(chunk)
    return Recording(chunks, engine.sample_rate, first, time.perf_counter() - start)


def check_chunks(chunks: Iterable[Any], where: str) -> None:
    """Fail unless every chunk is a non-empty, finite, 1-D float32 numpy array."""
    for index, chunk in enumerate(chunks):
        what = f"{where}: chunk {index}"
        assert isinstance(chunk, np.ndarray), f"{what} is a {type(chunk).__name__}, not ndarray"
        assert chunk.dtype == np.float32, f"{what} has dtype {chunk.dtype}, not float32"
        assert chunk.ndim == 1, f"{what} has shape {chunk.shape}; mono audio is 1-D"
        assert chunk.size > 0, f"{what} is empty; yield only chunks that hold samples"
        assert np.isfinite(chunk).all(), f"{what} holds NaN or infinite samples"


class EngineConformance:
    """Subclass in an engine package's tests; override the `engine` fixture."""

    engine_name: ClassVar[str | None] = None
    """The name the engine must report; None accepts any non-empty name."""
    sample_rates: ClassVar[tuple[int, int]] = (8_000, 48_000)
    """The range a declared sample rate must fall in."""
    checks_silence: ClassVar[bool] = True
    """Whether output must be audible (RMS at least `rms_floor`)."""
    rms_floor: ClassVar[float] = 0.01
    """Quietest RMS a spoken line may have: speech sits around 0.05 to 0.3."""
    seconds_per_word: ClassVar[float] = 0.2
    """Least audio per word; below it words were dropped or the declared rate is too
    high (speech is about 0.3 to 0.4 s a word; 0.2 is 300 words a minute)."""
    first_chunk_share: ClassVar[float] = 0.8
    """The first chunk of the two-sentence line must arrive within this share of the
    time the whole line takes; an engine that makes everything first arrives at ~1."""
    stop_within_s: ClassVar[float] = 2.0
    """Longest that closing a stream between chunks may take."""
    max_word_error_rate: ClassVar[float | None] = None
    """When set, the recogniser must get this line's words back within this rate."""
    entry_point: ClassVar[str | None] = None
    """The plugin's entry-point name in group `assist.voices`; None skips the plugin
    checks. The offered engine is `engine_name`, from the distribution `distribution`."""
    distribution: ClassVar[str | None] = None
    """The distribution that must offer the engine; None means the one ENGINE_PACKAGES
    names for `engine_name`."""
    available_here: ClassVar[bool] = True
    """Whether the engine's `check` must find nothing in the way on the test machine;
    an engine that runs only on some platforms sets False."""
    heavy_modules: ClassVar[tuple[str, ...]] = ()
    """Modules (and their submodules) that listing the plugin must not import: numpy,
    the engine's library and its runtime, which the MCP server must stay free of."""
    heavy_libraries: ClassVar[tuple[str, ...]] = ()
    """Shared-library names that listing the plugin must not map (checked on Linux)."""
    offline_voices: ClassVar[tuple[dict[str, str], ...]] = ({},)
    """The voice options (other than a fresh `cache_root`) to ask `ready_offline` about
    while listing, one per kind of voice the engine has."""
    ready_offline_when_fresh: ClassVar[bool | None] = None
    """What `ready_offline` must answer for each of `offline_voices` with an empty cache
    folder; None leaves the answer unchecked (a cache kept elsewhere decides it)."""

    two_sentence_text: ClassVar[str] = (
        "Sure. The release went out on Monday morning, and nobody has reported a "
        "problem with the new billing page since then."
    )
    long_text: ClassVar[str] = (
        "Here is a longer answer, so that no words get lost along the way. The team "
        "agreed to move the launch to the second week of June. Marketing needs the "
        "final screenshots by Friday, and support wants a short guide for customers. "
        "If anything slips, we will tell everyone in the Tuesday meeting."
    )
    non_ascii_text: ClassVar[str] = "Zoë paid 5 € at the café in Zürich — naïve, but fine."
    tone_text: ClassVar[str] = "Thanks, that is noted."
    intelligibility_text: ClassVar[str] = (
        "The budget for the new project was approved this morning. "
        "We can start hiring the first engineers next week."
    )

    @pytest.fixture(scope="class")
    @classmethod
    def engine(cls) -> Engine:
        """Override with a class-scoped fixture that builds the engine to check."""
        pytest.fail(
            f"{cls.__name__} must override the `engine` fixture with a "
            "class-scoped fixture that builds the engine (and closes it afterwards)"
        )

    @pytest.fixture(scope="class")
    @classmethod
    def two_sentences(cls, engine: Engine) -> Recording:
        """The two-sentence line, recorded once for the checks that only look at it."""
        return record(engine, cls.two_sentence_text)

    def assert_audible(self, recording: Recording, what: str) -> None:
        assert recording.samples > 0, f"{what} gave no audio"
        if self.checks_silence:
            level = rms(recording.audio())
            assert level >= self.rms_floor, (
                f"{what} is silent: RMS {level:.4f} is below the floor of {self.rms_floor}"
            )

    def test_the_engine_declares_a_name_and_a_plausible_sample_rate(self, engine: Engine) -> None:
        assert isinstance(engine.name, str) and engine.name, "the engine has no name"
        if self.engine_name is not None:
            assert engine.name == self.engine_name
        rate = engine.sample_rate
        low, high = self.sample_rates
        assert isinstance(rate, int) and not isinstance(rate, bool), (
            f"sample_rate {rate!r} is not an int"
        )
        assert low <= rate <= high, f"sample_rate {rate} is outside {low}..{high} Hz"

    def test_every_chunk_is_float32_mono_at_the_declared_rate(
        self, two_sentences: Recording
    ) -> None:
        check_chunks(two_sentences.chunks, "the two-sentence line")
        assert two_sentences.samples > 0, "the two-sentence line gave no audio"
        spoken = two_sentences.audio_s
        words = len(self.two_sentence_text.split())
        low, high = words * self.seconds_per_word, words * MOST_SECONDS_PER_WORD
        assert low <= spoken <= high, (
            f"{words} words gave {spoken:.2f} s of audio at the declared "
            f"{two_sentences.sample_rate} Hz; is the declared rate the real one?"
        )

    def test_output_is_not_silent(self, two_sentences: Recording) -> None:
        if not self.checks_silence:
            pytest.skip(f"{type(self).__name__} sets checks_silence = False")
        self.assert_audible(two_sentences, "the two-sentence line")

    def test_the_first_chunk_comes_before_the_whole_line_is_done(
        self, two_sentences: Recording
    ) -> None:
        recording = two_sentences
        assert recording.first_chunk_s is not None, "the two-sentence line gave no audio"
        assert len(recording.chunks) >= 2, (
            "the two-sentence line came as one chunk; yield at least one per sentence"
        )
        first = len(recording.chunks[0]) / recording.sample_rate
        assert first < recording.audio_s * 0.5, (
            f"the first chunk holds {first:.2f} s of the line's {recording.audio_s:.2f} s; "
            "yield the first sentence on its own"
        )
        if recording.first_chunk_s <= FIRST_CHUNK_SLACK_S:
            return
        if recording.total_s < SHORTEST_TIMED_LINE_S:
            pytest.skip(
                f"the first chunk came after {recording.first_chunk_s * 1000:.1f} ms of the "
                f"line's {recording.total_s * 1000:.1f} ms; a line made in under "
                f"{SHORTEST_TIMED_LINE_S * 1000:.0f} ms is too quick for its first chunk's "
                "share to mean more than scheduling noise; set a longer two_sentence_text"
            )
        share = recording.first_chunk_s / recording.total_s
        assert share <= self.first_chunk_share, (
            f"the first chunk came after {recording.first_chunk_s:.3f} s of the line's "
            f"{recording.total_s:.3f} s ({share:.0%}); yield each sentence as soon as it "
            "is made instead of making the whole line first"
        )

    @pytest.mark.parametrize("text", ["", "   \n\t "], ids=["empty", "blank"])
    def test_empty_text_gives_no_audio_or_a_clear_error(self, engine: Engine, text: str) -> None:
        try:
            recording = record(engine, text)
        except Exception as error:
            assert str(error).strip(), f"empty text raised {type(error).__name__} without a message"
            return
        check_chunks(recording.chunks, "empty text")
        level = rms(recording.audio())
        assert level < self.rms_floor, f"empty text gave audible sound (RMS {level:.4f})"

    def test_a_long_line_is_spoken_in_full(self, engine: Engine) -> None:
        recording = record(engine, self.long_text)
        check_chunks(recording.chunks, "the long line")
        self.assert_audible(recording, "the long line")
        words = len(self.long_text.split())
        least = words * self.seconds_per_word
        assert recording.audio_s >= least, (
            f"the long line of {words} words gave only {recording.audio_s:.1f} s of "
            f"audio (at least {least:.1f} s expected); words were dropped"
        )
        sentences = len(split_sentences(self.long_text))
        assert len(recording.chunks) >= sentences, (
            f"the long line of {sentences} sentences came in {len(recording.chunks)} "
            "chunks; were sentences dropped? Yield at least one chunk per sentence"
        )

    def test_non_ascii_text_is_spoken(self, engine: Engine) -> None:
        recording = record(engine, self.non_ascii_text)
        check_chunks(recording.chunks, "the non-ASCII line")
        self.assert_audible(recording, "the non-ASCII line")

    @pytest.mark.parametrize("tone", TONES)
    def test_every_tone_is_spoken(self, engine: Engine, tone: str) -> None:
        recording = record(engine, self.tone_text, tone)
        check_chunks(recording.chunks, f"the {tone} line")
        self.assert_audible(recording, f"the {tone} line")

    def test_an_unknown_tone_is_spoken_as_neutral(self, engine: Engine) -> None:
        recording = record(engine, self.tone_text, "furious")
        check_chunks(recording.chunks, "a line with an unknown tone")
        self.assert_audible(recording, "a line with an unknown tone")

    def test_stopping_between_chunks_ends_the_line_and_the_next_line_still_speaks(
        self, engine: Engine
    ) -> None:
        stream = iter(engine.stream(self.two_sentence_text, NEUTRAL))
        check_chunks([next(stream)], "the line to stop")
        close = getattr(stream, "close", None)
        assert callable(close), (
            "the stream cannot be closed; make stream() a generator so a stop can end it"
        )
        start = time.perf_counter()
        close()
        took = time.perf_counter() - start
        assert took <= self.stop_within_s, (
            f"closing the stream took {took:.2f} s (at most {self.stop_within_s} s)"
        )
        after = record(engine, self.tone_text)
        check_chunks(after.chunks, "the line after a stop")
        self.assert_audible(after, "the line after a stop")

    def test_the_words_come_back_when_transcribed(
        self, engine: Engine, two_sentences: Recording, tmp_path: Path
    ) -> None:
        if self.max_word_error_rate is None:
            pytest.skip(f"{type(self).__name__} sets no max_word_error_rate")
        if self.intelligibility_text == self.two_sentence_text:
            recording = two_sentences
        else:
            recording = record(engine, self.intelligibility_text)
        path = tmp_path / "line.wav"
        write_wav, transcribe_wav = _hearing()
        write_wav(path, recording.audio(), recording.sample_rate)
        heard = transcribe_wav(path)
        rate = word_error_rate(self.intelligibility_text, heard)
        assert rate <= self.max_word_error_rate, (
            f"the recogniser heard {heard!r} for {self.intelligibility_text!r}: word "
            f"error rate {rate:.2f} (at most {self.max_word_error_rate})"
        )

    def list_plugin(self, cache_root: Path) -> dict[str, Any]:
        """What listing the plugin in a fresh process imported, mapped and answered."""
        if self.entry_point is None:
            pytest.skip(f"{type(self).__name__} sets no entry_point")
        kinds = json.dumps(list(self.offline_voices))
        command = [
            sys.executable,
            "-c",
            LISTING_SCRIPT,
            GROUP,
            self.entry_point,
            str(cache_root),
        ]
        done = subprocess.run(
            [*command, kinds], capture_output=True, text=True, timeout=LISTING_TIMEOUT_S
        )
        assert done.returncode == 0, (
            f"listing the plugin {self.entry_point!r} failed:\n{done.stderr}"
        )
        listed: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
        return listed

    def test_the_engine_is_offered_through_its_entry_point(self, tmp_path: Path) -> None:
        from importlib import metadata

        from assist.core.engines import VOICES, EngineSpec
        from assist.core.plugins import Registry

        if self.entry_point is None or self.engine_name is None:
            pytest.skip(f"{type(self).__name__} sets no entry_point and engine_name")
        found = metadata.entry_points(group=GROUP, name=self.entry_point)
        assert found, f"no entry point {self.entry_point!r} in group {GROUP}; is it installed?"
        registry: Registry[EngineSpec] = Registry(VOICES)
        registry.load(found, {})
        assert not registry.broken, f"the plugin broke while loading: {registry.broken}"
        spec = registry.spec(self.engine_name)
        distribution = self.distribution or ENGINE_PACKAGES.get(self.engine_name)
        assert spec.package == distribution, (
            f"the engine names {spec.package!r} as its package, not {distribution!r}"
        )
        owner = next(iter(found)).dist
        assert owner is not None and owner.name == distribution, (
            f"the entry point comes from {owner and owner.name!r}, not {distribution!r}"
        )
        reason = registry.reasons()[self.engine_name]
        if self.available_here:
            assert reason is None, f"the engine says it cannot run here: {reason}"
        else:
            assert reason is None or (isinstance(reason, str) and reason.strip())

    def test_listing_the_plugin_imports_no_heavy_module(self, tmp_path: Path) -> None:
        if not self.heavy_modules and not self.heavy_libraries:
            pytest.skip(f"{type(self).__name__} sets no heavy_modules or heavy_libraries")
        listed = self.list_plugin(tmp_path)
        imported = sorted(
            module for module in listed["modules"] if module.split(".")[0] in self.heavy_modules
        )
        assert not imported, (
            f"listing the plugin imported {imported}; import them inside build() instead"
        )
        mapped = [
            library for library in listed["libraries"] if library.startswith(self.heavy_libraries)
        ]
        assert not mapped, f"listing the plugin loaded {mapped}; load them in build() instead"
        if self.ready_offline_when_fresh is not None:
            expected = [self.ready_offline_when_fresh] * len(self.offline_voices)
            assert listed["ready"][self.engine_name] == expected, (
                f"ready_offline with an empty cache answered {listed['ready']}, "
                f"not {self.ready_offline_when_fresh} for each of {self.offline_voices}"
            )


def _hearing() -> tuple[Any, Any]:
    """The shell's WAV writer and recogniser (`assist.mcp.replay.audio`), which the words
    check hears a line through; `pip install "assist-engine-kit[hearing]"` brings them."""
    try:
        from assist.mcp.replay.audio import transcribe_wav, write_wav
    except ImportError as missing:
        pytest.fail(
            f"the words check (max_word_error_rate) needs assist-mcp and pocketsphinx "
            f'({missing}); install them with pip install "assist-engine-kit[hearing]"'
        )
    return write_wav, transcribe_wav
