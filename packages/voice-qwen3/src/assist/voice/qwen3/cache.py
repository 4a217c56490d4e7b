"""Where the voice cache root is, when the helper does not say (behaviour.md 8.8).

The voice helper always passes the root it resolved; this is for an engine built directly (a
script, a benchmark). It stays free of MLX and numpy, because the plugin asks it whether a
designed voice is on disk while engines are only being listed.
"""

from __future__ import annotations

import os
from pathlib import Path

CACHE_VARIABLE = "ASSIST_VOICE_CACHE"
"""Overrides the voice cache root, as for the rest of assist."""


def cache_root(given: str | None) -> Path:
    """The given root; else ASSIST_VOICE_CACHE; else the user cache folder for assist, `voice`
    inside."""
    if given:
        return Path(given)
    if os.environ.get(CACHE_VARIABLE):
        return Path(os.environ[CACHE_VARIABLE])
    import platformdirs

    return Path(platformdirs.user_cache_dir("assist")) / "voice"
