"""What `assist` says about the installed engines: the listing of `assist engines` and
`assist-voice --list`.

Loading the plugins, the machine's memory and the choice of engine for this machine live in
`assist.app.engines`, where other applications find them too.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import metadata
from typing import Any

from assist.app.engines import ready_offline
from assist.core.engines import EngineSpec, VoiceOptions
from assist.core.plugins import Registry

VOICES_HEADING = "voice engines:"
"""Above the engines in `assist engines` and `assist doctor`, as `recognisers:` is above the
recognisers."""
LAST_RESORT_PACKAGE = "assist-voice-espeak"
"""What to install when no engine is installed: espeak needs no weights and always starts."""


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
