"""`assistant.jsonl` on disk: single-write appends from many processes, errors on stderr (5.2)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import uuid
from datetime import datetime
from pathlib import Path

import pytest
from assist.app.store.meeting_log_file import MeetingLogFile
from assist.core.meeting_log import joined, speaking, spoke, tally

APPEND_MANY = """
import sys, uuid
from datetime import datetime
from pathlib import Path
from assist.core.meeting_log import speaking
from assist.app.store.meeting_log_file import MeetingLogFile
log = MeetingLogFile(Path(sys.argv[1]))
text = sys.argv[2] * 4000
for n in range(int(sys.argv[3])):
    assert log.append(speaking(datetime.now().astimezone(), 1, uuid.uuid4().hex, text, "warm"))
"""


def now() -> datetime:
    return datetime.now().astimezone()


def test_each_event_is_one_compact_json_line_in_append_order(tmp_path: Path) -> None:
    log = MeetingLogFile(tmp_path)
    events = [joined(now(), 11, "An AI assistant, Robin, is listening and may speak."), {"x": "é"}]
    for event in events:
        assert log.append(event)
    lines = (tmp_path / "assistant.jsonl").read_bytes().split(b"\n")
    assert lines[-1] == b""
    assert [json.loads(line) for line in lines[:-1]] == events
    assert lines[1] == '{"x":"é"}'.encode()
    assert log.text() == (tmp_path / "assistant.jsonl").read_text(encoding="utf-8")


def test_the_text_feeds_the_tally_and_a_torn_last_line_is_left_out(tmp_path: Path) -> None:
    log = MeetingLogFile(tmp_path)
    utterance = uuid.uuid4().hex
    log.append(speaking(now(), 11, utterance, "Yes, it shipped.", "neutral"))
    log.append(
        spoke(
            now(),
            11,
            utterance,
            "Yes, it shipped.",
            "neutral",
            first_audio_ms=80,
            audio_s=1.5,
            took_ms=1700,
        )
    )
    with open(tmp_path / "assistant.jsonl", "ab") as file:
        file.write(b'{"event":"speaking","at":"2026-')
    counted = tally(log.text(), now(), time.monotonic(), own_pid=11)
    assert counted.count == 1


def test_an_event_after_a_torn_line_is_appended_on_a_line_of_its_own(tmp_path: Path) -> None:
    log = MeetingLogFile(tmp_path)
    (tmp_path / "assistant.jsonl").write_bytes(b'{"event":"speaking","at":"2026-')
    assert log.append(speaking(now(), 7, uuid.uuid4().hex, "Still counted.", "warm"))
    assert log.append(joined(now(), 7, "A notice."))
    torn, event, notice, end = log.text().split("\n")
    assert torn == '{"event":"speaking","at":"2026-' and end == ""
    assert json.loads(event)["text"] == "Still counted." and json.loads(notice)["event"] == "joined"
    assert tally(log.text(), now(), time.monotonic(), own_pid=None).count == 1


def test_appends_from_several_processes_never_interleave(tmp_path: Path) -> None:
    writers = [
        subprocess.Popen([sys.executable, "-c", APPEND_MANY, str(tmp_path), letter, "150"])
        for letter in "abcd"
    ]
    assert [writer.wait(timeout=60) for writer in writers] == [0, 0, 0, 0]
    lines = (tmp_path / "assistant.jsonl").read_text(encoding="utf-8").splitlines()
    # A writer that sees another's line half written puts a newline first, in case that line
    # was torn: at most a blank line, which every reader skips.
    lines = [line for line in lines if line]
    assert len(lines) == 600
    texts = [json.loads(line)["text"] for line in lines]
    assert all(len(set(text)) == 1 and len(text) == 4000 for text in texts)
    assert (
        tally(MeetingLogFile(tmp_path).text(), now(), time.monotonic(), own_pid=None).count == 600
    )


def test_a_failed_append_is_reported_on_stderr_and_not_raised(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = MeetingLogFile(tmp_path / "gone")
    assert not log.append({"event": "left", "why": "test", "spoke": 0})
    err = capsys.readouterr().err
    assert "'left'" in err and str(tmp_path / "gone" / "assistant.jsonl") in err


def test_a_symlinked_log_is_neither_written_nor_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "elsewhere.txt"
    target.write_text("precious\n")
    session = tmp_path / "s"
    session.mkdir()
    (session / "assistant.jsonl").symlink_to(target)
    log = MeetingLogFile(session)
    assert not log.append({"event": "joined"})
    assert log.text() == ""
    assert target.read_text() == "precious\n"
    assert "symlink" in capsys.readouterr().err


def test_a_missing_log_reads_as_empty_without_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert MeetingLogFile(tmp_path).text() == ""
    assert capsys.readouterr().err == ""


def test_bytes_that_are_not_utf8_read_with_replacement(tmp_path: Path) -> None:
    (tmp_path / "assistant.jsonl").write_bytes(b'{"event":"left","why":"\xff"}\n')
    assert MeetingLogFile(tmp_path).text() == '{"event":"left","why":"\ufffd"}\n'
