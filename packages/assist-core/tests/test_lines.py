"""Reading raw.jsonl records and showing them (behaviour.md 1.4, 1.5, 3.5)."""

from __future__ import annotations

import json
import re

import pytest
from assist.core.lines import (
    LineError,
    RawLine,
    encode_raw_line,
    line_view,
    parse_raw_line,
    render,
)
from hypothesis import given
from hypothesis import strategies as st

times = st.integers(min_value=0, max_value=2**63)
speakers = st.none() | st.text().filter(lambda name: name.strip() != "")
raw_lines = st.builds(
    RawLine,
    track=st.sampled_from(["room", "call"]),
    start_ms=times,
    end_ms=times,
    text=st.text(),
    confidence=st.floats(allow_nan=False, allow_infinity=False),
    speaker=speakers,
)
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=6,
)


def test_the_example_record_of_the_specification_parses_with_every_field():
    line = parse_raw_line(
        '{"track":"call","start_ms":12500,"end_ms":14100,"text":"Can everyone hear me?",'
        '"confidence":0.87,"speaker":"Dana"}\n'
    )
    assert line == RawLine("call", 12500, 14100, "Can everyone hear me?", 0.87, "Dana")


def test_an_ambient_record_without_confidence_or_speaker_takes_the_defaults():
    line = parse_raw_line('{"track":"room","start_ms":0,"end_ms":900,"text":"Hi."}')
    assert line == RawLine("room", 0, 900, "Hi.", 0.0, None)


def test_unknown_fields_are_ignored():
    line = parse_raw_line(
        '{"track":"room","start_ms":1,"end_ms":2,"text":"ok","final":true,"words":[1,2]}'
    )
    assert line == RawLine("room", 1, 2, "ok")


def test_a_null_confidence_counts_as_missing():
    line = parse_raw_line('{"track":"room","start_ms":1,"end_ms":2,"text":"a","confidence":null}')
    assert line.confidence == 0.0


def test_an_integer_confidence_is_a_number():
    line = parse_raw_line('{"track":"room","start_ms":1,"end_ms":2,"text":"a","confidence":1}')
    assert line.confidence == 1.0


@pytest.mark.parametrize("speaker", ['""', '"   "', "null", "42", "true", '["Dana"]', '{"n":1}'])
def test_a_speaker_that_is_not_a_name_is_left_out(speaker):
    line = parse_raw_line(
        f'{{"track":"call","start_ms":1,"end_ms":2,"text":"a","speaker":{speaker}}}'
    )
    assert line.speaker is None


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ("", "blank"),
        ("   \n", "blank"),
        ("{not json", "not JSON"),
        ('{"track":"room","start_ms":1,"end_ms":2,"text":"a"', "not JSON"),
        ("[1, 2]", "an array, not a JSON object"),
        ('"room"', 'the string "room", not a JSON object'),
        ("12", "the number 12, not a JSON object"),
        ("null", "null, not a JSON object"),
        ('{"start_ms":1,"end_ms":2,"text":"a"}', "no `track`"),
        ('{"track":"room","end_ms":2,"text":"a"}', "no `start_ms`"),
        ('{"track":"room","start_ms":1,"text":"a"}', "no `end_ms`"),
        ('{"track":"room","start_ms":1,"end_ms":2}', "no `text`"),
        ('{"track":"mic","start_ms":1,"end_ms":2,"text":"a"}', '`track` is "mic"'),
        ('{"track":"Room","start_ms":1,"end_ms":2,"text":"a"}', '`track` is "Room"'),
        ('{"track":null,"start_ms":1,"end_ms":2,"text":"a"}', "`track` is null"),
        ('{"track":"room","start_ms":true,"end_ms":2,"text":"a"}', "`start_ms` is a boolean"),
        ('{"track":"room","start_ms":1,"end_ms":false,"text":"a"}', "`end_ms` is a boolean"),
        ('{"track":"room","start_ms":1.5,"end_ms":2,"text":"a"}', "`start_ms` is the number 1.5"),
        ('{"track":"room","start_ms":1,"end_ms":2.0,"text":"a"}', "`end_ms` is the number 2.0"),
        ('{"track":"room","start_ms":"1","end_ms":2,"text":"a"}', '`start_ms` is the string "1"'),
        ('{"track":"room","start_ms":null,"end_ms":2,"text":"a"}', "`start_ms` is null"),
        ('{"track":"room","start_ms":-1,"end_ms":2,"text":"a"}', "`start_ms` is -1"),
        ('{"track":"room","start_ms":1,"end_ms":-20,"text":"a"}', "`end_ms` is -20"),
        ('{"track":"room","start_ms":1,"end_ms":2,"text":5}', "`text` is the number 5"),
        ('{"track":"room","start_ms":1,"end_ms":2,"text":null}', "`text` is null"),
        ('{"track":"room","start_ms":1,"end_ms":2,"text":["a"]}', "`text` is an array"),
        (
            '{"track":"room","start_ms":1,"end_ms":2,"text":"a","confidence":true}',
            "`confidence` is a boolean",
        ),
        (
            '{"track":"room","start_ms":1,"end_ms":2,"text":"a","confidence":"high"}',
            '`confidence` is the string "high"',
        ),
        ('{"track":"room","start_ms":1,"end_ms":2,"text":"a","confidence":NaN}', "NaN"),
        ('{"track":"room","start_ms":1,"end_ms":2,"text":"a","confidence":1e999}', "Infinity"),
        ("[" * 100_000, "not JSON"),
    ],
)
def test_each_malformed_line_is_refused_saying_what_is_wrong(text, complaint):
    with pytest.raises(LineError, match=re.escape(complaint)):
        parse_raw_line(text)


def test_a_refusal_tells_the_producer_what_a_record_needs():
    with pytest.raises(LineError, match=r"needs track, start_ms, end_ms and text"):
        parse_raw_line('{"track":"room"}')


def test_negative_times_are_refused_as_negative_not_as_a_wrong_type():
    with pytest.raises(LineError, match="never negative"):
        parse_raw_line('{"track":"room","start_ms":-5,"end_ms":2,"text":"a"}')


@given(raw_lines)
def test_a_record_survives_encoding_and_parsing_unchanged(line):
    encoded = encode_raw_line(line)
    assert encoded.endswith("\n") and encoded.count("\n") == 1
    assert parse_raw_line(encoded) == line


KNOWN_FIELDS = {"track", "start_ms", "end_ms", "text", "confidence", "speaker"}


@given(
    st.dictionaries(st.text().filter(lambda key: key not in KNOWN_FIELDS), json_values), raw_lines
)
def test_extra_fields_never_change_the_record(extra, line):
    record = json.loads(encode_raw_line(line))
    assert parse_raw_line(json.dumps({**extra, **record})) == line
    assert parse_raw_line(json.dumps({**record, **extra})) == line


@given(st.text())
def test_any_text_either_parses_or_is_refused_with_a_line_error(text):
    try:
        line = parse_raw_line(text)
    except LineError as error:
        assert str(error)
    else:
        assert line.track in ("room", "call") and line.start_ms >= 0 and line.end_ms >= 0


@given(json_values)
def test_any_json_value_either_parses_or_is_refused_with_a_line_error(value):
    try:
        parse_raw_line(json.dumps(value))
    except LineError as error:
        assert str(error)


@pytest.mark.parametrize(
    ("record", "shown"),
    [
        (
            {"speaker": "Priya", "track": "call", "start_ms": 65000, "text": " Merged. "},
            "[01:05] Priya: Merged.",
        ),
        ({"track": "call", "start_ms": 0, "text": "Hello?"}, "[00:00] someone on the call: Hello?"),
        (
            {"speaker": "", "track": "room", "start_ms": 3000, "text": "Hi."},
            "[00:03] someone in the room: Hi.",
        ),
        (
            {"track": "room", "start_ms": (125 * 60 + 9) * 1000 + 999, "text": "Late."},
            "[125:09] someone in the room: Late.",
        ),
        ({"track": "room", "start_ms": 59_999, "text": "x"}, "[00:59] someone in the room: x"),
        ({"track": "room", "start_ms": 600_000, "text": "x"}, "[10:00] someone in the room: x"),
    ],
)
def test_rendering_matches_the_specification_examples(record, shown):
    line = parse_raw_line(json.dumps({"end_ms": record["start_ms"] + 1, **record}))
    assert render(line) == shown


@given(raw_lines)
def test_rendering_any_record_gives_one_timestamped_line(line):
    shown = render(line)
    match = re.match(r"\[(\d{2,}):(\d{2})\] ", shown)
    assert match is not None
    minutes, seconds = match.groups()
    assert int(minutes) * 60 + int(seconds) == line.start_ms // 1000
    assert int(seconds) < 60
    if line.speaker is not None:
        who = line.speaker
    elif line.track == "call":
        who = "someone on the call"
    else:
        who = "someone in the room"
    # The speaker may itself hold ": ", so the rest is compared whole rather than split.
    assert shown[match.end() :] == f"{who}: {line.text.strip()}"


def test_the_transcript_view_has_exactly_the_five_fields_and_no_confidence():
    line = RawLine("call", 12500, 14100, " Can everyone hear me? ", 0.87, "Dana")
    assert line_view(line) == {
        "track": "call",
        "start_ms": 12500,
        "end_ms": 14100,
        "speaker": "Dana",
        "text": " Can everyone hear me? ",
    }


@given(raw_lines)
def test_the_transcript_view_of_any_record_is_json_with_the_five_fields(line):
    view = line_view(line)
    assert list(view) == ["track", "start_ms", "end_ms", "speaker", "text"]
    assert json.loads(json.dumps(view)) == view
    assert view["speaker"] == line.speaker


def test_the_transcript_view_shows_an_empty_speaker_as_null():
    assert line_view(RawLine("room", 0, 1, "a", speaker=""))["speaker"] is None
