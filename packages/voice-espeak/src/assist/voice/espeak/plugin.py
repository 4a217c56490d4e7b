"""Registers the `espeak` engine with assist through the entry-point group `assist.voices`.

Nothing heavy happens here: the espeak-ng library is loaded (ctypes) only when the engine
is built, and numpy is imported only then, so listing engines stays cheap.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path

from assist.core.engines import Engine, EngineSpec, VoiceOptions, hookimpl

NAME = "espeak"
PACKAGE = "assist-voice-espeak"
MEMORY_MB = 70
"""Peak resident memory of a process speaking with espeak (Python, numpy and espeak-ng),
measured at 67 MB."""
RANK = 10
"""Auto ladder place (behaviour 9.1): the last resort: no weights, always starts."""
AUTO_MEMORY = 0
"""Total installed memory from which auto takes this engine before poorer ones."""
NEEDS = "nothing to download: espeak-ng and its data ship in the espeakng-loader wheel"


def build(options: VoiceOptions) -> Engine:
    """Load espeak-ng and return the engine speaking with `options.voice` (default en-us)."""
    from assist.voice.espeak.engine import build_engine

    return build_engine(options)


def check() -> str | None:
    """Why espeak cannot run here, or None; looks for the shipped library without loading it."""
    if importlib.util.find_spec("espeakng_loader") is None:
        return "the espeakng-loader package is missing; reinstall assist-voice-espeak"
    import espeakng_loader  # a few lines of path helpers; the library itself is not loaded

    library = Path(espeakng_loader.get_library_path())
    if not library.is_file():
        return f"espeakng-loader ships no espeak-ng library for this platform ({library.name})"
    return None


def ready_offline(_options: VoiceOptions) -> bool:
    """espeak needs no download, ever."""
    return True


@hookimpl
def assist_voice_engines(register: Callable[[EngineSpec], None]) -> None:
    register(
        EngineSpec(
            name=NAME,
            package=PACKAGE,
            build=build,
            needs=NEEDS,
            memory_mb=MEMORY_MB,
            check=check,
            ready_offline=ready_offline,
            rank=RANK,
            auto_memory=AUTO_MEMORY,
            fallback=True,
        )
    )
