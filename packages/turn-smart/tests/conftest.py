"""Piper speech for the turn model's tests, said offline, each phrase once per run."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
import pytest

PAUSE_S = 0.2
"""Each clip ends as the listener asks the model: after the short pause."""

Say = Callable[[str], np.ndarray]


@pytest.fixture(scope="session")
def say() -> Iterator[Say]:
    """A phrase as float32 16 kHz, with 200 ms of silence before it (the pre-roll) and the
    short pause after it."""
    from assist.mcp.demo.rooms.voiced import Voice

    voice = Voice()
    silence = np.zeros(int(PAUSE_S * 16_000), np.float32)
    said: dict[str, np.ndarray] = {}

    def clip(text: str) -> np.ndarray:
        if text not in said:
            said[text] = np.concatenate((silence, voice.say(text), silence))
        return said[text]

    try:
        yield clip
    finally:
        voice.close()
