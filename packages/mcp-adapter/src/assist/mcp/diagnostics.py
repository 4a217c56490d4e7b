"""Where the I/O shell's diagnostics go: one line each on stderr, never stdout.

Stdout belongs to the protocol in `assist mcp` and `assist-voice`, so every note about a file
that could not be read or written goes to stderr, prefixed so it can be told from the helper's
inherited output.
"""

from __future__ import annotations

import sys

PREFIX = "assist: "
"""Marks our lines among whatever else shares the server's stderr."""


def note(text: str) -> None:
    """Print one diagnostic line on stderr (looked up at call time, so tests can capture it)."""
    print(f"{PREFIX}{text}", file=sys.stderr, flush=True)
