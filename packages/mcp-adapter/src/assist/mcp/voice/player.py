"""Where a line's audio goes: the speakers through sounddevice, or nowhere while counting.

Behaviour 8.5. The speakers are a sounddevice `OutputStream(samplerate, channels=1,
dtype="float32")` started at open. `play` puts a chunk on a queue and a daemon thread writes
queued chunks to the stream, so the engine makes the next sentence while this one sounds.
`wait` blocks until the queue is drained, or fails the line once the device has taken nothing
for STALL_S while not paused; `close` queues a sentinel, joins the writer, then stops and
closes the stream.

`cut` (ours, for the helper's `stop`) drops the queued chunks, halts the chunk being written
and reports the samples of this line handed to the device so far. The writer takes audio in
blocks and hands each to the device in short steps, looking for a cut between steps, so
playback halts within one step. After a cut, `play` ignores chunks until `begin` starts the
next line, so a chunk the engine finishes just after the cut can never sound.

`pause` and `resume` (ours, for the helper's `pause` and `resume`, 16.3) hold the line where it
is: the writer finishes the step it is writing and waits before the next one, keeping its place
in the chunk and the queue; `resume` goes on from that very sample. A cut ends a pause too.
While paused with a reference tee the writer feeds silence, as between lines.

With a reference tee (`reference_tee`, when the server gave a socket for it) every block is
also sent, just before its first step is written, to the listener that cancels it from the
microphone, and the steps a pause or cut left unwritten are taken back. Between lines the
writer feeds the stream IDLE_S blocks of silence, so the device never runs dry and restarts,
and the times the tee stamps stay on one unbroken timeline.

The silent player (`--no-play`, tests) plays nothing and counts the samples it is given, so
`done` and `stopped` report the audio generated.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from typing import Any, Protocol

import numpy as np
from assist.core.echo_reference import VARIABLE as REFERENCE_VARIABLE
from assist.mcp.voice.output import log
from assist.mcp.voice.reference_tee import ReferenceTee

BLOCK_S = 0.05
"""Audio sent to the reference tee at a time: 20 datagrams a second, so a Unix socket's queue of
10 (Linux) covers half a second of a listener that falls behind."""

STEP_S = 0.01
"""Audio handed to the device per write. A pause or cut holds playback within one step: with
whole 50 ms blocks a person who interrupted waited 26-42 ms (median) for the block being
written, of the 200 ms 16.3 allows from their first sound to the line silent."""

IDLE_S = 0.01
"""Silence written at a time between lines with a reference tee: a line that arrives waits at
most this long for the writer, on top of the stream's own latency."""

CUT_WAIT_S = 1.0
"""Longest a cut waits for the step being written; a stalled device must not stall the
reader thread that asked for the cut."""

STALL_S = 10.0
"""Longest a line waits for a device that takes no audio while the line is not paused: a
stalled device fails the line (`PlaybackFailed`) rather than holding every later say."""

CLOSE_WAIT_S = 5.0
"""Longest `close` waits for the writer thread to finish (behaviour 8.5)."""


class Player(Protocol):
    """What the helper needs from a player, on top of which each line is played."""

    def begin(self) -> None:
        """Start a new line: the sample count is reset and `play` is accepted again."""

    def play(self, chunk: np.ndarray) -> None:
        """Queue one float32 mono chunk of this line (ignored after a cut)."""

    def wait(self) -> int:
        """Block until this line's audio has been handed to the device (or cut); its samples."""

    def cut(self) -> int:
        """Drop this line's remaining audio at once; the samples handed to the device before."""

    def pause(self) -> int:
        """Hand no more of this line to the device, keeping its place; the samples before."""

    def resume(self) -> int:
        """Go on from the sample where the line paused; the samples handed before."""

    def close(self) -> None:
        """Release the device."""


class PlayerUnavailable(RuntimeError):
    """The speakers cannot be opened at start (no PortAudio, no output device)."""


class PlaybackFailed(RuntimeError):
    """The output device failed while a line was playing."""


class SilentPlayer:
    """Plays nothing; counts the samples given for this line until a cut."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._samples = 0
        self._cut = False

    def begin(self) -> None:
        with self._lock:
            self._samples = 0
            self._cut = False

    def play(self, chunk: np.ndarray) -> None:
        with self._lock:
            if not self._cut:
                self._samples += len(chunk)

    def wait(self) -> int:
        with self._lock:
            return self._samples

    def cut(self) -> int:
        with self._lock:
            self._cut = True
            return self._samples

    def pause(self) -> int:
        """Nothing plays, so nothing to hold: the samples counted so far."""
        return self.wait()

    def resume(self) -> int:
        return self.wait()

    def close(self) -> None:
        pass


class OutputStreamLike(Protocol):
    """The part of `sounddevice.OutputStream` the speaker player uses."""

    def write(self, data: Any) -> Any: ...

    def stop(self) -> None: ...

    def close(self) -> None: ...


class SpeakerPlayer:
    """Feeds a started output stream from a queue on its own daemon thread."""

    def __init__(
        self, stream: OutputStreamLike, sample_rate: int, tee: ReferenceTee | None = None
    ) -> None:
        self._stream = stream
        self._rate = sample_rate
        self._tee = tee
        self._block = max(1, round(sample_rate * BLOCK_S))
        self._step = max(1, round(sample_rate * STEP_S))
        self._idle = np.zeros(max(1, round(sample_rate * IDLE_S)), dtype=np.float32)
        self._changed = threading.Condition()
        self._chunks: deque[np.ndarray | None] = deque()  # None is the closing sentinel
        self._busy = False  # the writer holds a chunk
        self._epoch = 0  # bumped by each cut; a chunk of an older epoch stops being written
        self._cut = False
        self._paused = False
        self._holding = False  # the writer waits, paused, between two blocks
        self._samples = 0
        self._moved = time.monotonic()  # when the device last took a step, or the line resumed
        self._failure: Exception | None = None
        self._writer = threading.Thread(
            target=self._write_queued, name="assist-voice-player", daemon=True
        )
        self._writer.start()

    def begin(self) -> None:
        with self._changed:
            self._samples = 0
            self._moved = time.monotonic()
            self._cut = False
            self._paused = False
            self._failure = None

    def play(self, chunk: np.ndarray) -> None:
        with self._changed:
            if self._cut or self._failure is not None:
                return
            self._chunks.append(chunk)
            self._changed.notify_all()

    def wait(self) -> int:
        with self._changed:
            while not self._changed.wait_for(
                lambda: self._cut or self._failure is not None or not self._pending(),
                timeout=STALL_S,
            ):
                if not self._paused and time.monotonic() - self._moved >= STALL_S:
                    raise PlaybackFailed(f"the audio output took no audio for {STALL_S:g} s")
            if self._failure is not None:
                raise PlaybackFailed(f"the audio output failed while playing: {self._failure}")
            return self._samples

    def cut(self) -> int:
        with self._changed:
            self._cut = True
            self._epoch += 1
            self._drop_queued()
            self._changed.notify_all()
            self._changed.wait_for(lambda: not self._busy, timeout=CUT_WAIT_S)
            return self._samples

    def pause(self) -> int:
        """Hold after the step being written (within one step, as a cut)."""
        with self._changed:
            self._paused = True
            self._changed.notify_all()
            self._changed.wait_for(lambda: self._holding or not self._busy, timeout=CUT_WAIT_S)
            return self._samples

    def resume(self) -> int:
        with self._changed:
            self._paused = False
            self._moved = time.monotonic()
            self._changed.notify_all()
            return self._samples

    def close(self) -> None:
        with self._changed:
            if self._paused:  # a paused line is not played out at the end
                self._epoch += 1
                self._drop_queued()
            self._chunks.append(None)
            self._changed.notify_all()
        self._writer.join(CLOSE_WAIT_S)
        if self._tee is not None:
            self._tee.close()
        try:
            self._stream.stop()
            self._stream.close()
        except Exception as error:  # closing a failed device must not fail the exit
            log.warning(f"could not close the audio output cleanly: {error}")

    def _pending(self) -> bool:
        return self._busy or any(chunk is not None for chunk in self._chunks)

    def _drop_queued(self) -> None:
        closing = any(chunk is None for chunk in self._chunks)  # `in` would compare arrays
        self._chunks.clear()
        if closing:
            self._chunks.append(None)

    def _write_queued(self) -> None:
        while True:
            with self._changed:
                if self._tee is not None and not self._chunks:
                    queued = None
                else:
                    self._changed.wait_for(lambda: bool(self._chunks))
                    queued = self._chunks.popleft()
                    if queued is None:
                        return
                    self._busy = True
                    epoch = self._epoch
            if queued is None:
                self._keep_running()
                continue
            chunk: np.ndarray = queued
            try:
                self._write(chunk, epoch)
            except Exception as error:  # a device lost mid-line fails that line, not the helper
                with self._changed:
                    self._failure = error
                    self._drop_queued()
            finally:
                with self._changed:
                    self._busy = False
                    self._changed.notify_all()

    def _keep_running(self) -> None:
        """Silence between lines, so the stream's timeline (the tee's stamps) never breaks."""
        assert self._tee is not None
        try:
            self._tee.played(self._idle, time.monotonic(), self._free_s())
            if self._stream.write(self._idle.reshape(-1, 1)):
                self._tee.ran_dry()
        except Exception:  # a failing device is reported by the next line that plays
            time.sleep(IDLE_S)

    def _write(self, chunk: np.ndarray, epoch: int) -> None:
        start = 0
        while start < len(chunk):
            if not self._held(epoch):
                return
            block = chunk[start : start + self._block]
            if self._tee is not None:
                self._tee.played(block, time.monotonic(), self._free_s())
            written = self._write_steps(block, epoch)
            if written < len(block) and self._tee is not None:
                self._tee.took_back(len(block) - written)
            start += written

    def _write_steps(self, block: np.ndarray, epoch: int) -> int:
        """Hand `block` to the device a step at a time until a pause or cut; the samples
        handed (at least one step)."""
        written = 0
        while written < len(block):
            if written:
                with self._changed:
                    if self._paused or self._epoch != epoch:
                        break
            step = block[written : written + self._step]
            if self._stream.write(step.reshape(-1, 1)) and self._tee is not None:
                self._tee.ran_dry()  # the write returns whether the device underflowed
            written += len(step)
            with self._changed:
                self._samples += len(step)
                self._moved = time.monotonic()
        return written

    def _free_s(self) -> float:
        """Seconds of the device's buffer free for writing (sounddevice's `write_available`):
        where that is not known the buffer counts as empty, so the reference's stamp is never
        later than the sound."""
        try:
            free = getattr(self._stream, "write_available", None)  # a stream that cannot say
            return float("inf") if free is None else float(free) / self._rate
        except Exception:  # a failing device: the write says so
            return float("inf")

    def _held(self, epoch: int) -> bool:
        """Wait out a pause before the next block; False once a cut ended this chunk."""
        while True:
            with self._changed:
                if self._epoch != epoch or not self._paused:
                    self._holding = False
                    return self._epoch == epoch
                self._holding = True
                self._changed.notify_all()
                if self._tee is None:
                    self._changed.wait()
                    continue
            self._keep_running()  # paused with a tee: silence keeps its timeline unbroken


def open_speakers(sample_rate: int) -> SpeakerPlayer:
    """The default output device at `sample_rate`, started, with a reference tee when the
    server named a socket for it; PlayerUnavailable says why not."""
    from assist.app.audio import AudioUnavailable, sounddevice

    try:
        stream = sounddevice().OutputStream(samplerate=sample_rate, channels=1, dtype="float32")
        stream.start()
    except AudioUnavailable as unavailable:
        raise PlayerUnavailable(
            f"cannot play sound: {unavailable}; or run with --no-play"
        ) from None
    except Exception as error:
        raise PlayerUnavailable(
            f"cannot open an audio output device at {sample_rate} Hz ({error}); connect or "
            "enable a sound output, or run with --no-play"
        ) from error
    path = os.environ.get(REFERENCE_VARIABLE)
    tee = ReferenceTee(path, sample_rate, float(stream.latency)) if path else None
    return SpeakerPlayer(stream, sample_rate, tee)
