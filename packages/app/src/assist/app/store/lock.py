"""`speaking.lock` (behaviour 5.4): one voice at a time among every assistant and `ambient talk`.

It is not an OS lock but an exclusive file, `{"pid":<int>,"who":"<who>"}`, beside the config
file, shared with Ambient. A holder whose process is gone is taken over; nothing is ever
signalled. The content is written completely before the lock appears: it is staged in
`speaking.<pid>-<n>.tmp` and hard-linked to `speaking.lock`, which fails if the lock exists.
Where hard links are not supported, the lock is created exclusively and then written, so an
empty or unparseable lock may be a writer mid-write: it counts as held until it is 10 s old.

A lock is only ever deleted when its content is still exactly what was read (compare-and-
delete), so a process never removes a lock another process has just taken.
"""

from __future__ import annotations

import errno
import itertools
import os
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType

from assist.app.logs import log
from assist.app.store.pids import fits_pid, is_alive
from assist.core import json_text
from assist.core.files import LOCK_FILE, LOCK_WAIT_S

POLL_S = 0.05
"""How often a busy lock is looked at again while waiting (Ambient's interval)."""
STALE_S = 10.0
"""An empty or unparseable lock is a writer mid-write until it is this old, then stale (ours;
Ambient's threshold is unrecorded, at most 60 s). A real write takes microseconds."""
STAGED = re.compile(r"speaking\.([0-9]+)-([0-9]+)\.tmp")
"""Exactly the names of staged lock files; anything else in the folder is left alone."""
NO_HARD_LINKS = {errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS, errno.EXDEV}
"""What `link` reports on file systems without hard links (FAT, some network shares)."""

_staged_numbers = itertools.count()
"""`n` in staged names, counting up across every lock object in this process."""


class LockBusy(Exception):
    """Another voice has the floor: `who` and `pid` from its lock, both None when unreadable."""

    def __init__(self, who: str | None, pid: int | None) -> None:
        self.who = who
        self.pid = pid
        holder = "an unreadable holder" if who is None else f"{who!r} (pid {pid})"
        super().__init__(f"{LOCK_FILE} is held by {holder}")


class SpeakingLock:
    """The lock file in `folder`, taken and released by this process (`pid`)."""

    def __init__(self, folder: Path, *, pid: int | None = None) -> None:
        self.folder = folder
        self.path = folder / LOCK_FILE
        self.pid = os.getpid() if pid is None else pid
        self._ours: bytes | None = None

    @property
    def held(self) -> bool:
        return self._ours is not None

    def acquire(self, who: str = "assistant", wait: float = LOCK_WAIT_S) -> None:
        """Take the lock, polling every 50 ms for up to `wait` seconds; LockBusy past that."""
        content = json_text.dumps({"pid": self.pid, "who": who}).encode("utf-8")
        deadline = time.monotonic() + wait
        while True:
            self._sweep()
            if self._create(content):
                self._ours = content
                return
            busy = self._clear_stale()
            if busy is None:
                continue
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise busy
            time.sleep(min(POLL_S, remaining))

    def release(self) -> None:
        """Delete the lock if it still holds our content; a lock taken over is left alone."""
        if self._ours is not None:
            if not _delete_if_same(self.path, self._ours):
                log.warning(
                    f"could not delete {self.path}; other voices wait until this process ends"
                )
            self._ours = None

    @contextmanager
    def holding(self, who: str = "assistant", wait: float = LOCK_WAIT_S) -> Iterator[None]:
        """`with lock.holding("assistant", 5.0):` acquire, then release however the block ends."""
        self.acquire(who, wait)
        try:
            yield
        finally:
            self.release()

    def __enter__(self) -> SpeakingLock:
        self.acquire()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.release()

    def _sweep(self) -> None:
        """Delete staged files whose pid is not alive; other names and live pids stay."""
        try:
            names = os.listdir(self.folder)
        except OSError:
            return
        for name in names:
            match = STAGED.fullmatch(name)
            if match and not is_alive(int(match.group(1))):
                (self.folder / name).unlink(missing_ok=True)

    def _create(self, content: bytes) -> bool:
        """Make the lock ours if it does not exist: stage and hard-link, else create exclusively."""
        self.folder.mkdir(parents=True, exist_ok=True)
        staged = self._stage(content)
        try:
            os.link(staged, self.path)
        except FileExistsError:
            return False
        except OSError as error:
            if error.errno not in NO_HARD_LINKS:
                raise
            return self._create_exclusively(content)
        finally:
            staged.unlink(missing_ok=True)
        return True

    def _stage(self, content: bytes) -> Path:
        """Write `content` to a fresh `speaking.<pid>-<n>.tmp`.

        A name already taken can only be left by an earlier process that had our pid (the
        counter never repeats here), so it is deleted and the next number used.
        """
        while True:
            staged = self.folder / f"speaking.{self.pid}-{next(_staged_numbers)}.tmp"
            try:
                _write_new(staged, content)
            except FileExistsError:
                staged.unlink(missing_ok=True)
                continue
            return staged

    def _create_exclusively(self, content: bytes) -> bool:
        try:
            _write_new(self.path, content)
        except FileExistsError:
            return False
        return True

    def _clear_stale(self) -> LockBusy | None:
        """Look at the existing lock: delete it if stale (None: retry at once), else say who."""
        try:
            seen = self.path.read_bytes()
            age = time.time() - os.stat(self.path).st_mtime
        except FileNotFoundError:
            return None
        holder = _parse(seen)
        if holder is not None:
            who, pid = holder
            if fits_pid(pid) and is_alive(pid):
                return LockBusy(who, pid)
        elif age < STALE_S:
            return LockBusy(None, None)
        if _delete_if_same(self.path, seen):
            return None
        return LockBusy(*holder) if holder is not None else LockBusy(None, None)


def _parse(content: bytes) -> tuple[str, int] | None:
    """(who, pid) from a lock's content, None when it is empty or not such an object.

    Not noted on stderr: a lock that does not parse is usually one being written, and the
    acquire loop reads it every 50 ms."""
    try:
        holder = json_text.parse_bytes(content)
    except json_text.Unreadable:
        return None
    if not isinstance(holder, dict):
        return None
    who, pid = holder.get("who"), holder.get("pid")
    if not isinstance(who, str) or not isinstance(pid, int) or isinstance(pid, bool):
        return None
    return who, pid


def _write_new(path: Path, content: bytes) -> None:
    """Create `path` (FileExistsError if it exists) holding exactly `content`."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0))
    try:
        os.write(descriptor, content)
    finally:
        os.close(descriptor)


def _delete_if_same(path: Path, content: bytes) -> bool:
    """Delete `path` only if it still holds `content`.

    True when it was deleted, is gone, or changed meanwhile (look again at once); False only
    when it could not be deleted, so the caller waits instead of spinning.
    """
    try:
        if path.read_bytes() == content:
            path.unlink()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return True
