"""Where espeak-ng reads its data: the wheel's folder, or a copy at a shorter path.

espeak-ng cannot use a data folder whose path is longer than about 150 bytes (see
`library.MAX_DATA_PATH_BYTES`), which a deep virtual environment can reach. Then the wheel's
`espeak-ng-data` is copied once to `<cache root>/espeak-ng-data` (behaviour.md 8.8, the same
copy the kokoro engine uses), through a temporary name so a half-copied folder is never used.
"""

from __future__ import annotations

from pathlib import Path

from assist.app.cache import VOICE_CACHE_VARIABLE, copy_once
from assist.voice.espeak.library import data_path_fits

DATA_FOLDER = "espeak-ng-data"


def short_data_path(shipped: Path, cache_root: Path) -> Path:
    """`shipped` when espeak-ng can take its path, else a copy under `cache_root`."""
    if data_path_fits(shipped):
        return shipped
    copy = cache_root / DATA_FOLDER
    if not data_path_fits(copy):
        raise OSError(
            f"the espeak-ng data path {shipped} is too long for espeak-ng, and so is the "
            f"voice cache {cache_root}; set {VOICE_CACHE_VARIABLE} to a shorter folder"
        )
    if not copy.is_dir():
        copy_once(shipped, copy)
    return copy
