"""Claiming a new session folder as a recorder does (behaviour 1.2): Ambient's folder name
from the start time and a slug of the recording's name, taken with one atomic mkdir.

`assist replay` and `assist listen` create their sessions here.
"""

from __future__ import annotations

import errno
import re
from datetime import datetime
from pathlib import Path

STARTED_FORMAT = "%Y-%m-%dT%H%M"
"""Ambient's folder name: local start time to the minute."""
LAST_SUFFIX = 99
"""A taken folder name is retried with -02 .. -99 appended, then creation fails."""
NOT_SLUG = re.compile(r"[^a-z0-9]+")
"""A run of anything but lower-case ASCII letters and digits becomes one `-` in a slug."""


def slug(name: str) -> str:
    """Lower-case ASCII letters and digits; each run of anything else one `-`, none at the ends."""
    return NOT_SLUG.sub("-", name.lower()).strip("-")


def session_name(started: datetime, name: str | None) -> str:
    """Ambient's folder name: `%Y-%m-%dT%H%M`, plus `-<slug>` when the slug is not empty."""
    base = started.strftime(STARTED_FORMAT)
    tail = slug(name) if name else ""
    return f"{base}-{tail}" if tail else base


def create_session(root: Path, started: datetime, name: str | None = None) -> Path:
    """Claim a new session folder with one atomic mkdir, trying -02 .. -99 when taken."""
    root.mkdir(parents=True, exist_ok=True)
    base = session_name(started, name)
    for candidate in [base, *(f"{base}-{n:02d}" for n in range(2, LAST_SUFFIX + 1))]:
        folder = root / candidate
        try:
            folder.mkdir()
        except FileExistsError:
            continue
        return folder
    raise FileExistsError(
        errno.EEXIST,
        f"{base} and every name from {base}-02 to {base}-{LAST_SUFFIX} are taken in {root}; "
        "name the recording differently or wait a minute",
    )
