"""A recogniser plugin for tests: registered through a real `assist.stt` entry point.

It hears no words: each turn comes back as "heard N.N seconds", so a test can tell turns apart
by their length; `FAKE_STT_ENDING` is added to each text (a word a phrase stops short on, say,
for the turn words); with `FAKE_STT_PUNCTUATES` set it says it punctuates, so a text with no
sentence mark at its end counts as broken off, and `FAKE_STT_LAST_WORD` is how sure it says it was
of the last word (unknown when unset). `FAKE_STT_FAIL` makes it raise on turns longer
than `FAKE_STT_LONG_S`: `always` on every try, `once` on the first try of each such turn only.
Every call is logged (the turn's seconds, then `ok` or `raised`) to `FAKE_STT_LOG` when set.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from assist.core.recognisers import (
    Recognised,
    RecogniserOptions,
    RecogniserSpec,
    hookimpl,
)

RATE_HZ = 16_000


class FakeRecogniser:
    name = "fake"

    def __init__(self, options: RecogniserOptions) -> None:
        self.model = options.model or "seconds"
        self.punctuates = bool(os.environ.get("FAKE_STT_PUNCTUATES"))
        self._failed: set[int] = set()

    def transcribe(self, samples, prompt: str = "") -> Recognised:
        seconds = len(samples) / RATE_HZ
        mode = os.environ.get("FAKE_STT_FAIL", "")
        long = seconds > float(os.environ.get("FAKE_STT_LONG_S", "3"))
        fail = long and (mode == "always" or (mode == "once" and len(samples) not in self._failed))
        self._log(f"{seconds:.2f} {'raised' if fail else 'ok'}")
        if fail:
            self._failed.add(len(samples))
            raise RuntimeError(f"the fake recogniser refuses {seconds:.2f} s")
        ending = os.environ.get("FAKE_STT_ENDING", "")
        sure = os.environ.get("FAKE_STT_LAST_WORD")
        return Recognised(
            f"heard {seconds:.1f} seconds{ending}",
            0.5,
            last_word_confidence=float(sure) if sure else None,
        )

    def close(self) -> None:
        self._log("closed")

    def _log(self, text: str) -> None:
        path = os.environ.get("FAKE_STT_LOG")
        if path:
            with open(path, "a", encoding="utf-8") as log:
                log.write(text + "\n")


@hookimpl
def assist_stt_engines(register: Callable[[RecogniserSpec], None]) -> None:
    register(RecogniserSpec(name="fake", package="fake-stt-plugin", build=FakeRecogniser))
