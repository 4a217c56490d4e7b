"""Fetching the Kokoro files, against a real HTTP server on 127.0.0.1 (never the network); the
download itself is tested once, with assist.app.download."""

from __future__ import annotations

import io
from pathlib import Path

from assist.voice.kokoro.assets import MODEL, VOICES, fetch_files


def test_the_release_model_is_fetched_into_the_cache_and_checked_against_its_pin(
    served_folder: tuple[str, Path],
    kokoro_cache: Path,
    shipped_voices: Path,
    tmp_path: Path,
) -> None:
    url, folder = served_folder
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
