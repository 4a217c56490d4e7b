"""The helper's stdout: protocol lines only, whatever the engine's libraries print.

Behaviour 8.2: before anything loads, the real stdout is kept as the protocol stream and
everything else is sent to stderr. This is done at file-descriptor level (ours): fd 1 is
duplicated for the protocol, then fd 1 is pointed at fd 2 and `sys.stdout` at `sys.stderr`, so
neither Python code nor a native library can write stray text into the protocol.

Events come from two threads (the main thread answers says, the reader thread answers a stop
for a queued say), so writes are serialised by a lock and each line goes out in one
unbuffered write loop, flushed as soon as it is written.
"""

from __future__ import annotations

import os
import sys
import threading

from assist.app.logs import HELPER, attach
from assist.core.protocol import Message, encode

PROGRAM = "assist-voice"
"""How the helper names itself on stderr, so its lines can be told from the server's."""


log = attach(HELPER, f"{PROGRAM}: ")
"""The helper's logger (`assist.app.logs`): its diagnostics on stderr, prefixed with its name."""


class ProtocolOutput:
    """The kept stdout. `emit` writes one event as one JSON line; safe from any thread."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._lock = threading.Lock()
        self.broken = False
        """Set once a write failed: the parent is gone and nobody can read our events."""

    def emit(self, message: Message) -> None:
        data = (encode(message) + "\n").encode("utf-8")
        with self._lock:
            if self.broken:
                return
            try:
                while data:
                    data = data[os.write(self._fd, data) :]
            except OSError as error:
                self.broken = True
                log.warning(f"cannot write events to stdout any more ({error}); stopping")

    def close(self) -> None:
        with self._lock:
            os.close(self._fd)
            self.broken = True


def take_stdout() -> ProtocolOutput:
    """Keep the real stdout for the protocol and send every other write on fd 1 to stderr."""
    sys.stdout.flush()
    protocol_fd = os.dup(1)  # not inherited: children of the engine never see the protocol
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return ProtocolOutput(protocol_fd)
