"""`assist listen --from FILE` with the real default recogniser (whisper tiny.en, shipped in a
package, so nothing is downloaded): the words of a Piper-voiced meeting come back."""

from __future__ import annotations

import json
import wave
from pathlib import Path

from assist.core.words import word_error_rate
from listen_harness import Listener, listen_env, raw_lines

MOST_WORD_ERRORS = 0.10


def test_a_voiced_meeting_file_becomes_its_words_one_line_per_turn_with_no_download(
    tmp_path: Path, meeting, meeting_wav: Path
) -> None:
    env = listen_env(tmp_path, HF_HUB_OFFLINE="1", XDG_CACHE_HOME=str(tmp_path / "empty-cache"))
    listener = Listener(tmp_path / "s", env, "--from", str(meeting_wav), "--fast", "--quiet")
    code, _, err = listener.wait(timeout=300)
    assert code == 0, err
    lines = raw_lines(listener.folder)
    assert len(lines) == len(meeting.lines), lines
    heard = " ".join(line["text"] for line in lines)
    assert word_error_rate(meeting.text, heard) <= MOST_WORD_ERRORS, heard
    assert all(0 < line["confidence"] <= 1 for line in lines)
    meta = json.loads((listener.folder / "session.json").read_text())
    assert meta["model"] == "whisper tiny.en"
    assert meta["warnings"] == []
    with wave.open(str(listener.folder / "audio" / "room.wav")) as room:
        assert room.getframerate() == 16000
    assert sorted(p.name for p in (listener.folder / "audio").iterdir()) == ["room.wav"]
