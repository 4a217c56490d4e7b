"""The files inside a session folder (behaviour 1.2-1.6), read without following symlinks.

A symlinked file inside a session is refused by name (`SymlinkRefusal`) rather than followed,
and so is anything but a regular file (a FIFO would block the reader for ever). The files'
names are `assist.core.files`'.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

GROWING_S = 10.0
"""A file is growing while its mtime is less than this before now. Ambient's capture loop
writes the native wav every 200 ms, and `assist replay` touches it at least once a second."""

NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)
"""Opening with O_NOFOLLOW makes a symlink fail to open instead of being followed."""
SYMLINK_ERRNOS = {errno.ELOOP, errno.EMLINK}
"""What O_NOFOLLOW gives for a symlink: ELOOP on Linux and macOS, EMLINK on FreeBSD."""
NON_BLOCK = getattr(os, "O_NONBLOCK", 0)
"""A FIFO opens at once without a writer, so it can be seen and refused (not on Windows)."""
BINARY = getattr(os, "O_BINARY", 0)
"""No newline translation on Windows."""


class SessionRefusal(Exception):
    """A session tool cannot do what was asked; the message is written for the agent."""


class SymlinkRefusal(SessionRefusal):
    """A file inside a session is a symlink, which is never followed."""


def is_growing(path: Path, now_wall: float) -> bool:
    """The file exists (not as a symlink) and changed less than 10 s before `now_wall`."""
    try:
        facts = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(facts.st_mode) and now_wall - facts.st_mtime < GROWING_S


def open_session_file(folder: Path, name: str) -> BinaryIO | None:
    """`folder/name` opened for binary reading, None when missing; SymlinkRefusal for a
    symlink, SessionRefusal for anything else that is not a regular file.

    The lstat catches a symlink where O_NOFOLLOW does not exist; O_NOFOLLOW closes the gap
    between the check and the open where it does. O_NONBLOCK lets a FIFO open without a
    writer, so that the fstat can refuse it instead of the open waiting for ever.
    """
    path = folder / name
    try:
        if stat.S_ISLNK(os.lstat(path).st_mode):
            raise SymlinkRefusal(_symlink_text(path))
        descriptor = os.open(path, os.O_RDONLY | NON_BLOCK | NO_FOLLOW | BINARY)
    except FileNotFoundError:
        return None
    except OSError as error:
        if error.errno in SYMLINK_ERRNOS:
            raise SymlinkRefusal(_symlink_text(path)) from error
        raise
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise SessionRefusal(_not_a_file_text(path))
    return os.fdopen(descriptor, "rb")


def read_session_file(folder: Path, name: str) -> bytes | None:
    """The bytes of `folder/name`, None when it does not exist; SymlinkRefusal for a symlink."""
    file = open_session_file(folder, name)
    if file is None:
        return None
    with file:
        return file.read()


def is_real_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _symlink_text(path: Path) -> str:
    return (
        f"{path.name} in session {path.parent.name!r} is a symlink; symlinks are never "
        "followed, so it was not read. Replace it with the real file."
    )


def _not_a_file_text(path: Path) -> str:
    return (
        f"{path.name} in session {path.parent.name!r} is not a regular file (a pipe, a "
        "device or a folder), so it was not read. Replace it with the real file."
    )
