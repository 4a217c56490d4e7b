"""The whisper recogniser on real speech, through the shared conformance kit."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from assist.core.recognisers import Recogniser, RecogniserOptions
from assist.engine_kit.recognisers import RecogniserConformance
from assist.stt.whisper.engine import DECODING
from assist.stt.whisper.plugin import build


class TestWhisperConformance(RecogniserConformance):
    recogniser_name = "whisper"
    entry_point = "whisper"
    max_word_error_rate = 0.10
    exact_phrases = ("Claude", "429", "yes do it")
    heavy_modules = ("numpy", "faster_whisper", "ctranslate2", "onnxruntime", "av", "tokenizers")
    heavy_libraries = ("libctranslate2", "libonnxruntime")

    @pytest.fixture(scope="class")
    @classmethod
    def recogniser(cls) -> Iterator[Recogniser]:
        recogniser = build(RecogniserOptions())
        yield recogniser
        recogniser.close()


def test_the_default_model_is_tiny_en_decoded_greedily_in_english():
    assert DECODING["beam_size"] == 1 and DECODING["language"] == "en"
    assert DECODING["without_timestamps"] is True


def test_a_closed_recogniser_says_so():
    import numpy as np

    recogniser = build(RecogniserOptions(threads=1))
    assert recogniser.model == "tiny.en"
    recogniser.close()
    with pytest.raises(RuntimeError, match="closed"):
        recogniser.transcribe(np.zeros(16_000, dtype=np.float32))
