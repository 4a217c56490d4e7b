"""What Smart Turn v3 hears: Whisper's 80-bin log-mel of the turn's last 8 s, in numpy.

The model was trained on the features of transformers' `WhisperFeatureExtractor(chunk_length=8)`
with its waveform normalisation on, and Pipecat feeds it so; this is that recipe, written
again without transformers or torch:

- the window: the last 8 s (128 000 samples at 16 kHz), zero-padded at the start when the
  turn is shorter, so the end of the phrase is always at the end of the window;
- the whole window normalised to zero mean and unit variance (variance + 1e-7), in float32;
- a centred STFT: reflect padding of 200 samples each side, 400-sample periodic Hann window,
  hop 160, power spectrum in float64: 801 frames of 201 bins;
- 80 Slaney mel filters (Slaney-normalised, 0 to 8 kHz), floor 1e-10, log10; the last frame
  dropped (800 remain); values below the maximum less 8 raised to it, then (x + 4) / 4.

The mel projection is an `einsum`, not a matrix product: numpy hands a product this size to
OpenBLAS, whose worker threads then spin on the other core for tens of milliseconds after
each call (35-45 ms of CPU a decision, measured), taken from the ONNX run and the recogniser.
It runs in float32, which moves the features by about 1e-7.

The tests hold it beside faster-whisper's own numpy extractor on Piper speech.
"""

from __future__ import annotations

import numpy as np

RATE_HZ = 16_000
WINDOW_SAMPLES = 8 * RATE_HZ
"""The model hears 8 s."""
N_FFT = 400
HOP = 160
N_MELS = 80
FRAMES = WINDOW_SAMPLES // HOP
"""800 frames of 10 ms."""
VARIANCE_FLOOR = 1e-7
MEL_FLOOR = 1e-10
DYNAMIC_RANGE = 8.0
"""log10 units kept below the loudest bin: 80 dB."""


def last_window(samples: np.ndarray) -> np.ndarray:
    """The last 8 s of `samples` as float32, zeros before a shorter turn."""
    audio = np.asarray(samples, dtype=np.float32).reshape(-1)[-WINDOW_SAMPLES:]
    if audio.size == WINDOW_SAMPLES:
        return audio
    return np.concatenate((np.zeros(WINDOW_SAMPLES - audio.size, np.float32), audio))


def log_mel(window: np.ndarray) -> np.ndarray:
    """The (80, 800) float32 features of one 8 s window (see the module docstring)."""
    if window.shape != (WINDOW_SAMPLES,):
        raise ValueError(f"a window is {WINDOW_SAMPLES} samples, not {window.shape}")
    audio = window.astype(np.float32)
    audio = (audio - audio.mean()) / np.sqrt(audio.var() + VARIANCE_FLOOR)
    power = _power_spectrum(audio.astype(np.float64))[:-1].astype(np.float32)
    projected = np.einsum("mf,tf->mt", MEL_FILTERS_32, power, optimize=False)
    mel: np.ndarray = np.log10(np.maximum(projected, MEL_FLOOR))
    mel = np.maximum(mel, mel.max() - DYNAMIC_RANGE)
    features: np.ndarray = (mel + 4.0) / 4.0
    return features


def _power_spectrum(audio: np.ndarray) -> np.ndarray:
    """(801, 201): |rFFT|^2 of each Hann-windowed frame, centred by reflect padding."""
    padded = np.pad(audio, N_FFT // 2, mode="reflect")
    frames = np.lib.stride_tricks.sliding_window_view(padded, N_FFT)[::HOP]
    spectrum = np.fft.rfft(frames * HANN, axis=-1)
    power: np.ndarray = spectrum.real**2 + spectrum.imag**2
    return power


def _hz_to_mel(hz: np.ndarray) -> np.ndarray:
    """Slaney's scale: linear to 1 kHz (15 mel), logarithmic above (27 mel per factor 6.4)."""
    above = 15.0 + np.log(np.maximum(hz, 1000.0) / 1000.0) * 27.0 / np.log(6.4)
    return np.where(hz < 1000.0, 3.0 * hz / 200.0, above)


def _mel_to_hz(mel: np.ndarray) -> np.ndarray:
    above = 1000.0 * np.exp((mel - 15.0) * np.log(6.4) / 27.0)
    return np.where(mel < 15.0, 200.0 * mel / 3.0, above)


def _mel_filters() -> np.ndarray:
    """(80, 201) triangles between neighbouring mel edges, each scaled to equal area."""
    top = np.array([RATE_HZ / 2.0])
    edges = _mel_to_hz(np.linspace(0.0, _hz_to_mel(top)[0], N_MELS + 2))
    bins = np.linspace(0.0, RATE_HZ / 2.0, N_FFT // 2 + 1)
    low, centre, high = edges[:-2, None], edges[1:-1, None], edges[2:, None]
    rising = (bins[None, :] - low) / (centre - low)
    falling = (high - bins[None, :]) / (high - centre)
    triangles: np.ndarray = np.maximum(0.0, np.minimum(rising, falling)) * (2.0 / (high - low))
    return triangles


HANN = np.hanning(N_FFT + 1)[:-1]
"""Periodic Hann window, as torch's and transformers' are."""
MEL_FILTERS = _mel_filters()
MEL_FILTERS_32 = MEL_FILTERS.astype(np.float32)
"""The filters as the projection uses them."""
