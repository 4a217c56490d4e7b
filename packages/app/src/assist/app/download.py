"""Downloading one file safely: to `<file>.part`, checked, then renamed (behaviour.md 8.8, 12.4).

The one home of this rule for every engine and recogniser package that fetches pinned files
(assist-voice-kokoro, assist-stt-whisper): it lives beside the pure core, in the I/O side of
assist-core, so neither engine package needs the other.

A start with no network must fail within seconds with a message saying what to do, never
hang: every socket operation has a short timeout, so a refused or unreachable connection or
a transfer that stalls ends in an error. A file that arrives with the wrong size or digest
is deleted and reported, so a damaged model is never loaded. Progress goes to stderr: a bar
redrawn in place on a terminal, a line every tenth of the way otherwise (the helper's stderr
usually lands in a log, where a redrawn bar would be noise).
"""

from __future__ import annotations

import hashlib
import http.client
import os
import urllib.error
import urllib.request
from pathlib import Path
from typing import TextIO

TIMEOUT_S = 10.0
"""For connecting and for each read: long enough for a slow link, short enough that an
offline machine hears why within seconds rather than waiting on a hang."""
BLOCK_BYTES = 1 << 20
BAR_WIDTH = 30
STEPS = 10
"""Without a terminal, one progress line each tenth of the file."""
MB = 1_000_000


class DownloadError(OSError):
    """A file could not be fetched or did not match what was expected."""


def download(
    url: str,
    target: Path,
    *,
    size: int,
    sha256: str,
    progress: TextIO,
    timeout: float = TIMEOUT_S,
    instead: str = "",
) -> None:
    """Fetch `url` into `target` through `<target>.part`; DownloadError on any failure, with
    the partial file removed. `instead` tells the user what else they can do."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".part")
    advice = f"; check the network connection and try again{', ' + instead if instead else ''}"
    digest = hashlib.sha256()
    received = 0
    bar = _Progress(target.name, size, progress)
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response, partial.open("wb") as out:
            while block := response.read(BLOCK_BYTES):
                out.write(block)
                digest.update(block)
                received += len(block)
                bar.show(received)
    except (OSError, http.client.HTTPException) as error:
        partial.unlink(missing_ok=True)
        bar.end()
        raise DownloadError(
            f"could not download {target.name} from {url}: {_why(error)}{advice}"
        ) from error
    bar.end()
    if received != size or digest.hexdigest() != sha256:
        partial.unlink(missing_ok=True)
        raise DownloadError(
            f"the download of {target.name} from {url} is damaged: got {received} bytes with "
            f"SHA-256 {digest.hexdigest()}, expected {size} bytes with SHA-256 {sha256}; "
            f"it was deleted{advice}"
        )
    os.replace(partial, target)


def _why(error: BaseException) -> str:
    """The useful part of a network error: the socket's reason rather than urllib's wrapper."""
    if isinstance(error, urllib.error.URLError) and not isinstance(error, urllib.error.HTTPError):
        return str(error.reason)
    return str(error) or type(error).__name__


class _Progress:
    """A progress bar on stderr."""

    def __init__(self, name: str, size: int, stream: TextIO) -> None:
        self._name, self._size, self._stream = name, max(size, 1), stream
        self._live = stream.isatty()
        self._step = -1
        self._shown = False

    def show(self, received: int) -> None:
        fraction = min(received / self._size, 1.0)
        step = int(fraction * STEPS)
        if not self._live and step == self._step:
            return
        self._step = step
        filled = int(fraction * BAR_WIDTH)
        line = (
            f"downloading {self._name} [{'#' * filled}{'.' * (BAR_WIDTH - filled)}] "
            f"{fraction:4.0%} {received / MB:.1f}/{self._size / MB:.1f} MB"
        )
        self._stream.write(("\r" + line) if self._live else (line + "\n"))
        self._stream.flush()
        self._shown = True

    def end(self) -> None:
        if self._live and self._shown:
            self._stream.write("\n")
            self._stream.flush()
