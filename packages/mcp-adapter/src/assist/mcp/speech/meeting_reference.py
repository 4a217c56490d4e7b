"""The echo reference of a watched meeting (behaviour 16.3): what this server's voice plays,
sent to the canceller of the separate `assist listen` recording the meeting.

That listener binds its reference socket in the short private folder
(`assist.app.private_sockets`) and links `reference.sock` in the session folder to it, as the
server does with `signals.sock` the other way. The voice helper's reference path
(`echo_socket`) is fixed when it is spawned, so for the watch that path becomes a symbolic link
to the listener's socket (a send to a link reaches the socket it names), made before the notice
so its echo is cancelled too, and removed when the watch ends (its teardown; when the server
exits, its echo folder goes with it). Only one server's voice may reach a listener, or two
would be taken for one: the route holds a lock (`flock`, which the kernel releases if the
server is killed) on a file beside the socket for the whole watch. A second watcher of the
meeting, a link whose listener is gone, or one that leads out of the private folder is said
once on stderr, and this watch's voice goes uncancelled (the listener's gate alone): nothing
else of the watch changes. A recorder with no such link (Ambient's, `assist replay`, a listener
reading a file) takes no reference, and nothing is said.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

from assist.app.logs import log
from assist.app.private_sockets import answers, sockets_folder
from assist.core.files import REFERENCE_SOCKET
from assist.mcp.speech.echo_socket import echo_socket

CLAIM_SUFFIX = ".lock"
"""The claim's file: the listener's socket's name with this suffix."""
UNCANCELLED = "this watch's voice is not cancelled from the recording (the barge-in gate alone)"


class ReferenceRoute:
    """This server's echo path linked to a meeting's reference socket, and the claim on it."""

    def __init__(self, echo: Path, target: Path, claim: int) -> None:
        self.echo = echo
        self.target = target
        self._claim = claim

    @classmethod
    def open(cls, folder: Path, echo: Path | None = None) -> ReferenceRoute | None:
        """Route the voice of this server (its echo path, `echo`) to the meeting in `folder`;
        None when the meeting takes no reference or this server's voice cannot go there."""
        link = folder / REFERENCE_SOCKET
        try:
            target = Path(os.readlink(link))
        except FileNotFoundError:
            return None  # not our listener, or one that takes no reference
        except OSError as error:
            log.warning(f"{link} is not a link to a reference socket ({error}); {UNCANCELLED}")
            return None
        try:
            private = sockets_folder()
        except OSError as error:
            log.warning(f"no echo reference for this meeting: {error}; {UNCANCELLED}")
            return None
        if target.parent != private or target.suffix != ".sock":
            log.warning(f"{link} leads to {target}, outside {private}; {UNCANCELLED}")
            return None
        if not answers(target):
            log.warning(
                f"the meeting's reference socket {target} (linked from {link}) answers nothing: "
                f"its listener ended without removing it; {UNCANCELLED}"
            )
            return None
        claim = _claim(target.with_suffix(CLAIM_SUFFIX))
        if claim is None:
            log.warning(
                f"another server watching this meeting already sends its voice to {target}; "
                f"{UNCANCELLED}"
            )
            return None
        echo = echo_socket() if echo is None else echo
        try:
            echo.unlink(missing_ok=True)  # a link of an earlier watch, or a dead listener's
            echo.symlink_to(target)
        except OSError as error:
            _release(target.with_suffix(CLAIM_SUFFIX), claim)
            log.warning(f"cannot link {echo} to {target} ({error}); {UNCANCELLED}")
            return None
        return cls(echo, target, claim)

    def close(self) -> None:
        """The watch is over: the voice sends into nothing again, and the claim is given up."""
        with contextlib.suppress(OSError):
            if os.readlink(self.echo) == str(self.target):
                self.echo.unlink()
        _release(self.target.with_suffix(CLAIM_SUFFIX), self._claim)


def _claim(path: Path) -> int | None:
    """An open descriptor holding the lock on `path` (made if missing), None when another
    process holds it. A file removed by its last holder between our open and our lock is no
    claim: the next server makes a new one, so it is looked at again."""
    for _ in range(2):
        try:
            claim = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:
            return None
        try:
            fcntl.flock(claim, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if os.fstat(claim).st_ino == os.stat(path).st_ino:
                return claim
        except OSError:
            pass
        os.close(claim)
    return None


def _release(path: Path, claim: int) -> None:
    """Remove the claim's file while still holding it (if it is still ours), then let go."""
    with contextlib.suppress(OSError):
        if os.stat(path).st_ino == os.fstat(claim).st_ino:
            path.unlink()
    os.close(claim)
