"""The conversation and confirm keys (behaviour.md 13, 14.1) under the rules of 2.1-2.4."""

from __future__ import annotations

import json

import pytest
from assist.core.answers import NO_WORDS, YES_WORDS, answer_words
from assist.core.settings import (
    END_SILENCE_RANGE_MS,
    KEYS,
    U32_MAX,
    ConfirmSettings,
    ConversationSettings,
    SettingError,
    Settings,
    describe,
    format_document,
    parse_settings,
    set_key,
)
from hypothesis import given
from hypothesis import strategies as st

TALK_KEYS = (
    "conversation.fillers",
    "conversation.max_s",
    "conversation.idle_s",
    "conversation.end_silence_ms",
    "confirm.yes_words",
    "confirm.no_words",
)


def read(document: object) -> tuple[Settings, list[str]]:
    return parse_settings(json.loads(format_document(document)))  # type: ignore[arg-type]


def test_the_defaults_are_fillers_on_600_s_90_s_1000_ms_and_the_english_words() -> None:
    settings, warnings = parse_settings({})
    assert settings.conversation == ConversationSettings(True, 600, 90, 1000)
    assert settings.confirm == ConfirmSettings(YES_WORDS, NO_WORDS)
    assert warnings == []


def test_every_key_is_known_to_assist_config_after_the_meeting_keys() -> None:
    after = KEYS.index("sessions_dir") + 1
    assert KEYS[after : after + len(TALK_KEYS)] == TALK_KEYS


def test_a_full_section_is_read() -> None:
    settings, warnings = read(
        {
            "conversation": {"fillers": False, "max_s": 300, "idle_s": 30, "end_silence_ms": 600},
            "confirm": {"yes_words": ["ja", "gerne"], "no_words": ["nein", "halt"]},
        }
    )
    assert warnings == []
    assert settings.conversation == ConversationSettings(False, 300, 30, 600)
    assert settings.confirm == ConfirmSettings(("ja", "gerne"), ("nein", "halt"))


@pytest.mark.parametrize(
    ("section", "field", "value"),
    [
        ("conversation", "fillers", "yes"),
        ("conversation", "max_s", 0),
        ("conversation", "idle_s", -5),
        ("conversation", "idle_s", 90.0),
        ("conversation", "end_silence_ms", True),
        ("conversation", "end_silence_ms", 50),
        ("conversation", "end_silence_ms", 20_000),
        ("conversation", "max_s", 2**32),
        ("confirm", "yes_words", "yes"),
        ("confirm", "yes_words", []),
        ("confirm", "no_words", ["no", 3]),
        ("confirm", "no_words", ["no", "?!"]),
        ("confirm", "no_words", ["no, stop"]),
    ],
)
def test_one_bad_value_takes_its_default_with_a_warning_naming_the_key_and_the_rest_applies(
    section: str, field: str, value: object
) -> None:
    document = {
        "assistant": {"name": "Ada"},
        "conversation": {"idle_s": 45, "max_s": 120},
        "confirm": {"yes_words": ["ja"], "no_words": ["nein"]},
    }
    document[section][field] = value  # type: ignore[index]
    settings, warnings = read(document)
    assert len(warnings) == 1
    assert f"{section}.{field}" in warnings[0]
    assert getattr(getattr(settings, section), field) == getattr(
        getattr(Settings(), section), field
    )
    assert settings.assistant.name == "Ada"
    others = {"idle_s": 45, "max_s": 120, "yes_words": ("ja",), "no_words": ("nein",)}
    for name, expected in others.items():
        if name != field:
            part = settings.conversation if name.endswith("_s") else settings.confirm
            assert getattr(part, name) == expected


def test_null_lists_read_as_the_english_defaults_without_a_warning() -> None:
    settings, warnings = read({"confirm": {"yes_words": None, "no_words": None}})
    assert settings.confirm == ConfirmSettings()
    assert warnings == []


@pytest.mark.parametrize(("word", "stored"), [("yes", True), ("OFF", False), (" 1 ", True)])
def test_fillers_take_the_boolean_words(word: str, stored: bool) -> None:
    assert set_key({}, "conversation.fillers", word, ambient_file=True) == {
        "conversation": {"fillers": stored}
    }


def test_fillers_refuse_a_word_that_is_not_a_boolean() -> None:
    with pytest.raises(SettingError, match="not a recognised boolean"):
        set_key({}, "conversation.fillers", "sometimes", ambient_file=False)


@pytest.mark.parametrize("key", ["conversation.max_s", "conversation.idle_s"])
@pytest.mark.parametrize("text", ["0", "-1", "1.5", "ninety", "", str(U32_MAX + 1), "٣"])
def test_a_duration_that_is_not_a_whole_number_of_at_least_1_is_refused(
    key: str, text: str
) -> None:
    original = {"conversation": {"max_s": 600}}
    with pytest.raises(SettingError, match=key):
        set_key(original, key, text, ambient_file=False)
    assert original == {"conversation": {"max_s": 600}}


@pytest.mark.parametrize("text", ["99", "10001", "1.5", "soon"])
def test_the_end_of_turn_silence_is_refused_outside_the_listeners_bounds(text: str) -> None:
    with pytest.raises(SettingError, match=r"conversation\.end_silence_ms.* 100 to 10000"):
        set_key({}, "conversation.end_silence_ms", text, ambient_file=False)


def test_durations_store_whole_numbers() -> None:
    doc = set_key({}, "conversation.end_silence_ms", " 800 ", ambient_file=False)
    assert doc == {"conversation": {"end_silence_ms": 800}}


def test_phrases_are_given_separated_by_commas_and_default_brings_back_the_english_ones() -> None:
    doc = set_key({}, "confirm.yes_words", "ja, mach das ,  gerne,", ambient_file=False)
    assert doc == {"confirm": {"yes_words": ["ja", "mach das", "gerne"]}}
    assert read(doc)[0].confirm.yes_words == ("ja", "mach das", "gerne")
    doc = set_key(doc, "confirm.yes_words", "Default", ambient_file=False)
    assert read(doc) == (Settings(), [])


@pytest.mark.parametrize("text", [",", " , ,", "yes, ?!"])
def test_a_phrase_list_without_words_is_refused_saying_how_to_give_one(text: str) -> None:
    with pytest.raises(SettingError, match="separated by commas"):
        set_key({}, "confirm.no_words", text, ambient_file=False)


def test_describe_shows_the_effective_values_the_way_assist_config_takes_them() -> None:
    shown = dict(describe(Settings()))
    assert shown["conversation.fillers"] == "yes"
    assert shown["conversation.max_s"] == "600"
    assert shown["conversation.idle_s"] == "90"
    assert shown["conversation.end_silence_ms"] == "1000"
    assert shown["confirm.yes_words"].startswith("yes, yeah, yep")
    assert "don't" in shown["confirm.no_words"]


phrase = (
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=12)
    .map(str.strip)
    .filter(lambda text: "," not in text and answer_words(text))
)
talk_settings = st.builds(
    Settings,
    conversation=st.builds(
        ConversationSettings,
        fillers=st.booleans(),
        max_s=st.integers(1, U32_MAX),
        idle_s=st.integers(1, U32_MAX),
        end_silence_ms=st.integers(*END_SILENCE_RANGE_MS),
    ),
    confirm=st.builds(
        ConfirmSettings,
        yes_words=st.lists(phrase, min_size=1, max_size=5).map(tuple),
        no_words=st.lists(phrase, min_size=1, max_size=5).map(tuple),
    ),
)


@given(talk_settings)
def test_setting_every_described_value_then_reading_gives_the_settings_back(
    settings: Settings,
) -> None:
    doc: dict[str, object] = {"talk": {"hotkey": "F5"}}
    for key, value in describe(settings):
        if key in TALK_KEYS:
            doc = set_key(doc, key, value, ambient_file=False)
    again, warnings = read(doc)
    assert (again.conversation, again.confirm) == (settings.conversation, settings.confirm)
    assert warnings == []
    assert doc["talk"] == {"hotkey": "F5"}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=10,
)


@given(
    st.dictionaries(
        st.sampled_from(["conversation", "confirm"]),
        json_values
        | st.dictionaries(
            st.sampled_from(["fillers", "max_s", "idle_s", "yes_words", "no_words"]),
            json_values | st.lists(st.text(), max_size=4),
        ),
    )
)
def test_reading_any_document_gives_usable_talk_settings_and_never_raises(
    document: dict[str, object],
) -> None:
    settings, warnings = parse_settings(document)
    assert isinstance(settings.conversation.fillers, bool)
    assert settings.conversation.max_s >= 1 and settings.conversation.idle_s >= 1
    for phrases in (settings.confirm.yes_words, settings.confirm.no_words):
        assert phrases and all(isinstance(item, str) and item.strip() for item in phrases)
    assert all(isinstance(warning, str) for warning in warnings)
