"""Registers the `supertonic3` engine with assist through the entry-point group `assist.voices`.

Nothing heavy happens here: the supertonic package (which imports onnxruntime as soon as it is
imported) is loaded, and the model read, only when the engine is built, so listing engines
stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable

from assist.app.libraries import missing_libraries
from assist.core.engines import GIB, Engine, EngineSpec, VoiceOptions, hookimpl

NAME = "supertonic3"
PACKAGE = "assist-voice-supertonic"
MEMORY_MB = 560
"""Peak footprint of a helper speaking with Supertonic 3, as measured on the reference."""
RANK = 40
"""Auto ladder place (behaviour 9.1): laugh and sigh tags, for machines of 16 GiB or more."""
AUTO_MEMORY = 16 * GIB
"""Total installed memory from which auto takes this engine before poorer ones."""
NEEDS = (
    "the Supertonic 3 model (ONNX files, voice styles) from the Hugging Face hub on first use, "
    "into supertonic's own cache (~/.cache/supertonic3, or SUPERTONIC_CACHE_DIR)"
)
LIBRARIES = ("supertonic", "onnxruntime")


def build(options: VoiceOptions) -> Engine:
    """Fetch the model if needed (and allowed), load it and return the engine."""
    from assist.voice.supertonic.engine import build_engine

    return build_engine(options)


def check() -> str | None:
    """Why supertonic3 cannot run here, or None; finds its libraries without importing them."""
    return missing_libraries(LIBRARIES, PACKAGE)


def ready_offline(_options: VoiceOptions) -> bool:
    """Whether the model's files are in supertonic's cache already."""
    from assist.voice.supertonic.files import missing_files, model_folder

    return not missing_files(model_folder())


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
