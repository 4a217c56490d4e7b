"""Where this server's voice helper sends what it plays and its listener reads it (14.2).

One path per server process, in a private folder of its own (`tempfile.mkdtemp`: short, as
a Unix socket path must be under ~104 bytes, and unreachable by other users), made on first
use and removed when the server leaves (`process_exit.on_exit`: the server skips atexit).
The folder is named for the server's pid, so one left by a server that was killed is
removed by the next server to make its own. The helper gets it in its environment
(`ASSIST_ECHO_REFERENCE`) when it is spawned; a conversation's listener gets it as
`--echo-reference` and binds it; while the server watches a meeting recorded by a separate
`assist listen`, it is a link to that listener's socket (`meeting_reference`). A helper
playing while neither is there sends into nothing, at the cost of a failed send.
"""

from __future__ import annotations

import functools
import os
import shutil
import tempfile
from pathlib import Path

from assist.app.store.pids import is_alive
from assist.core.echo_reference import VARIABLE
from assist.mcp.process_exit import on_exit

SOCKET_NAME = "ref.sock"
PREFIX = "assist-echo-"


@functools.cache
def echo_socket() -> Path:
    """This server's echo reference socket path (the socket itself is the listener's)."""
    remove_abandoned(Path(tempfile.gettempdir()))
    folder = tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-")
    on_exit(lambda: shutil.rmtree(folder, ignore_errors=True))
    return Path(folder) / SOCKET_NAME


def remove_abandoned(temp: Path) -> None:
    """Remove the folders of servers that ended without removing theirs (killed)."""
    for folder in temp.glob(f"{PREFIX}*-*"):
        pid = folder.name.removeprefix(PREFIX).split("-", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not is_alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)


def helper_environment(environ: dict[str, str]) -> dict[str, str]:
    """The voice helper's environment: the server's, with where to send what it plays."""
    return {**environ, VARIABLE: str(echo_socket())}
