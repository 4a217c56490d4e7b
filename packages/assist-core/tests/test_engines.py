"""The engine contract: plugin loading that survives broken packages, and the auto choice
of engine by memory tier with its ladder and fallbacks (behaviour 8.4, 9.1, 9.4)."""

from __future__ import annotations

import attrs
import pytest
from assist.core.engines import (
    ALLOW_VARIABLE,
    BLOCK_VARIABLE,
    ENGINE_NAMES,
    ENGINE_PACKAGES,
    GIB,
    EngineRegistry,
    EngineSpec,
    UnknownEngine,
    VoiceOptions,
    auto_order,
    choose_engine,
    choose_fallback,
    hookimpl,
    tier_engine,
)
from hypothesis import given
from hypothesis import strategies as st


def _never_built(options: VoiceOptions):
    raise AssertionError("loading the registry must never build an engine")


def spec(name: str, **changes) -> EngineSpec:
    return EngineSpec(name=name, package=f"assist-voice-{name}", build=_never_built, **changes)


class Offers:
    """A plugin offering the given specs through the registrar hook."""

    def __init__(self, *specs: object) -> None:
        self.specs = specs

    @hookimpl
    def assist_voice_engines(self, register):
        for offered in self.specs:
            register(offered)


@attrs.frozen
class FakeEntryPoint:
    name: str
    plugin: object = None
    error: Exception | None = None

    def load(self):
        if self.error is not None:
            raise self.error
        return self.plugin


class RaisesInHook:
    @hookimpl
    def assist_voice_engines(self, register):
        register(spec("half"))
        raise RuntimeError("could not find the model files")


class MisspeltHook:
    @hookimpl
    def assist_voice_engine(self, register):  # the spec's name ends in "engines"
        register(spec("misspelt"))


class WrongArguments:
    @hookimpl
    def assist_voice_engines(self, register, options):
        register(spec("wrong"))


def load(*entry_points, environ=None) -> EngineRegistry:
    registry = EngineRegistry()
    registry.load(entry_points, environ or {})
    return registry


def test_each_plugin_registers_its_engines_through_the_registrar_hook():
    registry = load(
        FakeEntryPoint("espeak", Offers(spec("espeak"))),
        FakeEntryPoint("multi", Offers(spec("kokoro"), spec("piper"))),
    )
    assert sorted(registry.specs) == ["espeak", "kokoro", "piper"]
    assert registry.broken == []
    assert set(registry.plugins) == {"espeak", "multi"}


def test_an_entry_point_that_fails_to_import_is_reported_and_the_others_still_load():
    registry = load(
        FakeEntryPoint("kokoro", error=ImportError("No module named 'kokoro_onnx'")),
        FakeEntryPoint("espeak", Offers(spec("espeak"))),
    )
    assert list(registry.specs) == ["espeak"]
    [broken] = registry.broken
    assert broken.name == "kokoro"
    assert broken.error == "ImportError: No module named 'kokoro_onnx'"


def test_a_hook_that_raises_is_reported_and_registers_nothing():
    registry = load(
        FakeEntryPoint("half", RaisesInHook()), FakeEntryPoint("piper", Offers(spec("piper")))
    )
    assert list(registry.specs) == ["piper"]
    assert [b.name for b in registry.broken] == ["half"]
    assert "RuntimeError: could not find the model files" in registry.broken[0].error


def test_a_misspelt_hook_is_caught_by_check_pending():
    registry = load(
        FakeEntryPoint("misspelt", MisspeltHook()), FakeEntryPoint("piper", Offers(spec("piper")))
    )
    assert list(registry.specs) == ["piper"]
    [broken] = registry.broken
    assert broken.name == "misspelt"
    assert "assist_voice_engine" in broken.error


def test_a_hook_with_arguments_the_spec_does_not_have_is_reported():
    registry = load(FakeEntryPoint("wrong", WrongArguments()))
    assert registry.specs == {}
    assert [b.name for b in registry.broken] == ["wrong"]
    assert "options" in registry.broken[0].error


def test_registering_something_that_is_not_a_spec_is_reported_and_real_specs_kept():
    registry = load(FakeEntryPoint("odd", Offers("kokoro", spec("piper"))))
    assert list(registry.specs) == ["piper"]
    [broken] = registry.broken
    assert broken.name == "odd" and "not an EngineSpec" in broken.error


def test_a_second_engine_of_the_same_name_is_reported_and_the_first_kept():
    first, second = spec("kokoro", memory_mb=400), spec("kokoro", memory_mb=999)
    registry = load(FakeEntryPoint("a", Offers(first)), FakeEntryPoint("b", Offers(second)))
    assert registry.specs == {"kokoro": first}
    [broken] = registry.broken
    assert broken.name == "b" and "'kokoro' is already registered" in broken.error


def test_the_allow_list_loads_only_the_named_plugins():
    loaded: list[str] = []

    @attrs.frozen
    class Counting(FakeEntryPoint):
        def load(self):
            loaded.append(self.name)
            return self.plugin

    points = [Counting(name, Offers(spec(name))) for name in ("kokoro", "piper", "espeak")]
    registry = load(*points, environ={ALLOW_VARIABLE: " piper , espeak,"})
    assert sorted(registry.specs) == ["espeak", "piper"]
    assert loaded == ["piper", "espeak"]


def test_the_block_list_skips_the_named_plugins_even_when_allowed():
    points = [FakeEntryPoint(name, Offers(spec(name))) for name in ("kokoro", "piper", "espeak")]
    assert sorted(load(*points, environ={BLOCK_VARIABLE: "kokoro"}).specs) == ["espeak", "piper"]
    both = {ALLOW_VARIABLE: "kokoro,piper", BLOCK_VARIABLE: "piper"}
    assert list(load(*points, environ=both).specs) == ["kokoro"]


def test_empty_allow_and_block_lists_load_everything():
    points = [FakeEntryPoint(name, Offers(spec(name))) for name in ("kokoro", "piper")]
    environ = {ALLOW_VARIABLE: "", BLOCK_VARIABLE: " , "}
    assert sorted(load(*points, environ=environ).specs) == ["kokoro", "piper"]


def test_an_engine_whose_check_finds_a_problem_is_registered_but_not_available():
    registry = load(
        FakeEntryPoint(
            "all",
            Offers(
                spec("qwen3-tts", check=lambda: "needs macOS on Apple silicon"),
                spec("kokoro"),
                spec("piper", check=lambda: 1 / 0),
            ),
        )
    )
    assert list(registry.available()) == ["kokoro"]
    assert registry.reasons() == {
        "qwen3-tts": "needs macOS on Apple silicon",
        "kokoro": None,
        "piper": "ZeroDivisionError: division by zero",
    }


def test_an_unknown_engine_name_is_refused_naming_it_and_the_engines_installed():
    registry = load(FakeEntryPoint("p", Offers(spec("piper"), spec("espeak"))))
    assert registry.spec("piper").name == "piper"
    with pytest.raises(UnknownEngine) as refusal:
        registry.spec("festival")
    message = str(refusal.value)
    assert "'festival'" in message
    assert "installed engines are: espeak, piper" in message
    for name in ENGINE_NAMES:
        assert name in message


def test_a_known_engine_that_is_not_installed_names_its_package():
    with pytest.raises(UnknownEngine) as refusal:
        EngineRegistry().spec("kokoro")
    message = str(refusal.value)
    assert "'kokoro' is not installed" in message and "assist-voice-kokoro" in message
    assert "installed engines are: none" in message


def test_every_engine_has_a_package():
    assert set(ENGINE_PACKAGES) == set(ENGINE_NAMES)


# Choosing --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("memory", "engine"),
    [
        (128 * GIB, "qwen3-tts"),
        (32 * GIB, "qwen3-tts"),
        (32 * GIB - 1, "supertonic3"),
        (16 * GIB, "supertonic3"),
        (16 * GIB - 1, "kokoro"),
        (8 * GIB, "kokoro"),
        (0, "kokoro"),
    ],
)
def test_the_memory_table_gives_the_tier_engine(memory, engine):
    assert tier_engine(memory) == engine
    assert choose_engine(None, memory, ENGINE_NAMES) == engine


def test_the_ladder_walks_down_from_the_tier_then_up():
    assert auto_order(64 * GIB) == ENGINE_NAMES
    assert auto_order(20 * GIB) == ("supertonic3", "kokoro", "piper", "espeak", "qwen3-tts")
    assert auto_order(4 * GIB) == ("kokoro", "piper", "espeak", "supertonic3", "qwen3-tts")


def test_an_unavailable_tier_engine_gives_the_next_one_down():
    assert choose_engine(None, 64 * GIB, {"kokoro", "espeak"}) == "kokoro"
    assert choose_engine(None, 8 * GIB, {"espeak", "supertonic3"}) == "espeak"


def test_with_nothing_below_the_tier_the_walk_goes_up():
    assert choose_engine(None, 8 * GIB, {"qwen3-tts", "supertonic3"}) == "supertonic3"


def test_nothing_available_means_nothing_can_speak():
    assert choose_engine(None, 64 * GIB, set()) is None
    assert choose_engine(None, 64 * GIB, {"festival"}) is None


def test_a_configured_engine_always_wins():
    assert choose_engine("piper", 64 * GIB, ENGINE_NAMES) == "piper"
    assert choose_engine("qwen3-tts", 0, {"espeak"}) == "qwen3-tts"


def test_engines_that_load_without_a_download_are_preferred_when_asked():
    available = {"kokoro", "piper", "espeak"}
    assert choose_engine(None, 8 * GIB, available, ready_offline={"piper", "espeak"}) == "piper"
    assert choose_engine(None, 8 * GIB, available, ready_offline=set()) == "kokoro"
    assert choose_engine(None, 8 * GIB, {"kokoro"}, ready_offline={"piper"}) == "kokoro"


def test_no_fallback_when_the_setting_is_none():
    assert choose_fallback("none", "kokoro", ENGINE_NAMES) is None


def test_a_named_fallback_is_used_unless_it_is_the_chosen_engine():
    assert choose_fallback("espeak", "kokoro", {"kokoro"}) == "espeak"
    assert choose_fallback("kokoro", "kokoro", ENGINE_NAMES) is None


def test_the_automatic_fallback_is_piper_then_espeak_skipping_the_chosen_one():
    assert choose_fallback(None, "kokoro", ENGINE_NAMES) == "piper"
    assert choose_fallback(None, "piper", ENGINE_NAMES) == "espeak"
    assert choose_fallback(None, "kokoro", {"kokoro", "espeak"}) == "espeak"
    assert choose_fallback(None, "espeak", {"espeak", "kokoro"}) is None
    assert choose_fallback(None, "kokoro", {"kokoro"}) is None


memories = st.integers(0, 256 * GIB)
engine_sets = st.sets(st.sampled_from((*ENGINE_NAMES, "festival")))


@given(memories, engine_sets, st.none() | engine_sets)
def test_the_auto_choice_is_always_an_available_engine_or_none_when_none_is(
    memory, available, offline
):
    chosen = choose_engine(None, memory, available, offline)
    ladder_available = [name for name in auto_order(memory) if name in available]
    if not ladder_available:
        assert chosen is None
        return
    assert chosen in available
    preferred = [name for name in ladder_available if offline is not None and name in offline]
    assert chosen == (preferred or ladder_available)[0]


@given(memories)
def test_the_ladder_holds_every_engine_once_starting_at_the_tier(memory):
    order = auto_order(memory)
    assert sorted(order) == sorted(ENGINE_NAMES)
    assert order[0] == tier_engine(memory)


@given(memories, memories)
def test_more_memory_never_gives_a_lighter_tier(less, more):
    less, more = sorted((less, more))
    assert ENGINE_NAMES.index(tier_engine(more)) <= ENGINE_NAMES.index(tier_engine(less))


@given(
    st.none() | st.sampled_from(("none", *ENGINE_NAMES)), st.sampled_from(ENGINE_NAMES), engine_sets
)
def test_the_fallback_is_never_the_chosen_engine(setting, chosen, available):
    fallback = choose_fallback(setting, chosen, available)
    assert fallback != chosen
    if setting is None and fallback is not None:
        assert fallback in available and fallback in ("piper", "espeak")
    if setting == "none":
        assert fallback is None
