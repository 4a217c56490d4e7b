"""The turn model contract: what judges whether a phrase is over, how packages offer one.

Turn models are plugins as voices and recognisers are (behaviour.md 16.1): a package
registers through the entry-point group `assist.turns` with a registrar hook,
`assist_turn_models(register)`, that calls `register(TurnModelSpec(...))`;
`assist.core.plugins` loads the group one plugin at a time (`Registry(TURN_MODELS)`), so one
broken package never takes the others down. The model's library is imported only inside
`TurnModelSpec.build`, so listing turn models stays cheap.

`silence` is built in: it never says complete, so the silence limit ends every turn, exactly
as before turn models (the property tests of `assist.core.turn_ends` hold it to that). It is
what runs when nothing better is installed, or when a model cannot load.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

import attrs
import pluggy
from assist.core import environment
from assist.core.plugins import PluginKind

GROUP = "assist.turns"
"""Entry-point group and pluggy project name for turn model plugins."""

SILENCE = "silence"
"""The built-in rule: the end-of-turn silence alone decides."""
AUTO = "auto"
"""The `listen.turn` value (and `--turn` argument) that leaves the choice to `rank`."""

TURN_MODEL_PACKAGES: dict[str, str] = {"smart-turn": "assist-turn-smart", SILENCE: "assist-core"}
"""The distribution that offers each turn model we ship, to name what to install."""

ALLOW_VARIABLE = environment.TURNS.name
"""Comma-separated entry-point names: when set, only these turn model plugins are loaded."""
BLOCK_VARIABLE = environment.TURNS_BLOCK.name
"""Comma-separated entry-point names that are never loaded."""

hookspec = pluggy.HookspecMarker(GROUP)
hookimpl = pluggy.HookimplMarker(GROUP)


@attrs.frozen
class TurnVerdict:
    """Whether the phrase heard is over, and the model's probability that it is (0 to 1)."""

    complete: bool
    probability: float


@runtime_checkable
class TurnModel(Protocol):
    """A loaded turn model. `judge` takes the turn so far as a float32 mono numpy array at
    16 kHz, the pause at its end included (assist.core never imports numpy). It is called
    from one thread at a time."""

    name: str

    def judge(self, samples: Any) -> TurnVerdict: ...

    def close(self) -> None: ...


@attrs.frozen
class TurnModelOptions:
    """What the listener says about the model: how many CPU threads it may use (None: its
    own choice)."""

    threads: int | None = None


@attrs.frozen
class TurnModelSpec:
    """One turn model a package offers.

    `check` returns why it cannot run on this machine (a missing library), or None; it must
    be cheap and must not import the model's library. `ready_offline` says whether it can
    load now without a download. `rank` orders the auto choice (higher first).
    """

    name: str
    package: str
    build: Callable[[TurnModelOptions], TurnModel]
    needs: str = ""
    memory_mb: int = 0
    rank: int = 0
    check: Callable[[], str | None] = attrs.field(default=lambda: None)
    ready_offline: Callable[[], bool] = attrs.field(default=lambda: True)


class TurnModelHooks:
    """The hook a turn model plugin implements."""

    @hookspec
    def assist_turn_models(self, register: Callable[[TurnModelSpec], None]) -> None:
        """Call `register(TurnModelSpec(...))` once for each turn model this plugin offers."""


TURN_MODELS = PluginKind(
    group=GROUP,
    hooks=TurnModelHooks,
    hook="assist_turn_models",
    spec_type=TurnModelSpec,
    allow_variable=ALLOW_VARIABLE,
    block_variable=BLOCK_VARIABLE,
    noun="turn model",
    known_packages=TURN_MODEL_PACKAGES,
)
"""The turn model plugin group; `Registry(TURN_MODELS)` holds the installed ones."""


class SilenceRule:
    """The built-in turn model: never complete, so the silence limit ends every turn."""

    name = SILENCE

    def judge(self, samples: Any) -> TurnVerdict:
        return TurnVerdict(False, 0.0)

    def close(self) -> None:
        """Nothing to release."""


class BuiltIn:
    """The plugin that registers `silence`; the shell adds it beside the installed ones."""

    @hookimpl
    def assist_turn_models(self, register: Callable[[TurnModelSpec], None]) -> None:
        register(
            TurnModelSpec(
                name=SILENCE,
                package="assist-core",
                build=lambda options: SilenceRule(),
                needs="nothing: the end-of-turn silence alone",
                rank=-1,
            )
        )


def choose_turn_model(configured: str | None, available: Mapping[str, TurnModelSpec]) -> str:
    """The turn model to run: a configured name always wins (None, "" and "auto" leave the
    choice open); else the available one of highest rank, by name among equals; `silence`
    when nothing else is there."""
    if configured and configured != AUTO:
        return configured
    if not available:
        return SILENCE
    return min(available.values(), key=lambda spec: (-spec.rank, spec.name)).name
