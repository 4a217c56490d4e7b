"""The espeak engine passes assist's engine conformance kit."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from assist.core.engines import Engine, VoiceOptions
from assist.engine_kit.voices import EngineConformance
from assist.voice.espeak.plugin import build


class TestEspeakConformance(EngineConformance):
    """No `max_word_error_rate`: pocketsphinx's default model hears little of espeak-ng's
    formant voice (about two words in three are lost on the kit's line), so the kit's
    recogniser check is skipped for espeak, with that reason; test_espeak_engine.py checks
    instead that each line is audible speech of a plausible length."""

    engine_name = "espeak"
    entry_point = "espeak"
    heavy_modules = ("numpy",)
    heavy_libraries = ("libespeak-ng",)
    """Listing engines (the MCP server does) loads neither numpy nor the espeak-ng library."""
    ready_offline_when_fresh = True
    """espeak-ng's data ships in a wheel: nothing is ever downloaded."""
    two_sentence_text = (
        "Sure. The release went out on Monday morning as planned, and since then nobody has "
        "reported a problem with the new billing page, the invoices have gone out on time, "
        "support has had a quiet week, and the team that worked late to ship it has finally "
        "taken the afternoon off to rest before we start planning the next release together "
        "on Thursday."
    )
    """A long second sentence: espeak-ng makes the kit's line in about 9 ms, so a scheduling
    hiccup of a few milliseconds before the first chunk could push it past the kit's 80 % of
    the line's time on a busy machine (62 % seen in 200 runs). This line takes about 36 ms,
    and its first chunk still comes within 1 ms (20 % at worst in 200 runs)."""

    @pytest.fixture(scope="class")
    @classmethod
    def engine(cls, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
        engine = build(VoiceOptions(cache_root=str(tmp_path_factory.mktemp("cache"))))
        yield engine
        engine.close()
