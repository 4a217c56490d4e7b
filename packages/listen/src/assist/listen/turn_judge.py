"""The turn model the tracks share, run on a thread of its own so that one that hangs costs
its verdicts, never a track: a track also carries its capture, its turns and its looks.

A verdict later than 150 ms already counts as incomplete (behaviour 16.1), and the track
waits for it anyway, its frames queued, so that the rule sees how late it was. It waits no
longer than `VERDICT_WAIT_S`: past that the model is taken as hung, the pause counts as
incomplete and the model's failure is reported as any other; while it is still stuck, every
later pause counts as incomplete at once, and it is asked again once it answers.
"""

from __future__ import annotations

import threading
from typing import Any

VERDICT_WAIT_S = 5.0
"""How long a track waits for a verdict before taking the model as hung. Smart Turn's slowest
verdict measured here was 2.4 s, at a load of 11 (benchmarks/README.md)."""


class SharedJudge:
    """Judges for one track at a time, as a model expects, each verdict within a bound."""

    def __init__(self, model: Any, wait_s: float = VERDICT_WAIT_S) -> None:
        self.name = model.name
        self._model = model
        self._wait_s = wait_s
        self._lock = threading.Lock()
        self._idle = threading.Event()
        self._idle.set()

    def judge(self, samples: Any) -> Any:
        """The model's verdict on `samples`; raises what the model raised, or TimeoutError
        when it has not answered within the bound or is still stuck on an earlier pause."""
        with self._lock:
            if not self._idle.is_set():
                raise TimeoutError("it is still judging an earlier pause")
            answer: dict[str, Any] = {}
            self._idle.clear()
            threading.Thread(
                target=self._run, args=(samples, answer), name="turn model", daemon=True
            ).start()
            if not self._idle.wait(self._wait_s):
                raise TimeoutError(f"it gave no verdict within {self._wait_s:g} s")
            if "error" in answer:
                raise answer["error"]
            return answer["verdict"]

    def close(self) -> None:
        """Close the model, unless it is stuck in a verdict (it is left to its thread)."""
        with self._lock:
            if self._idle.is_set():
                self._model.close()

    def _run(self, samples: Any, answer: dict[str, Any]) -> None:
        try:
            answer["verdict"] = self._model.judge(samples)
        except Exception as error:  # handed to the track, which reports it
            answer["error"] = error
        finally:
            self._idle.set()
