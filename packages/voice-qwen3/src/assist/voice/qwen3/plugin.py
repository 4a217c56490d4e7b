"""Registers the `qwen3-tts` engine with assist through the entry-point group `assist.voices`.

Nothing heavy happens here: MLX, mlx-audio and transformers are imported, and models fetched
or loaded, only when the engine is built, so listing engines stays cheap. The engine needs
macOS on Apple silicon, where MLX runs it on the GPU; elsewhere it is reported as unable to
run, unless ASSIST_QWEN3_CPU asks for MLX's CPU backend (development and tests: far slower
than speech with the real models).
"""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Callable

from assist.app.libraries import missing_libraries
from assist.core import environment
from assist.core.engines import GIB, Engine, EngineSpec, VoiceOptions, hookimpl

NAME = "qwen3-tts"
PACKAGE = "assist-voice-qwen3"
MEMORY_MB = 2730
"""Peak footprint of a helper speaking a preset voice, as measured on the reference (2.73 GB)."""
RANK = 50
"""Auto ladder place (behaviour 9.1): richest delivery, for 32 GiB or more."""
AUTO_MEMORY = 32 * GIB
"""Total installed memory from which auto takes this engine before poorer ones."""
NEEDS = (
    "Qwen3-TTS weights from the Hugging Face hub on first use: "
    "mlx-community/Qwen3-TTS-12Hz-0.6B-CustomVoice-8bit for preset voices; for designed voices "
    "mlx-community/Qwen3-TTS-12Hz-0.6B-Base-4bit, plus the 1.7B VoiceDesign model once per "
    "description"
)
CPU_VARIABLE = environment.QWEN3_CPU.name
LIBRARIES = ("mlx", "mlx_audio", "transformers")


def build(options: VoiceOptions) -> Engine:
    """Fetch the models if needed, load the voice and return the engine."""
    from assist.voice.qwen3.engine import build_engine

    return build_engine(options)


def check() -> str | None:
    """Why qwen3-tts cannot run here, or None; finds its libraries without importing them."""
    missing = missing_libraries(LIBRARIES, PACKAGE)
    if missing:
        return missing
    if (sys.platform == "darwin" and platform.machine() == "arm64") or os.environ.get(CPU_VARIABLE):
        return None
    return (
        f"qwen3-tts needs macOS on Apple silicon, where MLX runs it on the GPU (this is "
        f"{sys.platform} on {platform.machine()}); choose another engine, or set "
        f"{CPU_VARIABLE}=1 to run it on MLX's CPU backend, far slower than speech"
    )


def ready_offline(options: VoiceOptions) -> bool:
    """Whether every model this voice needs is in the hub cache already (and, for a
    description, whether the voice is designed already or its model is there)."""
    from assist.app.cache import voice_cache_root
    from assist.core.files import VOICE_JSON
    from assist.voice.qwen3.designed import designed_folder
    from assist.voice.qwen3.hub import is_cached
    from assist.voice.qwen3.keys import CLONE_MODEL, DESIGN_MODEL, PRESET_MODEL

    if options.reference:
        return is_cached(CLONE_MODEL)
    if options.description:
        root = voice_cache_root(options.cache_root)
        designed = designed_folder(root, options.description, options.cue) / VOICE_JSON
        return is_cached(CLONE_MODEL) and (designed.is_file() or is_cached(DESIGN_MODEL))
    return is_cached(PRESET_MODEL)


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
            designs_voices=True,
        )
    )
