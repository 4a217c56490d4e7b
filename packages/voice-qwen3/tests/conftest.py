"""Fixtures for the qwen3-tts tests: a hub cache of tiny models, offline, on MLX's CPU."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import qwen3_tiny_model as tiny
from assist.voice.qwen3.keys import CLONE_MODEL, DESIGN_MODEL, PRESET_MODEL

MODELS = {PRESET_MODEL: "custom_voice", CLONE_MODEL: "base", DESIGN_MODEL: "voice_design"}
"""Each model id the engine fetches, and the kind of tiny model that stands in for it."""


@pytest.fixture(scope="session")
def tiny_hub(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A hub cache holding a tiny stand-in for every model the engine uses."""
    hub = tmp_path_factory.mktemp("hub")
    for seed, (repo_id, kind) in enumerate(MODELS.items()):
        tiny.build(hub, repo_id, kind, seed=seed)
    return hub


@pytest.fixture(scope="module")
def offline_hub(tiny_hub: Path) -> Iterator[Path]:
    """The tiny hub as the engine's only model source: offline, and allowed on the CPU (for
    one test module at a time, so the settings never leak into other packages' tests)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HF_HUB_CACHE", str(tiny_hub))
        patch.setenv("HF_HUB_OFFLINE", "1")
        patch.setenv("ASSIST_QWEN3_CPU", "1")
        yield tiny_hub
