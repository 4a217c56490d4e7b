"""The one way JSON text is read and written: nothing raises but Unreadable, nothing written
fails to encode (json_text, behaviour 3.1)."""

from __future__ import annotations

import json

import pytest
from assist.core import json_text
from hypothesis import given
from hypothesis import strategies as st

LONE = "\ud800"

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: st.lists(children) | st.dictionaries(st.text(), children),
    max_leaves=30,
)


def encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@given(st.text())
def test_any_text_parses_or_is_unreadable_and_never_raises_anything_else(text: str) -> None:
    try:
        value = json_text.parse(text)
    except json_text.Unreadable:
        return
    assert encodes(json.dumps(value, ensure_ascii=False))


@given(st.binary())
def test_any_bytes_parse_or_are_unreadable(data: bytes) -> None:
    try:
        json_text.parse_bytes(data)
    except json_text.Unreadable as error:
        assert str(error)


@pytest.mark.parametrize(
    "text",
    ["[" * 100_000, '{"a":' * 5000 + "1" + "}" * 5000, "1" * 5000, "{", "", "NaN x", "\x00"],
)
def test_deep_huge_or_broken_text_is_unreadable_with_a_reason(text: str) -> None:
    with pytest.raises(json_text.Unreadable) as raised:
        json_text.parse(text)
    assert str(raised.value)


def test_nesting_too_deep_says_so() -> None:
    with pytest.raises(json_text.Unreadable, match="nested too deeply"):
        json_text.parse("[" * 5000 + "]" * 5000)


def test_not_utf8_bytes_are_unreadable_naming_the_byte() -> None:
    with pytest.raises(json_text.Unreadable, match="not UTF-8"):
        json_text.parse_bytes(b'{"a": "\xff"}')


def test_nan_and_infinity_are_refused_only_when_finite_is_asked() -> None:
    assert json_text.parse("[-Infinity]")[0] == float("-inf")
    with pytest.raises(json_text.Unreadable, match="Infinity"):
        json_text.parse("[-Infinity]", finite=True)
    with pytest.raises(json_text.Unreadable, match="NaN"):
        json_text.parse('{"a": NaN}', finite=True)


def test_every_lone_surrogate_read_becomes_u_fffd_in_values_and_keys() -> None:
    text = '{"k\\ud800": ["\\udfff", {"x": "a\\ud83d"}], "pair": "\\ud83d\\ude00"}'
    assert json_text.parse(text) == {
        "k\ufffd": ["\ufffd", {"x": "a\ufffd"}],
        "pair": "\U0001f600",
    }


@given(json_values, st.sampled_from(["\ud800", "\udc80", "\udfff", "\ud83d"]))
def test_whatever_is_written_encodes_as_utf8_and_reads_back_with_u_fffd(
    value: object, surrogate: str
) -> None:
    tainted = [value, surrogate, {surrogate: [surrogate + "x"]}]
    written = json_text.dumps(tainted)
    assert encodes(written)
    assert json.loads(written)[1:] == ["\ufffd", {"\ufffd": ["\ufffdx"]}]
    assert json_text.dumps(tainted, ascii_only=True).isascii()


@given(json_values)
def test_values_without_surrogates_are_written_as_json_dumps_writes_them(value: object) -> None:
    assert json_text.dumps(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def test_a_value_nested_far_deeper_than_the_stack_is_made_encodable_without_recursion() -> None:
    deep: list[object] = [LONE]
    for _ in range(50_000):
        deep = [deep]
    fixed = json_text.encodable(deep)
    for _ in range(50_000):
        fixed = fixed[0]
    assert fixed == ["\ufffd"]
