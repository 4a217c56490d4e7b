"""The installed turn models and the one the listener runs (behaviour.md 16.1).

The choice is pure (`assist.core.turn_models.choose_turn_model`); this module gathers the
installed plugins of `assist.turns` beside the built-in `silence`, and builds the chosen model.
A model that cannot load never stops a listener: it falls back to `silence` with one warning
that says why, as the session's `warnings` shows it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

import attrs
from assist.app.engines import load_plugins
from assist.core.plugins import Registry
from assist.core.turn_models import (
    SILENCE,
    TURN_MODELS,
    BuiltIn,
    SilenceRule,
    TurnModel,
    TurnModelOptions,
    TurnModelSpec,
    choose_turn_model,
)


def installed_turn_models(environ: Mapping[str, str] | None = None) -> Registry[TurnModelSpec]:
    """`silence` and the turn models the installed packages offer (`ASSIST_TURNS` and
    `ASSIST_TURNS_BLOCK` from `environ`, the process environment by default)."""
    registry: Registry[TurnModelSpec] = load_plugins(
        TURN_MODELS, os.environ if environ is None else environ
    )
    registry.add_plugin(SILENCE, BuiltIn())
    return registry


@attrs.frozen
class LoadedTurnModel:
    """The model the listener runs, and the warning to report when it is not the one chosen."""

    model: TurnModel
    warning: str | None = None


def load_turn_model(
    configured: str | None,
    registry: Registry[TurnModelSpec],
    options: TurnModelOptions | None = None,
) -> LoadedTurnModel:
    """Build `configured` (None or "auto": the best installed); `silence` with a warning when
    it is unknown, cannot run here, or fails to load."""
    chosen = choose_turn_model(configured, registry.specs)
    try:
        spec = registry.spec(chosen)
        reason = registry.reasons()[chosen]
        if reason is not None:
            raise RuntimeError(reason)
        return LoadedTurnModel(spec.build(options or TurnModelOptions()))
    except Exception as error:  # any failure costs the model, never the session
        return LoadedTurnModel(SilenceRule(), not_loaded(chosen, error))


def not_loaded(name: str, why: object) -> str:
    """The warning for `silence` run in place of `name`, as the session's warnings and
    `assist doctor` give it."""
    return (
        f"the turn model {name!r} could not load ({why}); turns end after the end-of-turn "
        "silence alone (listen.turn silence hides this warning)"
    )
