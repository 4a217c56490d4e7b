"""`speaking.lock` with real processes: exclusion, takeover, staleness, sweeping (5.4)."""

from __future__ import annotations

import errno
import itertools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from assist.app.store import lock as lock_module
from assist.app.store.lock import LockBusy, SpeakingLock

HOLD_UNTIL_KILLED = """
import sys, time
from pathlib import Path
from assist.app.store.lock import SpeakingLock
SpeakingLock(Path(sys.argv[1])).acquire(who=sys.argv[2], wait=5)
print("held", flush=True)
time.sleep(600)
"""

CONTEND = """
import json, sys, time
from pathlib import Path
from assist.app.store.lock import SpeakingLock
lock, turns = SpeakingLock(Path(sys.argv[1])), []
for _ in range(int(sys.argv[2])):
    lock.acquire(wait=20)
    start = time.monotonic()
    time.sleep(0.02)
    turns.append([start, time.monotonic(), sys.argv[3]])
    lock.release()
    time.sleep(0.06)
print(json.dumps(turns))
"""


def content(pid: int, who: str = "assistant") -> bytes:
    return json.dumps({"pid": pid, "who": who}, separators=(",", ":")).encode()


def dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def age(path: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


@pytest.fixture
def holder(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A separate process holding the lock as `talk` until it is killed."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLD_UNTIL_KILLED, str(tmp_path), "talk"], stdout=subprocess.PIPE
    )
    assert process.stdout is not None
    assert process.stdout.readline() == b"held\n"
    yield process
    process.kill()
    process.wait()


def test_the_lock_holds_our_pid_and_who_and_release_removes_it(tmp_path: Path) -> None:
    lock = SpeakingLock(tmp_path)
    lock.acquire("assistant", wait=0)
    assert (tmp_path / "speaking.lock").read_bytes() == content(os.getpid())
    lock.release()
    assert os.listdir(tmp_path) == [], "nothing staged remains after a release"


def test_a_live_holder_in_another_process_keeps_the_floor_and_is_named(
    tmp_path: Path, holder: subprocess.Popen[bytes]
) -> None:
    started = time.monotonic()
    with pytest.raises(LockBusy) as busy:
        SpeakingLock(tmp_path).acquire(wait=0.3)
    assert time.monotonic() - started >= 0.3
    assert (busy.value.who, busy.value.pid) == ("talk", holder.pid)
    assert (tmp_path / "speaking.lock").read_bytes() == content(holder.pid, "talk")


def test_a_kill_9_holder_is_taken_over(tmp_path: Path, holder: subprocess.Popen[bytes]) -> None:
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    lock = SpeakingLock(tmp_path)
    lock.acquire(wait=1)
    assert (tmp_path / "speaking.lock").read_bytes() == content(os.getpid())
    lock.release()


def test_two_processes_contending_never_hold_the_lock_at_the_same_time(tmp_path: Path) -> None:
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", CONTEND, str(tmp_path), "15", name], stdout=subprocess.PIPE
        )
        for name in ("first", "second")
    ]
    turns = sorted(
        turn for process in processes for turn in json.loads(process.communicate(timeout=60)[0])
    )
    assert len(turns) == 30
    for (_, end, _), (next_start, _, _) in itertools.pairwise(turns):
        assert end <= next_start, "two holders overlapped"
    owners = [owner for _, _, owner in turns]
    switches = sum(1 for a, b in itertools.pairwise(owners) if a != b)
    assert switches >= 2, "the processes really took turns"
    assert os.listdir(tmp_path) == []


def test_a_waiting_acquire_gets_the_lock_soon_after_the_holder_lets_go(tmp_path: Path) -> None:
    script = (
        "import sys, time; from pathlib import Path;"
        " from assist.app.store.lock import SpeakingLock;"
        "lock = SpeakingLock(Path(sys.argv[1])); lock.acquire(wait=5); print('held', flush=True);"
        "time.sleep(0.4); lock.release()"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", script, str(tmp_path)], stdout=subprocess.PIPE
    )
    assert process.stdout is not None and process.stdout.readline() == b"held\n"
    started = time.monotonic()
    with SpeakingLock(tmp_path).holding(wait=5):
        waited = time.monotonic() - started
    process.wait()
    assert 0.2 < waited < 2.0


@pytest.mark.parametrize("pid", ["dead", 0, -4, 2**31, 2**40])
def test_a_lock_with_a_dead_or_impossible_pid_is_taken_at_once(
    tmp_path: Path, pid: int | str
) -> None:
    holder = dead_pid() if pid == "dead" else pid
    assert isinstance(holder, int)
    (tmp_path / "speaking.lock").write_bytes(content(holder, "talk"))
    lock = SpeakingLock(tmp_path)
    started = time.monotonic()
    lock.acquire(wait=0)
    assert time.monotonic() - started < 0.5
    assert (tmp_path / "speaking.lock").read_bytes() == content(os.getpid())


@pytest.mark.parametrize(
    "unreadable", [b"", b'{"pid": 12', b"[1, 2]", b'{"pid": "12", "who": "x"}']
)
def test_an_empty_or_unparseable_lock_is_held_while_fresh_then_stale_after_10_s(
    tmp_path: Path, unreadable: bytes
) -> None:
    path = tmp_path / "speaking.lock"
    path.write_bytes(unreadable)
    age(path, 9)
    with pytest.raises(LockBusy) as busy:
        SpeakingLock(tmp_path).acquire(wait=0.1)
    assert (busy.value.who, busy.value.pid) == (None, None)
    assert "unreadable" in str(busy.value)
    age(path, 10.5)
    SpeakingLock(tmp_path).acquire(wait=0)
    assert path.read_bytes() == content(os.getpid())


def test_only_dead_pids_staged_files_of_exactly_that_name_are_swept(tmp_path: Path) -> None:
    gone = dead_pid()
    live = os.getppid()
    kept = [
        f"speaking.{live}-3.tmp",
        "notes.999999-0.tmp",
        f"speaking.{gone}-0.tmp.bak",
        "speaking.abc-1.tmp",
        f"speaking.{gone}.tmp",
    ]
    for name in [*kept, f"speaking.{gone}-0.tmp", f"speaking.{gone}-17.tmp", "speaking.0-1.tmp"]:
        (tmp_path / name).write_text("{}")
    lock = SpeakingLock(tmp_path)
    lock.acquire(wait=0)
    lock.release()
    assert sorted(os.listdir(tmp_path)) == sorted(kept)


def test_release_leaves_a_lock_that_is_no_longer_ours(tmp_path: Path) -> None:
    lock = SpeakingLock(tmp_path)
    lock.acquire(wait=0)
    (tmp_path / "speaking.lock").write_bytes(content(os.getppid(), "talk"))
    lock.release()
    assert (tmp_path / "speaking.lock").read_bytes() == content(os.getppid(), "talk")


def test_our_own_live_pid_in_the_lock_still_means_busy(tmp_path: Path) -> None:
    first = SpeakingLock(tmp_path)
    first.acquire(wait=0)
    with pytest.raises(LockBusy):
        SpeakingLock(tmp_path).acquire(wait=0.1)
    first.release()


def test_without_hard_links_the_lock_is_created_exclusively(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_links(source: object, target: object) -> None:
        raise OSError(errno.EPERM, "hard links are not supported here")

    monkeypatch.setattr(lock_module.os, "link", no_links)
    first = SpeakingLock(tmp_path)
    first.acquire(wait=0)
    assert (tmp_path / "speaking.lock").read_bytes() == content(os.getpid())
    with pytest.raises(LockBusy):
        SpeakingLock(tmp_path).acquire(wait=0.1)
    first.release()
    assert os.listdir(tmp_path) == []


def test_a_staged_name_left_by_an_earlier_process_with_our_pid_does_not_block(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lock_module, "_staged_numbers", itertools.count())
    for n in range(5):
        (tmp_path / f"speaking.{os.getpid()}-{n}.tmp").write_text("left over")
    lock = SpeakingLock(tmp_path)
    lock.acquire(wait=0)
    assert (tmp_path / "speaking.lock").read_bytes() == content(os.getpid())
    lock.release()
    assert os.listdir(tmp_path) == []


def test_the_context_manager_releases_when_the_block_raises(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError), SpeakingLock(tmp_path):
        assert (tmp_path / "speaking.lock").exists()
        raise RuntimeError("the voice broke")
    assert not (tmp_path / "speaking.lock").exists()
