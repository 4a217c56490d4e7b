"""Session folders on disk (behaviour 1.2-1.7, 3.3): ids, liveness, listings, transcripts.

A session is a real folder in the sessions root holding `session.json` or a growing
`audio/room.native.wav`. Symlinks are never followed: a symlinked session folder is not a
session, and a symlinked file inside one is refused by name. Everything here only reads, except
`create_session`, which `assist replay` uses to claim a new folder.

The `status` file of a session "reads as failed" (ours, since Ambient's wording is not
recorded) when its first line, trimmed, starts with `failed` or `error` in any letter case;
the `error` field of a listing row is then that whole trimmed line, which carries the reason.

`TranscriptReader` reads `raw.jsonl` incrementally: it keeps the byte offset where each
complete line ends, so a poll reads only what was appended and costs the same at line 50,000
as at line 50, and a cursor moved back (a cancelled wait) seeks straight to its line.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import threading
from array import array
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any, BinaryIO

from assist.core import json_text, refusals
from assist.core.files import (
    AUDIO_FOLDER,
    RAW_FILE,
    ROOM_WAV,
    SESSION_FILE,
    STATUS_FILE,
    TRANSCRIBING_LOCK,
    TRANSCRIPT_FILE,
)
from assist.core.lines import LineError, RawLine, line_view, parse_raw_line
from assist.mcp.diagnostics import note
from assist.mcp.store.pids import is_alive

GROWING_S = 10.0
"""A file is growing while its mtime is less than this before now. Ambient's capture loop
writes the native wav every 200 ms, and `assist replay` touches it at least once a second."""


FORBIDDEN_IN_ID = ("/", "\\", "\0")
"""An id is one path segment: no separator of any platform (ours: `\\` too) and no NUL."""
FAILED_PREFIXES = ("failed", "error")
"""A `status` file whose first line starts with one of these (any case) reads as failed."""
LONGEST_ERROR = 500
"""An `error` reason is cut to this many characters; the status file is one line by contract."""
STARTED_FORMAT = "%Y-%m-%dT%H%M"
"""Ambient's folder name: local start time to the minute."""
LAST_SUFFIX = 99
"""A taken folder name is retried with -02 .. -99 appended, then creation fails."""
NOT_SLUG = re.compile(r"[^a-z0-9]+")
"""A run of anything but lower-case ASCII letters and digits becomes one `-` in a slug."""

NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)
"""Opening with O_NOFOLLOW makes a symlink fail to open instead of being followed."""
SYMLINK_ERRNOS = {errno.ELOOP, errno.EMLINK}
"""What O_NOFOLLOW gives for a symlink: ELOOP on Linux and macOS, EMLINK on FreeBSD."""
BINARY = getattr(os, "O_BINARY", 0)
"""No newline translation on Windows."""


class SessionRefusal(Exception):
    """A session tool cannot do what was asked; the message is written for the agent."""


class SymlinkRefusal(SessionRefusal):
    """A file inside a session is a symlink, which is never followed."""


def validate_session_id(value: object) -> str | None:
    """None when `value` can be a session id (one path segment), else the refusal text."""
    if not isinstance(value, str):
        return refusals.session_id_not_text(value)
    if value in ("", ".", "..") or any(bad in value for bad in FORBIDDEN_IN_ID):
        return refusals.session_id_not_a_folder_name(value)
    return None


def is_growing(path: Path, now_wall: float) -> bool:
    """The file exists (not as a symlink) and changed less than 10 s before `now_wall`."""
    try:
        facts = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(facts.st_mode) and now_wall - facts.st_mtime < GROWING_S


def open_session_file(folder: Path, name: str) -> BinaryIO | None:
    """`folder/name` opened for binary reading, None when missing; SymlinkRefusal for a symlink.

    The lstat catches a symlink where O_NOFOLLOW does not exist; O_NOFOLLOW closes the gap
    between the check and the open where it does.
    """
    path = folder / name
    try:
        if stat.S_ISLNK(os.lstat(path).st_mode):
            raise SymlinkRefusal(_symlink_text(path))
        descriptor = os.open(path, os.O_RDONLY | NO_FOLLOW | BINARY)
    except FileNotFoundError:
        return None
    except OSError as error:
        if error.errno in SYMLINK_ERRNOS:
            raise SymlinkRefusal(_symlink_text(path)) from error
        raise
    return os.fdopen(descriptor, "rb")


def read_session_file(folder: Path, name: str) -> bytes | None:
    """The bytes of `folder/name`, None when it does not exist; SymlinkRefusal for a symlink."""
    file = open_session_file(folder, name)
    if file is None:
        return None
    with file:
        return file.read()


class SessionStore:
    """The sessions under one root; ids sort as strings and the newest is last."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._readers: dict[str, TranscriptReader] = {}

    def ids(self, now_wall: float) -> list[str]:
        """Every session id, oldest first."""
        return sorted(name for name in self._folders() if self._counts(name, now_wall))

    def session_dir(self, session: object, now_wall: float) -> Path:
        """The folder of a valid, existing session; SessionRefusal otherwise."""
        refusal = validate_session_id(session)
        if refusal is not None:
            raise SessionRefusal(refusal)
        assert isinstance(session, str)
        folder = self.root / session
        try:
            facts = os.lstat(folder)
        except OSError:
            facts = None
        if facts is not None and stat.S_ISLNK(facts.st_mode):
            raise SessionRefusal(refusals.session_is_a_symlink(session, str(self.root)))
        if facts is None or not self._counts(session, now_wall):
            raise SessionRefusal(refusals.no_such_session(session, str(self.root)))
        return folder

    def is_live(self, session: str, now_wall: float) -> bool:
        """Its `audio/room.native.wav` is growing."""
        audio = self.root / session / AUDIO_FOLDER
        return _is_real_dir(audio) and is_growing(audio / ROOM_WAV, now_wall)

    def live_session(self, now_wall: float) -> str | None:
        """The last, in id order, of the live sessions; None when nothing is being recorded."""
        live = [name for name in self._folders() if self.is_live(name, now_wall)]
        return max(live) if live else None

    def is_the_live_session(self, session: str, now_wall: float) -> bool:
        """Whether `session` is still the live session (1.6): it is live and no session after
        it in id order is. Only what could beat it is looked at, so a watch's poll costs one
        listing of the root and a stat or two per newer folder, however many older sessions
        the root holds."""
        if not self.is_live(session, now_wall):
            return False
        return not any(self.is_live(name, now_wall) for name in self._folders() if name > session)

    def is_transcribing(self, session: str) -> bool:
        """A live process's pid (decimal text) is in `transcribing.lock`."""
        try:
            content = read_session_file(self.root / session, TRANSCRIBING_LOCK)
        except (SessionRefusal, OSError):
            return False
        try:
            pid = int(content.decode("ascii").strip()) if content else 0
        except (UnicodeDecodeError, ValueError):
            return False
        return is_alive(pid)

    def is_transcribed(self, session: str) -> bool:
        """`transcript.md` exists (as a file, not a symlink)."""
        try:
            return stat.S_ISREG(os.lstat(self.root / session / TRANSCRIPT_FILE).st_mode)
        except OSError:
            return False

    def state(self, session: str, now_wall: float) -> str:
        """`live`, `transcribing`, `done` or `pending`: the first that holds (1.7)."""
        if self.is_live(session, now_wall):
            return "live"
        if self.is_transcribing(session):
            return "transcribing"
        if self.is_transcribed(session):
            return "done"
        return "pending"

    def rows(self, now_wall: float) -> list[dict[str, Any]]:
        """The `sessions` tool's rows, newest first (3.3)."""
        return [self._row(name, now_wall) for name in reversed(self.ids(now_wall))]

    def status(self, now_wall: float) -> dict[str, Any]:
        """The `status` tool's result: the live session, sessions pending, all sessions."""
        ids = self.ids(now_wall)
        live = self.live_session(now_wall)
        pending = sum(1 for name in ids if self.state(name, now_wall) == "pending")
        return {
            "live": None if live is None else {"id": live},
            "awaiting_transcript": pending,
            "sessions": len(ids),
        }

    def reader(self, session: str, now_wall: float) -> TranscriptReader:
        """The incremental reader of a session's `raw.jsonl`, kept for the store's life."""
        folder = self.session_dir(session, now_wall)
        reader = self._readers.get(session)
        if reader is None:
            reader = self._readers[session] = TranscriptReader(folder / RAW_FILE)
        return reader

    def transcript(
        self, session: object, since: int, now_wall: float, *, verbatim: bool = False
    ) -> dict[str, Any]:
        """The `transcript` tool's result {session, state, next, lines} (1.5).

        `verbatim` is accepted and changes nothing yet: the edit fold applies no edits until
        Ambient's edit format is written down, so folded and verbatim reads are equal.
        """
        folder = self.session_dir(session, now_wall)
        assert isinstance(session, str)
        lines, next_line = self.reader(session, now_wall).read(since)
        return {
            "session": session,
            "state": self.state(folder.name, now_wall),
            "next": next_line,
            "lines": [line_view(line) for line in lines],
        }

    def _folders(self) -> Iterator[str]:
        """Names of the real (not symlinked) folders in the root; none when it is missing."""
        try:
            entries = list(os.scandir(self.root))
        except OSError:
            return
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    yield entry.name
            except OSError:
                continue

    def _counts(self, name: str, now_wall: float) -> bool:
        """A real folder holding `session.json` or a growing room wav counts as a session."""
        folder = self.root / name
        if not _is_real_dir(folder):
            return False
        try:
            os.lstat(folder / SESSION_FILE)
        except OSError:
            return self.is_live(name, now_wall)
        return True

    def _row(self, name: str, now_wall: float) -> dict[str, Any]:
        folder = self.root / name
        meta = _session_json(folder)
        name_value = meta.get("name")
        started = meta.get("started_at")
        duration = meta.get("duration_s")
        tags = meta.get("tags")
        pinned = meta.get("pinned")
        return {
            "id": name,
            "dir": str(folder),
            "name": name_value if isinstance(name_value, str) else None,
            "started_at": started if isinstance(started, str) else None,
            "duration_s": duration if _is_number(duration) else None,
            "transcribed": self.is_transcribed(name),
            "live": self.is_live(name, now_wall),
            "transcribing": self.is_transcribing(name),
            "error": _failure(folder),
            "tags": tags if isinstance(tags, list) else [],
            "pinned": pinned if isinstance(pinned, bool) else False,
        }


class TranscriptReader:
    """Reads `raw.jsonl` from a remembered byte offset; `read(since)` -> (lines, next).

    `bytes_read` counts every byte read from the file over the reader's life, so a test can
    see that a poll reads only what was appended. `corrupt_lines` counts distinct complete
    lines that were not blank and could not be read as a raw line; each is reported on stderr
    once. One reader may be shared by threads: reads take turns.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.bytes_read = 0
        self._ends: array[int] = array("Q")
        self._inode: int | None = None
        self._reported: set[int] = set()
        self._reading = threading.Lock()

    @property
    def corrupt_lines(self) -> int:
        return len(self._reported)

    @property
    def offset(self) -> int:
        """Byte offset just past the last complete line seen."""
        return self._ends[-1] if self._ends else 0

    def read(self, since: int) -> tuple[list[RawLine], int]:
        """Lines after the first `since` complete lines, and `next` = complete lines in the file.

        A trailing fragment without its newline is not a line yet. A blank or unreadable
        complete line counts toward `next` but gives no entry. No file: ([], 0).
        """
        numbered, next_line = self.read_numbered(since)
        return [line for _, line in numbered], next_line

    def read_numbered(self, since: int) -> tuple[list[tuple[int, RawLine]], int]:
        """As `read`, with each line's number in the file (from 0), so a reader that takes only
        some of them (`confirm` stops at its answer) can put its cursor just after the last."""
        since = max(0, since)
        with self._reading:
            file = open_session_file(self.path.parent, self.path.name)
            if file is None:
                self._forget()
                return [], 0
            with file:
                facts = os.fstat(file.fileno())
                if facts.st_ino != self._inode or facts.st_size < self.offset:
                    self._forget()
                    self._inode = facts.st_ino
                first = min(since, len(self._ends))
                start = self._ends[first - 1] if first else 0
                file.seek(start)
                data = file.read()
            self.bytes_read += len(data)
            return self._take(data, start, first, since), len(self._ends)

    def _take(self, data: bytes, start: int, first: int, since: int) -> list[tuple[int, RawLine]]:
        lines: list[tuple[int, RawLine]] = []
        position, number = 0, first
        while (newline := data.find(b"\n", position)) >= 0:
            if number == len(self._ends):
                self._ends.append(start + newline + 1)
            if number >= since:
                line = self._parse(data[position:newline], number)
                if line is not None:
                    lines.append((number, line))
            position, number = newline + 1, number + 1
        return lines

    def _parse(self, raw: bytes, number: int) -> RawLine | None:
        text = raw.decode("utf-8", errors="replace")
        if not text.strip():
            return None
        try:
            return parse_raw_line(text)
        except LineError as error:
            if number not in self._reported:
                self._reported.add(number)
                note(f"{self.path} line {number + 1} skipped, it is not a transcript line: {error}")
            return None

    def _forget(self) -> None:
        """The file shrank, was replaced or vanished: start again from its first byte."""
        self._ends = array("Q")
        self._inode = None
        self._reported.clear()


def slug(name: str) -> str:
    """Lower-case ASCII letters and digits; each run of anything else one `-`, none at the ends."""
    return NOT_SLUG.sub("-", name.lower()).strip("-")


def session_name(started: datetime, name: str | None) -> str:
    """Ambient's folder name: `%Y-%m-%dT%H%M`, plus `-<slug>` when the slug is not empty."""
    base = started.strftime(STARTED_FORMAT)
    tail = slug(name) if name else ""
    return f"{base}-{tail}" if tail else base


def create_session(root: Path, started: datetime, name: str | None = None) -> Path:
    """Claim a new session folder with one atomic mkdir, trying -02 .. -99 when taken."""
    root.mkdir(parents=True, exist_ok=True)
    base = session_name(started, name)
    for candidate in [base, *(f"{base}-{n:02d}" for n in range(2, LAST_SUFFIX + 1))]:
        folder = root / candidate
        try:
            folder.mkdir()
        except FileExistsError:
            continue
        return folder
    raise FileExistsError(
        errno.EEXIST,
        f"{base} and every name from {base}-02 to {base}-{LAST_SUFFIX} are taken in {root}; "
        "name the recording differently or wait a minute",
    )


def _is_real_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _session_json(folder: Path) -> dict[str, Any]:
    """`session.json` as an object; {} when absent, a symlink or unreadable (defaults apply).
    A file that does not parse is skipped with its error on stderr (3.1)."""
    try:
        content = read_session_file(folder, SESSION_FILE)
        meta = json_text.parse_bytes(content) if content is not None else {}
    except (SessionRefusal, OSError):
        return {}
    except json_text.Unreadable as error:
        note(f"{folder / SESSION_FILE} cannot be read ({error}); listing the session without it")
        return {}
    return meta if isinstance(meta, dict) else {}


def _failure(folder: Path) -> str | None:
    """The status file's first line when it reads as failed, else None."""
    try:
        content = read_session_file(folder, STATUS_FILE)
    except (SessionRefusal, OSError):
        return None
    if not content:
        return None
    lines = content.decode("utf-8", errors="replace").strip().splitlines()
    first = lines[0].strip() if lines else ""
    if first.lower().startswith(FAILED_PREFIXES):
        return first[:LONGEST_ERROR]
    return None


def _symlink_text(path: Path) -> str:
    return (
        f"{path.name} in session {path.parent.name!r} is a symlink; symlinks are never "
        "followed, so it was not read. Replace it with the real file."
    )
