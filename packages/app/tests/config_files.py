"""Config files as the config tests of assist-app and of `assist config` write them."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

SHARED = {
    "sessions_dir": None,
    "assistant": {"enabled": True, "name": "Robin", "cooldown_s": 30, "max_per_meeting": 4},
    "talk": {"hotkey": "F5", "nested": [1, 2, {"x": None}]},
}


def write(path: Path, content: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = content if isinstance(content, str) else json.dumps(content, indent=2) + "\n"
    path.write_text(text, encoding="utf-8")


def age(path: Path, seconds: float) -> None:
    """Move the file's mtime back, as if it had been written `seconds` ago."""
    then = time.time() - seconds
    os.utime(path, (then, then))
