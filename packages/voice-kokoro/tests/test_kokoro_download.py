"""Fetching the Kokoro files, against a real HTTP server on 127.0.0.1 (never the network); the
download itself is tested once, with assist.app.download."""

from __future__ import annotations

import functools
import http.server
import io
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from assist.voice.kokoro.assets import MODEL, VOICES, fetch_files

SHUTDOWN_POLL_S = 0.02
"""How often the test server looks for its shutdown (the default 0.5 s is paid by every test)."""


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A folder served over HTTP on 127.0.0.1: (base URL, folder)."""
    folder = tmp_path / "served"
    folder.mkdir()
    handler = functools.partial(QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, args=(SHUTDOWN_POLL_S,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/", folder
    server.shutdown()
    server.server_close()


def test_the_release_model_is_fetched_into_the_cache_and_checked_against_its_pin(
    served: tuple[str, Path],
    kokoro_cache: Path,
    shipped_voices: Path,
    tmp_path: Path,
) -> None:
    url, folder = served
    (folder / MODEL.name).symlink_to(kokoro_cache / "kokoro" / MODEL.name)
    root = tmp_path / "fresh-cache"
    progress = io.StringIO()
    files = fetch_files(
        str(root), {VOICES.variable: str(shipped_voices)}, base_url=url, progress=progress
    )
    assert files.model == root / "kokoro" / MODEL.name
    assert files.model.stat().st_size == MODEL.size
    assert files.voices == shipped_voices
    assert sorted(p.name for p in (root / "kokoro").iterdir()) == [MODEL.name]
    assert progress.getvalue().splitlines()[-1].endswith("100% 92.4/92.4 MB")
    again = fetch_files(
        str(root), {VOICES.variable: str(shipped_voices)}, base_url="http://0.0.0.0:9/"
    )
    assert again == files, "a complete cached file is fetched again"
