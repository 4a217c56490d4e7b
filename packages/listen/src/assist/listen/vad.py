"""Speech probability per 32 ms frame: Silero VAD v6 run with onnxruntime, streamed.

The model is the ONNX file faster-whisper ships (`faster_whisper/assets/silero_vad_v6.onnx`),
so there is nothing to download and torch is never needed (the `silero-vad` wheel imports it).
It is fed as faster-whisper's `SileroVADModel` feeds it, but one frame at a time: each input
row is the previous frame's last 64 samples followed by the 512 new ones, and the recurrent
state (`h`, `c`) is carried from frame to frame. Fed a whole recording at once, faster-whisper
gives the same probabilities (the tests hold the two side by side).

The session runs on one thread: a frame costs about a tenth of a millisecond, and the machine
it runs on also captures audio and runs the recogniser.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import numpy as np

RATE_HZ = 16_000
"""The model's sample rate."""
FRAME_SAMPLES = 512
"""One frame: 32 ms at 16 kHz, the only frame length Silero v5/v6 accepts at this rate."""
CONTEXT_SAMPLES = 64
"""Samples of the previous frame the v5/v6 model sees before each frame."""
STATE_SHAPE = (1, 1, 128)
"""The recurrent state of the v6 model (h and c)."""
NO_SPINNING = ("session.intra_op.allow_spinning", "0")
"""Worker threads would otherwise spin between frames, on a machine with two cores."""


def model_path() -> Path:
    """Where faster-whisper keeps the Silero v6 model."""
    return Path(str(resources.files("faster_whisper") / "assets" / "silero_vad_v6.onnx"))


class SileroVad:
    """Streams frames of 512 float32 samples and returns each one's speech probability."""

    def __init__(self, path: Path | None = None) -> None:
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.inter_op_num_threads = 1
        options.intra_op_num_threads = 1
        options.enable_cpu_mem_arena = False
        options.log_severity_level = 4
        options.add_session_config_entry(*NO_SPINNING)
        self._session = onnxruntime.InferenceSession(
            str(path or model_path()), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self.reset()

    def reset(self) -> None:
        """Forget everything heard: the next frame starts a new stream."""
        self._h = np.zeros(STATE_SHAPE, dtype=np.float32)
        self._c = np.zeros(STATE_SHAPE, dtype=np.float32)
        self._row = np.zeros((1, CONTEXT_SAMPLES + FRAME_SAMPLES), dtype=np.float32)

    def probability(self, frame: np.ndarray) -> float:
        """The speech probability of one frame of 512 samples (float32, -1 to 1, 16 kHz)."""
        if frame.shape != (FRAME_SAMPLES,):
            raise ValueError(f"a VAD frame is {FRAME_SAMPLES} samples, not {frame.shape}")
        row = self._row
        row[0, :CONTEXT_SAMPLES] = row[0, -CONTEXT_SAMPLES:]
        row[0, CONTEXT_SAMPLES:] = frame
        output, self._h, self._c = self._session.run(
            None, {"input": row, "h": self._h, "c": self._c}
        )
        return float(output.reshape(-1)[0])
