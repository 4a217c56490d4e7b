"""The auto choice of engine, ranked by what each engine declares, with its ladder and
fallbacks (behaviour 9.1, 9.4)."""

from __future__ import annotations

import attrs
import pytest
from assist.core.engines import GIB, auto_order, choose_engine, choose_fallback
from hypothesis import given
from hypothesis import strategies as st


@attrs.frozen
class Declared:
    """What an engine declares for the auto choice (the fields `EngineSpec` has)."""

    name: str
    rank: int = 0
    auto_memory: int = 0
    fallback: bool = False


OURS = {
    spec.name: spec
    for spec in (
        Declared("qwen3-tts", rank=50, auto_memory=32 * GIB),
        Declared("supertonic3", rank=40, auto_memory=16 * GIB),
        Declared("kokoro", rank=30),
        Declared("piper", rank=20, fallback=True),
        Declared("espeak", rank=10, fallback=True),
    )
}
"""Our five engines as their plugins declare them (the shell's tests load the real ones)."""
LADDER = ("qwen3-tts", "supertonic3", "kokoro", "piper", "espeak")


def ours(*names: str) -> dict[str, Declared]:
    return {name: OURS[name] for name in names}


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
def test_the_memory_table_gives_its_engine_for_ours(memory, engine):
    assert choose_engine(None, memory, OURS) == engine


def test_the_ladder_walks_down_from_the_tier_then_up():
    assert auto_order(64 * GIB, OURS.values()) == LADDER
    assert auto_order(20 * GIB, OURS.values()) == (
        "supertonic3",
        "kokoro",
        "piper",
        "espeak",
        "qwen3-tts",
    )
    assert auto_order(4 * GIB, OURS.values()) == (
        "kokoro",
        "piper",
        "espeak",
        "supertonic3",
        "qwen3-tts",
    )


def test_an_unavailable_tier_engine_gives_the_next_one_down():
    assert choose_engine(None, 64 * GIB, ours("kokoro", "espeak")) == "kokoro"
    assert choose_engine(None, 8 * GIB, ours("espeak", "supertonic3")) == "espeak"


def test_with_nothing_below_the_tier_the_walk_goes_up():
    assert choose_engine(None, 8 * GIB, ours("qwen3-tts", "supertonic3")) == "supertonic3"


def test_nothing_available_means_nothing_can_speak():
    assert choose_engine(None, 64 * GIB, {}) is None


def test_a_configured_engine_always_wins():
    assert choose_engine("piper", 64 * GIB, OURS) == "piper"
    assert choose_engine("qwen3-tts", 0, ours("espeak")) == "qwen3-tts"


def test_engines_that_load_without_a_download_are_preferred_when_asked():
    available = ours("kokoro", "piper", "espeak")
    assert choose_engine(None, 8 * GIB, available, ready_offline={"piper", "espeak"}) == "piper"
    assert choose_engine(None, 8 * GIB, available, ready_offline=set()) == "kokoro"
    assert choose_engine(None, 8 * GIB, ours("kokoro"), ready_offline={"piper"}) == "kokoro"


def test_a_third_party_engine_that_declares_itself_richest_for_the_memory_is_chosen():
    toy = Declared("toy", rank=99, auto_memory=8 * GIB)
    available = {**OURS, "toy": toy}
    assert choose_engine(None, 8 * GIB, available) == "toy"
    assert choose_engine(None, 8 * GIB - 1, available) == "kokoro"
    assert auto_order(4 * GIB, available.values())[-3:] == ("toy", "supertonic3", "qwen3-tts")
    plain = Declared("plain")  # declares nothing: below every engine of ours
    assert auto_order(0, [*OURS.values(), plain])[2:4] == ("espeak", "plain")


def test_no_fallback_when_the_setting_is_none():
    assert choose_fallback("none", "kokoro", OURS) is None


def test_a_named_fallback_is_used_unless_it_is_the_chosen_engine():
    assert choose_fallback("espeak", "kokoro", ours("kokoro")) == "espeak"
    assert choose_fallback("kokoro", "kokoro", OURS) is None
    assert choose_fallback("toy", "kokoro", OURS) == "toy"


def test_the_automatic_fallback_is_piper_then_espeak_skipping_the_chosen_one():
    assert choose_fallback(None, "kokoro", OURS) == "piper"
    assert choose_fallback(None, "piper", OURS) == "espeak"
    assert choose_fallback(None, "kokoro", ours("kokoro", "espeak")) == "espeak"
    assert choose_fallback(None, "espeak", ours("espeak", "kokoro")) is None
    assert choose_fallback(None, "kokoro", ours("kokoro")) is None


def test_a_third_party_engine_is_an_automatic_fallback_only_when_it_declares_so():
    assert choose_fallback(None, "kokoro", {**ours("kokoro"), "toy": Declared("toy")}) is None
    quick = Declared("quick", rank=25, fallback=True)
    assert choose_fallback(None, "kokoro", {**OURS, "quick": quick}) == "quick"


memories = st.integers(0, 256 * GIB)
declared = st.builds(
    Declared,
    name=st.text("abcdefgh", min_size=1, max_size=3),
    rank=st.integers(-5, 100),
    auto_memory=st.sampled_from((0, 4 * GIB, 16 * GIB, 32 * GIB)) | memories,
    fallback=st.booleans(),
)
spec_sets = st.lists(declared, max_size=8, unique_by=lambda spec: spec.name).map(
    lambda specs: {spec.name: spec for spec in specs}
)
name_sets = st.sets(st.text("abcdefgh", min_size=1, max_size=3))


@given(memories, spec_sets)
def test_the_ladder_holds_every_engine_once_those_the_memory_affords_first(memory, specs):
    order = auto_order(memory, specs.values())
    assert sorted(order) == sorted(specs)
    affords = [specs[name].auto_memory <= memory for name in order]
    assert affords == sorted(affords, reverse=True)
    afforded = [specs[name].rank for name in order if specs[name].auto_memory <= memory]
    assert afforded == sorted(afforded, reverse=True)
    above = [specs[name].auto_memory for name in order if specs[name].auto_memory > memory]
    assert above == sorted(above)


@given(memories, spec_sets)
def test_the_ladder_does_not_depend_on_the_order_engines_were_registered_in(memory, specs):
    forwards = auto_order(memory, specs.values())
    assert auto_order(memory, reversed(list(specs.values()))) == forwards


@given(memories, memories, spec_sets)
def test_more_memory_never_gives_a_poorer_first_choice(less, more, specs):
    less, more = sorted((less, more))
    low, high = choose_engine(None, less, specs), choose_engine(None, more, specs)
    if low is not None and high is not None and specs[low].auto_memory <= less:
        assert specs[high].rank >= specs[low].rank


@given(memories, spec_sets, st.none() | name_sets)
def test_the_auto_choice_is_the_first_available_on_the_ladder_ready_offline_first(
    memory, available, offline
):
    chosen = choose_engine(None, memory, available, offline)
    order = auto_order(memory, available.values())
    if not order:
        assert chosen is None
        return
    preferred = [name for name in order if offline is not None and name in offline]
    assert chosen == (preferred or order)[0]


@given(st.none() | st.sampled_from(("none", *LADDER)), st.sampled_from(LADDER), spec_sets)
def test_the_fallback_is_never_the_chosen_engine(setting, chosen, available):
    fallback = choose_fallback(setting, chosen, available)
    assert fallback != chosen
    if setting is None and fallback is not None:
        assert available[fallback].fallback
        ranks = [s.rank for s in available.values() if s.fallback and s.name != chosen]
        assert available[fallback].rank == max(ranks)
    if setting == "none":
        assert fallback is None
