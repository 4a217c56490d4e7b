"""The espeak engine passes assist's engine conformance kit."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from assist.core.engines import Engine, VoiceOptions
from assist.core.testing import EngineConformance
from assist.voice.espeak.plugin import build


class TestEspeakConformance(EngineConformance):
    """No `max_word_error_rate`: pocketsphinx's default model hears little of espeak-ng's
    formant voice (about two words in three are lost on the kit's line), so the kit's
    recogniser check is skipped for espeak, with that reason; test_espeak_engine.py checks
    instead that each line is audible speech of a plausible length."""

    engine_name = "espeak"

    @pytest.fixture(scope="class")
    @classmethod
    def engine(cls, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
        engine = build(VoiceOptions(cache_root=str(tmp_path_factory.mktemp("cache"))))
        yield engine
        engine.close()
