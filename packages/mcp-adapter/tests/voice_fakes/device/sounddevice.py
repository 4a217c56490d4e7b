"""A test stand-in for sounddevice: an output device that takes audio at real-time pace.

Put this folder first on PYTHONPATH and the helper's speaker player talks to it instead of
PortAudio: each `write` takes as long as its audio lasts, as a real device's blocking write
does once its buffer is full, and appends what it was handed to $FAKE_DEVICE_LOG (raw float32),
so a test can compare what reached the device with what the helper reported.
$FAKE_DEVICE=missing fails the import as a machine without PortAudio does; $FAKE_DEVICE=none
fails opening the stream, and finding a device, as a machine without audio devices does.
`query_devices` knows one microphone and one pair of speakers, for `assist doctor`'s check.
"""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np

if os.environ.get("FAKE_DEVICE") == "missing":
    raise OSError("PortAudio library not found")


class PortAudioError(Exception):
    pass


class OutputStream:
    def __init__(self, samplerate: int, channels: int, dtype: str) -> None:
        if os.environ.get("FAKE_DEVICE") == "none":
            raise PortAudioError("Error querying device -1")
        assert channels == 1 and dtype == "float32"
        self.samplerate = samplerate
        log = os.environ.get("FAKE_DEVICE_LOG")
        self._log = open(log, "ab") if log else None  # noqa: SIM115 - open for the stream's life

    write_available = 0
    """Its buffer is always full, as a blocking device's is while it plays."""

    def start(self) -> None:
        pass

    def write(self, data: Any) -> bool:
        block = np.asarray(data)
        assert block.dtype == np.float32 and block.ndim == 2 and block.shape[1] == 1
        time.sleep(len(block) / self.samplerate)
        if self._log is not None:
            self._log.write(block.tobytes())
            self._log.flush()
        return False

    def stop(self) -> None:
        pass

    def close(self) -> None:
        if self._log is not None:
            self._log.close()


DEVICES = [
    {
        "index": 0,
        "name": "fake microphone",
        "max_input_channels": 1,
        "max_output_channels": 0,
        "default_samplerate": 16000.0,
    },
    {
        "index": 1,
        "name": "fake speakers",
        "max_input_channels": 0,
        "max_output_channels": 2,
        "default_samplerate": 48000.0,
    },
]


class default:
    device = (0, 1)


def query_devices(device: Any = None, kind: str | None = None) -> Any:
    if os.environ.get("FAKE_DEVICE") == "none":
        raise PortAudioError("Error querying device -1")
    if kind is not None:
        return DEVICES[0 if kind == "input" else 1]
    return DEVICES if device is None else DEVICES[int(device)]
