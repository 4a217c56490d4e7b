"""`assist listen --events`: the speech signals a supervising server reads (behaviour 13, 14.2)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from assist.core.turns import TurnRules
from assist.listen.onsets import LoudOnsets

sys.path.insert(0, str(Path(__file__).parent))
from listen_harness import Listener, listen_env, write_wav


def test_a_loud_onset_needs_three_speech_frames_over_the_gate_and_rearms_after_quiet() -> None:
    onsets = LoudOnsets(TurnRules())
    frames = [(0.9, 0.2)] * 5 + [(0.9, 0.01)] * 4 + [(0.9, 0.2)] * 4 + [(0.9, 0.01)] * 9
    frames += [(0.9, 0.2)] * 3 + [(0.2, 0.3)] * 3 + [(0.9, 0.04)] * 5
    found = [onsets.feed(i, p, level) for i, (p, level) in enumerate(frames)]
    # The first run; the second came before 256 ms of quiet (4 frames < 8) so it is the same;
    # the third after 9 quiet frames; loud non-speech and quiet speech are never onsets.
    assert [frame for frame in found if frame is not None] == [0, 22]


def test_events_give_each_turns_start_and_end_and_a_loud_onset_on_stdout(
    tmp_path: Path, meeting, meeting_wav: Path
) -> None:
    quiet = tmp_path / "quiet.wav"
    write_wav(quiet, meeting.samples * 0.1, meeting.rate)
    for path, loud in ((meeting_wav, True), (quiet, False)):
        listener = Listener(
            tmp_path / f"sessions-{loud}",
            listen_env(tmp_path),
            "--from",
            str(path),
            "--fast",
            "--stt",
            "fake",
            "--events",
        )
        code, out, err = listener.wait()
        assert code == 0, err
        events = [json.loads(line) for line in out.splitlines()[1:]]
        kinds = [event["event"] for event in events]
        starts = [e["ms"] for e in events if e["event"] == "speech_started"]
        assert len(starts) == len(meeting.lines) == kinds.count("speech_stopped")
        for ms, spoken in zip(starts, meeting.lines, strict=True):
            assert abs(ms - spoken.start_s * 1000) < 200
        louds = [e for e in events if e["event"] == "loud"]
        if loud:
            assert len(louds) >= len(meeting.lines)
            assert all(e["level"] >= 0.05 for e in louds)
        else:
            assert louds == []  # speech at -20 dB stays under the echo gate
        assert np.all(np.diff(starts) > 0)
