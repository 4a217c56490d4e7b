"""The settings table: every key round-trips through `assist config` (behaviour.md 2.3, 2.4)."""

from __future__ import annotations

import json
from typing import Any

import attrs
from assist.core.answers import answer_words
from assist.core.engines import ENGINE_PACKAGES
from assist.core.interruptions import HOLD_RANGE_MS
from assist.core.recognisers import RECOGNISER_PACKAGES
from assist.core.settings import (
    COUNT,
    DURATION,
    END_SILENCE,
    END_SILENCE_RANGE_MS,
    ENGINE,
    FALLBACK,
    HOLD,
    KEYS,
    NAME,
    NO_FALLBACK,
    ON_OFF,
    PHRASES,
    RECOGNISER,
    SETTINGS,
    TEXT,
    TURN_MODEL,
    TURN_PAUSE,
    TURN_PAUSE_RANGE_MS,
    U32_MAX,
    YES_NO,
    Kind,
    Settings,
    describe,
    format_document,
    parse_settings,
    set_key,
)
from assist.core.turn_models import TURN_MODEL_PACKAGES
from hypothesis import given
from hypothesis import strategies as st

ENGINES = ("espeak", "toy")
"""What the installed plugins register in these tests: one of ours and a third party's."""
RECOGNISERS = ("whisper", "toy")
TURN_MODELS = ("smart-turn", "toy")

words = (
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1)
    .map(str.strip)
    .filter(lambda text: text and text.lower() != "default")
)
phrase = (
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=12)
    .map(str.strip)
    .filter(lambda text: "," not in text and answer_words(text))
)

VALUES: dict[Kind, st.SearchStrategy[Any]] = {
    ON_OFF: st.booleans(),
    YES_NO: st.booleans(),
    NAME: words,
    COUNT: st.integers(0, U32_MAX),
    DURATION: st.integers(1, U32_MAX),
    END_SILENCE: st.integers(*END_SILENCE_RANGE_MS),
    HOLD: st.integers(*HOLD_RANGE_MS),
    TEXT: st.none() | words,
    ENGINE: st.none() | st.sampled_from((*ENGINE_PACKAGES, *ENGINES)),
    FALLBACK: st.none() | st.sampled_from((NO_FALLBACK, *ENGINE_PACKAGES, *ENGINES)),
    RECOGNISER: st.none() | st.sampled_from((*RECOGNISER_PACKAGES, *RECOGNISERS)),
    TURN_MODEL: st.none() | st.sampled_from((*TURN_MODEL_PACKAGES, *TURN_MODELS)),
    TURN_PAUSE: st.integers(*TURN_PAUSE_RANGE_MS),
    PHRASES: st.lists(phrase, min_size=1, max_size=5).map(tuple),
}
"""Valid setting values of each kind of value in the table."""


def test_every_kind_of_value_in_the_table_has_valid_values_to_try() -> None:
    missing = [key.name for key in SETTINGS if key.kind not in VALUES]
    assert missing == [], "name the kind of these keys in settings.py and give it VALUES here"


def test_every_key_is_named_once_and_lives_in_one_place_in_the_file() -> None:
    assert len(set(KEYS)) == len(KEYS)
    assert len({key.path for key in SETTINGS}) == len(SETTINGS)
    assert len({key.attribute for key in SETTINGS}) == len(SETTINGS)


def test_every_field_of_settings_is_a_key_of_the_table() -> None:
    fields = set()
    for part in attrs.fields(Settings):
        if attrs.has(type(getattr(Settings(), part.name))):
            inner = attrs.fields(type(getattr(Settings(), part.name)))
            fields |= {f"{part.name}.{field.name}" for field in inner}
        else:
            fields.add(part.name)
    assert fields == {key.attribute for key in SETTINGS}


def test_each_default_is_what_an_empty_file_reads_as_and_what_describe_shows_then() -> None:
    settings, warnings = parse_settings({})
    assert warnings == []
    shown = dict(describe(settings))
    for key in SETTINGS:
        assert key.value_in(settings) == key.default
        assert shown[key.name] == key.kind.show(key.default)


@given(st.data())
def test_every_key_set_with_assist_config_reads_back_from_the_file_and_is_described_as_set(
    data: st.DataObject,
) -> None:
    key = data.draw(st.sampled_from(SETTINGS))
    value = data.draw(VALUES[key.kind])
    given_text = key.kind.show(value)
    doc = set_key(
        {"talk": {"hotkey": "F5"}},
        key.name,
        given_text,
        ambient_file=False,
        engines=ENGINES,
        recognisers=RECOGNISERS,
        turn_models=TURN_MODELS,
    )
    file_text = format_document(doc)
    settings, warnings = parse_settings(
        json.loads(file_text), engines=ENGINES, recognisers=RECOGNISERS, turn_models=TURN_MODELS
    )
    assert key.value_in(settings) == value
    assert warnings == []
    assert dict(describe(settings))[key.name] == given_text
    assert json.loads(file_text)["talk"] == {"hotkey": "F5"}
    for other in SETTINGS:
        if other is not key:
            assert other.value_in(settings) == other.value_in(Settings())
