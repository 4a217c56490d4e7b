"""The lines this helper has rendered, kept so a line said again starts at once (behaviour 16.2).

A filler, a goodbye, the greeting: the server says the same few short lines over and over, and
each used to wait for the engine's first chunk again (Piper's is 100-300 ms on a busy 2-core
machine). The helper keeps what it has rendered in this run, by text and tone, up to a bound
of audio (the oldest used goes first), so a remembered line's first sound is the device's
alone. A line longer than the whole bound is never kept.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

KEPT_S = 60.0
"""About a minute of audio: every line the server says on its own, many times over, in a few
MB (a minute at 24 kHz in float32 is 5.8 MB)."""


class LineMemory:
    """Rendered lines by (text, tone), least recently used first, within `limit` samples."""

    def __init__(self, sample_rate: int, kept_s: float = KEPT_S) -> None:
        self._limit = round(sample_rate * kept_s)
        self._lines: OrderedDict[tuple[str, str], tuple[np.ndarray, ...]] = OrderedDict()
        self._samples = 0

    def recall(self, text: str, tone: str) -> tuple[np.ndarray, ...] | None:
        """The chunks of a line rendered before, or None; a recalled line is kept longest."""
        key = (text, tone)
        chunks = self._lines.get(key)
        if chunks is not None:
            self._lines.move_to_end(key)
        return chunks

    def keep(self, text: str, tone: str, chunks: list[np.ndarray]) -> None:
        """Remember a line rendered to its end, forgetting the least used ones to make room."""
        size = sum(len(chunk) for chunk in chunks)
        key = (text, tone)
        if key in self._lines or not size or size > self._limit:
            return
        while self._samples + size > self._limit:
            _, forgotten = self._lines.popitem(last=False)
            self._samples -= sum(len(chunk) for chunk in forgotten)
        self._lines[key] = tuple(chunks)
        self._samples += size

    @property
    def samples(self) -> int:
        """The audio kept, in samples."""
        return self._samples
