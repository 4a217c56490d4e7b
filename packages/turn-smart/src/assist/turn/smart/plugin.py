"""Registers the `smart-turn` turn model with assist through the entry-point group `assist.turns`.

Nothing heavy happens here: onnxruntime and numpy are imported, and the model loaded, only
when the model is built, so listing turn models stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable

from assist.app.libraries import missing_libraries
from assist.core.turn_models import TurnModel, TurnModelOptions, TurnModelSpec, hookimpl

NAME = "smart-turn"
PACKAGE = "assist-turn-smart"
RANK = 100
"""Preferred by the auto choice to the built-in silence rule (rank -1)."""
MEMORY_MB = 80
"""What loading it and judging a few turns added to a process that had numpy and onnxruntime
imported already: 78 MB of resident memory, measured."""
NEEDS = "nothing to download: Smart Turn v3.2 (8.7 MB) is installed with the package"
LIBRARIES = ("onnxruntime", "numpy")


def build(options: TurnModelOptions) -> TurnModel:
    """Load the installed model, refusing a damaged file."""
    from assist.turn.smart.model import SmartTurn

    return SmartTurn(threads=options.threads)


def check() -> str | None:
    """Why smart-turn cannot run here, or None: a library missing (found without importing
    it), or weights missing or damaged, so `assist doctor` and `assist engines` say what to
    reinstall, as the listener would. Hashing the 8.7 MB takes about 10 ms."""
    from assist.turn.smart.weights import DamagedModel, model_path, verified

    missing = missing_libraries(LIBRARIES, PACKAGE)
    if missing is not None:
        return missing
    try:
        verified(model_path())
    except DamagedModel as damaged:
        return str(damaged)
    return None


@hookimpl
def assist_turn_models(register: Callable[[TurnModelSpec], None]) -> None:
    register(
        TurnModelSpec(
            name=NAME,
            package=PACKAGE,
            build=build,
            needs=NEEDS,
            memory_mb=MEMORY_MB,
            rank=RANK,
            check=check,
        )
    )
