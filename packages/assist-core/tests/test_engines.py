"""The engine contract's auto choice of engine by memory tier, with its ladder and fallbacks
(behaviour 9.1, 9.4)."""

from __future__ import annotations

import pytest
from assist.core.engines import (
    ENGINE_NAMES,
    GIB,
    auto_order,
    choose_engine,
    choose_fallback,
    tier_engine,
)
from hypothesis import given
from hypothesis import strategies as st

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
