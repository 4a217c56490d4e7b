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
    """Why smart-turn cannot run here, or None; finds its libraries without importing them."""
    return missing_libraries(LIBRARIES, PACKAGE)


def ready_offline() -> bool:
    """Whether the model file is installed (it always is, unless the package was damaged)."""
    from assist.turn.smart.weights import model_path

    return model_path().is_file()


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
            ready_offline=ready_offline,
        )
    )
