"""How long after `paplay` starts a sound is in the PulseAudio room (issue 20's pause figure).

`assist eval --echo-set` times the person's sounds in the PulseAudio room from the moment it
starts `paplay`, so its pause latency includes whatever lies between that moment and the
sound reaching the sink. This measures that gap: `parec` reads the sink's monitor in 20 ms
blocks; each sound is played with `paplay` into the sink, found in the monitor by
cross-correlation (`barge_split.user_and_voice`), and its first sound placed on the monotonic
clock two ways:

- **by the sample clock**: the sample count and the earliest read of the blocks since
  (a sample is at most the monitor's least delay after it was mixed, if mixing ran at an
  even pace; the null sink mixes in bursts, so this can come before `paplay`'s start);
- **by the block read**: when the block holding it was read (never before it was mixed).

The truth lies between the two. Run inside a room (`eval "$(.ci/audio-room)"`):

    uv run python benchmarks/paplay_arrival.py [--sounds 20]

Prints min / median / max of each, in ms after `paplay` was started; nothing is asserted.
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
from barge_split import user_and_voice
from echo import write_wav

RATE = 16_000
BLOCK_BYTES = 640
"""20 ms of s16le mono at 16 kHz."""


def speechlike(seconds: float, seed: int) -> np.ndarray:
    """Noise in syllable-long bursts: unlike any other stretch of itself, as speech is."""
    rng = np.random.default_rng(seed)
    t = np.arange(round(seconds * RATE)) / RATE
    envelope = np.clip(np.sin(2 * np.pi * rng.uniform(3, 6) * t), 0, None)
    return (rng.standard_normal(t.size) * envelope * 0.2).astype(np.float32)


class Monitor:
    """The sink's monitor, read on a thread: (monotonic time read, samples before, samples)."""

    def __init__(self) -> None:
        self.blocks: list[tuple[float, int, np.ndarray]] = []
        self._count = 0
        self._lock = threading.Lock()
        self._parec = subprocess.Popen(
            [
                *("parec", "--device=room.monitor", "--raw", "--format=s16le"),
                *("--rate=16000", "--channels=1", "--latency-msec=20"),
            ],
            stdout=subprocess.PIPE,
        )
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        assert self._parec.stdout is not None
        while block := self._parec.stdout.read(BLOCK_BYTES):
            read = time.monotonic()
            samples = np.frombuffer(block, "<i2").astype(np.float32) / 32768
            with self._lock:
                self.blocks.append((read, self._count, samples))
                self._count += len(samples)

    def since(self, moment: float) -> list[tuple[float, int, np.ndarray]]:
        with self._lock:
            return [block for block in self.blocks if block[0] >= moment]

    def close(self) -> None:
        self._parec.kill()
        self._parec.wait(timeout=10)
        self._thread.join(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sounds", type=int, default=20)
    args = parser.parse_args()
    monitor = Monitor()
    clock_ms: list[float] = []
    read_ms: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        time.sleep(0.5)
        for seed in range(args.sounds):
            clip = speechlike(1.0, seed)
            path = Path(folder) / f"{seed}.wav"
            write_wav(path, clip)
            started = time.monotonic()
            subprocess.run(["paplay", "--device=room", str(path)], check=True, timeout=30)
            time.sleep(0.3)
            blocks = monitor.since(started)
            found = user_and_voice(np.concatenate([b[2] for b in blocks]), clip)
            if found is None:
                print(f"sound {seed}: not found in the monitor")
                continue
            sample = blocks[0][1] + found[0]
            origin = min(read - (before + len(kept)) / RATE for read, before, kept in blocks)
            clock_ms.append((origin + sample / RATE - started) * 1000)
            read = next(r for r, before, kept in blocks if before <= sample < before + len(kept))
            read_ms.append((read - started) * 1000)
    monitor.close()
    for name, values in (("by the sample clock", clock_ms), ("by the block read", read_ms)):
        low, middle, high = np.percentile(values, [0, 50, 100])
        print(f"{name}: {low:.1f} / {middle:.1f} / {high:.1f} ms after paplay started")


if __name__ == "__main__":
    main()
