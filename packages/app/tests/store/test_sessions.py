"""Session folders: ids, symlinks, live detection, listings, states and transcripts (1.2-1.7)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import BinaryIO

import pytest
from assist.app.store import transcript
from assist.app.store.new_session import create_session, session_name, slug
from assist.app.store.session_files import SessionRefusal, SymlinkRefusal
from assist.app.store.sessions import SessionStore, validate_session_id
from assist.app.store.transcript import TranscriptReader
from assist.core.lines import RawLine, encode_raw_line

META = {
    "id": "2026-08-29T1101-smoke",
    "name": "smoke",
    "started_at": "2026-08-29T11:01:00+02:00",
    "ended_at": "2026-08-29T11:31:00+02:00",
    "duration_s": 1800.5,
    "tags": ["team"],
    "pinned": True,
    "later_field": {"ignored": 1},
}


def raw(text: str, *, track: str = "room", start_ms: int = 0, speaker: str | None = None) -> bytes:
    return encode_raw_line(RawLine(track, start_ms, start_ms + 900, text, 0.9, speaker)).encode()


def ended(root: Path, session: str, meta: object = META) -> Path:
    folder = root / session
    folder.mkdir(parents=True)
    (folder / "session.json").write_text(json.dumps(meta))
    return folder


def recording(root: Path, session: str, *, mtime: float | None = None) -> Path:
    folder = root / session
    (folder / "audio").mkdir(parents=True)
    wav = folder / "audio" / "room.native.wav"
    wav.write_bytes(b"RIFF")
    if mtime is not None:
        os.utime(wav, (mtime, mtime))
    return folder


def dead_pid() -> int:
    """The pid of a process that has exited and been reaped."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


# Session ids ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "good", ["2026-08-29T1101-smoke", "2026-09-05T1608", "a b", "réunion", "x.."]
)
def test_an_ordinary_folder_name_is_a_session_id(good: str) -> None:
    assert validate_session_id(good) is None


@pytest.mark.parametrize("bad", ["", ".", "..", "/", "a/b", "../x", "a\\b", "a\0b", "\\"])
def test_anything_but_one_path_segment_is_not_a_session_id(bad: str) -> None:
    refusal = validate_session_id(bad)
    assert refusal is not None
    assert "not a session id" in refusal
    assert "sessions" in refusal, "the refusal says where the real ids are"


def test_a_value_that_is_not_a_string_is_not_a_session_id() -> None:
    assert "not a session id" in (validate_session_id(7) or "")


# What counts as a session ----------------------------------------------------------------


def test_only_real_folders_with_session_json_or_a_growing_wav_are_sessions(tmp_path: Path) -> None:
    now = time.time()
    ended(tmp_path, "2026-01-01T0900")
    recording(tmp_path, "2026-01-02T0900")
    recording(tmp_path, "2026-01-03T0900-stalled", mtime=now - 60)
    (tmp_path / "2026-01-04T0900-only-raw").mkdir()
    (tmp_path / "2026-01-04T0900-only-raw" / "raw.jsonl").write_bytes(raw("hi"))
    (tmp_path / "2026-01-05T0900-a-file").write_text("{}")
    (tmp_path / "2026-01-06T0900-link").symlink_to(tmp_path / "2026-01-01T0900")
    assert SessionStore(tmp_path).ids(now) == ["2026-01-01T0900", "2026-01-02T0900"]


def test_a_recording_that_ends_between_the_stores_two_looks_is_still_a_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A recorder ends a session by writing session.json, then removing its wav. Whichever of
    the two the store looks at first, the end comes just after that look."""
    folder = recording(tmp_path, "2026-08-29T1101-smoke")
    real_lstat = os.lstat
    looks: list[str] = []

    def lstat(path: os.PathLike[str] | str, *args: object, **kwargs: object) -> os.stat_result:
        try:
            return real_lstat(path, *args, **kwargs)  # type: ignore[arg-type]
        finally:
            name = Path(path).name
            if name in ("session.json", "room.native.wav") and not looks:
                looks.append(name)
                (folder / "session.json").write_text(json.dumps(META))
                (folder / "audio" / "room.native.wav").unlink()

    monkeypatch.setattr(os, "lstat", lstat)
    store = SessionStore(tmp_path)
    assert store.session_dir("2026-08-29T1101-smoke", time.time()) == folder
    assert looks  # the end came between the looks


def test_a_missing_sessions_root_has_no_sessions(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "nowhere")
    assert store.rows(time.time()) == []
    assert store.live_session(time.time()) is None
    assert store.status(time.time()) == {"live": None, "awaiting_transcript": 0, "sessions": 0}


def test_a_well_formed_id_with_no_folder_is_refused_naming_the_id(tmp_path: Path) -> None:
    with pytest.raises(SessionRefusal, match="no session '2026-01-01T0900'"):
        SessionStore(tmp_path).session_dir("2026-01-01T0900", time.time())


def test_a_symlinked_session_folder_is_refused_as_a_symlink(tmp_path: Path) -> None:
    real = ended(tmp_path / "elsewhere", "2026-01-01T0900")
    root = tmp_path / "root"
    root.mkdir()
    (root / "2026-01-01T0900").symlink_to(real)
    with pytest.raises(SessionRefusal, match="symlink"):
        SessionStore(root).session_dir("2026-01-01T0900", time.time())


def test_a_path_instead_of_an_id_is_refused_before_touching_the_disk(tmp_path: Path) -> None:
    ended(tmp_path, "inner")
    with pytest.raises(SessionRefusal, match="not a session id"):
        SessionStore(tmp_path / "sub").session_dir("../inner", time.time())


# Growing and live -----------------------------------------------------------------------


def test_a_wav_is_growing_until_its_mtime_is_ten_seconds_old(tmp_path: Path) -> None:
    written = 1_800_000_000.0
    recording(tmp_path, "2026-01-01T0900", mtime=written)
    store = SessionStore(tmp_path)
    assert store.live_session(written + 9.99) == "2026-01-01T0900"
    assert store.live_session(written + 10.0) is None
    assert store.ids(written + 10.0) == [], "a stalled recording without session.json is gone"


def test_the_live_session_is_the_last_live_one_in_id_order(tmp_path: Path) -> None:
    now = time.time()
    recording(tmp_path, "2026-01-02T0900")
    recording(tmp_path, "2026-01-01T0900")
    recording(tmp_path, "2026-01-03T0900", mtime=now - 30)
    ended(tmp_path, "2026-01-04T0900")
    assert SessionStore(tmp_path).live_session(now) == "2026-01-02T0900"


def test_a_watched_session_stays_the_live_one_until_it_stalls_or_a_newer_one_goes_live(
    tmp_path: Path,
) -> None:
    now = time.time()
    recording(tmp_path, "2026-01-01T0900", mtime=now)  # an older live one never ends the watch
    recording(tmp_path, "2026-01-02T0900", mtime=now)
    recording(tmp_path, "2026-01-03T0900", mtime=now - 30)  # newer, but stalled
    store = SessionStore(tmp_path)
    assert store.is_the_live_session("2026-01-02T0900", now)
    assert not store.is_the_live_session("2026-01-01T0900", now)
    assert not store.is_the_live_session("2026-01-02T0900", now + 10.0), "stalled for 10 s"
    recording(tmp_path, "2026-01-04T0900", mtime=now)
    assert not store.is_the_live_session("2026-01-02T0900", now), "a newer one went live"
    assert not store.is_the_live_session("2026-01-05T0900", now), "no such folder"


def test_a_polls_live_check_looks_only_at_the_watched_session_and_newer_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for day in range(1, 29):
        for hour in range(9, 19):
            recording(tmp_path, f"2026-02-{day:02d}T{hour:02d}00")
    recording(tmp_path, "2026-03-01T0900")
    ended(tmp_path, "2026-03-02T0900")
    looked_at: list[str] = []
    is_live = SessionStore.is_live

    def counting(store: SessionStore, session: str, now_wall: float) -> bool:
        looked_at.append(session)
        return is_live(store, session, now_wall)

    monkeypatch.setattr(SessionStore, "is_live", counting)
    assert SessionStore(tmp_path).is_the_live_session("2026-03-01T0900", time.time())
    assert sorted(looked_at) == ["2026-03-01T0900", "2026-03-02T0900"]


def test_a_symlinked_room_wav_or_audio_folder_never_makes_a_session_live(tmp_path: Path) -> None:
    now = time.time()
    source = recording(tmp_path / "src", "x") / "audio"
    one = tmp_path / "root" / "2026-01-01T0900" / "audio"
    one.mkdir(parents=True)
    (one / "room.native.wav").symlink_to(source / "room.native.wav")
    two = tmp_path / "root" / "2026-01-02T0900"
    two.mkdir()
    (two / "audio").symlink_to(source)
    assert SessionStore(tmp_path / "root").live_session(now) is None


# States ----------------------------------------------------------------------------------


def test_state_is_the_first_of_live_transcribing_done_pending(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    folder = recording(tmp_path, "s")
    now = time.time()
    (folder / "transcribing.lock").write_text(f"{os.getpid()}\n")
    (folder / "transcript.md").write_text("# done")
    assert store.state("s", now) == "live"
    assert store.state("s", now + 10) == "transcribing"
    (folder / "transcribing.lock").write_text(str(dead_pid()))
    assert store.state("s", now + 10) == "done"
    (folder / "transcript.md").unlink()
    assert store.state("s", now + 10) == "pending"


@pytest.mark.parametrize("content", ["", "abc", "-5", "0", "99999999999", "12 13"])
def test_a_transcribing_lock_without_a_live_pid_is_not_transcribing(
    tmp_path: Path, content: str
) -> None:
    (ended(tmp_path, "s") / "transcribing.lock").write_text(content)
    assert SessionStore(tmp_path).state("s", time.time()) == "pending"


# Listing and status ----------------------------------------------------------------------


def test_rows_come_newest_first_with_every_field(tmp_path: Path) -> None:
    now = time.time()
    done = ended(tmp_path, "2026-08-29T1101-smoke")
    (done / "transcript.md").write_text("# smoke")
    live = recording(tmp_path, "2026-09-05T1608")
    (live / "transcribing.lock").write_text(str(os.getpid()))
    rows = SessionStore(tmp_path).rows(now)
    assert rows == [
        {
            "id": "2026-09-05T1608",
            "dir": str(live),
            "name": None,
            "started_at": None,
            "duration_s": None,
            "transcribed": False,
            "live": True,
            "transcribing": True,
            "error": None,
            "tags": [],
            "pinned": False,
        },
        {
            "id": "2026-08-29T1101-smoke",
            "dir": str(done),
            "name": "smoke",
            "started_at": "2026-08-29T11:01:00+02:00",
            "duration_s": 1800.5,
            "transcribed": True,
            "live": False,
            "transcribing": False,
            "error": None,
            "tags": ["team"],
            "pinned": True,
        },
    ]
    assert all(Path(row["dir"]).is_absolute() for row in rows)


@pytest.mark.parametrize(
    "meta",
    [
        {"name": 3, "started_at": 5, "duration_s": "long", "tags": "x", "pinned": "yes"},
        ["not", "an", "object"],
        "{ corrupt",
    ],
)
def test_session_json_fields_of_the_wrong_type_take_their_defaults(
    tmp_path: Path, meta: object
) -> None:
    folder = tmp_path / "s"
    folder.mkdir()
    text = meta if isinstance(meta, str) else json.dumps(meta)
    (folder / "session.json").write_text(text)
    (row,) = SessionStore(tmp_path).rows(time.time())
    assert (row["name"], row["started_at"], row["duration_s"]) == (None, None, None)
    assert (row["tags"], row["pinned"]) == ([], False)


def test_only_the_string_tags_are_listed_so_a_nested_one_cannot_break_the_listing(
    tmp_path: Path,
) -> None:
    nested = "[" * 50 + "]" * 50  # a few hundred levels deeper and no answer could hold it
    ended(tmp_path, "s", meta={"name": "x"})
    (tmp_path / "s" / "session.json").write_text(
        '{"tags": ["team", 3, {"a": "b"}, null, ' + nested + ', "later"]}'
    )
    (row,) = SessionStore(tmp_path).rows(time.time())
    assert row["tags"] == ["team", "later"]


@pytest.mark.parametrize(
    ("status", "error"),
    [
        ("failed: the model is missing\nmore", "failed: the model is missing"),
        ("  ERROR disk full  ", "ERROR disk full"),
        ("transcribed", None),
        ("", None),
        ("recording (no failure)", None),
    ],
)
def test_error_is_the_status_line_when_it_reads_as_failed(
    tmp_path: Path, status: str, error: str | None
) -> None:
    (ended(tmp_path, "s") / "status").write_text(status)
    assert SessionStore(tmp_path).rows(time.time())[0]["error"] == error


def test_status_counts_sessions_and_those_awaiting_a_transcript(tmp_path: Path) -> None:
    now = time.time()
    ended(tmp_path, "a")
    (ended(tmp_path, "b") / "transcript.md").write_text("")
    ended(tmp_path, "c")
    recording(tmp_path, "d")
    assert SessionStore(tmp_path).status(now) == {
        "live": {"id": "d"},
        "awaiting_transcript": 2,
        "sessions": 4,
    }


# The transcript tool ---------------------------------------------------------------------


def test_transcript_gives_session_state_next_and_line_views(tmp_path: Path) -> None:
    folder = recording(tmp_path, "s")
    (folder / "raw.jsonl").write_bytes(
        raw("Hello?", track="call", start_ms=0)
        + raw("Merged.", track="call", start_ms=65000, speaker="Priya")
    )
    store = SessionStore(tmp_path)
    assert store.transcript("s", 0, time.time()) == {
        "session": "s",
        "state": "live",
        "next": 2,
        "lines": [
            {"track": "call", "start_ms": 0, "end_ms": 900, "speaker": None, "text": "Hello?"},
            {
                "track": "call",
                "start_ms": 65000,
                "end_ms": 65900,
                "speaker": "Priya",
                "text": "Merged.",
            },
        ],
    }
    assert store.transcript("s", 1, time.time())["lines"][0]["text"] == "Merged."
    assert store.transcript("s", 1, time.time(), verbatim=True)["lines"][0]["text"] == "Merged."


def test_a_session_without_raw_jsonl_has_no_lines_and_next_0(tmp_path: Path) -> None:
    ended(tmp_path, "s")
    result = SessionStore(tmp_path).transcript("s", 5, time.time())
    assert (result["next"], result["lines"], result["state"]) == (0, [], "pending")


def test_a_symlinked_raw_jsonl_is_refused_naming_it_as_a_symlink(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.jsonl"
    elsewhere.write_bytes(raw("secret"))
    root = tmp_path / "root"
    (ended(root, "s") / "raw.jsonl").symlink_to(elsewhere)
    with pytest.raises(SymlinkRefusal, match=r"raw\.jsonl .* is a symlink"):
        SessionStore(root).transcript("s", 0, time.time())


def within_10_s(call: Callable[[], object]) -> object:
    """`call`'s result, or a failure if it is still running after 10 s (it would hang for ever)."""
    done: list[object] = []
    worker = threading.Thread(target=lambda: done.append(call()), daemon=True)
    worker.start()
    worker.join(timeout=10)
    assert not worker.is_alive(), "still blocked after 10 s"
    return done[0] if done else None


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_raw_jsonl_that_is_a_fifo_is_refused_at_once_as_not_a_regular_file(
    tmp_path: Path,
) -> None:
    os.mkfifo(ended(tmp_path, "s") / "raw.jsonl")
    store = SessionStore(tmp_path)
    outcome: list[str] = []

    def read() -> None:
        try:
            store.transcript("s", 0, time.time())
        except SessionRefusal as refusal:
            outcome.append(str(refusal))

    within_10_s(read)
    assert len(outcome) == 1 and "raw.jsonl" in outcome[0] and "not a regular file" in outcome[0]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_session_files_that_are_fifos_leave_the_listing_with_their_defaults(
    tmp_path: Path,
) -> None:
    folder = recording(tmp_path, "2026-01-01T0900-s")
    for name in ("session.json", "status", "transcribing.lock"):
        os.mkfifo(folder / name)
    rows = within_10_s(lambda: SessionStore(tmp_path).rows(time.time()))
    assert isinstance(rows, list) and len(rows) == 1
    assert (rows[0]["name"], rows[0]["error"], rows[0]["tags"]) == (None, None, [])


# The incremental reader ------------------------------------------------------------------


def append(path: Path, data: bytes) -> None:
    with open(path, "ab") as file:
        file.write(data)


def texts(lines: list[RawLine]) -> list[str]:
    return [line.text for line in lines]


def test_a_trailing_fragment_is_not_a_line_until_its_newline_arrives(tmp_path: Path) -> None:
    path = tmp_path / "raw.jsonl"
    whole = raw("one") + raw("two")
    path.write_bytes(whole[:-7])
    reader = TranscriptReader(path)
    lines, next_line = reader.read(0)
    assert (texts(lines), next_line) == (["one"], 1)
    append(path, whole[-7:-1])
    assert reader.read(1) == ([], 1)
    append(path, b"\n")
    lines, next_line = reader.read(1)
    assert (texts(lines), next_line) == (["two"], 2)


def test_blank_and_unreadable_lines_count_toward_next_but_give_no_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "raw.jsonl"
    path.write_bytes(raw("one") + b"\n   \n{oops\n" + b'{"track":"side"}\n' + raw("two"))
    reader = TranscriptReader(path)
    lines, next_line = reader.read(0)
    assert (texts(lines), next_line) == (["one", "two"], 6)
    assert reader.read(0)[1] == 6
    reader.read(3)
    reported = capsys.readouterr().err.splitlines()
    assert len(reported) == 2, "each corrupt line is reported once, however often it is read"
    assert "line 4" in reported[0] and "line 5" in reported[1]


def test_bytes_that_are_not_utf8_are_replaced_and_the_line_still_reads(tmp_path: Path) -> None:
    path = tmp_path / "raw.jsonl"
    path.write_bytes(raw("caf\u00e9").replace("é".encode(), b"\xe9") + raw("next"))
    lines, next_line = TranscriptReader(path).read(0)
    assert (texts(lines), next_line) == (["caf\ufffd", "next"], 2)


def test_a_cursor_past_the_end_gives_no_lines_and_next_is_the_length(tmp_path: Path) -> None:
    path = tmp_path / "raw.jsonl"
    path.write_bytes(raw("one") + raw("two"))
    assert TranscriptReader(path).read(50) == ([], 2)


def test_numbered_reading_gives_each_line_its_number_in_the_file_past_blank_and_bad_ones(
    tmp_path: Path,
) -> None:
    path = tmp_path / "raw.jsonl"
    path.write_bytes(raw("one") + b"\n" + b"not json\n" + raw("four") + raw("five"))
    reader = TranscriptReader(path)
    numbered, next_line = reader.read_numbered(1)
    assert [(n, line.text) for n, line in numbered] == [(3, "four"), (4, "five")]
    assert next_line == 5
    assert reader.read(1) == ([line for _, line in numbered], 5)


def test_a_missing_file_gives_no_lines_and_next_0(tmp_path: Path) -> None:
    assert TranscriptReader(tmp_path / "raw.jsonl").read(0) == ([], 0)


def test_a_file_that_shrank_is_read_again_from_the_start(tmp_path: Path) -> None:
    path = tmp_path / "raw.jsonl"
    path.write_bytes(raw("one") + raw("two") + raw("three"))
    reader = TranscriptReader(path)
    assert reader.read(0)[1] == 3
    path.write_bytes(raw("new"))
    lines, next_line = reader.read(3)
    assert (lines, next_line) == ([], 1)
    assert texts(reader.read(0)[0]) == ["new"]


class BytesRead:
    """Every byte `TranscriptReader` reads from its file, counted at the file it opens."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        opened = transcript.open_session_file

        def open_counted(folder: Path, name: str) -> BinaryIO | None:
            file = opened(folder, name)
            if file is None:
                return None
            read = file.read

            def counted(size: int = -1) -> bytes:
                data = read(size)
                self.count += len(data)
                return data

            file.read = counted  # type: ignore[method-assign]
            return file

        monkeypatch.setattr(transcript, "open_session_file", open_counted)


@pytest.fixture
def bytes_read(monkeypatch: pytest.MonkeyPatch) -> BytesRead:
    return BytesRead(monkeypatch)


def test_a_poll_reads_only_the_bytes_appended_since_the_last(
    tmp_path: Path, bytes_read: BytesRead
) -> None:
    path = tmp_path / "raw.jsonl"
    path.write_bytes(b"".join(raw(f"line {n}") for n in range(100)))
    reader = TranscriptReader(path)
    _, cursor = reader.read(0)
    assert bytes_read.count == path.stat().st_size
    assert reader.read(cursor) == ([], 100)
    assert bytes_read.count == path.stat().st_size, "an idle poll reads nothing"
    added = raw("appended") + raw("and another")
    append(path, added)
    before = bytes_read.count
    lines, cursor = reader.read(cursor)
    assert (texts(lines), cursor) == (["appended", "and another"], 102)
    assert bytes_read.count - before == len(added)
    assert reader.offset == path.stat().st_size


def test_a_cursor_put_back_reads_from_its_line_not_from_the_start(
    tmp_path: Path, bytes_read: BytesRead
) -> None:
    path = tmp_path / "raw.jsonl"
    path.write_bytes(b"".join(raw(f"line {n}") for n in range(1000)))
    reader = TranscriptReader(path)
    reader.read(0)
    before = bytes_read.count
    lines, cursor = reader.read(997)
    assert (texts(lines), cursor) == (["line 997", "line 998", "line 999"], 1000)
    assert bytes_read.count - before == len(raw("line 997") + raw("line 998") + raw("line 999"))


POLLS = 21
"""Polls timed per file size; the median is compared, so one slow poll does not decide."""
LINE = raw("Is the release out yet? " * 3, track="call", start_ms=65000, speaker="Dana")


def poll_cost(path: Path, lines: int, bytes_read: BytesRead) -> tuple[int, float]:
    """Bytes read by, and median seconds of, polls that each find one new line after `lines`."""
    path.write_bytes(LINE * lines)
    reader = TranscriptReader(path)
    _, cursor = reader.read(0)
    before, times = bytes_read.count, []
    for _ in range(POLLS):
        append(path, LINE)
        started = time.perf_counter()
        new, cursor = reader.read(cursor)
        times.append(time.perf_counter() - started)
        assert len(new) == 1
    assert cursor == lines + POLLS
    return bytes_read.count - before, sorted(times)[POLLS // 2]


def test_a_poll_costs_the_same_at_line_50000_as_at_line_50(
    tmp_path: Path, bytes_read: BytesRead
) -> None:
    small_bytes, small_s = poll_cost(tmp_path / "small.jsonl", 50, bytes_read)
    large_bytes, large_s = poll_cost(tmp_path / "large.jsonl", 50_000, bytes_read)
    assert small_bytes == large_bytes == POLLS * len(LINE)
    print(f"median poll at 50,000 lines / at 50 lines: {large_s / small_s:.2f}x in time")


# Creating a session (assist replay) -------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("smoke", "smoke"),
        ("Smoke Test!", "smoke-test"),
        ("  --Ça va?-- ", "a-va"),
        ("Q3  planning / review", "q3-planning-review"),
        ("!!!", ""),
        ("", ""),
    ],
)
def test_the_slug_keeps_lower_case_ascii_letters_and_digits(name: str, expected: str) -> None:
    assert slug(name) == expected


def test_a_session_name_is_the_start_minute_plus_the_slug_when_there_is_one() -> None:
    started = datetime(2026, 8, 29, 11, 1, 59)
    assert session_name(started, "Smoke") == "2026-08-29T1101-smoke"
    assert session_name(started, "???") == "2026-08-29T1101"
    assert session_name(started, None) == "2026-08-29T1101"


def test_a_taken_name_gets_the_next_free_suffix_from_02_to_99_then_fails(tmp_path: Path) -> None:
    started = datetime(2026, 9, 5, 16, 8)
    assert create_session(tmp_path, started).name == "2026-09-05T1608"
    assert create_session(tmp_path, started).name == "2026-09-05T1608-02"
    for n in range(3, 100):
        assert create_session(tmp_path, started).name == f"2026-09-05T1608-{n:02d}"
    with pytest.raises(FileExistsError, match="taken"):
        create_session(tmp_path, started)
    assert len(os.listdir(tmp_path)) == 99


def test_processes_creating_sessions_at_once_each_claim_a_different_folder(tmp_path: Path) -> None:
    claim = (
        "import sys, datetime; from pathlib import Path;"
        "from assist.app.store.new_session import create_session;"
        "print(create_session(Path(sys.argv[1]), datetime.datetime(2026, 9, 5, 16, 8), 'x').name)"
    )
    processes = [
        subprocess.Popen([sys.executable, "-c", claim, str(tmp_path)], stdout=subprocess.PIPE)
        for _ in range(4)
    ]
    names = [process.communicate()[0].decode().strip() for process in processes]
    assert sorted(names) == ["2026-09-05T1608-x", *(f"2026-09-05T1608-x-0{n}" for n in (2, 3, 4))]
