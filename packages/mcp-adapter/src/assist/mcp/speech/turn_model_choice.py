"""Which turn model `assist listen` would run here, as `assist engines` and `assist doctor`
show it after the recognisers (behaviour.md 16.1): every installed one, `silence` built in,
and the choice (`listen.turn` when set, else the highest rank), with the warning the listener
would give when it must run `silence` in its place."""

from __future__ import annotations

from assist.app.turn_models import not_loaded
from assist.core.plugins import Registry
from assist.core.turn_models import AUTO, SILENCE, TurnModelSpec, choose_turn_model
from assist.mcp.speech.engine_choice import describe_plugins

INDENT = "  "
HEADING = "turn models:"


def describe_turn_models(
    registry: Registry[TurnModelSpec], configured: str | None = None
) -> list[str]:
    """A `turn models:` heading, one indented line per model, the broken plugins, and the one
    `assist listen` would run."""
    lines = describe_plugins(registry, _ready, "none")
    chosen = choose_turn_model(configured, registry.specs)
    reason = registry.reasons().get(chosen)
    if reason is not None:
        label = "listen.turn" if chosen == configured else AUTO
        choice = f"{label}: {SILENCE}, since {not_loaded(chosen, reason)}"
    elif configured and chosen == configured:
        choice = f"listen.turn: {chosen} (set in the config file)"
    elif chosen == SILENCE:
        choice = "auto: silence (no turn model installed; assist-turn-smart adds one)"
    else:
        choice = f"auto: {chosen} (the best installed)"
    return [HEADING, *(INDENT + line for line in [*lines, choice])]


def _ready(spec: TurnModelSpec) -> bool:
    try:
        return bool(spec.ready_offline())
    except Exception:  # a plugin that fails telling counts as needing a download
        return False
