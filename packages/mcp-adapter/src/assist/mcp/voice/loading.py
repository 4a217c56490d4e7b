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

import sys

from assist.app.engines import choose_here
from assist.core.engines import Engine, EngineSpec, VoiceOptions
from assist.core.plugins import Registry, UnknownPlugin
from assist.mcp.speech.engine_choice import LAST_RESORT_PACKAGE

AUTO = "auto"
"""The `--engine` value that lets the machine choose (behaviour 9.1)."""


class LoadFailure(Exception):
    """The engine cannot be loaded; the text says why and what to do next."""


def choose(
    registry: Registry[EngineSpec],
    requested: str,
    options: VoiceOptions,
    platform: str = sys.platform,
    *,
    memory: int | None = None,
) -> str:
    """The engine name to run: the one asked for, or for `auto` the machine's choice, made
    the same way as the server's (`assist.mcp.speech.engine_choice`)."""
    configured = None if requested == AUTO else requested
    chosen = choose_here(configured, registry, options, memory=memory, platform=platform)
    if chosen is None:
        raise LoadFailure(
            f"no installed voice engine can run on this machine{_broken_note(registry)}; "
            f"install one, for example {LAST_RESORT_PACKAGE}"
        )
    return chosen


def build(registry: Registry[EngineSpec], name: str, options: VoiceOptions) -> Engine:
    """Build the named engine, or raise LoadFailure saying why it cannot load."""
    try:
        spec = registry.spec(name)
    except UnknownPlugin as error:
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


def _broken_note(registry: Registry[EngineSpec]) -> str:
    if not registry.broken:
        return ""
    return (
        " (broken plugins: "
        + "; ".join(f"{plugin.name}: {plugin.error}" for plugin in registry.broken)
        + ")"
    )
