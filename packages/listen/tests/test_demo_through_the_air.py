"""`assist demo --echo air`: the sample meeting said in the software room, recorded by a real
`assist listen`, the replies heard back through the air, and every check of the demo holding.
At speed 1 (speech cannot be sped up): about 100 s."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

DEMO = [str(Path(sys.executable).parent / "assist"), "demo"]


@pytest.fixture(scope="module")
def air_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    workdir = tmp_path_factory.mktemp("demo-air")
    done = subprocess.run(
        [*DEMO, "--echo", "air", "--json", "--no-play", "--workdir", str(workdir)],
        capture_output=True,
        text=True,
        timeout=400,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    summary: dict[str, Any] = json.loads(done.stdout)
    summary["stderr"] = done.stderr
    return summary


def test_the_notice_comes_first_and_the_small_talk_gets_no_reply(air_run):
    assert air_run["echo"] == "air"
    assert air_run["notice_spoken"] and air_run["notice_first"]
    assert air_run["silent_through_small_talk"] is True


def test_both_questions_are_answered_from_recognised_speech(air_run):
    assert air_run["named_question_answered"] is True
    assert air_run["room_question_answered"] is True
    assert air_run["room_answer_waited_for_the_room"] is True
    assert [remark["why"] for remark in air_run["remarks"]] == ["named", "room"]


def test_the_replies_heard_through_the_air_are_left_out_as_the_assistants_own_voice(air_run):
    spoken = air_run["remarks_made"] + 1  # and the notice
    assert air_run["echoes_fed"] == spoken, "each line said came back through the room"
    assert air_run["echoes_left_out"] == air_run["echoes_recognisable"]
    assert air_run["echoes_recognisable"] >= air_run["remarks_made"]
    assert air_run["echoes_seen_by_agent"] == spoken - air_run["echoes_recognisable"]


def test_the_limits_held_and_the_transcript_was_recognised(air_run):
    assert air_run["limits_held"] is True
    assert air_run["agent_refusals"] == []
    session = next(Path(air_run["workdir"], "sessions").iterdir())
    lines = (session / "raw.jsonl").read_text().splitlines()
    assert len(lines) >= 14, "the 14 lines of the meeting, and the echoes"
    meta = json.loads((session / "session.json").read_text())
    assert meta["model"] == "whisper tiny.en"
