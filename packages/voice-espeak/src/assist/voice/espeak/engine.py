"""The `espeak` engine: a real stream of ~100 ms chunks from espeak-ng's synth callback.

espeak-ng's synchronous mode delivers audio through a callback that runs inside
`espeak_Synth`, so the call only returns when the whole line is spoken. To let `stream` yield
while espeak-ng is still speaking, each line is synthesised on a short-lived worker thread that
feeds a small queue; the generator hands out chunks as they arrive. espeak-ng has no thread
affinity, only global state, and every call into it holds the library's process-wide lock, so
calls from the worker are as safe as calls from the thread that built the engine.

Closing the generator early (a `stop`) sets an abort flag; the callback then returns non-zero,
espeak-ng stops synthesising at once, and the worker is joined before `close()` returns, so the
library is free and the next line starts clean. The queue is bounded so a consumer that stops
reading cannot make espeak-ng run ahead through a long line.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from assist.app.cache import voice_cache_root
from assist.core.engines import VoiceOptions
from assist.voice.espeak import library
from assist.voice.espeak.data import short_data_path
from assist.voice.espeak.prosody import prosody_for

NAME = "espeak"
DEFAULT_VOICE = "en-us"
CHUNK_MS = 100
"""Chunks handed out are at least this long (espeak-ng sometimes delivers shorter buffers)."""
QUEUE_CHUNKS = 20
"""About 2 s of audio may wait in the queue: far ahead of playback, and bounded."""
PUT_POLL_S = 0.05
"""How often a worker blocked on a full queue looks for an abort."""
PCM_SCALE = 32768.0
"""int16 samples to float32 in [-1, 1)."""
ABORT_WITHIN_S = 5.0
"""The synthesis thread sees the abort within one chunk; espeak's call for one is short."""

_END = object()


class EspeakEngine:
    """espeak-ng speaking with one voice; `stream` yields float32 mono chunks."""

    name = NAME

    def __init__(self, espeak: library.EspeakLibrary, voice: str) -> None:
        self._espeak = espeak
        self.voice = voice
        self.sample_rate: int = espeak.sample_rate

    def stream(self, text: str, tone: str) -> Iterator[np.ndarray]:
        """Speak `text` in `tone`, yielding ~100 ms chunks while espeak-ng still works."""
        line = text.strip()
        if not line:
            raise ValueError("there is nothing to say: the text is empty")
        prosody = prosody_for(tone, self._espeak.defaults)
        return self._chunks(line, prosody)

    def _chunks(self, line: str, prosody: library.Prosody) -> Iterator[np.ndarray]:
        chunks: queue.Queue[object] = queue.Queue(maxsize=QUEUE_CHUNKS)
        abort = threading.Event()
        worker = threading.Thread(
            target=self._synthesise, args=(line, prosody, chunks, abort), name="espeak-synth"
        )
        worker.start()
        try:
            while (item := chunks.get()) is not _END:
                if isinstance(item, BaseException):
                    raise item
                assert isinstance(item, np.ndarray)
                yield item
        finally:
            abort.set()
            worker.join(timeout=ABORT_WITHIN_S)

    def _synthesise(
        self,
        line: str,
        prosody: library.Prosody,
        chunks: queue.Queue[object],
        abort: threading.Event,
    ) -> None:
        """Runs on the worker: collects callback buffers into chunks and queues them."""
        least = self.sample_rate * CHUNK_MS // 1000
        pending: list[np.ndarray] = []
        pending_samples = 0

        def offer(item: object) -> bool:
            while not abort.is_set():
                try:
                    chunks.put(item, timeout=PUT_POLL_S)
                    return True
                except queue.Full:
                    continue
            return False

        def sink(samples: np.ndarray) -> bool:
            nonlocal pending_samples
            pending.append(samples)
            pending_samples += len(samples)
            if pending_samples < least:
                return not abort.is_set()
            chunk = np.concatenate(pending).astype(np.float32) / PCM_SCALE
            pending.clear()
            pending_samples = 0
            return offer(chunk)

        try:
            self._espeak.synthesise(line, self.voice, prosody, sink)
            if pending and not abort.is_set():
                offer(np.concatenate(pending).astype(np.float32) / PCM_SCALE)
            offer(_END)
        except BaseException as error:  # handed to the consumer, which raises it
            offer(error)

    def close(self) -> None:
        """Nothing to free per engine: the process's espeak-ng stays loaded for other engines
        and later builds (espeak-ng cannot be safely re-initialised while shared)."""


def build_engine(options: VoiceOptions) -> EspeakEngine:
    """Load the wheel's espeak-ng and check the voice exists."""
    import espeakng_loader

    data = short_data_path(
        Path(espeakng_loader.get_data_path()), voice_cache_root(options.cache_root)
    )
    espeak = library.load(espeakng_loader.get_library_path(), str(data))
    voice = options.voice or DEFAULT_VOICE
    if not espeak.has_voice(voice):
        raise ValueError(
            f"espeak-ng has no voice named {voice!r}; give an espeak-ng voice name such as "
            "en-us, en-gb or en-gb-scotland (espeak-ng --voices lists them)"
        )
    return EspeakEngine(espeak, voice)
