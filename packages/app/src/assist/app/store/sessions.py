"""The sessions under one root (behaviour 1.2-1.7, 3.3): ids, liveness, states, listings.

A session is a real folder in the sessions root holding `session.json` or a growing
`audio/room.native.wav`. Symlinks are never followed: a symlinked session folder is not a
session, and a symlinked file inside one is refused by name (`session_files`). Everything
here only reads; new folders are claimed by `new_session`, transcripts read by `transcript`.

The `status` file of a session "reads as failed" (ours, since Ambient's wording is not
recorded) when its first line, trimmed, starts with `failed` or `error` in any letter case;
the `error` field of a listing row is then that whole trimmed line, which carries the reason.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from assist.app.logs import log
from assist.app.store.pids import is_alive
from assist.app.store.session_files import (
    SessionRefusal,
    is_growing,
    is_real_dir,
    read_session_file,
)
from assist.app.store.transcript import TranscriptReader
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
from assist.core.lines import line_view

FORBIDDEN_IN_ID = ("/", "\\", "\0")
"""An id is one path segment: no separator of any platform (ours: `\\` too) and no NUL."""
FAILED_PREFIXES = ("failed", "error")
"""A `status` file whose first line starts with one of these (any case) reads as failed."""
LONGEST_ERROR = 500
"""An `error` reason is cut to this many characters; the status file is one line by contract."""


def validate_session_id(value: object) -> str | None:
    """None when `value` can be a session id (one path segment), else the refusal text."""
    if not isinstance(value, str):
        return refusals.session_id_not_text(value)
    if value in ("", ".", "..") or any(bad in value for bad in FORBIDDEN_IN_ID):
        return refusals.session_id_not_a_folder_name(value)
    return None


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
        return is_real_dir(audio) and is_growing(audio / ROOM_WAV, now_wall)

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
        """A real folder holding `session.json` or a growing room wav counts as a session.

        The wav is looked at first: a recording ends by writing `session.json` and then
        removing the wav, so a session that ends between the two looks is found by the second.
        Looked at the other way round, a reader polling the session as it ended was told there
        was no such session."""
        folder = self.root / name
        if not is_real_dir(folder):
            return False
        if self.is_live(name, now_wall):
            return True
        try:
            os.lstat(folder / SESSION_FILE)
        except OSError:
            return False
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
            "tags": _strings(tags),
            "pinned": pinned if isinstance(pinned, bool) else False,
        }


def _strings(value: object) -> list[str]:
    """The strings of a list, in order; anything else in it (a nested value could be too deep
    to write back out, and would break every listing) is left out."""
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


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
        log.warning(
            f"{folder / SESSION_FILE} cannot be read ({error}); listing the session without it"
        )
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
