"""The espeak-ng data Kokoro's phonemiser reads, copied once to a short path (behaviour.md 8.4).

espeak-ng keeps its data path in a 160-byte buffer and silently falls back to a path compiled
into the library when the real one is longer, which a deep virtual environment can reach. So
the `espeak-ng-data` folder of the espeakng-loader wheel is copied once to
`<cache root>/espeak-ng-data`, through a temporary name so a half-copied folder is never
used, and that folder is handed to the phonemiser.
"""

from __future__ import annotations

from pathlib import Path

from assist.app.cache import VOICE_CACHE_VARIABLE, copy_once

FOLDER = "espeak-ng-data"
MAX_PATH_BYTES = 150
"""espeak-ng takes a data path of up to about 158 bytes (measured: 163 fail); a margin."""


def espeak_data(root: Path, shipped: Path) -> Path:
    """`<root>/espeak-ng-data`, copied from `shipped` if it is not there yet."""
    copy = root / FOLDER
    if len(str(copy).encode()) > MAX_PATH_BYTES:
        raise OSError(
            f"the voice cache {root} is too deep for espeak-ng, which Kokoro's phonemiser "
            f"uses (its data path must stay under {MAX_PATH_BYTES} bytes); set "
            f"{VOICE_CACHE_VARIABLE} to a shorter folder"
        )
    if not copy.is_dir():
        copy_once(shipped, copy)
    return copy
