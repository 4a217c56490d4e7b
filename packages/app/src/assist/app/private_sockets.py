"""Where the sockets of a meeting recorded by `assist listen` live (behaviour 14.2, 16.3).

A socket's path may not exceed 107 bytes on Linux (103 on macOS), and a session folder may be
deeper than that, so a meeting's sockets (the watching server's barge-in signals, the
listener's echo reference) live in a short private folder of this user, `/tmp/assist-<uid>`
(mode 0700; /tmp rather than $TMPDIR, which may be long), each named by its kind and a hash of
the resolved session folder. The session folder links to each by a name of `assist.core.files`,
and whoever sends goes to whatever the link names. Shared by the recorder and the server, so
both find the same folder by the same rule.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import socket
import stat
from pathlib import Path

SOCKETS_ROOT = Path("/tmp")
"""Short on every Unix, and the same for every process of the user whatever its environment."""


def meeting_socket(folder: Path, kind: str) -> Path:
    """Where the `kind` socket of the meeting in `folder` lives: in `sockets_folder()`, named
    by a hash of the resolved folder (the same meeting, however reached, has one address)."""
    digest = hashlib.sha256(os.fsencode(folder.resolve())).hexdigest()[:16]
    return sockets_folder() / f"{kind}-{digest}.sock"


def sockets_folder() -> Path:
    """`/tmp/assist-<uid>`, made with mode 0700 if missing. Refused (OSError) unless it is a
    folder of this user that nobody else may enter: another user who made it first could
    otherwise read what is sent there or stand in for whoever binds it."""
    uid = os.getuid()
    path = SOCKETS_ROOT / f"assist-{uid}"
    with contextlib.suppress(FileExistsError):
        path.mkdir(mode=0o700)
    found = os.lstat(path)
    if not stat.S_ISDIR(found.st_mode) or found.st_uid != uid or found.st_mode & 0o077:
        raise OSError(
            f"{path} is not a private folder of user {uid}; remove it, and it is made afresh"
        )
    return path


def answers(path: Path) -> bool:
    """Whether a live process holds the datagram socket at `path` (or where a link there
    leads): a connect to it succeeds, and sends nothing, so it never waits on a full queue."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        probe.connect(str(path))
        return True
    except OSError:
        return False
    finally:
        probe.close()


def remove_dead(kind: str) -> None:
    """Remove what is left in `sockets_folder()` of `kind` sockets nobody holds any more, and
    their companions (the same name with another suffix, such as a server's claim on it):
    left by processes that were killed, or outliving a socket removed at its end."""
    for path in sockets_folder().glob(f"{kind}-*"):
        if not answers(path.with_suffix(".sock")):
            with contextlib.suppress(OSError):
                path.unlink()
