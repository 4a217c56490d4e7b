"""`--save-dir`: each say's audio kept as `reply-<id>.wav` (behaviour 8.3).

16-bit little-endian mono PCM at the engine's rate, samples clipped to [-1, 1]. A stopped say
keeps its audio up to the cut (ours), the same samples its `stopped` event counts. The file is
written under a temporary name and renamed, so a reader that sees `reply-<id>.wav` sees all of
it; it is complete before the say's last event is sent.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import soundfile
from assist.core.files import reply_wav

UNSAFE_IN_NAMES = ("/", "\\", "\0")
"""Characters an id may hold that cannot be part of a file name; each becomes `_`."""


def reply_name(request_id: object) -> str:
    """`reply-<id>.wav`; an int or string id is used as given, anything else as its JSON."""
    if isinstance(request_id, str) or (
        isinstance(request_id, int) and not isinstance(request_id, bool)
    ):
        part = str(request_id)
    else:
        part = json.dumps(request_id, sort_keys=True)
    for unsafe in UNSAFE_IN_NAMES:
        part = part.replace(unsafe, "_")
    return reply_wav(part)


def save_reply(
    folder: Path, request_id: object, chunks: Sequence[np.ndarray], sample_rate: int, samples: int
) -> Path:
    """Write the first `samples` samples of `chunks` as the say's WAV; returns its path."""
    audio = np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.float32)
    audio = np.clip(audio[:samples], -1.0, 1.0)
    path = folder / reply_name(request_id)
    partial = path.with_name(path.name + ".part")
    soundfile.write(partial, audio, sample_rate, subtype="PCM_16", endian="LITTLE", format="WAV")
    os.replace(partial, path)
    return path
