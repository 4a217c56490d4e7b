"""Which pids name a running process: the rule the lock, heartbeat and sessions share."""

from __future__ import annotations

import errno
import os
import subprocess
import sys

import pytest
from assist.app.store import pids
from assist.app.store.pids import fits_pid, is_alive


@pytest.mark.parametrize("value", [1, 4242, 2**31 - 1])
def test_a_positive_int32_fits_a_pid(value: int) -> None:
    assert fits_pid(value)


@pytest.mark.parametrize("value", [0, -1, 2**31, 2**63, True, 12.0, "12", None])
def test_anything_else_is_not_a_pid_and_never_alive(value: object) -> None:
    assert not fits_pid(value)
    assert not is_alive(value)


def test_this_process_is_alive() -> None:
    assert is_alive(os.getpid())


def test_a_child_killed_with_9_and_reaped_is_dead() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    assert is_alive(child.pid)
    child.kill()
    child.wait()
    assert not is_alive(child.pid)


def test_a_process_of_another_user_counts_as_alive(monkeypatch: pytest.MonkeyPatch) -> None:
    def not_permitted(pid: int, signal: int) -> None:
        raise PermissionError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(pids.os, "kill", not_permitted)
    assert is_alive(4242)
