"""The installed engines and the engine for this machine: the side of behaviour 9.1 that looks
at the machine, for assist's own commands and for any other application.

The choice itself is pure (`assist.core.engines.choose_engine`); this module gathers what it
needs: the installed plugins of a group (loading a plugin imports only its light registration
module, never the TTS library), the total installed memory, and which engines can load without
a download. Away from macOS the memory table's richer engines run poorly or not at all, so there
an engine that loads without a download is preferred (ours): a voice must not wait on the
network before it can say its first line.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from importlib import metadata
from typing import Any

from assist.core.engines import VOICES, EngineSpec, VoiceOptions, choose_engine
from assist.core.plugins import PluginKind, Registry

MEMORY_TABLE_PLATFORM = "darwin"
"""Where `auto` follows the memory table alone; elsewhere an engine ready offline comes first."""


def load_plugins(kind: PluginKind, environ: Mapping[str, str]) -> Registry[Any]:
    """Every spec the installed plugins of `kind` offer, with broken plugins recorded (their
    heavy libraries are not imported); the group's allow and block variables apply."""
    registry: Registry[Any] = Registry(kind)
    registry.load(metadata.entry_points(group=kind.group), environ)
    return registry


def installed_engines(environ: Mapping[str, str] | None = None) -> Registry[EngineSpec]:
    """The voice engines the installed packages offer (`ASSIST_VOICES` and
    `ASSIST_VOICES_BLOCK` from `environ`, the process environment by default)."""
    registry: Registry[EngineSpec] = load_plugins(
        VOICES, os.environ if environ is None else environ
    )
    return registry


def total_memory() -> int:
    """Total installed memory in bytes (never free memory), or 0 when it cannot be told."""
    try:
        size = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        size = 0
    if size > 0:
        return int(size)
    try:
        import psutil

        return int(psutil.virtual_memory().total)
    except Exception:  # psutil is optional; without it the memory is unknown
        return 0


def ready_offline(spec: EngineSpec, options: VoiceOptions) -> bool:
    """Whether the engine can load now without a download (a plugin that cannot tell, or
    fails telling, counts as needing one)."""
    try:
        return bool(spec.ready_offline(options))
    except Exception:
        return False


def choose_here(
    configured: str | None,
    registry: Registry[EngineSpec],
    options: VoiceOptions,
    *,
    memory: int | None = None,
    platform: str = sys.platform,
) -> str | None:
    """The engine for this machine: `configured` when set (it always wins), else the auto
    choice among the engines available here; None when nothing can speak. `memory` replaces
    the machine's total memory (for tests)."""
    if configured:
        return configured
    available = registry.available()
    offline = None
    if platform != MEMORY_TABLE_PLATFORM:
        offline = {name for name, spec in available.items() if ready_offline(spec, options)}
    installed = total_memory() if memory is None else memory
    return choose_engine(None, installed, available, offline)
