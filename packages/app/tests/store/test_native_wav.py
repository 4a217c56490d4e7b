"""The replayed room WAV is a valid WAV at every moment, and goes away at the end."""

from __future__ import annotations

import wave
from pathlib import Path

from assist.app.store.native_wav import GrowingWav


def test_the_room_wav_reads_as_a_wav_of_the_silence_so_far_after_every_growth(
    tmp_path: Path,
) -> None:
    wav = GrowingWav(tmp_path / "room.native.wav", rate=8000)
    for step in (0.2, 0.2, 0.05, 1.0):
        wav.grow(step)
        with wave.open(str(wav.path), "rb") as reader:
            assert (reader.getnchannels(), reader.getsampwidth()) == (1, 2)
            assert reader.getnframes() == wav.frames
            assert set(reader.readframes(reader.getnframes())) <= {0}
    assert wav.frames == round(1.45 * 8000)


def test_fractions_of_a_frame_are_carried_over_not_lost(tmp_path: Path) -> None:
    wav = GrowingWav(tmp_path / "room.native.wav", rate=10)
    for _ in range(10):
        wav.grow(0.05)  # half a frame each time
    assert wav.frames == 5


def test_removing_the_wav_deletes_it_so_the_session_ends(tmp_path: Path) -> None:
    wav = GrowingWav(tmp_path / "room.native.wav")
    wav.grow(0.2)
    wav.remove()
    assert not wav.path.exists()


def test_appended_audio_reads_back_exactly_after_every_append(tmp_path: Path) -> None:
    wav = GrowingWav(tmp_path / "room.native.wav", rate=48000)
    written = b""
    for block in (b"\x01\x00\xff\x7f", b"", b"\x00\x80" * 300):
        wav.append(block)
        written += block
        with wave.open(str(wav.path), "rb") as reader:
            assert reader.getframerate() == 48000
            assert reader.readframes(reader.getnframes()) == written
    assert wav.frames == len(written) // 2
