"""The turn model contract (behaviour.md 16.1): specs, the assist.turns group, the auto choice."""

from __future__ import annotations

import plugin_fakes
import pytest
from assist.core.plugins import Registry, UnknownPlugin
from assist.core.turn_models import (
    AUTO,
    SILENCE,
    TURN_MODELS,
    BuiltIn,
    TurnModel,
    TurnModelOptions,
    TurnModelSpec,
    TurnVerdict,
    choose_turn_model,
    hookimpl,
)
from hypothesis import given
from hypothesis import strategies as st
from plugin_fakes import FakeEntryPoint


def _never_built(options: TurnModelOptions):
    raise AssertionError("loading the registry must never build a turn model")


def spec(name: str, rank: int = 0, **changes) -> TurnModelSpec:
    return TurnModelSpec(
        name=name, package=f"assist-turn-{name}", build=_never_built, rank=rank, **changes
    )


class Offers(plugin_fakes.Offers):
    @hookimpl
    def assist_turn_models(self, register):
        self.offer(register)


def load(*entry_points, environ=None) -> Registry[TurnModelSpec]:
    registry = Registry(TURN_MODELS)
    registry.add_plugin(SILENCE, BuiltIn())
    registry.load(entry_points, environ or {})
    return registry


def test_the_group_is_assist_turns_with_its_hook_and_variables():
    assert (TURN_MODELS.group, TURN_MODELS.hook) == ("assist.turns", "assist_turn_models")
    assert (TURN_MODELS.allow_variable, TURN_MODELS.block_variable) == (
        "ASSIST_TURNS",
        "ASSIST_TURNS_BLOCK",
    )


def test_silence_is_built_in_and_never_says_complete():
    registry = load()
    assert list(registry.available()) == [SILENCE]
    model = registry.spec(SILENCE).build(TurnModelOptions())
    assert isinstance(model, TurnModel)
    assert model.judge([0.0] * 16_000) == TurnVerdict(False, 0.0)


def test_turn_models_load_from_their_entry_points_and_a_broken_one_is_reported():
    registry = load(
        FakeEntryPoint("smart-turn", Offers(spec("smart-turn", rank=100))),
        FakeEntryPoint("broken", error=ImportError("No module named 'onnxruntime'")),
    )
    assert sorted(registry.specs) == [SILENCE, "smart-turn"]
    assert [(plugin.name, plugin.error) for plugin in registry.broken] == [
        ("broken", "ImportError: No module named 'onnxruntime'")
    ]


def test_a_recogniser_spec_registered_in_the_turn_group_is_refused():
    registry = load(FakeEntryPoint("odd", Offers(object())))
    assert "not a TurnModelSpec" in registry.broken[0].error


def test_a_turn_model_we_ship_but_not_installed_is_named_with_its_package():
    with pytest.raises(UnknownPlugin, match=r"'smart-turn' is not installed \(assist-turn-smart\)"):
        load().spec("smart-turn")


def test_auto_prefers_any_installed_model_to_silence_and_falls_back_to_silence():
    registry = load(FakeEntryPoint("smart-turn", Offers(spec("smart-turn", rank=100))))
    assert choose_turn_model(None, registry.available()) == "smart-turn"
    assert choose_turn_model(AUTO, registry.available()) == "smart-turn"
    assert choose_turn_model(None, load().available()) == SILENCE
    assert choose_turn_model(None, {}) == SILENCE
    broken = load(FakeEntryPoint("smart-turn", Offers(spec("smart-turn", check=lambda: "no"))))
    assert choose_turn_model(None, broken.available()) == SILENCE


SPECS = st.dictionaries(
    st.sampled_from(["smart-turn", "vad-only", "other"]), st.integers(-5, 200)
).map(lambda ranks: {name: spec(name, rank) for name, rank in ranks.items()})


@given(st.sampled_from(["smart-turn", SILENCE, "elsewhere"]), SPECS)
def test_a_configured_turn_model_always_wins(configured, available):
    assert choose_turn_model(configured, available) == configured


@given(SPECS)
def test_auto_picks_the_highest_rank_by_name_among_equals(available):
    chosen = choose_turn_model(None, available)
    if not available:
        assert chosen == SILENCE
        return
    best = max(found.rank for found in available.values())
    assert chosen == min(name for name, found in available.items() if found.rank == best)
