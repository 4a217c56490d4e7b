"""A track's files: the native WAV valid at the device rate while capturing, the 16 kHz spool
read back exactly, `<track>.wav` at the end, and nothing temporary left."""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np
from assist.listen.session_files import TICK_S, TrackFiles


def test_the_native_wav_holds_what_was_captured_at_the_device_rate_after_each_tick(
    tmp_path: Path,
) -> None:
    files = TrackFiles(tmp_path, "room", 48000)
    native = tmp_path / "audio" / "room.native.wav"
    captured = b""
    now = 100.0
    for block in (b"\x01\x00" * 480, b"\x02\x00" * 480, b"\x03\x00" * 96):
        files.capture(block, now)
        captured += block
        now += TICK_S
    with wave.open(str(native)) as reader:
        assert (reader.getframerate(), reader.getnchannels(), reader.getsampwidth()) == (
            48000,
            1,
            2,
        )
        assert reader.readframes(reader.getnframes()) == captured


def test_the_spool_reads_back_any_span_and_becomes_the_final_16_khz_wav(tmp_path: Path) -> None:
    files = TrackFiles(tmp_path, "call", 44100)
    ramp = (np.arange(4000, dtype=np.float32) - 2000) / 4000
    files.spool(ramp[:1500])
    files.spool(ramp[1500:])
    assert files.samples == 4000
    np.testing.assert_allclose(files.read(1000, 1100), ramp[1000:1100], atol=1 / 32767)
    assert files.read(3990, 5000).size == 10
    files.write_final_wav()
    files.remove_temporary()
    with wave.open(str(tmp_path / "audio" / "call.wav")) as reader:
        assert (reader.getframerate(), reader.getnframes()) == (16000, 4000)
        written = np.frombuffer(reader.readframes(4000), dtype="<i2") / 32767
    np.testing.assert_allclose(written, ramp, atol=1 / 32767)
    assert sorted(path.name for path in (tmp_path / "audio").iterdir()) == ["call.wav"]
