"""Registers the `kokoro` engine with assist through the entry-point group `assist.voices`.

Nothing heavy happens here: kokoro-onnx, onnxruntime and the phonemiser are imported, and the
model downloaded or loaded, only when the engine is built, so listing engines stays cheap.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from assist.app.libraries import missing_libraries
from assist.core.engines import Engine, EngineSpec, VoiceOptions, hookimpl

NAME = "kokoro"
PACKAGE = "assist-voice-kokoro"
MEMORY_MB = 350
"""Peak resident memory of a process speaking with the int8 Kokoro-82M model (onnxruntime,
the phonemiser), measured at 300 to 350 MB."""
RANK = 30
"""Auto ladder place (behaviour 9.1): natural voice in the least memory, any machine."""
AUTO_MEMORY = 0
"""Total installed memory from which auto takes this engine before poorer ones."""
NEEDS = (
    "kokoro-v1.0.int8.onnx (88 MB) and voices-v1.0.bin (27 MB), downloaded once into "
    "<cache root>/kokoro/, or given by ASSIST_KOKORO_MODEL and ASSIST_KOKORO_VOICES"
)
LIBRARIES = ("kokoro_onnx", "onnxruntime", "espeakng_loader", "phonemizer")


def build(options: VoiceOptions) -> Engine:
    """Fetch the model if needed, load it, and return the engine speaking `options.voice`."""
    from assist.voice.kokoro.engine import build_engine

    return build_engine(options)


def check() -> str | None:
    """Why kokoro cannot run here, or None; finds its libraries without importing them."""
    return missing_libraries(LIBRARIES, PACKAGE)


def ready_offline(options: VoiceOptions) -> bool:
    """Whether the model and voices are on disk already, so no download is needed."""
    from assist.voice.kokoro.assets import local_files

    try:
        return local_files(options.cache_root, os.environ) is not None
    except OSError:  # a variable naming a missing file: building will say so
        return False


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
        )
    )
