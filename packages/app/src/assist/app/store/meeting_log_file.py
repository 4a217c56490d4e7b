"""A meeting's `assistant.jsonl` on disk (behaviour 5.2): appends no reader can see torn.

Each event is encoded by `assist.core.meeting_log.encode_event` (compact JSON plus "\\n") and
written with one `os.write` to a descriptor opened with O_APPEND, so lines from several
processes never interleave and a crash leaves at most a torn last line, which readers ignore.
An append after such a torn line (a writer killed mid-line) starts with a newline, in the same
write, so our event is a line of its own instead of being glued to the torn one and lost (ours).
A failed append is reported on stderr and never raised: the speech goes on and the local gate
still counts. The file is never followed through a symlink, like every file in a session.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import Any

from assist.app.logs import log
from assist.app.store.session_files import NO_FOLLOW, SessionRefusal, read_session_file
from assist.core.files import LOG_FILE
from assist.core.meeting_log import encode_event

FILE_MODE = 0o644
"""Readable by the user's other tools (Ambient's menu reads the session), written only by us."""


def now() -> datetime:
    """Local time with offset, as every log event's `at` is written (5.2)."""
    return datetime.now().astimezone()


class MeetingLogFile:
    """The log of one session: `append(event)` and `text()` for the gate's tally."""

    def __init__(self, session_dir: Path) -> None:
        self.folder = session_dir
        self.path = session_dir / LOG_FILE

    def append(self, event: dict[str, Any]) -> bool:
        """Append one event with a single write; False (and a note on stderr) when it failed."""
        data = encode_event(event).encode("utf-8")
        flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | NO_FOLLOW | getattr(os, "O_BINARY", 0)
        try:
            descriptor = os.open(self.path, flags, FILE_MODE)
            try:
                if _ends_torn(descriptor):
                    data = b"\n" + data
                written = os.write(descriptor, data)
            finally:
                os.close(descriptor)
        except OSError as error:
            log.warning(
                f"could not log the {event.get('event')!r} event to {self.path} ({error}); "
                "the meeting goes on, but other watchers will not see it"
            )
            return False
        if written != len(data):
            log.warning(f"only {written} of {len(data)} bytes of an event reached {self.path}")
            return False
        return True

    def text(self) -> str:
        """The whole log as text ("" when there is none or it cannot be read, noted on stderr)."""
        try:
            content = read_session_file(self.folder, LOG_FILE)
        except (SessionRefusal, OSError) as error:
            log.warning(f"could not read {self.path} ({error}); counting no earlier utterances")
            return ""
        return "" if content is None else content.decode("utf-8", errors="replace")


def _ends_torn(descriptor: int) -> bool:
    """Whether the file's last byte is not a newline (a line left unfinished). Another writer
    finishing its line meanwhile costs only a blank line, which readers skip."""
    if os.fstat(descriptor).st_size == 0:
        return False
    os.lseek(descriptor, -1, os.SEEK_END)  # O_APPEND still writes at the end
    return os.read(descriptor, 1) != b"\n"
