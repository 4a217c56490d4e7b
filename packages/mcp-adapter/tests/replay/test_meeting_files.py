"""The shipped meetings have the shape the demo and the tests rely on; bad files are refused."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from assist.core.names import says_name
from assist.core.scoring import Label
from assist.mcp.replay.meeting_files import EVALUATED, MeetingError, load_meeting, parse_meeting

MEETINGS = Path(__file__).resolve().parents[2] / "src" / "assist" / "mcp" / "replay" / "meetings"
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


# Labels for assist eval ---------------------------------------------------------------


def labelled(start: int, end: int, text: str = "Claude, any idea?", **label: object) -> str:
    fields = {"track": "room", "start_ms": start, "end_ms": end, "speaker": "Ann", "text": text}
    return json.dumps({**fields, **label}) + "\n"


def test_labels_are_read_with_the_default_window_and_unlabelled_lines_have_none() -> None:
    meeting = parse_meeting(
        HEADER
        + labelled(0, 1000, expect="quiet")
        + turn(1000, 2000)
        + labelled(2000, 3000, expect="answer")
        + labelled(3000, 4000, expect="answer", within_s=4.5)
        + turn(4000, 16_000),
        "t",
    )
    labels = [line.label for line in meeting.lines]
    assert labels == [Label("quiet"), None, Label("answer", 10.0), Label("answer", 4.5), None]
    assert meeting.labelled("answer") == [2, 3] and meeting.labelled("quiet") == [0]


@pytest.mark.parametrize(
    ("row", "says"),
    [
        (labelled(0, 100, expect="reply"), r't line 3: "expect" is "reply"; it must be "answer"'),
        (labelled(0, 100, expect=None, within_s=3), r"t line 3: within_s is given without"),
        (labelled(0, 100, expect="answer", within_s=0), r"t line 3: within_s is 0; it must be"),
        (labelled(0, 100, expect="answer", within_s=-2), r"t line 3: within_s is -2"),
        (labelled(0, 100, expect="answer", within_s="5"), r't line 3: within_s is "5"'),
        (labelled(0, 100, expect="answer", within_s=False), r"t line 3: within_s is false"),
        (labelled(0, 100, expect="quiet", within_s=5), r't line 3: within_s goes with "expect"'),
        (labelled(0, 100, " ", expect="quiet"), r"t line 3: a turn with no words carries a label"),
        (
            labelled(0, 100, expect="answer", within_s=30),
            r"t line 3: expects an answer within 30 s, but the recording stops 19\.9 s after",
        ),
    ],
)
def test_a_bad_label_is_refused_naming_the_file_the_line_and_the_fault(row: str, says: str) -> None:
    header = '{"assist_meeting": 1, "name": "t", "title": "T", "duration_ms": 20000}\n'
    with pytest.raises(MeetingError, match=says):
        parse_meeting(header + turn(0, 100) + row, "t")


def test_a_label_on_the_header_is_refused() -> None:
    header = '{"assist_meeting": 1, "name": "t", "expect": "quiet"}\n'
    with pytest.raises(MeetingError, match='t line 1: the header carries "expect"'):
        parse_meeting(header + turn(0, 100), "t")


def test_a_label_on_a_line_that_is_not_a_turn_is_refused_as_a_bad_turn() -> None:
    with pytest.raises(MeetingError, match="t line 2: "):
        parse_meeting(HEADER + '{"expect": "answer"}\n', "t")


# The labelled meetings assist eval runs ----------------------------------------------


@pytest.mark.parametrize("name", EVALUATED)
def test_each_evaluated_meeting_is_labelled_and_said_in_the_meetings_readme(name: str) -> None:
    meeting = load_meeting(name)
    assert meeting.lines[0].label is not None, "the first line says what is wanted from it"
    assert meeting.about, "the header says what the meeting tests"
    readme = (MEETINGS / "README.md").read_text(encoding="utf-8")
    assert f"`{name}.jsonl`" in readme


def test_the_evaluated_meetings_have_the_shapes_behaviour_15_lists() -> None:
    meetings = {name: load_meeting(name) for name in EVALUATED}
    texts = {name: [script.line.text for script in m.lines] for name, m in meetings.items()}
    assert meetings["small-talk"].labelled("answer") == []
    assert all(script.cue == "small-talk" for script in meetings["small-talk"].lines)
    assert len(meetings["by-name"].labelled("answer")) == 3
    assert any(says_name(text, "Claudia") for text in texts["claudia"])
    assert not any(says_name(text, "Claude") for text in texts["claudia"][:-2]), (
        "only the last question is for Claude"
    )
    assert meetings["answered-by-room"].labelled("answer") == []
    assert meetings["answered-by-room"].cued("room-question")
    assert sum(text.count(" ") for text in texts["design-review"]) > 100
    assert any(char.isdigit() for text in texts["design-review"] for char in text)
    durations = sorted(meeting.duration_ms for meeting in meetings.values())
    assert meetings["long-planning"].duration_ms == durations[-1] >= 3 * 60_000
    total_s = sum(durations) / 1000
    assert total_s < 15 * 60, "the whole set replays at --speed 8 in about two minutes"
