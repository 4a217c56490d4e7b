"""For packages that fetch pinned files: a folder served over HTTP on 127.0.0.1, so a download
test never touches the network, and a port where nothing listens, which is how an offline
machine looks to a download (refused at once).

`served_folder` is a fixture of the kit's pytest plugin: a test names it and gets
(base URL, folder); what it writes into the folder is served."""

from __future__ import annotations

import functools
import http.server
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

SHUTDOWN_POLL_S = 0.02
"""How often the server looks for its shutdown (the default 0.5 s is paid by every test)."""


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def served_folder(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A folder served over HTTP on 127.0.0.1: (base URL ending in '/', folder)."""
    folder = tmp_path / "served"
    folder.mkdir()
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, args=(SHUTDOWN_POLL_S,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/", folder
    server.shutdown()
    server.server_close()


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (it was free a moment ago)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
