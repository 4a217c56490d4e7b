"""Registers the `pocketsphinx` recogniser with assist through the entry-point group `assist.stt`.

Nothing heavy happens here: pocketsphinx and numpy are imported, and the model loaded, only
when the recogniser is built, so listing recognisers stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable

from assist.app.libraries import missing_libraries
from assist.core.recognisers import Recogniser, RecogniserOptions, RecogniserSpec, hookimpl

NAME = "pocketsphinx"
PACKAGE = "assist-stt-pocketsphinx"
MODEL = "en-us"
RANK = 10
"""Below whisper: chosen by auto only when whisper is not installed."""
MEMORY_MB = 145
"""Peak resident memory of a process recognising with the bundled model: 141 MB measured over
38 turns (benchmarks/stt.py); its trigram language model is most of it."""
NEEDS = "nothing to download: the US English model ships in the pocketsphinx wheel"


def build(options: RecogniserOptions) -> Recogniser:
    """Load the bundled US English model (the only model this recogniser has)."""
    if options.model not in (None, "", MODEL):
        raise ValueError(
            f"pocketsphinx has one model, {MODEL!r}, not {options.model!r}; "
            "leave the model unset or use the whisper recogniser for others"
        )
    from assist.stt.pocketsphinx.engine import PocketsphinxRecogniser

    return PocketsphinxRecogniser()


def check() -> str | None:
    """Why pocketsphinx cannot run here, or None; finds it without importing it."""
    return missing_libraries(("pocketsphinx",), PACKAGE)


def ready_offline(options: RecogniserOptions) -> bool:
    """Always, for its one model: it ships in the wheel."""
    return options.model in (None, "", MODEL)


@hookimpl
def assist_stt_engines(register: Callable[[RecogniserSpec], None]) -> None:
    register(
        RecogniserSpec(
            name=NAME,
            package=PACKAGE,
            build=build,
            needs=NEEDS,
            memory_mb=MEMORY_MB,
            rank=RANK,
            default_model=MODEL,
            models=(MODEL,),
            check=check,
            ready_offline=ready_offline,
        )
    )
