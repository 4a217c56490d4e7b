"""espeak-ng in-process through ctypes, on the library the espeakng-loader wheel ships.

espeak-ng keeps one global state per process and is not thread-safe. This module therefore
owns the one loaded library of the process, initialises it once, and makes every call to it
under one process-wide lock. It runs in synchronous mode: `espeak_Synth` hands the audio to a
callback while it runs, and the callback's return value is how synthesis is aborted
(non-zero stops it), which is what a `stop` relies on.
"""

from __future__ import annotations

import contextlib
import ctypes
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import attrs
import numpy as np

AUDIO_OUTPUT_SYNCHRONOUS = 2
"""Audio goes to our callback inside `espeak_Synth`; espeak-ng opens no sound device."""
CALLBACK_BUFFER_MS = 100
"""espeak-ng hands the callback buffers of about this length: the engine's ~100 ms chunks."""
INITIALIZE_DONT_EXIT = 0x8000
"""Without it espeak-ng ends the whole process when its data folder cannot be read."""
CHARS_UTF8 = 1
POSITION_CHARACTER = 1
EE_OK = 0
EE_NOT_FOUND = 2
PARAMETER_RATE = 1
PARAMETER_PITCH = 3
PARAMETER_RANGE = 4
MAX_DATA_PATH_BYTES = 150
"""espeak-ng copies the data path into a 160-byte buffer and, when it is longer, silently
falls back to a path compiled into the wheel's build (measured: 158 bytes work, 163 fail).
We keep a margin and use a shorter copy of the data beyond this."""


class VoiceSpec(ctypes.Structure):
    """espeak-ng's `espeak_VOICE`, used to pick a voice by language as its command line does."""

    _fields_ = (
        ("name", ctypes.c_char_p),
        ("languages", ctypes.c_char_p),
        ("identifier", ctypes.c_char_p),
        ("gender", ctypes.c_ubyte),
        ("age", ctypes.c_ubyte),
        ("variant", ctypes.c_ubyte),
        ("xx1", ctypes.c_ubyte),
        ("score", ctypes.c_int),
        ("spare", ctypes.c_void_p),
    )


SynthCallback = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.c_void_p
)

AudioSink = Callable[[np.ndarray], bool]
"""Receives each buffer of int16 samples; returns False to abort synthesis."""

_lock = threading.Lock()
"""Every call into espeak-ng, from any engine or thread in the process, holds this lock."""
LOCK_WAIT_S = 10.0
"""A line holds the lock while espeak-ng speaks it, which takes milliseconds unless its
reader has stopped reading without closing the stream. Waiting longer than this means that
has happened, and an error says so instead of waiting forever."""
_loaded: EspeakLibrary | None = None


class EspeakError(RuntimeError):
    """espeak-ng could not start or could not synthesise."""


@attrs.frozen
class Prosody:
    """espeak-ng's rate (words per minute), pitch and pitch range (0-100) for one line."""

    rate: int
    pitch: int
    range: int


class EspeakLibrary:
    """The process's espeak-ng. Build it with `load`, never directly."""

    def __init__(self, library_path: str, data_path: str) -> None:
        self._lib = ctypes.CDLL(library_path)
        self._declare()
        rate = self._lib.espeak_Initialize(
            AUDIO_OUTPUT_SYNCHRONOUS, CALLBACK_BUFFER_MS, data_path.encode(), INITIALIZE_DONT_EXIT
        )
        if rate <= 0 or self._lib.espeak_SetVoiceByName(b"en") != EE_OK:
            raise EspeakError(
                f"espeak-ng could not read its data folder {data_path}; "
                "reinstall espeakng-loader (pip install --force-reinstall espeakng-loader)"
            )
        self.sample_rate: int = rate
        self.defaults = Prosody(
            rate=self._lib.espeak_GetParameter(PARAMETER_RATE, 0),
            pitch=self._lib.espeak_GetParameter(PARAMETER_PITCH, 0),
            range=self._lib.espeak_GetParameter(PARAMETER_RANGE, 0),
        )
        self._sink: AudioSink | None = None
        self._error: BaseException | None = None
        self._callback = SynthCallback(self._on_audio)  # kept alive as long as the library
        self._lib.espeak_SetSynthCallback(self._callback)

    def _declare(self) -> None:
        lib = self._lib
        lib.espeak_Initialize.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
        lib.espeak_Initialize.restype = ctypes.c_int
        lib.espeak_SetSynthCallback.argtypes = [SynthCallback]
        lib.espeak_SetSynthCallback.restype = None
        lib.espeak_SetVoiceByName.argtypes = [ctypes.c_char_p]
        lib.espeak_SetVoiceByName.restype = ctypes.c_int
        lib.espeak_SetVoiceByProperties.argtypes = [ctypes.POINTER(VoiceSpec)]
        lib.espeak_SetVoiceByProperties.restype = ctypes.c_int
        lib.espeak_SetParameter.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int]
        lib.espeak_SetParameter.restype = ctypes.c_int
        lib.espeak_GetParameter.argtypes = [ctypes.c_int, ctypes.c_int]
        lib.espeak_GetParameter.restype = ctypes.c_int
        lib.espeak_Synth.argtypes = [
            ctypes.c_void_p,  # text
            ctypes.c_size_t,  # size in bytes, with the terminating NUL
            ctypes.c_uint,  # position
            ctypes.c_int,  # position type
            ctypes.c_uint,  # end position (0: none)
            ctypes.c_uint,  # flags
            ctypes.c_void_p,  # unique identifier out (unused)
            ctypes.c_void_p,  # user data (unused)
        ]
        lib.espeak_Synth.restype = ctypes.c_int

    def has_voice(self, voice: str) -> bool:
        """Whether espeak-ng knows a voice by this name."""
        with _held():
            return self._select(voice)

    def _select(self, voice: str) -> bool:
        """Select a voice by name (`en-us`, `English (America)`, `gmw/en-GB-x-rp`), else by
        language (`en-gb`, `de`), as `espeak-ng -v` does. Call with the lock held."""
        if self._lib.espeak_SetVoiceByName(voice.encode()) == EE_OK:
            return True
        spec = VoiceSpec(languages=voice.encode())
        return bool(self._lib.espeak_SetVoiceByProperties(ctypes.byref(spec)) == EE_OK)

    def synthesise(self, text: str, voice: str, prosody: Prosody, sink: AudioSink) -> None:
        """Speak `text` into `sink`, buffer by buffer, holding the process-wide lock throughout.

        Returns when the text is spoken or the sink asked to stop; raises EspeakError, or what
        the sink raised."""
        encoded = text.encode("utf-8") + b"\0"
        with _held():
            if not self._select(voice):
                raise EspeakError(f"espeak-ng has no voice named {voice!r}")
            for parameter, value in (
                (PARAMETER_RATE, prosody.rate),
                (PARAMETER_PITCH, prosody.pitch),
                (PARAMETER_RANGE, prosody.range),
            ):
                self._lib.espeak_SetParameter(parameter, value, 0)
            self._sink, self._error = sink, None
            try:
                status = self._lib.espeak_Synth(
                    encoded, len(encoded), 0, POSITION_CHARACTER, 0, CHARS_UTF8, None, None
                )
            finally:
                self._sink = None
            if self._error is not None:
                raise self._error
            if status != EE_OK:
                raise EspeakError(f"espeak-ng could not synthesise the line (error {status})")

    def _on_audio(self, wav: ctypes._Pointer[ctypes.c_short], count: int, _events: int) -> int:
        """espeak-ng's synth callback: 0 to go on, 1 to abort."""
        if not wav or count <= 0 or self._sink is None:
            return 0  # a NULL buffer marks the end; an empty one carries only events
        try:
            samples = np.ctypeslib.as_array(wav, shape=(count,)).copy()
            return 0 if self._sink(samples) else 1
        except BaseException as error:
            self._error = error
            return 1


@contextlib.contextmanager
def _held() -> Iterator[None]:
    """The process-wide lock, or EspeakError when another line keeps it too long."""
    if not _lock.acquire(timeout=LOCK_WAIT_S):
        raise EspeakError(
            "espeak-ng is still busy with another line in this process whose stream was "
            "neither read to the end nor closed; close that stream before speaking again"
        )
    try:
        yield
    finally:
        _lock.release()


def load(library_path: str, data_path: str) -> EspeakLibrary:
    """The process's espeak-ng, loaded and initialised on first use (later paths are ignored:
    espeak-ng has one global state, so the first engine built decides its data folder)."""
    global _loaded
    with _lock:
        if _loaded is None:
            _loaded = EspeakLibrary(library_path, data_path)
        return _loaded


def data_path_fits(path: Path) -> bool:
    """Whether espeak-ng can take this data folder path as it is."""
    return len(str(path).encode()) <= MAX_DATA_PATH_BYTES
