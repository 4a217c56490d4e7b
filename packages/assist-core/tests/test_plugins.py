"""Plugin groups: loading that survives broken packages, allow and block lists, and the same
mechanism serving a second group (behaviour 8.4)."""

from __future__ import annotations

from collections.abc import Callable

import attrs
import pluggy
import plugin_fakes
import pytest
from assist.core.engines import (
    ALLOW_VARIABLE,
    BLOCK_VARIABLE,
    ENGINE_PACKAGES,
    VOICES,
    EngineSpec,
    VoiceOptions,
    hookimpl,
)
from assist.core.plugins import PluginKind, Registry, UnknownPlugin
from plugin_fakes import FakeEntryPoint


def _never_built(options: VoiceOptions):
    raise AssertionError("loading the registry must never build an engine")


def spec(name: str, **changes) -> EngineSpec:
    return EngineSpec(name=name, package=f"assist-voice-{name}", build=_never_built, **changes)


class Offers(plugin_fakes.Offers):
    @hookimpl
    def assist_voice_engines(self, register):
        self.offer(register)


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


def load(*entry_points, environ=None) -> Registry[EngineSpec]:
    registry = Registry(VOICES)
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
    with pytest.raises(UnknownPlugin) as refusal:
        registry.spec("festival")
    message = str(refusal.value)
    assert "no installed package offers the voice engine 'festival'" in message
    assert "installed voice engines are: espeak, piper" in message


def test_a_known_engine_that_is_not_installed_names_its_package():
    with pytest.raises(UnknownPlugin) as refusal:
        Registry(VOICES).spec("kokoro")
    message = str(refusal.value)
    assert "'kokoro' is not installed" in message and "assist-voice-kokoro" in message
    assert "installed voice engines are: none" in message


def test_every_engine_we_ship_names_its_package():
    assert all(package.startswith("assist-voice-") for package in ENGINE_PACKAGES.values())


# A second group through the same mechanism -----------------------------------------------

other_hookspec = pluggy.HookspecMarker("toy.listeners")
other_hookimpl = pluggy.HookimplMarker("toy.listeners")


@attrs.frozen
class ListenerSpec:
    name: str
    package: str
    check: Callable[[], str | None] = lambda: None


class ListenerHooks:
    @other_hookspec
    def toy_listeners(self, register):
        """Register each listener."""


LISTENERS = PluginKind(
    group="toy.listeners",
    hooks=ListenerHooks,
    hook="toy_listeners",
    spec_type=ListenerSpec,
    allow_variable="TOY_LISTENERS",
    block_variable="TOY_LISTENERS_BLOCK",
    noun="listener",
)


class OffersListeners:
    def __init__(self, *specs: object) -> None:
        self.specs = specs

    @other_hookimpl
    def toy_listeners(self, register):
        for offered in self.specs:
            register(offered)


def test_a_second_plugin_group_loads_through_the_same_registry_with_its_own_names():
    points = [
        FakeEntryPoint("ears", OffersListeners(ListenerSpec("ears", "toy-ears"))),
        FakeEntryPoint("deaf", OffersListeners(ListenerSpec("deaf", "toy-deaf", lambda: "no mic"))),
        FakeEntryPoint("voice", Offers(spec("piper"))),
        FakeEntryPoint("blocked", OffersListeners(ListenerSpec("blocked", "toy-blocked"))),
        FakeEntryPoint("odd", OffersListeners(spec("kokoro"))),
    ]
    registry: Registry[ListenerSpec] = Registry(LISTENERS)
    registry.load(points, {"TOY_LISTENERS_BLOCK": "blocked", ALLOW_VARIABLE: "nothing"})
    assert sorted(registry.specs) == ["deaf", "ears"]
    assert list(registry.available()) == ["ears"]
    broken = {plugin.name: plugin.error for plugin in registry.broken}
    assert set(broken) == {"odd"}  # the voice plugin implements none of this group's hooks
    assert "not a ListenerSpec" in broken["odd"]
    with pytest.raises(UnknownPlugin, match="the installed listeners are: deaf, ears"):
        registry.spec("piper")
