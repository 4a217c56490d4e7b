"""Reading a session's `raw.jsonl` incrementally (behaviour 1.4, 1.5).

`TranscriptReader` keeps the byte offset where each complete line ends, so a poll reads only
what was appended and costs the same at line 50,000 as at line 50, and a cursor moved back (a
cancelled wait) seeks straight to its line.
"""

from __future__ import annotations

import os
import threading
from array import array
from pathlib import Path

from assist.app.logs import log
from assist.app.store.session_files import open_session_file
from assist.core.lines import LineError, RawLine, parse_raw_line


class TranscriptReader:
    """Reads `raw.jsonl` from a remembered byte offset; `read(since)` -> (lines, next).

    A complete line that is not blank and cannot be read as a raw line is reported on stderr
    once, however often it is read. One reader may be shared by threads: reads take turns.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._ends: array[int] = array("Q")
        self._inode: int | None = None
        self._reported: set[int] = set()
        self._reading = threading.Lock()

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
                log.warning(
                    f"{self.path} line {number + 1} skipped, it is not a transcript line: {error}"
                )
            return None

    def _forget(self) -> None:
        """The file shrank, was replaced or vanished: start again from its first byte."""
        self._ends = array("Q")
        self._inode = None
        self._reported.clear()
