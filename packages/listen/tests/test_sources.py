"""The sources' own rules: a capture callback that never blocks (a full queue drops and counts
the block, and silence of its length keeps the clock), and a WAV file played at real time."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from assist.listen.sources import CaptureError, DeviceSource, StdinSource, WavSource, _with_gap
from listen_harness import write_wav


def test_a_block_that_finds_the_queue_full_is_dropped_counted_and_replaced_by_silence():
    source = DeviceSource(0, 16000, "test mic", "room")
    capacity = source._queue.maxsize
    block = np.ones((512, 1), dtype=np.int16)
    for _ in range(capacity + 3):
        source._callback(block, 512, None, None)
    assert (source.dropped_blocks, source.dropped_frames) == (3, 3 * 512)
    while not source._queue.empty():
        source._queue.get_nowait()
    source._callback(block * 2, 512, None, None)
    gap, kept = source._queue.get_nowait()
    assert gap == 3 * 512
    pieces = list(_with_gap(gap, kept))
    assert [len(piece) for piece in pieces] == [3 * 512, 512]
    assert not pieces[0].any() and (pieces[1] == 2).all()


def test_a_wav_file_is_played_at_real_time_unless_fast(tmp_path: Path, meeting) -> None:
    path = tmp_path / "one.wav"
    seconds = 1.5
    write_wav(path, meeting.samples[: int(seconds * 16000)], 16000)
    started = time.monotonic()
    heard = sum(len(block) for block in WavSource(path, fast=False).blocks(threading.Event()))
    assert time.monotonic() - started >= seconds - 0.1
    assert heard == int(seconds * 16000)
    fast = sum(len(block) for block in WavSource(path, fast=True).blocks(threading.Event()))
    assert fast == heard


def test_a_file_that_is_not_there_is_named_as_missing_not_as_a_system_error(tmp_path):
    with pytest.raises(CaptureError) as missing:
        WavSource(tmp_path / "meeting.wav", fast=True)
    assert str(missing.value).startswith(f"there is no file {tmp_path / 'meeting.wav'}; ")
    assert "System error" not in str(missing.value)
    with pytest.raises(CaptureError) as folder:
        WavSource(tmp_path, fast=True)
    assert str(folder.value).startswith(f"{tmp_path} is a folder; ")


def test_standard_input_has_a_capture_clock_that_is_never_late() -> None:
    """It comes at the pace it is heard (a software room writes it so), so like a device it
    says when each sample was heard, no later than it was read, and the echo canceller can
    line it up with what the voice played."""
    read, write = os.pipe()
    stream = os.fdopen(read, "rb")
    source = StdinSource(stream)
    assert source.clock is not None and source.clock.at(0.0) is None
    os.write(write, np.zeros(1600, "<i2").tobytes())
    os.close(write)
    written = time.monotonic()
    blocks = list(source.blocks(threading.Event()))
    assert sum(len(block) for block in blocks) == 1600
    stream.close()
    heard_at = source.clock.at(0.1)
    assert heard_at is not None and written - 0.5 < heard_at <= time.monotonic()


def _played(path: Path) -> np.ndarray:
    return np.concatenate(list(WavSource(path, fast=True).blocks(threading.Event())))


@pytest.mark.parametrize("subtype", ["FLOAT", "DOUBLE"])
def test_a_float_wav_is_scaled_to_16_bit_not_heard_as_silence(tmp_path, subtype):
    """libsndfile reads a float file as int16 without scaling: every sample -1, 0 or 1."""
    import soundfile

    wave = np.sin(np.arange(16000) * 2 * np.pi * 440 / 16000) * 0.5
    wave[:3] = [1.5, -1.5, 0.25]  # beyond full scale is clipped; in range is rounded
    path = tmp_path / "float.wav"
    soundfile.write(path, wave, 16000, subtype=subtype)
    played = _played(path)
    expected = np.clip(np.round(wave.astype(np.float32) * 32768.0), -32768, 32767)
    assert played.dtype == np.int16
    assert played[:3].tolist() == [32767, -32768, 8192]
    assert np.array_equal(played, expected.astype(np.int16))


def test_a_16_bit_wav_is_played_bit_exact_and_channels_are_averaged_as_before(tmp_path):
    noise = np.random.default_rng(7).integers(-32768, 32768, size=(4000, 2), dtype=np.int16)
    noise[:2] = [[-32768, -32768], [32767, 32767]]
    mono, stereo = tmp_path / "mono.wav", tmp_path / "stereo.wav"
    write_wav(mono, noise[:, 0] / 32768.0, 16000)
    write_wav(stereo, noise / 32768.0, 16000, channels=2)
    written = np.frombuffer(mono.read_bytes()[44:], dtype="<i2")
    assert np.array_equal(_played(mono), written)
    pairs = np.frombuffer(stereo.read_bytes()[44:], dtype="<i2").reshape(-1, 2)
    averaged = np.round(pairs.astype(np.float64).mean(axis=1)).astype(np.int16)
    assert np.array_equal(_played(stereo), averaged)


def test_a_wav_with_no_audio_is_refused_with_what_to_do(tmp_path):
    empty, header_only = tmp_path / "empty.wav", tmp_path / "header-only.wav"
    write_wav(empty, np.zeros(0), 16000)
    write_wav(header_only, np.zeros(16000), 16000)
    header_only.write_bytes(header_only.read_bytes()[:44])  # declares 1 s, holds none
    for path in (empty, header_only):
        with pytest.raises(CaptureError, match=rf"^{path} holds no audio .*give a WAV file"):
            WavSource(path, fast=True)


def test_a_wav_cut_short_is_played_as_far_as_it_goes_with_a_warning(tmp_path):
    path = tmp_path / "cut.wav"
    write_wav(path, np.zeros(16000), 16000)
    path.write_bytes(path.read_bytes()[: 44 + 16000])  # half of the 32000 bytes declared
    source = WavSource(path, fast=True)
    assert len(_played(path)) == 8000
    assert source.warnings == [
        f"room: {path} is cut short: it holds 0.50 s, 50% of the 1.00 s its header "
        "declares; the session has what was there"
    ]
    whole = tmp_path / "whole.wav"
    write_wav(whole, np.zeros(16000), 16000)
    assert WavSource(whole, fast=True).warnings == []
