"""A test-only engine plugin, `fake`, for the assist-voice helper tests.

It is registered through a real entry point (the `fake_voice-0.1.dist-info` beside it), so
the helper finds it exactly as it finds an installed engine package once this folder is on
PYTHONPATH. It misbehaves the way real TTS libraries do: it prints to stdout through Python
and through file descriptor 1 when imported, when built and while speaking, and the first
word of a line picks a failure:

- `fail ...`   raises RuntimeError("synthesis failed");
- `hang ...`   starts a child process, writes its pid to $FAKE_VOICE_CHILD_FILE, never returns;
- `print ...`  prints to stdout three ways (Python, fd 1, a child process) and then speaks;
- `loud ...`   speaks at amplitude 1.5, beyond what a WAV can hold.

Otherwise each word is 0.1 s of a 440 Hz tone, made after $FAKE_VOICE_WORD_S seconds. With
$FAKE_VOICE_RENDERED set, the text of every line it starts rendering is appended to that file.
$FAKE_VOICE_LOAD=fail makes building fail; $FAKE_VOICE_CHECK is a reason it cannot run here.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

from assist.core.engines import EngineSpec, VoiceOptions, hookimpl

RATE = 16000
WORD_SAMPLES = RATE // 10

print("fake voice: print() at import")
os.write(1, b"fake voice: os.write(1) at import\n")


class FakeEngine:
    name = "fake"
    sample_rate = RATE

    def stream(self, text: str, tone: str) -> Iterator[Any]:
        import numpy as np

        rendered = os.environ.get("FAKE_VOICE_RENDERED")
        if rendered:
            with open(rendered, "a", encoding="utf-8") as log:
                log.write(text + "\n")
        first = text.split()[0]
        if first == "fail":
            raise RuntimeError("synthesis failed")
        if first == "hang":
            child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
            with open(os.environ["FAKE_VOICE_CHILD_FILE"], "w") as pid_file:
                pid_file.write(str(child.pid))
            while True:
                time.sleep(1)
        if first == "print":
            print("fake voice: print() while speaking")
            os.write(1, b"fake voice: os.write(1) while speaking\n")
            subprocess.run([sys.executable, "-c", "print('fake voice: a child process')"])
        amplitude = 1.5 if first == "loud" else 0.25
        pause = float(os.environ.get("FAKE_VOICE_WORD_S", "0"))
        tone_wave = amplitude * np.sin(2 * np.pi * 440 * np.arange(WORD_SAMPLES) / RATE)
        for _word in text.split():
            time.sleep(pause)
            yield tone_wave.astype(np.float32)

    def close(self) -> None:
        pass


def build(options: VoiceOptions) -> FakeEngine:
    print("fake voice: print() while building")
    os.write(1, b"fake voice: os.write(1) while building\n")
    if os.environ.get("FAKE_VOICE_LOAD") == "fail":
        raise RuntimeError("the fake model is missing")
    return FakeEngine()


def check() -> str | None:
    return os.environ.get("FAKE_VOICE_CHECK") or None


@hookimpl
def assist_voice_engines(register: Callable[[EngineSpec], None]) -> None:
    register(EngineSpec(name="fake", package="fake-voice", build=build, check=check))
