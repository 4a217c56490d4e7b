"""`assist demo --speed 4 --json` end to end, as CI runs it: real processes, voice and files.

One run with echoes as pocketsphinx hears them (the default, at speed 4 as CI runs it) and a
quicker one at speed 8 with exact echoes; each
test reads one property of a run's summary, so a failure names the rule that broke. The voice
is whatever engine the demo picks (piper in this workspace); nothing is played.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import wave
from pathlib import Path
from typing import Any

import pytest
from assist.core.consent import notice_text

DEMO = [str(Path(sys.executable).parent / "assist"), "demo"]
MOST_WORD_ERRORS = 0.5
"""pocketsphinx's small English model mishears a synthetic voice now and then; half the words
right still shows the WAV holds the line, and an empty or wrong WAV scores near 1."""


def run_demo(workdir: Path, *extra: str, speed: int = 4) -> dict[str, Any]:
    done = subprocess.run(
        [*DEMO, "--speed", str(speed), "--json", "--no-play", "--workdir", str(workdir), *extra],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    summary: dict[str, Any] = json.loads(done.stdout)  # nothing but the JSON on stdout
    summary["stderr"] = done.stderr
    return summary


@pytest.fixture(scope="module")
def asr_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return run_demo(tmp_path_factory.mktemp("demo-asr"))


@pytest.fixture(scope="module")
def exact_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return run_demo(tmp_path_factory.mktemp("demo-exact"), "--echo", "exact", speed=8)


def test_the_stand_in_agent_is_presented_as_a_stand_in_and_echoes_default_to_asr(
    asr_run: dict[str, Any],
) -> None:
    assert asr_run["agent"] == "scripted stand-in for your model"
    assert asr_run["echo"] == "asr" and asr_run["play"] is False
    assert "stand-in" in asr_run["stderr"], "the live output names the stand-in too"


def test_the_consent_notice_was_spoken_before_anything_else(asr_run: dict[str, Any]) -> None:
    assert asr_run["notice_spoken"] and asr_run["notice_first"]
    assert asr_run["notice"]["text"] == notice_text("Claude")


def test_nothing_was_said_during_the_small_talk(asr_run: dict[str, Any]) -> None:
    assert asr_run["silent_through_small_talk"] is True


def test_the_question_by_name_was_answered(asr_run: dict[str, Any]) -> None:
    assert asr_run["named_question_answered"] is True
    assert asr_run["first_sound_after_named_question_s"] > 0
    named = asr_run["remarks"][0]
    assert named["why"] == "named" and "rate limit" in named["answers"]


def test_the_room_question_was_answered_only_once_someone_admitted_not_knowing(
    asr_run: dict[str, Any],
) -> None:
    assert asr_run["room_question_answered"] is True
    assert asr_run["room_answer_waited_for_the_room"] is True
    assert asr_run["answer_after_room_paused_s"] > 0
    assert [remark["why"] for remark in asr_run["remarks"]] == ["named", "room"]


def test_every_echo_the_rule_can_tell_was_left_out_and_none_reached_the_agent(
    asr_run: dict[str, Any],
) -> None:
    spoken = asr_run["remarks_made"] + 1  # and the notice
    assert asr_run["echoes_fed"] == spoken, "each line said came back through the room"
    assert asr_run["echoes_left_out"] == asr_run["echoes_recognisable"]
    assert asr_run["echoes_seen_by_agent"] == spoken - asr_run["echoes_recognisable"]
    # The server's own count misses an echo in the last stretch: `ended` carries no count.
    assert 1 <= asr_run["echoes_counted_by_server"] <= asr_run["echoes_left_out"]
    assert all(remark["echo_mode"] == "asr" for remark in asr_run["remarks"])
    # The answers are long enough that recognition errors never hide them; the 15-word
    # notice can, rarely, come back too garbled for the reversed rule (then it is passed on).
    assert asr_run["echoes_recognisable"] >= asr_run["remarks_made"]


def test_every_exact_echo_was_left_out(exact_run: dict[str, Any]) -> None:
    assert exact_run["echo"] == "exact"
    assert exact_run["echoes_fed"] == exact_run["remarks_made"] + 1 == 3
    assert exact_run["echoes_left_out"] == exact_run["echoes_fed"]
    assert exact_run["echoes_seen_by_agent"] == 0
    assert 1 <= exact_run["echoes_counted_by_server"] <= 3
    assert [remark["echo"] for remark in exact_run["remarks"]] == [
        remark["text"] for remark in exact_run["remarks"]
    ]


def test_the_limits_held(asr_run: dict[str, Any], exact_run: dict[str, Any]) -> None:
    for run in (asr_run, exact_run):
        assert run["limits_held"] is True
        assert run["remarks_made"] <= run["max_per_meeting"]
        assert run["cooldown_s"] == max(1, 15 // run["speed"]), "15 s over the speed"
        assert run["agent_refusals"] == []


def test_a_wav_per_line_said_that_pocketsphinx_reads_back(asr_run: dict[str, Any]) -> None:
    audio = Path(asr_run["workdir"]) / "audio"
    assert asr_run["audio_files_written"] == asr_run["remarks_made"] + 1
    for name in asr_run["audio_files"]:
        with wave.open(str(audio / name), "rb") as reader:
            assert reader.getnframes() / reader.getframerate() > 1.0
    for remark in asr_run["remarks"]:
        assert remark["word_error_rate"] <= MOST_WORD_ERRORS, remark
    assert asr_run["notice"]["word_error_rate"] <= 0.7, asr_run["notice"]


def test_the_meeting_ended_the_watch_and_every_process_was_measured(
    asr_run: dict[str, Any],
) -> None:
    assert asr_run["lines_written"] == 14
    assert asr_run["agent_turns"] >= 4  # watch, a wait, a speak, the wait that ends
    assert set(asr_run["peak_rss_mb"]) >= {"server", "helper", "replay"}
    assert "the recording stops" in asr_run["stderr"]


FAKES = Path(__file__).parent / "demo_fakes"


def test_an_external_agent_gets_an_mcp_config_and_is_judged_from_the_files(
    tmp_path: Path,
) -> None:
    agent = f"{sys.executable} {FAKES / 'watching_agent.py'} {{mcp_config}}"
    run = run_demo(tmp_path, "--agent", agent, "--echo", "exact", speed=20)
    assert run["agent"] == agent
    assert "agent: watched quietly through" in run["stderr"]
    assert run["notice_spoken"] and run["notice_first"]
    assert run["remarks_made"] == 0 and run["named_question_answered"] is False
    assert run["silent_through_small_talk"] is True
    assert run["echoes_fed"] == 1, "the notice came back through the room"
    assert run["agent_turns"] is None and run["echoes_seen_by_agent"] is None
    config = json.loads((tmp_path / "mcp.json").read_text())["mcpServers"]["assist"]
    assert config["env"]["ASSIST_CONFIG"] == str(tmp_path / "config" / "config.json")
    assert config["args"][-4:] == ["mcp", "--save-audio", str(tmp_path / "audio"), "--no-play"]


def test_an_external_agent_that_never_joins_fails_the_demo_at_once(tmp_path: Path) -> None:
    agent = f"{sys.executable} -c 'print(\"no thanks\")'"
    started = time.monotonic()
    done = subprocess.run(
        [*DEMO, "--json", "--no-play", "--workdir", str(tmp_path), "--agent", agent],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1 and done.stdout == ""
    assert "agent: no thanks" in done.stderr
    assert "without joining the meeting" in done.stderr
    assert time.monotonic() - started < 30, "the replay was stopped, not left to wait"
