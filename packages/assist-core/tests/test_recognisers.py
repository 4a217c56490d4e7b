"""The recogniser contract (behaviour.md 12.4): specs, the assist.stt group, the auto choice."""

from __future__ import annotations

import plugin_fakes
import pytest
from assist.core.plugins import Registry, UnknownPlugin
from assist.core.recognisers import (
    AUTO,
    RECOGNISERS,
    Recognised,
    RecogniserOptions,
    RecogniserSpec,
    choose_recogniser,
    hookimpl,
)
from hypothesis import given
from hypothesis import strategies as st
from plugin_fakes import FakeEntryPoint


def _never_built(options: RecogniserOptions):
    raise AssertionError("loading the registry must never build a recogniser")


def spec(name: str, rank: int = 0, **changes) -> RecogniserSpec:
    return RecogniserSpec(
        name=name, package=f"assist-stt-{name}", build=_never_built, rank=rank, **changes
    )


class Offers(plugin_fakes.Offers):
    @hookimpl
    def assist_stt_engines(self, register):
        self.offer(register)


def load(*entry_points, environ=None) -> Registry[RecogniserSpec]:
    registry = Registry(RECOGNISERS)
    registry.load(entry_points, environ or {})
    return registry


def test_the_group_is_assist_stt_with_its_hook_and_variables():
    assert (RECOGNISERS.group, RECOGNISERS.hook) == ("assist.stt", "assist_stt_engines")
    assert (RECOGNISERS.allow_variable, RECOGNISERS.block_variable) == (
        "ASSIST_STT",
        "ASSIST_STT_BLOCK",
    )


def test_recognisers_load_from_their_entry_points_and_a_broken_one_is_reported():
    registry = load(
        FakeEntryPoint("whisper", Offers(spec("whisper", rank=100))),
        FakeEntryPoint("broken", error=ImportError("No module named 'ctranslate2'")),
        FakeEntryPoint("pocketsphinx", Offers(spec("pocketsphinx", rank=10))),
    )
    assert sorted(registry.specs) == ["pocketsphinx", "whisper"]
    assert [(plugin.name, plugin.error) for plugin in registry.broken] == [
        ("broken", "ImportError: No module named 'ctranslate2'")
    ]


def test_a_voice_spec_registered_in_the_recogniser_group_is_refused():
    registry = load(FakeEntryPoint("odd", Offers(object())))
    assert registry.specs == {}
    assert "not a RecogniserSpec" in registry.broken[0].error


def test_allow_and_block_variables_choose_which_plugins_load():
    points = [
        FakeEntryPoint("whisper", Offers(spec("whisper"))),
        FakeEntryPoint("pocketsphinx", Offers(spec("pocketsphinx"))),
    ]
    assert sorted(load(*points, environ={"ASSIST_STT": "pocketsphinx"}).specs) == ["pocketsphinx"]
    assert sorted(load(*points, environ={"ASSIST_STT_BLOCK": "pocketsphinx"}).specs) == ["whisper"]


def test_a_recogniser_we_ship_but_not_installed_is_named_with_its_package():
    registry = load(FakeEntryPoint("pocketsphinx", Offers(spec("pocketsphinx"))))
    expected = (
        r"recogniser 'whisper' is not installed \(assist-stt-whisper\); "
        r"the installed recognisers are: pocketsphinx"
    )
    with pytest.raises(UnknownPlugin, match=expected):
        registry.spec("whisper")


def test_a_recogniser_whose_check_fails_is_registered_but_not_available():
    registry = load(
        FakeEntryPoint("whisper", Offers(spec("whisper", check=lambda: "missing ctranslate2")))
    )
    assert registry.available() == {}
    assert registry.reasons() == {"whisper": "missing ctranslate2"}


def test_auto_prefers_whisper_to_pocketsphinx():
    available = {"pocketsphinx": spec("pocketsphinx", 10), "whisper": spec("whisper", 100)}
    assert choose_recogniser(None, available) == "whisper"
    assert choose_recogniser(AUTO, available) == "whisper"
    assert choose_recogniser("", {"pocketsphinx": spec("pocketsphinx", 10)}) == "pocketsphinx"
    assert choose_recogniser(None, {}) is None


SPECS = st.dictionaries(
    st.sampled_from(["whisper", "pocketsphinx", "vosk", "moonshine"]), st.integers(-5, 200)
).map(lambda ranks: {name: spec(name, rank) for name, rank in ranks.items()})


@given(st.sampled_from(["whisper", "pocketsphinx", "elsewhere"]), SPECS)
def test_a_configured_recogniser_always_wins(configured, available):
    assert choose_recogniser(configured, available) == configured


@given(SPECS)
def test_auto_takes_the_highest_rank_and_breaks_ties_by_name(available):
    chosen = choose_recogniser(None, available)
    if not available:
        assert chosen is None
        return
    best = max(spec.rank for spec in available.values())
    assert available[chosen].rank == best
    assert chosen == min(name for name, spec in available.items() if spec.rank == best)


@pytest.mark.parametrize("confidence", [-0.01, 1.01, float("nan")])
def test_a_confidence_outside_zero_to_one_is_refused(confidence):
    with pytest.raises(ValueError, match="between 0 and 1"):
        Recognised("hello", confidence)
    with pytest.raises(ValueError, match="last_word_confidence must be between 0 and 1"):
        Recognised("hello", 0.5, last_word_confidence=confidence)


def test_a_recogniser_that_cannot_say_how_sure_it_was_of_the_last_word_says_none():
    assert Recognised("hello", 0.5).last_word_confidence is None


def test_options_default_to_the_recognisers_own_choices():
    assert RecogniserOptions() == RecogniserOptions(model=None, cache_root=None, threads=None)
