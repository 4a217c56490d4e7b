"""Which engine `auto` picks with the Mac engines installed (behaviour.md 9.1, 9.4).

The two Mac engines' real plugins (their `check` and `ready_offline`) sit in one registry with
stand-ins for kokoro, piper and espeak; the memory figure, the platform and which engines are
installed or downloaded are faked. On macOS the memory table decides; elsewhere an engine that
loads without a download comes first, so the consent notice never waits on the network.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from assist.app.engines import choose_here, load_plugins
from assist.core.engines import (
    GIB,
    VOICES,
    EngineSpec,
    VoiceOptions,
    choose_fallback,
    hookimpl,
)
from assist.core.plugins import Registry
from assist.voice.qwen3 import plugin as qwen3_plugin
from assist.voice.supertonic import plugin as supertonic_plugin
from assist.voice.supertonic.files import REQUIRED

OTHERS = ("kokoro", "piper", "espeak")
OURS = load_plugins(VOICES, {}).specs
"""The installed engines' own declarations, which the stand-ins rank by."""


class Others:
    """Stand-ins for the other engine packages: available, ready offline or not as told."""

    def __init__(self, installed: tuple[str, ...], downloaded: tuple[str, ...]) -> None:
        self.installed = installed
        self.downloaded = downloaded

    @hookimpl
    def assist_voice_engines(self, register: Callable[[EngineSpec], None]) -> None:
        for name in self.installed:
            register(
                EngineSpec(
                    name=name,
                    package=f"assist-voice-{name}",
                    build=lambda options: pytest.fail("no engine is built here"),
                    ready_offline=lambda options, name=name: name in self.downloaded,
                    rank=OURS[name].rank,
                    auto_memory=OURS[name].auto_memory,
                    fallback=OURS[name].fallback,
                )
            )


def registry(
    mac: tuple[str, ...] = ("qwen3", "supertonic"),
    others: tuple[str, ...] = OTHERS,
    downloaded: tuple[str, ...] = ("piper", "espeak"),
) -> Registry[EngineSpec]:
    plugins = {"qwen3": qwen3_plugin, "supertonic": supertonic_plugin}
    built = Registry(VOICES)
    for name in mac:
        built.add_plugin(name, plugins[name])
    built.add_plugin("others", Others(others, downloaded))
    return built


@pytest.fixture
def apple_silicon(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.delenv("ASSIST_QWEN3_CPU", raising=False)
    monkeypatch.setattr(qwen3_plugin.sys, "platform", "darwin")
    monkeypatch.setattr(qwen3_plugin.platform, "machine", lambda: "arm64")
    return "darwin"


@pytest.fixture
def linux(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.delenv("ASSIST_QWEN3_CPU", raising=False)
    monkeypatch.setattr(qwen3_plugin.sys, "platform", "linux")
    monkeypatch.setattr(qwen3_plugin.platform, "machine", lambda: "x86_64")
    return "linux"


@pytest.fixture
def empty_caches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("SUPERTONIC_CACHE_DIR", str(tmp_path / "supertonic3"))
    return tmp_path


def download_supertonic(folder: Path) -> None:
    """Put (empty) files where Supertonic's model goes: all `ready_offline` looks at."""
    for name in REQUIRED:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).touch()


def choose(reg: Registry[EngineSpec], memory_gib: float, platform: str, cache: Path) -> str | None:
    options = VoiceOptions(cache_root=str(cache))
    return choose_here(None, reg, options, memory=int(memory_gib * GIB), platform=platform)


@pytest.mark.parametrize(
    ("memory_gib", "engine"),
    [
        (128, "qwen3-tts"),
        (32, "qwen3-tts"),
        (24, "supertonic3"),
        (16, "supertonic3"),
        (8, "kokoro"),
        (0, "kokoro"),
    ],
)
def test_on_a_mac_the_memory_table_chooses_even_before_any_download(
    apple_silicon: str, empty_caches: Path, memory_gib: float, engine: str
) -> None:
    assert choose(registry(), memory_gib, apple_silicon, empty_caches) == engine


def test_on_a_mac_a_missing_engine_walks_down_the_ladder_then_up(
    apple_silicon: str, empty_caches: Path
) -> None:
    assert choose(registry(mac=("supertonic",)), 64, apple_silicon, empty_caches) == "supertonic3"
    assert choose(registry(mac=()), 64, apple_silicon, empty_caches) == "kokoro"
    assert choose(registry(others=()), 8, apple_silicon, empty_caches) == "supertonic3"
    only_qwen3 = registry(mac=("qwen3",), others=())
    assert choose(only_qwen3, 8, apple_silicon, empty_caches) == "qwen3-tts"


def test_away_from_a_mac_qwen3_is_never_chosen_and_a_downloaded_engine_comes_first(
    linux: str, empty_caches: Path
) -> None:
    assert choose(registry(), 64, linux, empty_caches) == "piper"
    download_supertonic(empty_caches / "supertonic3")
    assert choose(registry(), 64, linux, empty_caches) == "supertonic3"
    assert choose(registry(), 8, linux, empty_caches) == "piper", "kokoro needs a download"


def test_away_from_a_mac_with_nothing_downloaded_the_ladder_still_chooses(
    linux: str, empty_caches: Path
) -> None:
    assert choose(registry(downloaded=()), 64, linux, empty_caches) == "supertonic3"


def test_the_fallback_is_piper_then_espeak_unless_set(apple_silicon: str) -> None:
    available = registry().available()
    assert choose_fallback(None, "qwen3-tts", available) == "piper"
    assert choose_fallback(None, "piper", available) == "espeak"
    assert choose_fallback(None, "supertonic3", registry(others=("espeak",)).available()) == (
        "espeak"
    )
    assert choose_fallback("none", "qwen3-tts", available) is None
    assert choose_fallback("supertonic3", "qwen3-tts", available) == "supertonic3"
