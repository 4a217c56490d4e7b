"""Smart Turn v3.2 on onnxruntime: the turn so far in, whether the phrase is over out.

The CPU build of the model (`smart-turn-v3.2-cpu.onnx`, 8.7 MB, Daily, BSD-2-Clause) is
installed beside this module, so nothing is ever downloaded, and checked before it is loaded
(`assist.turn.smart.weights`). It takes `input_features`, a batch of (80, 800)
log-mel windows (`assist.turn.smart.features`), and gives one probability per window that the
phrase is complete; over 0.5 is complete, as Pipecat reads it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from assist.app.turn_audio import turn_samples
from assist.core.turn_models import TurnVerdict
from assist.turn.smart.features import last_window, log_mel
from assist.turn.smart.weights import model_path, verified

NAME = "smart-turn"
THRESHOLD = 0.5
"""A probability over this is complete: the model's own cut (its training and Pipecat's).
Kept after `benchmarks/turn_threshold.py` (2026-12-02): on the tuning set 0.7 calls one
mid-thought pause of 6 fewer complete (2 against 3), on the held-out set none (7 of 10 at
both); 9 of the 10 pauses called complete score 0.87 to 0.99, as finished phrases do, so no
threshold parts them, and from 0.8 up more phrase ends wait for the limit."""
THREADS = 2
"""One per core: the listener asks the model before it starts the turn's recognition, so the
second core is otherwise idle at that moment. With both cores kept busy by two other
processes, a decision's p95 was 56-75 ms on two threads against 98-102 ms on one, for 2-12 ms
more CPU (`benchmarks/turn_model.py`, 2026-12-05)."""
NO_SPINNING = ("session.intra_op.allow_spinning", "0")
"""Idle worker threads would otherwise spin between turns."""


class SmartTurn:
    """A loaded Smart Turn model; see the module docstring."""

    name = NAME

    def __init__(self, path: Path | None = None, threads: int | None = None) -> None:
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.inter_op_num_threads = 1
        options.intra_op_num_threads = threads or THREADS
        options.log_severity_level = 4
        options.add_session_config_entry(*NO_SPINNING)
        self._session: Any = onnxruntime.InferenceSession(
            str(verified(path or model_path())),
            sess_options=options,
            providers=["CPUExecutionProvider"],
        )
        self.probability(np.zeros(0, np.float32))  # the first run is slow: not on a turn

    def probability(self, samples: Any) -> float:
        """How likely the phrase in the turn so far (float32 mono 16 kHz) is complete."""
        return self.score(self.features(samples))

    def features(self, samples: Any) -> np.ndarray:
        """What the model hears of the turn so far: the log-mel of its last 8 s, (80, 800)."""
        return log_mel(last_window(turn_samples(samples)))

    def score(self, features: np.ndarray) -> float:
        """The model's probability that the phrase is complete, for one (80, 800) window."""
        if self._session is None:
            raise RuntimeError("this turn model was closed; build a new one")
        (output,) = self._session.run(None, {"input_features": features[np.newaxis]})
        return float(np.asarray(output).reshape(-1)[0])

    def judge(self, samples: Any) -> TurnVerdict:
        probability = self.probability(samples)
        return TurnVerdict(probability > THRESHOLD, probability)

    def close(self) -> None:
        self._session = None
