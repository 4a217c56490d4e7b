"""The listener's turn model: silence built in, the best installed chosen, one that cannot
load replaced by silence with one warning (behaviour.md 16.1)."""

from __future__ import annotations

from assist.app.turn_models import installed_turn_models, load_turn_model
from assist.core.plugins import Registry
from assist.core.turn_models import (
    SILENCE,
    TURN_MODELS,
    BuiltIn,
    TurnModelOptions,
    TurnModelSpec,
    hookimpl,
)


class Offers:
    def __init__(self, spec: TurnModelSpec) -> None:
        self.spec = spec

    @hookimpl
    def assist_turn_models(self, register):
        register(self.spec)


def registry_with(*specs: TurnModelSpec) -> Registry[TurnModelSpec]:
    registry: Registry[TurnModelSpec] = Registry(TURN_MODELS)
    registry.add_plugin(SILENCE, BuiltIn())
    for spec in specs:
        registry.add_plugin(spec.name, Offers(spec))
    return registry


def failing(options: TurnModelOptions):
    raise OSError("weights damaged")


def test_silence_is_listed_beside_the_installed_models():
    registry = installed_turn_models({"ASSIST_TURNS": "none-such"})
    assert list(registry.specs) == [SILENCE]


def test_nothing_installed_runs_silence_without_a_warning():
    loaded = load_turn_model(None, registry_with())
    assert (loaded.model.name, loaded.warning) == (SILENCE, None)


def test_a_model_that_fails_to_load_falls_back_to_silence_with_one_warning_saying_why():
    loaded = load_turn_model(None, registry_with(TurnModelSpec("toy", "toy-pkg", failing, rank=5)))
    assert loaded.model.name == SILENCE
    assert "'toy' could not load (weights damaged)" in loaded.warning


def test_a_configured_model_that_is_not_installed_falls_back_to_silence_naming_its_package():
    loaded = load_turn_model("smart-turn", registry_with())
    assert loaded.model.name == SILENCE
    assert "assist-turn-smart" in loaded.warning


def test_a_model_that_cannot_run_here_is_replaced_by_silence_saying_why_chosen_or_configured():
    """Auto passing over it in silence would hide damaged weights (behaviour 16.1: silence
    runs in place of a model that cannot load, with one warning)."""
    spec = TurnModelSpec("toy", "toy-pkg", failing, rank=5, check=lambda: "missing numpy")
    for configured in (None, "toy"):
        loaded = load_turn_model(configured, registry_with(spec))
        assert loaded.model.name == SILENCE
        assert (
            loaded.warning is not None and "'toy' could not load (missing numpy)" in loaded.warning
        )
    assert load_turn_model(SILENCE, registry_with(spec)).warning is None
