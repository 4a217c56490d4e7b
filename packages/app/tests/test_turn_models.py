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


def test_a_model_that_cannot_run_here_is_not_chosen_by_auto_but_warns_when_configured():
    spec = TurnModelSpec("toy", "toy-pkg", failing, rank=5, check=lambda: "missing numpy")
    assert load_turn_model(None, registry_with(spec)).warning is None
    assert "missing numpy" in load_turn_model("toy", registry_with(spec)).warning
