"""Where engine and recogniser packages keep what they download or build (behaviour.md 8.8, 12.4).

The root a caller gives wins (the voice helper always passes the one `assist mcp` resolved);
else the package's variable; else the user cache folder for assist, `voice` or `stt` inside.
One rule for every package, so an engine built directly (a script, a benchmark) finds the same
files the helper does; a folder goes into the cache whole or not at all (`copy_once`).
platformdirs is imported only when the default is needed: it is the engine package's own
dependency, and assist-core does not need it.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from assist.core import environment

APP = "assist"
VOICE_CACHE_VARIABLE = environment.VOICE_CACHE.name
STT_CACHE_VARIABLE = environment.STT_CACHE.name


def voice_cache_root(given: str | None) -> Path:
    """The given root; else ASSIST_VOICE_CACHE; else the user cache folder, `voice` inside."""
    return _cache_root(given, VOICE_CACHE_VARIABLE, "voice")


def stt_cache_root(given: str | None) -> Path:
    """The given root; else ASSIST_STT_CACHE; else the user cache folder, `stt` inside."""
    return _cache_root(given, STT_CACHE_VARIABLE, "stt")


def _cache_root(given: str | None, variable: str, folder: str) -> Path:
    if given:
        return Path(given)
    if os.environ.get(variable):
        return Path(os.environ[variable])
    import platformdirs

    return Path(platformdirs.user_cache_dir(APP)) / folder


def copy_once(source: Path, target: Path) -> None:
    """Copy a folder to `target` through `<target>.part-<pid>`, so a half-copied folder is
    never used; when another process finishes first, its copy is kept."""
    partial = target.with_name(f"{target.name}.part-{os.getpid()}")
    shutil.rmtree(partial, ignore_errors=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(source, partial)
    try:
        partial.rename(target)
    except OSError:
        if not target.is_dir():
            raise
        shutil.rmtree(partial, ignore_errors=True)  # another process finished first
