"""Where this server's voice helper sends what it plays and its listener reads it (14.2).

One path per server process, in a private folder of its own (`tempfile.mkdtemp`: short, as
a Unix socket path must be under ~104 bytes, and unreachable by other users), made on first
use and removed at exit. The helper gets it in its environment (`ASSIST_ECHO_REFERENCE`) when
it is spawned; a conversation's listener gets it as `--echo-reference` and binds it. A
helper playing while no listener is bound sends into nothing, at the cost of a failed send.
"""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from pathlib import Path

from assist.core.echo_reference import VARIABLE

SOCKET_NAME = "ref.sock"


@functools.cache
def echo_socket() -> Path:
    """This server's echo reference socket path (the socket itself is the listener's)."""
    folder = tempfile.mkdtemp(prefix="assist-echo-")
    atexit.register(shutil.rmtree, folder, True)
    return Path(folder) / SOCKET_NAME


def helper_environment(environ: dict[str, str]) -> dict[str, str]:
    """The voice helper's environment: the server's, with where to send what it plays."""
    return {**environ, VARIABLE: str(echo_socket())}
