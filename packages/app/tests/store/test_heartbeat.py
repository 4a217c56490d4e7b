"""`assistant.json`: atomic writes, ownership, the reader rule, the lapse rule, the beat (7)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from assist.app.store.heartbeat import Beat, Heartbeat, HeartbeatView, lapsed, read_heartbeat

WRITE_AND_WAIT = """
import sys, time
from pathlib import Path
from assist.app.store.heartbeat import Heartbeat
Heartbeat(Path(sys.argv[1])).write("2026-09-05T1608", "speaking")
print("written", flush=True)
time.sleep(600)
"""


def beat_of(folder: Path) -> dict[str, object]:
    return json.loads((folder / "assistant.json").read_bytes())


@pytest.fixture
def other_server(tmp_path: Path):  # type: ignore[no-untyped-def]
    """Another live process that has written its heartbeat into `tmp_path`."""
    process = subprocess.Popen(
        [sys.executable, "-c", WRITE_AND_WAIT, str(tmp_path)], stdout=subprocess.PIPE
    )
    assert process.stdout is not None and process.stdout.readline() == b"written\n"
    yield process
    process.kill()
    process.wait()


def test_the_heartbeat_is_one_compact_object_with_exactly_four_fields(tmp_path: Path) -> None:
    Heartbeat(tmp_path, pid=4242).write("2026-09-05T1608", "listening", now=1_800_000_000.9)
    assert (tmp_path / "assistant.json").read_bytes() == (
        b'{"pid":4242,"session":"2026-09-05T1608","state":"listening","updated_at":1800000000}'
    )


def test_a_write_replaces_the_file_by_rename_and_leaves_no_temp_file(tmp_path: Path) -> None:
    heartbeat = Heartbeat(tmp_path)
    heartbeat.write("s", "listening")
    inode = os.stat(tmp_path / "assistant.json").st_ino
    heartbeat.write("s", "speaking")
    assert os.stat(tmp_path / "assistant.json").st_ino != inode
    assert beat_of(tmp_path)["state"] == "speaking"
    assert os.listdir(tmp_path) == ["assistant.json"]


def test_our_temp_file_is_named_for_our_pid_so_another_servers_is_untouched(
    tmp_path: Path,
) -> None:
    theirs = tmp_path / "assistant.json.1.tmp"
    theirs.write_text("half written by pid 1")
    Heartbeat(tmp_path, pid=2).write("s", "listening")
    assert theirs.read_text() == "half written by pid 1"
    assert not (tmp_path / "assistant.json.2.tmp").exists()


def test_the_folder_is_created_when_missing(tmp_path: Path) -> None:
    assert Heartbeat(tmp_path / "conf", pid=7).write("s", "listening")
    assert beat_of(tmp_path / "conf")["pid"] == 7


def test_a_write_that_fails_is_reported_on_stderr_not_raised(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "assistant.json").mkdir()
    (tmp_path / "assistant.json" / "keeps-it-from-being-replaced").write_text("")
    assert not Heartbeat(tmp_path).write("s", "listening")
    assert "heartbeat" in capsys.readouterr().err


def test_only_the_process_whose_pid_is_in_the_file_removes_it(
    tmp_path: Path, other_server: subprocess.Popen[bytes]
) -> None:
    assert not Heartbeat(tmp_path).remove_if_ours()
    assert beat_of(tmp_path)["pid"] == other_server.pid
    assert Heartbeat(tmp_path, pid=other_server.pid).remove_if_ours()
    assert not (tmp_path / "assistant.json").exists()


@pytest.mark.parametrize("content", [b"", b"{oops", b"[1]", b'{"pid": "123"}'])
def test_an_unreadable_heartbeat_is_never_removed_as_ours(tmp_path: Path, content: bytes) -> None:
    (tmp_path / "assistant.json").write_bytes(content)
    assert not Heartbeat(tmp_path, pid=123).remove_if_ours()
    assert (tmp_path / "assistant.json").read_bytes() == content


def test_a_reader_sees_a_fresh_heartbeat_of_a_live_process(
    tmp_path: Path, other_server: subprocess.Popen[bytes]
) -> None:
    now = time.time()
    view = HeartbeatView(pid=other_server.pid, session="2026-09-05T1608", state="speaking")
    assert read_heartbeat(tmp_path, now) == view
    updated = beat_of(tmp_path)["updated_at"]
    assert isinstance(updated, int)
    assert read_heartbeat(tmp_path, updated + 10) == view
    assert read_heartbeat(tmp_path, updated + 11) is None


def test_a_reader_ignores_the_heartbeat_of_a_process_killed_with_9(
    tmp_path: Path, other_server: subprocess.Popen[bytes]
) -> None:
    other_server.kill()
    other_server.wait()
    assert read_heartbeat(tmp_path, time.time()) is None


@pytest.mark.parametrize(
    "beat",
    [
        {"pid": 2**31, "session": "s", "state": "listening"},
        {"pid": 0, "session": "s", "state": "listening"},
        {"pid": True, "session": "s", "state": "listening"},
        {"session": "s", "state": "listening"},
        {"pid": "self", "session": "s", "state": "listening", "updated_at": "now"},
        ["not", "an", "object"],
    ],
)
def test_a_reader_rejects_a_heartbeat_it_cannot_trust(tmp_path: Path, beat: object) -> None:
    now = time.time()
    if isinstance(beat, dict):
        beat = {"updated_at": int(now), **beat}
        if beat.get("pid") == "self":
            beat["pid"] = os.getpid()
    (tmp_path / "assistant.json").write_text(json.dumps(beat))
    assert read_heartbeat(tmp_path, now) is None


def test_a_reader_takes_a_missing_state_as_listening(tmp_path: Path) -> None:
    now = time.time()
    beat = {"pid": os.getpid(), "session": "s", "updated_at": int(now)}
    (tmp_path / "assistant.json").write_text(json.dumps(beat))
    assert read_heartbeat(tmp_path, now) == HeartbeatView(os.getpid(), "s", "listening")


def test_a_missing_heartbeat_reads_as_nobody_listening(tmp_path: Path) -> None:
    assert read_heartbeat(tmp_path, time.time()) is None


@pytest.mark.parametrize(
    ("in_flight", "last_end", "now", "expected"),
    [
        (False, 0.0, 179.9, False),
        (False, 0.0, 180.0, True),
        (False, 100.0, 1000.0, True),
        (True, 0.0, 1000.0, False),
        (False, None, 1000.0, False),
    ],
)
def test_the_claim_lapses_180_s_after_the_last_call_ended_with_none_in_flight(
    in_flight: bool, last_end: float | None, now: float, expected: bool
) -> None:
    assert lapsed(in_flight, last_end, now) is expected


def wait_until(condition, timeout: float = 5.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the beat did not act in time"
        time.sleep(0.01)


def test_the_beat_rewrites_the_current_state_and_stops_when_told(tmp_path: Path) -> None:
    state = {"now": "listening"}
    beat = Beat(
        Heartbeat(tmp_path),
        claim=lambda: ("s", state["now"]),
        activity=lambda: (True, None),
        interval=0.02,
    )
    beat.start()
    wait_until(lambda: (tmp_path / "assistant.json").exists())
    state["now"] = "speaking"
    wait_until(lambda: beat_of(tmp_path)["state"] == "speaking")
    beat.stop()
    (tmp_path / "assistant.json").unlink()
    time.sleep(0.1)
    assert not (tmp_path / "assistant.json").exists(), "no beat after stop"


def test_the_beat_removes_our_claim_once_it_lapses_and_writes_again_after_a_call(
    tmp_path: Path,
) -> None:
    clock = {"now": 1000.0}
    activity = {"in_flight": False, "last_end": 900.0}
    beat = Beat(
        Heartbeat(tmp_path),
        claim=lambda: ("s", "listening"),
        activity=lambda: (activity["in_flight"], activity["last_end"]),
        interval=0.02,
        clock=lambda: clock["now"],
    )
    beat.start()
    wait_until(lambda: (tmp_path / "assistant.json").exists())
    clock["now"] = 1080.0
    wait_until(lambda: not (tmp_path / "assistant.json").exists())
    activity["in_flight"] = True
    wait_until(lambda: (tmp_path / "assistant.json").exists())
    beat.stop()


def test_a_lapsing_beat_leaves_another_servers_heartbeat_alone(
    tmp_path: Path, other_server: subprocess.Popen[bytes]
) -> None:
    beat = Beat(
        Heartbeat(tmp_path),
        claim=lambda: ("s", "listening"),
        activity=lambda: (False, 0.0),
        clock=lambda: 1000.0,
    )
    beat.beat()
    assert beat_of(tmp_path)["pid"] == other_server.pid


def test_a_failing_callback_is_reported_and_the_beat_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    calls = []

    def activity() -> tuple[bool, float | None]:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("state lock busy")
        return True, None

    beat = Beat(Heartbeat(tmp_path), lambda: ("s", "listening"), activity, interval=0.02)
    beat.start()
    wait_until(lambda: (tmp_path / "assistant.json").exists())
    beat.stop()
    assert "state lock busy" in capsys.readouterr().err
    assert not any(t.name == "assist-heartbeat" for t in threading.enumerate())
