"""The `barge_in` keys (behaviour.md 14.2, 16.3): the switch, the hold and the backchannels."""

from __future__ import annotations

import pytest
from assist.core.interruptions import BACKCHANNELS, HOLD_MS
from assist.core.settings import (
    KEYS,
    InterruptionSettings,
    SettingError,
    Settings,
    describe,
    parse_settings,
    set_key,
)
from hypothesis import given
from hypothesis import strategies as st


def test_the_keys_follow_the_switch_and_default_to_1200_ms_and_the_english_backchannels() -> None:
    at = KEYS.index("barge_in")
    assert KEYS[at : at + 3] == ("barge_in", "barge_in.hold_ms", "barge_in.backchannels")
    settings, warnings = parse_settings({})
    assert settings.barge_in is True and warnings == []
    assert settings.interruptions == InterruptionSettings(HOLD_MS, BACKCHANNELS)


def test_the_older_plain_switch_is_still_read_and_a_key_set_after_it_keeps_its_value() -> None:
    settings, _ = parse_settings({"barge_in": False})
    assert settings.barge_in is False and settings.interruptions == InterruptionSettings()
    doc = set_key({"barge_in": False}, "barge_in.hold_ms", "800", ambient_file=False)
    assert doc == {"barge_in": {"enabled": False, "hold_ms": 800}}
    settings, warnings = parse_settings(doc)
    assert (settings.barge_in, settings.interruptions.hold_ms, warnings) == (False, 800, [])


def test_the_section_is_read_and_each_bad_value_takes_its_default_with_a_warning() -> None:
    doc = {"barge_in": {"enabled": True, "hold_ms": 900, "backchannels": ["ja", "genau"]}}
    settings, warnings = parse_settings(doc)
    assert settings.interruptions == InterruptionSettings(900, ("ja", "genau")) and not warnings
    settings, warnings = parse_settings({"barge_in": {"hold_ms": 50, "backchannels": []}})
    assert settings.interruptions == InterruptionSettings() and len(warnings) == 2
    assert "barge_in.hold_ms" in warnings[0] and "barge_in.backchannels" in warnings[1]


@pytest.mark.parametrize("value", ["0", "99", "10001", "1.5", "soon", "-3"])
def test_a_hold_outside_100_to_10000_ms_is_refused_saying_what_to_give(value: str) -> None:
    with pytest.raises(SettingError, match=r"barge_in\.hold_ms not changed.*1200"):
        set_key({}, "barge_in.hold_ms", value, ambient_file=False)


phrase = st.text("abcdefgh ", min_size=1, max_size=12).map(str.strip).filter(bool)


@given(
    st.booleans(),
    st.integers(100, 10_000),
    st.lists(phrase, min_size=1, max_size=5).map(tuple),
)
def test_setting_every_described_value_then_reading_gives_the_settings_back(
    enabled: bool, hold_ms: int, backchannels: tuple[str, ...]
) -> None:
    wanted = InterruptionSettings(hold_ms, backchannels)
    shown = dict(describe(Settings(barge_in=enabled, interruptions=wanted)))
    doc: dict[str, object] = {"barge_in": True}
    for key in ("barge_in", "barge_in.hold_ms", "barge_in.backchannels"):
        doc = set_key(doc, key, shown[key], ambient_file=False)
    again, warnings = parse_settings(doc)
    assert (again.barge_in, again.interruptions, warnings) == (enabled, wanted, [])
