"""Whether a process id names a running process, for the lock, the heartbeat and sessions.

A pid is usable only when it is an integer (not a bool) above 0 that fits a signed 32-bit
integer: Ambient writes pids as `i32`, and anything outside that range cannot be a process.

Liveness on POSIX is `os.kill(pid, 0)`. Ambient counts only a return of 0 as alive, so a
process of another user (EPERM) reads as dead there. We choose the other way (ours): EPERM
means the process exists, so it reads as alive. Taking over a lock or removing a heartbeat
that another user's live process holds would let two voices talk at once; leaving a truly dead
holder's file alone costs at most a refused line until that file is cleaned up. On Windows the
process is opened and its exit code checked (best effort).
"""

from __future__ import annotations

import errno
import os
import sys

PID_MAX = 2**31 - 1
"""Largest pid that fits a signed 32-bit integer, the type Ambient reads and writes pids as."""

STILL_ACTIVE = 259
"""Windows exit code reported for a process that has not exited."""


def fits_pid(value: object) -> bool:
    """True when `value` is an int (not a bool) in 1..2**31-1."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value <= PID_MAX


def is_alive(pid: object) -> bool:
    """True when `pid` is a usable pid and a process with it exists (EPERM counts as alive)."""
    if not fits_pid(pid):
        return False
    assert isinstance(pid, int)
    if sys.platform == "win32":
        return _alive_on_windows(pid)
    try:
        os.kill(pid, 0)
    except OSError as error:
        return error.errno == errno.EPERM
    return True


def _alive_on_windows(pid: int) -> bool:
    import ctypes

    kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
    query_limited_information = 0x1000
    handle = kernel32.OpenProcess(query_limited_information, False, pid)
    if not handle:
        access_denied = 5
        return bool(kernel32.GetLastError() == access_denied)
    try:
        code = ctypes.c_ulong()
        if not kernel32.GetExitCodeProcess(handle, ctypes.byref(code)):
            return True
        return code.value == STILL_ACTIVE
    finally:
        kernel32.CloseHandle(handle)
