"""The shipped meetings have the shape the demo and the tests rely on; bad files are refused."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from assist.core.names import says_name
from assist.mcp.replay.meeting_files import MeetingError, load_meeting, parse_meeting

HEADER = '{"assist_meeting": 1, "name": "t", "title": "T"}\n'


def turn(start: int, end: int, text: str = "Hello there.", track: str = "room") -> str:
    return (
        f'{{"track": "{track}", "start_ms": {start}, "end_ms": {end}, '
        f'"speaker": "Ann", "text": "{text}"}}\n'
    )


def test_the_sample_meeting_is_fourteen_lines_over_about_seventy_five_seconds() -> None:
    meeting = load_meeting("sample")
    assert len(meeting.lines) == 14
    assert 70_000 <= meeting.duration_ms <= 80_000
    assert all(line.line.speaker for line in meeting.lines)


def test_the_sample_meeting_asks_by_name_then_asks_the_room_and_admits_not_knowing() -> None:
    meeting = load_meeting("sample")
    texts = [line.line.text for line in meeting.lines]
    [named] = meeting.cued("named-question")
    [room] = meeting.cued("room-question")
    [still_open] = meeting.cued("still-open")
    small_talk = meeting.cued("small-talk")
    assert small_talk == list(range(len(small_talk))), "small talk opens the meeting"
    assert named == len(small_talk)
    assert says_name(texts[named], "Claude") and "rate limit" in texts[named].lower()
    assert room > named and "429" in texts[room] and "503" in texts[room]
    assert still_open == room + 1 and "not sure" in texts[still_open].lower()
    assert not any(says_name(text, "Claude") for index, text in enumerate(texts) if index != named)


def test_the_long_meeting_lasts_at_least_thirty_minutes_on_both_tracks() -> None:
    meeting = load_meeting("long")
    assert meeting.lines[-1].line.end_ms >= 30 * 60 * 1000
    assert {line.line.track for line in meeting.lines} == {"room", "call"}
    assert len(meeting.cued("named-question")) >= 3


def test_in_the_overlap_meeting_people_talk_over_each_other_across_tracks() -> None:
    lines = [script.line for script in load_meeting("overlap").lines]
    overlaps = [(a, b) for a, b in itertools.pairwise(lines) if b.start_ms < a.end_ms]
    assert any(a.track != b.track for a, b in overlaps)
    assert any(b.start_ms < a.start_ms for a, b in itertools.pairwise(lines)), (
        "some line starts before the one published above it"
    )


def test_lines_are_published_in_file_order_each_once_it_has_ended() -> None:
    meeting = parse_meeting(HEADER + turn(0, 5000) + turn(1000, 3000) + turn(4000, 9000), "t")
    assert meeting.publish_ms() == [5000, 5000, 9000]
    assert meeting.duration_ms == 10_000


def test_a_file_without_the_header_is_refused_saying_what_a_header_looks_like() -> None:
    with pytest.raises(MeetingError, match=r"x\.jsonl line 1 is not a meeting header"):
        parse_meeting(turn(0, 100), "x.jsonl")


def test_a_bad_turn_is_refused_with_its_line_number_and_the_fault() -> None:
    with pytest.raises(MeetingError, match=r"t line 3: `track` is \"stage\""):
        parse_meeting(HEADER + turn(0, 100) + turn(0, 100, track="stage"), "t")


def test_a_duration_shorter_than_the_last_turn_is_refused() -> None:
    header = '{"assist_meeting": 1, "duration_ms": 50}\n'
    with pytest.raises(MeetingError, match="no shorter than the last line's end"):
        parse_meeting(header + turn(0, 100), "t")


def test_a_missing_file_is_refused_naming_the_shipped_meetings(tmp_path: Path) -> None:
    with pytest.raises(MeetingError, match="sample, long, overlap"):
        load_meeting(tmp_path / "nowhere.jsonl")
