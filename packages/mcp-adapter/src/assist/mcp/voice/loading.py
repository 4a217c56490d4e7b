"""Which engine the helper runs, and loading it (behaviour 8.1, 8.2, 9.1).

Engines come from the plugins registered under the entry-point group `assist.voices`; an
engine's heavy library is imported only when it is built, so loading the registry is cheap.
`--engine auto` takes assist.core's choice by total installed memory among the engines that can
run here. Away from macOS the memory table's richer engines gain nothing, so an engine that loads
without a download is preferred there: a helper must not wait on the network to say the notice.
Everything that stops an engine from loading becomes one `LoadFailure` whose text says why and
what to do, for the helper's single stderr line before it exits 2.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from importlib import metadata

from assist.core.engines import (
    GROUP,
    Engine,
    EngineRegistry,
    EngineSpec,
    UnknownEngine,
    VoiceOptions,
    choose_engine,
)

AUTO = "auto"
"""The `--engine` value that lets the machine choose (behaviour 9.1)."""

LAST_RESORT_PACKAGE = "assist-voice-espeak"
"""What to install when nothing can speak: espeak needs no weights and always starts."""


class LoadFailure(Exception):
    """The engine cannot be loaded; the text says why and what to do next."""


def load_registry(environ: Mapping[str, str]) -> EngineRegistry:
    """Every engine the installed plugins offer, with broken plugins recorded."""
    registry = EngineRegistry()
    registry.load(metadata.entry_points(group=GROUP), environ)
    return registry


def total_memory() -> int:
    """Installed memory in bytes (never free memory), or 0 when it cannot be told."""
    try:
        pages = os.sysconf("SC_PHYS_PAGES")
        page_size = os.sysconf("SC_PAGE_SIZE")
        if pages > 0 and page_size > 0:
            return int(pages * page_size)
    except (AttributeError, ValueError, OSError):
        pass
    try:
        import psutil

        return int(psutil.virtual_memory().total)
    except Exception:  # psutil is optional; without it the memory is unknown
        return 0


def ready_offline(spec: EngineSpec, options: VoiceOptions) -> bool:
    """Whether the engine can load now without a download (a failing check counts as no)."""
    try:
        return bool(spec.ready_offline(options))
    except Exception:
        return False


def choose(
    registry: EngineRegistry, requested: str, options: VoiceOptions, platform: str = sys.platform
) -> str:
    """The engine name to run: the one asked for, or for `auto` the machine's choice."""
    if requested != AUTO:
        return requested
    available = registry.available()
    offline = None
    if platform != "darwin":
        offline = [name for name, spec in available.items() if ready_offline(spec, options)]
    chosen = choose_engine(None, total_memory(), available, offline)
    if chosen is None:
        raise LoadFailure(
            f"no installed voice engine can run on this machine{_broken_note(registry)}; "
            f"install one, for example {LAST_RESORT_PACKAGE}"
        )
    return chosen


def build(registry: EngineRegistry, name: str, options: VoiceOptions) -> Engine:
    """Build the named engine, or raise LoadFailure saying why it cannot load."""
    try:
        spec = registry.spec(name)
    except UnknownEngine as error:
        broken = [plugin.error for plugin in registry.broken if plugin.name == name]
        if broken:
            raise LoadFailure(
                f"its plugin failed to load ({broken[0]}); reinstall its package"
            ) from None
        raise LoadFailure(f"{error}; install its package or choose another") from None
    reason = registry.reasons()[name]
    if reason is not None:
        raise LoadFailure(f"it cannot run on this machine: {reason}; choose another engine")
    try:
        return spec.build(options)
    except Exception as error:
        raise LoadFailure(f"{type(error).__name__}: {error}") from error


def describe_engines(registry: EngineRegistry, options: VoiceOptions) -> list[str]:
    """`--list`: one line per registered engine with its package version and whether it can
    load here, then one line per broken plugin."""
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
        elif ready_offline(spec, options):
            state = "can load here"
        else:
            state = "can load here after a first download"
        lines.append(f"{name:12} {spec.package} {version}: {state}")
    lines.extend(f"{plugin.name:12} broken plugin: {plugin.error}" for plugin in registry.broken)
    if not lines:
        lines.append(
            f"no voice engines are installed; install one, for example {LAST_RESORT_PACKAGE}"
        )
    return lines


def _broken_note(registry: EngineRegistry) -> str:
    if not registry.broken:
        return ""
    return (
        " (broken plugins: "
        + "; ".join(f"{plugin.name}: {plugin.error}" for plugin in registry.broken)
        + ")"
    )
