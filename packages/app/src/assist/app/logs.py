"""Where the I/O shell's diagnostics go: the standard `logging` module, to stderr, never stdout.

Stdout belongs to the protocol in `assist mcp` and `assist-voice`, so every diagnostic (a file
that could not be read or written, a helper that crashed, an engine downloading its model) is a
log record on stderr, one line each, prefixed with the program so it can be told from whatever
else shares that stream.

It lives in assist.app because the store logs through it in every process that uses it, the
recorder's as much as the server's. One logger per package: `assist.mcp` for the shell (and
the store), `assist.mcp.voice` for the helper process (prefixed `assist-voice: `), and
`assist.voice.<engine>` for the engines, which log through the standard module only and are
given a handler by the helper that loads them. `ASSIST_LOG` sets the level: `debug`, `info`,
`warning` (the default: everything we reported before logging existed), `error` or `critical`,
in any letter case.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping

from assist.core import environment

VARIABLE = environment.LOG.name
DEFAULT_LEVEL = logging.WARNING
LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
}
SHELL = "assist.mcp"
"""The shell's logger; its records are prefixed `assist: `."""
HELPER = "assist.mcp.voice"
"""The voice helper's logger; `assist-voice: `."""
ENGINES = "assist.voice"
"""The parent of every engine's logger (`assist.voice.<engine>`); `assist-voice: ` in the helper."""


def level_from(environ: Mapping[str, str]) -> tuple[int, str | None]:
    """The level `ASSIST_LOG` names (warning when unset), and a complaint when it names none."""
    value = environ.get(VARIABLE, "").strip().lower()
    if not value:
        return DEFAULT_LEVEL, None
    if value in LEVELS:
        return LEVELS[value], None
    names = ", ".join(LEVELS)
    return DEFAULT_LEVEL, f"{VARIABLE}={value!r} is not a log level ({names}); using warning"


class StderrHandler(logging.Handler):
    """One line per record on the stderr of the moment (looked up at each record, so a test
    that swaps `sys.stderr` sees it), prefixed with the program's name."""

    def __init__(self, prefix: str) -> None:
        super().__init__()
        self.prefix = prefix

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = self.format(record)
            stream = sys.stderr
            stream.write(f"{self.prefix}{text}\n")
            stream.flush()
        except Exception:
            self.handleError(record)


def attach(name: str, prefix: str, environ: Mapping[str, str] = os.environ) -> logging.Logger:
    """The logger `name` with one stderr handler of ours (added once) at `ASSIST_LOG`'s level.

    It does not propagate, so an application embedding assist keeps its own root handlers
    free of our lines unless it attaches them itself."""
    logger = logging.getLogger(name)
    level, complaint = level_from(environ)
    logger.setLevel(level)
    logger.propagate = False
    if not any(isinstance(handler, StderrHandler) for handler in logger.handlers):
        logger.addHandler(StderrHandler(prefix))
        if complaint is not None:
            logger.warning(complaint)
    return logger


log = attach(SHELL, "assist: ")
"""The shell's logger, ready at import."""
