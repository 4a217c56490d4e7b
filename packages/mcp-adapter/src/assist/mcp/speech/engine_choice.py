"""Which voice engine runs on this machine: the side of behaviour 9.1 that looks at the machine.

The choice itself is pure (`assist.core.engines.choose_engine`, `choose_fallback`); this module
gathers what it needs, for every part of `assist` that names an engine: the server, which
starts the helper with the engine chosen; the helper itself (`--engine auto`, `--list`); and
`assist engines`. What it gathers: the installed engine plugins (loading a plugin imports only
its light registration module, never the TTS library), the total installed memory, and which
engines can load without a download.

Away from macOS the memory table's richer engines run poorly or not at all, so there an engine
that loads without a download is preferred (ours): a helper must not wait on the network before
it can say the consent notice.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from importlib import metadata
from typing import Any

from assist.core.engines import VOICES, EngineSpec, VoiceOptions, choose_engine
from assist.core.plugins import PluginKind, Registry

MEMORY_TABLE_PLATFORM = "darwin"
"""Where `auto` follows the memory table alone; elsewhere an engine ready offline comes first."""
LAST_RESORT_PACKAGE = "assist-voice-espeak"
"""What to install when no engine is installed: espeak needs no weights and always starts."""


def load_plugins(kind: PluginKind, environ: Mapping[str, str]) -> Registry[Any]:
    """Every spec the installed plugins of `kind` offer, with broken plugins recorded (their
    heavy libraries are not imported); the group's allow and block variables apply."""
    registry: Registry[Any] = Registry(kind)
    registry.load(metadata.entry_points(group=kind.group), environ)
    return registry


def engine_names(environ: Mapping[str, str]) -> list[str]:
    """The names of the engines the installed plugins register (what settings may name)."""
    return sorted(load_plugins(VOICES, environ).specs)


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


def describe_engines(registry: Registry[EngineSpec], options: VoiceOptions) -> list[str]:
    """One line per registered engine with its package version and whether it can load here,
    then one line per broken plugin (`assist engines`, `assist-voice --list`)."""
    nothing = f"no voice engines are installed; install one, for example {LAST_RESORT_PACKAGE}"
    return describe_plugins(registry, lambda spec: ready_offline(spec, options), nothing)


def describe_plugins(
    registry: Registry[Any],
    ready: Callable[[Any], bool],
    nothing: str,
    detail: Callable[[Any], str] = lambda spec: "",
) -> list[str]:
    """One line per registered spec of any plugin group (name, package version, whether it
    can load here, `ready` telling whether without a download, then `detail`), then one per
    broken plugin; `nothing` when there are neither."""
    lines = []
    reasons = registry.reasons()
    for name, spec in sorted(registry.specs.items()):
        try:
            version = metadata.version(spec.package)
        except metadata.PackageNotFoundError:
            version = "not installed"
        reason = reasons[name]
        if reason is not None:
            state = f"cannot load here: {reason}"
        elif ready(spec):
            state = "can load here"
        else:
            state = "can load here after a first download"
        lines.append(f"{name:12} {spec.package} {version}: {state}{detail(spec)}")
    lines.extend(f"{plugin.name:12} broken plugin: {plugin.error}" for plugin in registry.broken)
    return lines or [nothing]
