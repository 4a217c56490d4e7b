"""The helper protocol: what every request line means and how events travel (behaviour 8.3)."""

from __future__ import annotations

import json

from assist.core.protocol import (
    Done,
    Error,
    Pause,
    Paused,
    Quit,
    Ready,
    Resume,
    Resumed,
    Say,
    Speaking,
    Stop,
    Stopped,
    audio_seconds,
    decode_event,
    decode_request,
    encode,
)
from assist.core.tones import TONES
from hypothesis import given
from hypothesis import strategies as st

json_scalars = st.none() | st.booleans() | st.integers() | st.text() | st.floats(allow_nan=False)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)
finite = st.floats(allow_nan=False, allow_infinity=False)
ids = st.none() | st.text() | st.integers() | finite
spoken_text = st.text(min_size=1).map(str.strip).filter(bool)

requests = st.one_of(
    st.builds(Say, ids, spoken_text, st.sampled_from(TONES)),
    st.builds(Stop, ids),
    st.builds(Pause, ids),
    st.builds(Resume, ids),
    st.just(Quit()),
)
events = st.one_of(
    st.builds(Ready, st.text(), st.integers(0, 192_000), st.integers(0, 10**7)),
    st.builds(Speaking, ids, st.integers(0, 10**7)),
    st.builds(Done, ids, finite, st.integers(0, 10**7)),
    st.builds(Stopped, ids, finite),
    st.builds(Paused, ids, finite),
    st.builds(Resumed, ids, finite),
    st.builds(Error, ids, st.text()),
)


def test_a_say_request_reads_as_a_say_with_its_id_text_and_emotion():
    line = '{"op":"say","id":7,"text":"Hello there.","emotion":"warm"}'
    assert decode_request(line) == Say(7, "Hello there.", "warm")


def test_say_text_is_converted_to_a_string_and_trimmed():
    assert decode_request('{"op":"say","id":1,"text":"  hi \\n"}') == Say(1, "hi", "neutral")
    assert decode_request('{"op":"say","id":1,"text":42}') == Say(1, "42", "neutral")


def test_a_missing_null_empty_or_unknown_emotion_means_neutral():
    for emotion in ("", '"emotion":null,', '"emotion":"",', '"emotion":"furious",', '"emotion":3,'):
        line = '{"op":"say","id":1,' + emotion + '"text":"Hi"}'
        assert decode_request(line) == Say(1, "Hi", "neutral"), line


def test_the_id_is_echoed_exactly_as_given_when_a_string_a_finite_number_or_null():
    for request_id in ("abc", 1.5, None, 7, 10**30, -0.0):
        line = json.dumps({"op": "stop", "id": request_id})
        assert decode_request(line) == Stop(request_id)


def test_an_id_that_could_not_be_echoed_as_json_is_refused_with_a_null_id():
    nested = '{"op":"say","text":"hi","id":' + "[" * 500 + "]" * 500 + "}"
    lines = {
        nested: "an array",
        '{"op":"say","text":"hi","id":{"n":1}}': "an object",
        '{"op":"stop","id":true}': "a boolean",
        '{"op":"say","text":"hi","id":1e999}': "beyond the range",
        '{"op":"dance","id":-1e999}': "beyond the range",
    }
    for line, kind in lines.items():
        reply = decode_request(line)
        assert isinstance(reply, Error) and reply.id is None, line[:40]
        assert "unusable request id" in reply.message and kind in reply.message
        assert "a string, a finite number or null" in reply.message
        json.loads(encode(reply))  # the refusal itself is always sendable


def test_nan_and_infinity_literals_are_not_json_anywhere_in_a_request():
    for literal in ("NaN", "Infinity", "-Infinity"):
        reply = decode_request('{"op":"say","text":"hi","id":' + literal + "}")
        assert isinstance(reply, Error) and reply.id is None
        assert "not JSON" in reply.message and "finite" in reply.message


def test_a_quit_ignores_its_id_whatever_it_is():
    assert decode_request('{"op":"quit","id":[[1]]}') == Quit()


def test_a_say_whose_text_is_empty_after_trimming_is_refused_for_that_id():
    for text in ('""', '"   "', "null", "false", "0", "[]"):
        reply = decode_request('{"op":"say","id":9,"text":' + text + "}")
        assert isinstance(reply, Error), text
        assert reply.id == 9
        assert "text is empty" in reply.message
    missing = decode_request('{"op":"say","id":"x"}')
    assert isinstance(missing, Error) and missing.id == "x" and "text is empty" in missing.message


def test_a_line_that_is_not_json_gets_an_error_with_null_id_and_the_parsers_message():
    reply = decode_request("{not json")
    assert isinstance(reply, Error)
    assert reply.id is None
    try:
        json.loads("{not json")
    except ValueError as error:
        parser_message = str(error)
    assert parser_message in reply.message
    assert "not JSON" in reply.message


def test_json_that_is_not_an_object_gets_an_error_with_null_id_saying_an_object_was_expected():
    for line in ("[1,2]", '"say"', "3", "null", "true"):
        reply = decode_request(line)
        assert isinstance(reply, Error), line
        assert reply.id is None
        assert "object" in reply.message


def test_an_unknown_op_is_refused_for_the_requests_id_naming_the_op():
    reply = decode_request('{"op":"sing","id":4}')
    assert isinstance(reply, Error)
    assert reply.id == 4
    assert "sing" in reply.message


def test_a_missing_op_is_refused_for_the_requests_id_or_null_saying_op_is_missing():
    with_id = decode_request('{"id":5,"text":"hi"}')
    assert isinstance(with_id, Error) and with_id.id == 5 and '"op"' in with_id.message
    without_id = decode_request('{"text":"hi"}')
    assert isinstance(without_id, Error) and without_id.id is None


def test_a_non_string_op_is_named_in_the_refusal():
    reply = decode_request('{"op":12,"id":1}')
    assert isinstance(reply, Error) and "12" in reply.message


def test_a_line_read_as_bytes_must_be_utf_8_or_it_is_refused_with_a_null_id():
    assert decode_request('{"op":"say","id":1,"text":"Café"}\r\n'.encode()) == Say(1, "Café")
    for raw in (b"\xff\xfe\x80 not utf8\n", b'{"op":"say","id":6,"text":"\xc3"}\n'):
        reply = decode_request(raw)
        assert isinstance(reply, Error) and reply.id is None, raw
        assert "request line is not UTF-8" in reply.message and "byte" in reply.message
    assert decode_request(b" \r\n") is None


def test_blank_lines_are_skipped():
    for line in ("", "   ", "\n", "\t\r\n"):
        assert decode_request(line) is None


def test_stop_pause_resume_and_quit_read_as_themselves():
    assert decode_request('{"op":"stop","id":3}') == Stop(3)
    assert decode_request('{"op":"pause","id":3}') == Pause(3)
    assert decode_request('{"op": "resume", "id": 3}') == Resume(3)
    assert decode_request('{"op":"quit"}') == Quit()
    assert decode_request('{"op":"quit","id":8}\n') == Quit()


def test_encode_gives_one_compact_ascii_json_line_without_newline():
    line = encode(Say(1, "Café — ok", "warm"))
    assert line == '{"op":"say","id":1,"text":"Caf\\u00e9 \\u2014 ok","emotion":"warm"}'
    assert encode(Ready("kokoro", 24000, 312)) == (
        '{"event":"ready","engine":"kokoro","sample_rate":24000,"load_ms":312}'
    )
    assert encode(Error(None, "bad")) == '{"event":"error","id":null,"message":"bad"}'
    assert encode(Quit()) == '{"op":"quit"}'


def test_events_from_the_helper_are_read_whatever_the_spacing():
    assert decode_event('{"event": "done", "id": 2, "audio_s": 1.25, "total_ms": 900}') == Done(
        2, 1.25, 900
    )
    assert decode_event('{"event":"stopped","id":2,"audio_s":0}') == Stopped(2, 0.0)
    assert decode_event('{"event":"speaking","id":2,"first_audio_ms":80}') == Speaking(2, 80)
    assert decode_event('{"event":"paused","id":2,"audio_s":0.5}') == Paused(2, 0.5)
    assert decode_event('{"event": "resumed", "id": 2, "audio_s": 0.5}') == Resumed(2, 0.5)


def test_a_done_event_without_audio_s_reads_as_zero_seconds():
    assert decode_event('{"event":"done","id":1}') == Done(1, 0.0, 0)


def test_mistyped_or_absurd_numbers_in_events_read_as_zero():
    huge = "1" + "0" * 400
    assert decode_event('{"event":"done","id":1,"audio_s":' + huge + ',"total_ms":"9"}') == Done(
        1, 0.0, 0
    )
    assert decode_event('{"event":"ready","engine":5,"sample_rate":true,"load_ms":1e999}') == (
        Ready("", 0, 0)
    )


def test_an_error_event_without_a_message_reads_as_an_empty_message():
    assert decode_event('{"event":"error","id":3}') == Error(3, "")


def test_lines_that_are_not_events_are_skipped():
    for line in ("hello", "", "[]", '{"op":"say"}', '{"event":"bogus"}', "{", "[" * 100_000):
        assert decode_event(line) is None


def test_audio_seconds_are_rounded_to_milliseconds():
    assert audio_seconds(24_000 * 3 + 7, 24_000) == 3.0
    assert audio_seconds(22_050, 22_050) == 1.0
    assert audio_seconds(1_234_567, 22_050) == 55.989


@given(requests)
def test_every_request_survives_encoding_and_decoding(message):
    line = encode(message)
    assert "\n" not in line and "\r" not in line
    assert decode_request(line) == message


@given(events)
def test_every_event_survives_encoding_and_decoding(message):
    line = encode(message)
    assert "\n" not in line and line.isascii()
    assert decode_event(line) == message


@given(st.text())
def test_decoding_arbitrary_text_never_raises(line):
    decode_event(line)
    reply = decode_request(line)
    assert reply is None or isinstance(reply, Say | Stop | Pause | Resume | Quit | Error)


@given(st.dictionaries(st.sampled_from(["op", "id", "text", "emotion", "event"]), json_values))
def test_decoding_arbitrary_json_objects_never_raises(data):
    line = json.dumps(data)
    decode_event(line)
    reply = decode_request(line)
    if isinstance(reply, Say):
        assert reply.text and reply.text == reply.text.strip()
        assert reply.emotion in TONES
        assert reply.id == data.get("id")
    if reply is not None:
        json.loads(encode(reply))  # whatever comes back can be sent


def test_deeply_nested_json_is_an_unusable_line_not_a_crash():
    reply = decode_request("[" * 100_000)
    assert isinstance(reply, Error) and reply.id is None


def test_a_lone_surrogate_is_sent_as_u_fffd_so_the_other_side_can_always_write_it():
    line = encode(Say("\ud800", "a\udfff b", "warm"))
    assert line.isascii() and "\\ud" not in line.lower()
    assert json.loads(line) == {"op": "say", "id": "\ufffd", "text": "a\ufffd b", "emotion": "warm"}
    event = decode_event('{"event":"error","id":1,"message":"bad \\ud800"}')
    assert event == Error(1, "bad \ufffd")
