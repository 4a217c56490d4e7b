"""assist for other applications: the installed voice engines, and the engine for this machine
chosen as assist chooses it (`pip install "assist-core[kokoro]"`).

The rest of what an application uses is the pure core, with the application's own clock:
`assist.core.echo` (is a transcript line the assistant's own voice), `assist.core.gate` (may it
speak now), `assist.core.batcher` (when a stretch of talk is ready) and `assist.core.sentences`.
The package README shows each in a runnable example.

For engine and recogniser packages: `assist.app.libraries` (a spec's `check`: its libraries,
found without importing them), `assist.app.download` (a pinned file fetched safely) and
`assist.app.turn_audio` (the samples of one turn, as a recogniser takes them).

For the recorder and the shell, what both need: `assist.app.store` (the files shared with other
processes), `assist.app.logs` and `assist.app.stop_signals`.
"""

from __future__ import annotations

from assist.app.engines import (
    choose_here,
    installed_engines,
    load_plugins,
    ready_offline,
    total_memory,
)
from assist.core.engines import Engine, EngineSpec, VoiceOptions
from assist.core.plugins import Registry, UnknownPlugin

__all__ = [
    "Engine",
    "EngineSpec",
    "Registry",
    "UnknownPlugin",
    "VoiceOptions",
    "choose_here",
    "installed_engines",
    "load_plugins",
    "ready_offline",
    "total_memory",
]
