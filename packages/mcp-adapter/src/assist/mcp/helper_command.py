"""Which engine the voice helper runs and the command line it is started with (behaviour 9.1, 9.2).

The choice itself is pure and lives in `assist.core.engines`; this module gathers what it
needs from the machine: the installed engine plugins (loading a plugin imports only its light
registration module, never the TTS library), the total installed memory, and where a relative
designed-voice folder lives. The helper is the `assist-voice` console script beside the
running interpreter, so it sees the same installed engines as the server.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Protocol

from assist.core.engines import (
    GROUP,
    EngineRegistry,
    EngineSpec,
    VoiceOptions,
    choose_engine,
    choose_fallback,
)

PROGRAM = "assist-voice"
"""The helper's console script, looked for beside the running interpreter."""
MODULE = "assist.mcp.voice.helper"
"""The helper's module, run with `-m` when the console script is not installed there."""
QWEN = "qwen3-tts"
"""The only engine that takes a style for a fallback, a reference, a description and a cue."""
QWEN_PACKAGE = "assist.voice.qwen3"
"""The package whose `voices` folder may ship designed voices for a relative reference."""
VOICE_FILE = "voice.json"
"""A designed-voice folder holds this file; the first candidate holding it wins."""
ENGINE_PACKAGES: tuple[tuple[str, str], ...] = (
    ("qwen3-tts", "assist-voice-qwen3"),
    ("supertonic3", "assist-voice-supertonic"),
    ("kokoro", "assist-voice-kokoro"),
    ("piper", "assist-voice-piper"),
    ("espeak", "assist-voice-espeak"),
)
"""Each engine's distribution (behaviour 8.4), to name what to install when nothing can speak."""
AUTO_PREFERS_OFFLINE = sys.platform != "darwin"
"""Off macOS the memory table's richest engines run poorly or not at all, so `auto` prefers an
available engine that loads without a download (see `choose_engine`)."""


class VoiceChoices(Protocol):
    """The `voice` settings this module reads (`assist.core.settings.VoiceSettings` fits)."""

    @property
    def engine(self) -> str | None: ...
    @property
    def speaker(self) -> str | None: ...
    @property
    def style(self) -> str | None: ...
    @property
    def description(self) -> str | None: ...
    @property
    def cue(self) -> str | None: ...
    @property
    def reference(self) -> str | None: ...
    @property
    def helper_dir(self) -> str | None: ...
    @property
    def fallback(self) -> str | None: ...


@dataclass(frozen=True)
class EnginePlan:
    """The engine to run (None: nothing can speak here) and the one to switch to once."""

    engine: str | None
    fallback: str | None


def helper_program(executable: str | None = None) -> list[str]:
    """The command that starts the helper from the running interpreter's environment."""
    python = executable or sys.executable
    folder = Path(python).parent
    for name in (PROGRAM, f"{PROGRAM}.exe"):
        if (folder / name).is_file():
            return [str(folder / name)]
    return [python, "-m", MODULE]


def engine_packages(platform: str = sys.platform) -> list[str]:
    """The engine packages worth installing on this platform (qwen3-tts is macOS only)."""
    return [
        package for engine, package in ENGINE_PACKAGES if engine != QWEN or platform == "darwin"
    ]


def load_registry(environ: Mapping[str, str]) -> EngineRegistry:
    """The engines the installed plugins offer (their TTS libraries are not imported)."""
    registry = EngineRegistry()
    registry.load(metadata.entry_points(group=GROUP), environ)
    return registry


def total_memory() -> int:
    """Total installed memory in bytes, or 0 when it cannot be told (behaviour 9.1)."""
    try:
        size = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        size = 0
    if size > 0:
        return size
    try:
        import psutil  # type: ignore[import-untyped]

        return int(psutil.virtual_memory().total)
    except Exception:  # psutil missing or failing: memory unknown
        return 0


def plan_engines(
    voice: VoiceChoices,
    registry: EngineRegistry,
    memory: int,
    *,
    cache_root: str | None = None,
    prefer_offline: bool = AUTO_PREFERS_OFFLINE,
) -> EnginePlan:
    """The chosen engine and its fallback, from the settings and what is installed."""
    available = registry.available()
    ready_offline = None
    if prefer_offline:
        options = VoiceOptions(cache_root=cache_root)
        ready_offline = {name for name, spec in available.items() if _loads_offline(spec, options)}
    engine = choose_engine(voice.engine, memory, available, ready_offline)
    if engine is None:
        return EnginePlan(None, None)
    return EnginePlan(engine, choose_fallback(voice.fallback, engine, available))


def why_not_here(engine: str, registry: EngineRegistry) -> str | None:
    """Why `engine` cannot run on this machine, or None when it can."""
    if engine not in registry.specs:
        package = dict(ENGINE_PACKAGES).get(engine, "its package")
        return (
            f"no installed package offers the {engine} engine; install {package} "
            "(`assist engines` lists what is installed)"
        )
    return registry.reasons()[engine]


def helper_arguments(
    engine: str,
    voice: VoiceChoices,
    *,
    fallback: bool = False,
    config_dir: Path | None = None,
    no_play: bool = False,
    save_dir: str | os.PathLike[str] | None = None,
) -> list[str]:
    """The helper's arguments in the order of behaviour 9.2.

    A fallback engine gets neither the chosen engine's speaker (voice names belong to one
    engine; another engine would refuse to load with it) nor, unless it is qwen3-tts, the
    style, reference, description or cue.
    """
    arguments = ["--engine", engine]
    if voice.speaker and not fallback:
        arguments += ["--voice", voice.speaker]
    if voice.style and (engine == QWEN or not fallback):
        arguments += ["--style", voice.style]
    if engine == QWEN:
        if voice.reference:
            reference = resolve_reference(
                voice.reference, helper_dir=voice.helper_dir, config_dir=config_dir
            )
            arguments += ["--reference", reference]
        elif voice.description:
            arguments += ["--description", voice.description]
            if voice.cue:
                arguments += ["--cue", voice.cue]
    if no_play:
        arguments.append("--no-play")
    if save_dir is not None:
        arguments += ["--save-dir", os.fspath(save_dir)]
    return arguments


def resolve_reference(
    reference: str,
    *,
    helper_dir: str | None,
    config_dir: Path | None,
    shipped: Path | None = None,
) -> str:
    """A designed-voice folder as the helper should get it (behaviour 2.3).

    An absolute path stays. A relative one is looked for under `helper_dir`, then the voices
    folder shipped with qwen3-tts, then the config file's folder; the first holding
    `voice.json` wins. When none does, the last candidate is given, so the helper's error
    names a real place.
    """
    path = Path(reference).expanduser()
    if path.is_absolute():
        return str(path)
    shipped = shipped if shipped is not None else shipped_voices()
    bases = [Path(helper_dir).expanduser()] if helper_dir else []
    bases += [base for base in (shipped, config_dir) if base is not None]
    candidates = [base / path for base in bases]
    for candidate in candidates:
        if (candidate / VOICE_FILE).is_file():
            return str(candidate)
    return str(candidates[-1]) if candidates else reference


def shipped_voices() -> Path | None:
    """The `voices` folder inside the installed qwen3-tts package, found without importing it."""
    try:
        spec = importlib.util.find_spec(QWEN_PACKAGE)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "voices"


def _loads_offline(spec: EngineSpec, options: VoiceOptions) -> bool:
    try:
        return bool(spec.ready_offline(options))
    except Exception:  # a plugin that cannot tell counts as needing a download
        return False
