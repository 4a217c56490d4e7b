"""The meeting's log: its events, their encoding, and counting them back (5.2, 5.3, 6.3)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from assist.core import meeting_log
from assist.core.echo import ECHO_WINDOW_S, Said, is_own_voice, recent
from assist.core.files import SAY_WITHIN_S
from assist.core.meeting_log import LogEvent, encode_event, parse_time, read_events, tally
from hypothesis import assume, given
from hypothesis import strategies as st

PARIS = timezone(timedelta(hours=2))
NOW_WALL = datetime(2026, 10, 9, 11, 0, 0, tzinfo=PARIS)
NOW_MONO = 5000.0
U1 = "0123456789abcdef0123456789abcdef"
U2 = "fedcba9876543210fedcba9876543210"


def ago(seconds: float) -> datetime:
    return NOW_WALL - timedelta(seconds=seconds)


def line(**event: Any) -> str:
    return json.dumps(event) + "\n"


def count_of(text: str) -> tuple[int, float | None]:
    result = tally(text, NOW_WALL, NOW_MONO, own_pid=None)
    return result.count, result.last_mono


# Building and encoding


def test_every_event_has_its_exact_fields_in_a_compact_line() -> None:
    at = datetime(2026, 10, 9, 10, 59, 58, 123456, tzinfo=PARIS)
    stamp = "2026-10-09T10:59:58.123456+02:00"
    assert encode_event(meeting_log.joined(at, 7, "Héllo")) == (
        f'{{"event":"joined","at":"{stamp}","pid":7,"notice":"Héllo"}}\n'
    )
    assert encode_event(meeting_log.speaking(at, 7, U1, "Yes.", "warm")) == (
        f'{{"event":"speaking","at":"{stamp}","pid":7,"utterance":"{U1}",'
        '"text":"Yes.","emotion":"warm"}\n'
    )
    spoke = meeting_log.spoke(
        at, 7, U1, "Yes.", "warm", first_audio_ms=None, audio_s=1.5, took_ms=1700
    )
    assert encode_event(spoke) == (
        f'{{"event":"spoke","at":"{stamp}","pid":7,"utterance":"{U1}","text":"Yes.",'
        '"emotion":"warm","first_audio_ms":null,"audio_s":1.5,"took_ms":1700}\n'
    )
    assert encode_event(meeting_log.voice_error(at, 7, U1, "Yes.", "helper died")) == (
        f'{{"event":"error","at":"{stamp}","pid":7,"stage":"voice","utterance":"{U1}",'
        '"text":"Yes.","message":"helper died"}\n'
    )
    assert encode_event(meeting_log.notice_error(at, 7, "lock busy")) == (
        f'{{"event":"error","at":"{stamp}","pid":7,"stage":"notice","message":"lock busy"}}\n'
    )
    assert encode_event(meeting_log.left(at, 7, "the recording ended", 3)) == (
        f'{{"event":"left","at":"{stamp}","pid":7,"why":"the recording ended","spoke":3}}\n'
    )
    assert encode_event(meeting_log.paused(at, 7, 5120, 0.12)) == (
        f'{{"event":"paused","at":"{stamp}","pid":7,"heard_ms":5120,"level":0.12}}\n'
    )
    assert encode_event(meeting_log.resumed(at, 7, 1090)) == (
        f'{{"event":"resumed","at":"{stamp}","pid":7,"paused_ms":1090}}\n'
    )
    assert encode_event(meeting_log.barge_in(at, 7, 5120, 0.12, "Wait.")) == (
        f'{{"event":"barge_in","at":"{stamp}","pid":7,"heard_ms":5120,"level":0.12,'
        '"words":"Wait."}\n'
    )


def test_cut_off_is_written_only_when_a_line_was_cut_short() -> None:
    kept = meeting_log.spoke(
        NOW_WALL, 1, U1, "a", "neutral", first_audio_ms=5, audio_s=0.4, took_ms=9
    )
    cut = meeting_log.spoke(
        NOW_WALL, 1, U1, "a", "neutral", first_audio_ms=5, audio_s=0.4, took_ms=9, cut_off=True
    )
    assert "cut_off" not in kept
    assert cut["cut_off"] is True


def test_an_event_time_always_has_a_fraction_and_an_offset() -> None:
    event = meeting_log.joined(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC), 1, "n")
    assert event["at"] == "2026-01-02T03:04:05.000000+00:00"


def test_a_time_without_an_offset_is_refused() -> None:
    with pytest.raises(ValueError, match="offset"):
        meeting_log.joined(datetime(2026, 1, 2, 3, 4, 5), 1, "n")


@pytest.mark.parametrize(
    "bad", ["", "ABCDEF0123456789ABCDEF0123456789", U1[:-1], U1 + "0", "x" * 32]
)
def test_an_utterance_id_must_be_32_lower_case_hex_digits(bad: str) -> None:
    with pytest.raises(ValueError, match="32 lower-case hex"):
        meeting_log.speaking(NOW_WALL, 1, bad, "a", "neutral")


def test_a_line_with_unusual_line_breaks_in_its_text_stays_one_line() -> None:
    text = encode_event(meeting_log.speaking(NOW_WALL, 1, U1, "one\u2028two\nthree\x85", "warm"))
    assert text.count("\n") == 1
    assert text.endswith("\n")
    assert count_of(text)[0] == 1


# Times


@pytest.mark.parametrize(
    ("stamp", "expected"),
    [
        ("2026-10-09T10:59:50+02:00", datetime(2026, 10, 9, 10, 59, 50, tzinfo=PARIS)),
        ("2026-10-09T08:59:50Z", datetime(2026, 10, 9, 8, 59, 50, tzinfo=UTC)),
        ("2026-10-09T10:59:50.5+02:00", datetime(2026, 10, 9, 10, 59, 50, 500000, tzinfo=PARIS)),
        (
            "2026-10-09T10:59:50.123456789+02:00",
            datetime(2026, 10, 9, 10, 59, 50, 123456, tzinfo=PARIS),
        ),
        ("2026-10-09T14:29:50.1234567+05:30", datetime(2026, 10, 9, 8, 59, 50, 123456, tzinfo=UTC)),
        ("2026-10-09T08:59:50.999999999Z", datetime(2026, 10, 9, 8, 59, 50, 999999, tzinfo=UTC)),
    ],
)
def test_times_with_0_to_9_fractional_digits_and_z_or_an_offset_parse(
    stamp: str, expected: datetime
) -> None:
    assert parse_time(stamp) == expected


@pytest.mark.parametrize("stamp", ["", "yesterday", "2026-10-09T10:59:50", "2026-10-09", 17, None])
def test_times_without_an_offset_or_that_are_not_times_do_not_parse(stamp: object) -> None:
    assert parse_time(stamp) is None


@given(
    moment=st.datetimes(
        min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)
    ),
    offset_minutes=st.integers(-14 * 60, 14 * 60),
    nanos=st.integers(0, 999),
)
def test_any_nanosecond_time_parses_to_its_microsecond(
    moment: datetime, offset_minutes: int, nanos: int
) -> None:
    local = moment.astimezone(timezone(timedelta(minutes=offset_minutes)))
    stamp = local.isoformat(timespec="microseconds")
    with_nanos = stamp[:26] + f"{nanos:03d}" + stamp[26:]
    assert parse_time(with_nanos) == moment


@given(
    moment=st.datetimes(
        min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)
    ),
    digits=st.integers(0, 9),
    zulu=st.booleans(),
)
def test_every_count_of_fractional_digits_from_0_to_9_parses_with_z_or_an_offset(
    moment: datetime, digits: int, zulu: bool
) -> None:
    nanos = f"{moment.microsecond:06d}000"[:digits]
    stamp = moment.strftime("%Y-%m-%dT%H:%M:%S") + (f".{nanos}" if digits else "")
    stamp += "Z" if zulu else "+00:00"
    expected = moment.replace(microsecond=int(nanos[:6].ljust(6, "0")) if digits else 0)
    assert parse_time(stamp) == expected


# Counting (5.3)


def test_an_empty_log_counts_nothing() -> None:
    assert count_of("") == (0, None)


def test_a_speaking_event_counts_and_its_spoke_does_not_count_again() -> None:
    text = line(event="speaking", at=ago(20).isoformat(), utterance=U1, text="a")
    assert count_of(text) == (1, NOW_MONO - 20)
    text += line(event="spoke", at=ago(12).isoformat(), utterance=U1, text="a")
    assert count_of(text) == (1, NOW_MONO - 12)


def test_a_voice_error_closes_its_speaking_like_spoke() -> None:
    text = line(event="speaking", at=ago(20).isoformat(), utterance=U1)
    text += line(event="error", stage="voice", at=ago(15).isoformat(), utterance=U1)
    assert count_of(text) == (1, NOW_MONO - 15)


def test_a_spoke_from_ambients_code_with_nothing_to_close_counts_itself() -> None:
    text = line(event="spoke", at=ago(30).isoformat(), text="a")
    text += line(event="spoke", at=ago(10).isoformat(), text="b")
    assert count_of(text) == (2, NOW_MONO - 10)


def test_a_close_only_closes_a_speaking_with_the_same_utterance() -> None:
    text = line(event="speaking", at=ago(20).isoformat(), utterance=U1)
    text += line(event="spoke", at=ago(10).isoformat(), utterance=U2)
    assert count_of(text)[0] == 2
    text += line(event="spoke", at=ago(5).isoformat(), utterance=U1)
    assert count_of(text)[0] == 2


def test_a_close_without_utterance_closes_only_a_speaking_without_one() -> None:
    text = line(event="speaking", at=ago(20).isoformat(), utterance=U1)
    text += line(event="spoke", at=ago(10).isoformat())
    assert count_of(text)[0] == 2
    text = line(event="speaking", at=ago(20).isoformat())
    text += line(event="spoke", at=ago(10).isoformat())
    assert count_of(text)[0] == 1


def test_a_close_matches_any_json_utterance_value_exactly_and_null_as_none() -> None:
    text = line(event="speaking", at=ago(20).isoformat(), utterance=5)
    text += line(event="spoke", at=ago(10).isoformat())
    assert count_of(text)[0] == 2
    text = line(event="speaking", at=ago(20).isoformat(), utterance=5)
    text += line(event="spoke", at=ago(10).isoformat(), utterance="5")
    assert count_of(text)[0] == 2
    text = line(event="speaking", at=ago(20).isoformat(), utterance=[1, "a"])
    text += line(event="spoke", at=ago(10).isoformat(), utterance=[1, "a"])
    assert count_of(text)[0] == 1
    text = line(event="speaking", at=ago(20).isoformat(), utterance=None)
    text += line(event="spoke", at=ago(10).isoformat())
    assert count_of(text)[0] == 1


def test_a_close_takes_the_latest_open_speaking_and_never_a_closed_one() -> None:
    text = line(event="speaking", at=ago(40).isoformat())
    text += line(event="speaking", at=ago(30).isoformat())
    text += line(event="spoke", at=ago(20).isoformat())
    text += line(event="spoke", at=ago(10).isoformat())
    assert count_of(text)[0] == 2
    text += line(event="spoke", at=ago(5).isoformat())
    assert count_of(text)[0] == 3


def test_a_close_never_closes_a_later_speaking() -> None:
    text = line(event="spoke", at=ago(30).isoformat(), utterance=U1)
    text += line(event="speaking", at=ago(20).isoformat(), utterance=U1)
    assert count_of(text)[0] == 2


def test_notices_joins_and_leaves_count_nothing_and_leave_last_alone() -> None:
    text = line(event="joined", at=ago(5).isoformat(), notice="n")
    text += line(event="error", stage="notice", at=ago(4).isoformat(), message="m")
    text += line(event="left", at=ago(3).isoformat(), why="w", spoke=4)
    text += line(event="error", at=ago(2).isoformat(), message="no stage")
    assert count_of(text) == (0, None)


def test_a_time_in_the_future_counts_as_now() -> None:
    text = line(event="speaking", at=(NOW_WALL + timedelta(hours=1)).isoformat())
    assert count_of(text) == (1, NOW_MONO)


def test_an_event_whose_time_does_not_parse_counts_but_does_not_move_last() -> None:
    text = line(event="speaking", at=ago(30).isoformat())
    text += line(event="speaking", at="not a time")
    text += line(event="spoke")
    assert count_of(text) == (2, NOW_MONO - 30)


def test_last_is_the_latest_time_whatever_the_order_of_lines() -> None:
    text = line(event="spoke", at=ago(5).isoformat())
    text += line(event="spoke", at=ago(50).isoformat())
    assert count_of(text) == (2, NOW_MONO - 5)


def test_nanosecond_times_from_ambient_are_read() -> None:
    stamp = "2026-10-09T08:59:50.123456789Z"
    _, last = count_of(line(event="spoke", at=stamp))
    assert last == pytest.approx(NOW_MONO - 9.876544, abs=1e-9)


def test_lines_that_do_not_parse_and_unknown_events_are_skipped() -> None:
    text = "not json\n[1,2]\n\n{}\n" + line(event=5) + line(event="whistled", at=ago(1).isoformat())
    text += line(event="speaking", at=ago(9).isoformat(), extra={"x": 1}, colour="red")
    text += "[" * 100_000 + "\n"
    assert count_of(text) == (1, NOW_MONO - 9)


def test_a_torn_last_line_without_its_newline_is_not_read() -> None:
    whole = line(event="speaking", at=ago(9).isoformat())
    torn = line(event="speaking", at=ago(1).isoformat())[:-1]
    assert count_of(whole + torn) == (1, NOW_MONO - 9)


def test_the_clock_for_reading_needs_an_offset() -> None:
    with pytest.raises(ValueError, match="offset"):
        tally("", datetime(2026, 1, 1), 0.0, own_pid=None)


# What other processes said (6.3)


def test_other_processes_lines_come_back_with_the_time_they_ended() -> None:
    text = encode_event(meeting_log.speaking(ago(30), 2, U1, "The build is green.", "warm"))
    text += encode_event(
        meeting_log.spoke(
            ago(25),
            2,
            U1,
            "The build is green.",
            "warm",
            first_audio_ms=90,
            audio_s=1.2,
            took_ms=1500,
        )
    )
    text += encode_event(meeting_log.speaking(ago(10), 3, U2, "It shipped Monday.", "neutral"))
    result = tally(text, NOW_WALL, NOW_MONO, own_pid=1)
    assert result.utterances == (
        Said("The build is green.", NOW_MONO - 25),
        Said("It shipped Monday.", NOW_MONO - 10 + SAY_WITHIN_S),
    )


def test_an_open_line_is_bounded_by_the_supervisors_say_limit() -> None:
    assert SAY_WITHIN_S == 120.0


def test_a_line_still_open_is_compared_as_playing_until_the_say_limit_has_passed() -> None:
    text = encode_event(meeting_log.speaking(ago(10), 3, U2, "It shipped on Monday.", "warm"))
    (said,) = tally(text, NOW_WALL, NOW_MONO, own_pid=1).utterances
    assert said.ended_at is not None and said.ended_at > NOW_MONO
    assert is_own_voice("it shipped on monday", [said], [], NOW_MONO)


def test_a_line_left_open_by_a_crashed_process_is_forgotten_once_its_echo_window_passed() -> None:
    """The process died mid-line: its voice stopped at most the say limit after `at`."""
    text = encode_event(meeting_log.speaking(ago(1000), 3, U2, "It shipped on Monday.", "warm"))
    result = tally(text, NOW_WALL, NOW_MONO, own_pid=1)
    (said,) = result.utterances
    assert said == Said("It shipped on Monday.", NOW_MONO - 1000 + SAY_WITHIN_S)
    assert not is_own_voice("it shipped on monday", [said], [], NOW_MONO)
    assert recent(result.utterances, NOW_MONO) == []


@given(st.floats(0, 3 * SAY_WITHIN_S + ECHO_WINDOW_S))
def test_an_unclosed_line_is_own_voice_exactly_until_the_say_limit_and_the_window_passed(
    age: float,
) -> None:
    assume(abs(age - (SAY_WITHIN_S + ECHO_WINDOW_S)) > 1e-3)  # `at` keeps microseconds
    text = encode_event(meeting_log.speaking(ago(age), 3, U2, "It shipped on Monday.", "warm"))
    result = tally(text, NOW_WALL, NOW_MONO, own_pid=1)
    heard = is_own_voice("it shipped on monday", result.utterances, [], NOW_MONO)
    assert heard is (age < SAY_WITHIN_S + ECHO_WINDOW_S)


def test_a_line_left_open_still_counts_and_holds_the_cooldown_from_its_start() -> None:
    text = encode_event(meeting_log.speaking(ago(1000), 3, U2, "It shipped on Monday.", "warm"))
    result = tally(text, NOW_WALL, NOW_MONO, own_pid=1)
    assert (result.count, result.last_mono) == (1, pytest.approx(NOW_MONO - 1000))


def test_an_open_line_whose_time_does_not_parse_counts_but_is_not_compared() -> None:
    text = line(event="speaking", at="??", utterance=U1, text="It shipped on Monday.")
    result = tally(text, NOW_WALL, NOW_MONO, own_pid=1)
    assert (result.count, result.last_mono, result.utterances) == (1, None, ())


def test_own_lines_are_left_out_of_what_others_said() -> None:
    text = encode_event(meeting_log.speaking(ago(30), 1, U1, "Mine.", "warm"))
    text += encode_event(meeting_log.voice_error(ago(29), 1, U1, "Mine.", "broke"))
    text += encode_event(meeting_log.joined(ago(60), 1, "My notice."))
    result = tally(text, NOW_WALL, NOW_MONO, own_pid=1)
    assert (result.count, result.utterances, result.notices) == (1, (), ())


def test_without_an_own_pid_every_line_is_someone_elses() -> None:
    text = encode_event(meeting_log.voice_error(ago(29), 1, U1, "Lost words.", "broke"))
    result = tally(text, NOW_WALL, NOW_MONO, own_pid=None)
    assert result.utterances == (Said("Lost words.", NOW_MONO - 29),)


def test_lines_from_ambient_without_a_pid_are_someone_elses() -> None:
    text = line(event="spoke", at=ago(8).isoformat(), text="From Ambient.")
    result = tally(text, NOW_WALL, NOW_MONO, own_pid=1)
    assert result.utterances == (Said("From Ambient.", NOW_MONO - 8),)


def test_other_processes_notices_come_from_their_joined_events() -> None:
    text = encode_event(meeting_log.joined(ago(40), 2, "Hello, this is Claude."))
    text += line(event="joined", at=ago(30).isoformat(), notice=5, pid=3)
    result = tally(text, NOW_WALL, NOW_MONO, own_pid=1)
    assert result.notices == (Said("Hello, this is Claude.", NOW_MONO - 40),)


def test_a_close_with_an_unreadable_time_ends_its_line_when_it_started() -> None:
    text = line(event="speaking", at=ago(30).isoformat(), utterance=U1, text="Hi there all.")
    text += line(event="spoke", at="??", utterance=U1, text="Hi there all.")
    result = tally(text, NOW_WALL, NOW_MONO, own_pid=1)
    assert result.utterances == (Said("Hi there all.", NOW_MONO - 30),)


# Properties


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["speaking", "spoke", "voice"]),
            st.sampled_from([U1, U2, None]),
            st.floats(0, 2000, allow_nan=False),
            st.sampled_from([1, 2, None]),
        ),
        max_size=20,
    )
)
def test_nothing_another_process_said_is_remembered_as_playing_for_ever(
    kinds: list[tuple[str, str | None, float, int | None]],
) -> None:
    text = ""
    for kind, utterance, seconds_ago, pid in kinds:
        event: dict[str, Any] = {"at": ago(seconds_ago).isoformat(), "pid": pid, "text": "w"}
        event["event"] = "error" if kind == "voice" else kind
        if kind == "voice":
            event["stage"] = "voice"
        if utterance is not None:
            event["utterance"] = utterance
        text += encode_event(event)
    result = tally(text, NOW_WALL, NOW_MONO, own_pid=1)
    for said in result.utterances:
        assert said.ended_at is not None
        assert said.ended_at <= NOW_MONO + SAY_WITHIN_S
    assert recent(result.utterances, NOW_MONO + SAY_WITHIN_S + ECHO_WINDOW_S) == []


utterance_ids = st.none() | st.sampled_from([U1, U2, "a" * 32])
events = st.lists(
    st.tuples(
        st.sampled_from(["speaking", "spoke", "voice", "notice", "joined", "left", "other"]),
        utterance_ids,
        st.floats(0, 600, allow_nan=False),
    ),
    max_size=40,
)


def reference_count(kinds: list[tuple[str, str | None, float]]) -> int:
    """5.3 as worded: speaking events, plus closes that find no earlier open speaking."""
    open_ids: list[str | None] = []
    unclosed = 0
    for kind, utterance, _ in kinds:
        if kind == "speaking":
            open_ids.append(utterance)
        elif kind in ("spoke", "voice"):
            if utterance in open_ids:
                del open_ids[len(open_ids) - 1 - open_ids[::-1].index(utterance)]
            else:
                unclosed += 1
    return sum(1 for kind, _, _ in kinds if kind == "speaking") + unclosed


def render(kinds: list[tuple[str, str | None, float]]) -> str:
    text = ""
    for kind, utterance, seconds_ago in kinds:
        event: dict[str, Any] = {"at": ago(seconds_ago).isoformat(), "pid": 4}
        if kind == "voice":
            event |= {"event": "error", "stage": "voice"}
        elif kind == "notice":
            event |= {"event": "error", "stage": "notice"}
        else:
            event["event"] = kind
        if utterance is not None:
            event["utterance"] = utterance
        text += encode_event(event)
    return text


@given(events)
def test_the_count_is_the_speaking_events_plus_the_closes_that_close_nothing(
    kinds: list[tuple[str, str | None, float]],
) -> None:
    assert count_of(render(kinds))[0] == reference_count(kinds)


@given(events)
def test_last_is_the_latest_utterance_event_in_monotonic_time(
    kinds: list[tuple[str, str | None, float]],
) -> None:
    ages = [age for kind, _, age in kinds if kind in ("speaking", "spoke", "voice")]
    _, last = count_of(render(kinds))
    if ages:
        assert last == pytest.approx(NOW_MONO - min(ages), abs=1e-6)
    else:
        assert last is None


@given(events, st.integers(0, 200))
def test_a_torn_tail_or_garbage_lines_never_change_the_count(
    kinds: list[tuple[str, str | None, float]], cut: int
) -> None:
    text = render(kinds)
    garbage = text.replace("}\n", "\n")
    tail = render([("speaking", None, 0.0)])
    assert count_of(text + garbage + tail[: min(cut, len(tail) - 1)]) == count_of(text)


@given(st.lists(st.tuples(st.booleans(), st.booleans(), st.floats(0, 300)), max_size=20))
def test_every_utterance_we_log_counts_exactly_once(
    utterances: list[tuple[bool, bool, float]],
) -> None:
    text = ""
    for index, (closed, failed, length) in enumerate(utterances):
        utterance = f"{index:032x}"
        text += encode_event(meeting_log.speaking(ago(400), 1, utterance, "x", "warm"))
        if closed and failed:
            text += encode_event(meeting_log.voice_error(ago(400 - length), 1, utterance, "x", "m"))
        elif closed:
            text += encode_event(
                meeting_log.spoke(
                    ago(400 - length),
                    1,
                    utterance,
                    "x",
                    "warm",
                    first_audio_ms=None,
                    audio_s=length,
                    took_ms=1,
                )
            )
        text += encode_event(meeting_log.notice_error(ago(1), 1, "m"))
    assert count_of(text)[0] == len(utterances)


# The typed reader ------------------------------------------------------------------------


def test_each_event_is_read_with_its_fields_typed():
    text = (
        '{"event":"spoke","at":"2026-09-05T16:08:01.5Z","pid":7,"utterance":"ab","text":"Hi.",'
        '"emotion":"warm","first_audio_ms":120,"audio_s":1}\n'
        '{"event":"error","stage":"notice","message":"no voice","text":3,"audio_s":true}\n'
        '{"event":"joined","notice":"I am an AI.","first_audio_ms":1.5}\n'
        "not json\n"
        '["event"]\n'
        '{"event":7}\n'
        '{"event":"speaking","text":"still being writ'
    )
    spoke, failed, joined = read_events(text)
    assert spoke == LogEvent(
        name="spoke",
        at=parse_time("2026-09-05T16:08:01.5Z"),
        pid=7,
        utterance='"ab"',
        text="Hi.",
        emotion="warm",
        first_audio_ms=120,
        audio_s=1.0,
    )
    assert spoke.closes_utterance and spoke.about_utterance and not spoke.failed_notice
    assert failed == LogEvent(name="error", stage="notice")
    assert failed.failed_notice and not failed.about_utterance
    assert (joined.notice, joined.first_audio_ms, joined.about_utterance) == (
        "I am an AI.",
        None,
        False,
    )


@given(st.lists(st.text() | st.builds(json.dumps, st.dictionaries(st.text(), st.integers()))))
def test_reading_any_text_never_raises_and_keeps_only_complete_event_lines(lines):
    text = "\n".join(lines)
    events = read_events(text)
    assert len(events) <= text.count("\n")
    assert all(isinstance(event.name, str) for event in events)
