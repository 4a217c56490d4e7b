"""`assist demo --json` end to end, as CI runs it: real processes, voice, audio and files.

One run through the software room (the default: the meeting voiced by Piper, heard by
`assist listen` with the real VAD and whisper, the assistant's voice played back into the
room), at speed 8, which shortens the silences only; one transcript-only run (`--text`) with
echoes as pocketsphinx hears them, at speed 4; and a quicker one at speed 8 with exact echoes.
Each test reads one property of a run's summary, so a failure names the rule that broke. The
voice is whatever engine the demo picks (piper in this workspace); nothing is played.
"""

from __future__ import annotations

import json
import os
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


def run_demo(workdir: Path, *extra: str, speed: int = 4, timeout: float = 240) -> dict[str, Any]:
    done = subprocess.run(
        [*DEMO, "--speed", str(speed), "--json", "--no-play", "--workdir", str(workdir), *extra],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    summary: dict[str, Any] = json.loads(done.stdout)  # nothing but the JSON on stdout
    summary["stderr"] = done.stderr
    return summary


AIR_SPEED = 8
"""Through the air the speed divides the silences between lines and nothing else (the
speech, the end of turn, the recogniser and the voice keep real time), so speed 8 is about
as short as the sample meeting gets: its speech lasts about 50 s."""


@pytest.fixture(scope="module")
def air_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return run_demo(tmp_path_factory.mktemp("demo-air"), speed=AIR_SPEED, timeout=480)


@pytest.fixture(scope="module")
def asr_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return run_demo(tmp_path_factory.mktemp("demo-asr"), "--text")


@pytest.fixture(scope="module")
def exact_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return run_demo(tmp_path_factory.mktemp("demo-exact"), "--text", "--echo", "exact", speed=8)


BOTH = pytest.mark.parametrize("kind", ["air_run", "asr_run"])
"""The checks every demo run must pass, through the air and transcript only."""


def test_the_demo_runs_through_the_software_room_by_default(air_run: dict[str, Any]) -> None:
    assert air_run["room"] == "software" and air_run["echo"] == "air"
    assert "through the software room, heard by assist listen" in air_run["stderr"]
    assert "stand-in" in air_run["stderr"]


def test_the_stand_in_agent_is_presented_as_a_stand_in_and_text_echoes_default_to_asr(
    asr_run: dict[str, Any],
) -> None:
    assert asr_run["agent"] == "scripted stand-in for your model"
    assert asr_run["echo"] == "asr" and asr_run["play"] is False and asr_run["room"] is None
    assert "stand-in" in asr_run["stderr"], "the live output names the stand-in too"


@BOTH
def test_the_consent_notice_was_spoken_before_anything_else(
    kind: str, request: pytest.FixtureRequest
) -> None:
    run = request.getfixturevalue(kind)
    assert run["notice_spoken"] and run["notice_first"]
    assert run["notice"]["text"] == notice_text("Claude")


@BOTH
def test_nothing_was_said_during_the_small_talk(kind: str, request: pytest.FixtureRequest) -> None:
    assert request.getfixturevalue(kind)["silent_through_small_talk"] is True


@BOTH
def test_the_question_by_name_was_answered(kind: str, request: pytest.FixtureRequest) -> None:
    run = request.getfixturevalue(kind)
    assert run["named_question_answered"] is True
    assert run["first_sound_after_named_question_s"] > 0
    named = run["remarks"][0]
    assert named["why"] == "named" and "rate limit" in named["answers"]


@BOTH
def test_the_room_question_was_answered_only_once_someone_admitted_not_knowing(
    kind: str, request: pytest.FixtureRequest
) -> None:
    run = request.getfixturevalue(kind)
    assert run["room_question_answered"] is True
    assert run["room_answer_waited_for_the_room"] is True
    assert run["answer_after_room_paused_s"] > 0
    assert [remark["why"] for remark in run["remarks"]] == ["named", "room"]


MOST_WORD_ERRORS_HEARD = 0.15
"""whisper tiny.en on the voiced sample meeting makes about 5-7 % word errors (benchmarks:
"fixed" as "fix", "orders" as "quarters", "gateway config" as "gate we can think"); 15 %
leaves room for a busy machine and still fails on lines lost or heard twice."""


def test_the_transcript_the_agent_watched_was_recognised_from_the_room(
    air_run: dict[str, Any],
) -> None:
    assert air_run["lines_written"] == 14, "every line was spoken into the room"
    assert air_run["lines_not_heard"] == 0
    assert air_run["word_error_rate"] <= MOST_WORD_ERRORS_HEARD, air_run["word_error_rate"]
    assert abs(air_run["words_recognised"] - air_run["words_spoken"]) <= 10
    delay = air_run["end_of_speech_to_line_s"]
    assert 0 < delay["median"] <= delay["p95"] <= delay["max"]
    assert set(air_run["peak_rss_mb"]) >= {"server", "helper", "replay", "listener"}


def test_the_assistants_voice_played_into_the_room_was_heard_and_left_out_as_echo(
    air_run: dict[str, Any],
) -> None:
    spoken = air_run["remarks_made"] + 1  # and the notice
    assert air_run["assistant_lines_played"] == spoken == 3
    assert air_run["assistant_lines_heard"] == spoken, "each came back through the microphone"
    assert air_run["echoes_heard_through_the_air"] == air_run["echoes_fed"] >= spoken
    assert air_run["echoes_recognisable"] == air_run["echoes_fed"]
    assert air_run["echoes_left_out"] == air_run["echoes_fed"]
    assert air_run["echoes_seen_by_agent"] == 0
    assert 1 <= air_run["echoes_counted_by_server"] <= air_run["echoes_left_out"]
    for remark in air_run["remarks"]:
        assert remark["echo_mode"] == "air"
        assert remark["word_error_rate"] <= 0.3, remark


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


def test_the_limits_held(
    air_run: dict[str, Any], asr_run: dict[str, Any], exact_run: dict[str, Any]
) -> None:
    for run in (air_run, asr_run, exact_run):
        assert run["limits_held"] is True
        assert run["remarks_made"] <= run["max_per_meeting"]
        assert run["cooldown_s"] == max(1, 15 // run["speed"]), "15 s over the speed"
        assert run["agent_refusals"] == []


def test_a_wav_per_line_said_through_the_air(air_run: dict[str, Any]) -> None:
    assert air_run["audio_files_written"] == air_run["remarks_made"] + 1 == 3


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


FAKES = Path(__file__).parents[1] / "demo_fakes"


def test_an_external_agent_gets_an_mcp_config_and_is_judged_from_the_files(
    tmp_path: Path,
) -> None:
    agent = f"{sys.executable} {FAKES / 'watching_agent.py'} {{mcp_config}}"
    run = run_demo(tmp_path, "--text", "--agent", agent, "--echo", "exact", speed=20)
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
        [*DEMO, "--text", "--json", "--no-play", "--workdir", str(tmp_path), "--agent", agent],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1 and done.stdout == ""
    assert "agent: no thanks" in done.stderr
    assert "without joining the meeting" in done.stderr
    assert time.monotonic() - started < 30, "the replay was stopped, not left to wait"


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--text", "--room", "software"], "give --room or --text, not both"),
        (["--echo", "exact"], "--echo is for --text"),
        (["--agent", "no-such-agent-here {mcp_config}"], "is not installed"),
        (["--agent", "claude -p '/mcp__assist__watch"], "cannot be read"),
    ],
)
def test_contradicting_flags_or_an_agent_that_cannot_start_are_refused_before_anything_runs(
    tmp_path: Path, flags: list[str], said: str
) -> None:
    done = subprocess.run(
        [*DEMO, "--workdir", str(tmp_path), *flags], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1 and said in done.stdout + done.stderr
    assert not (tmp_path / "sessions").exists()


def test_the_pulseaudio_room_without_a_server_is_refused_saying_how_to_start_one(
    tmp_path: Path,
) -> None:
    nowhere = tmp_path / "runtime"
    nowhere.mkdir(mode=0o700)
    environment = {
        **os.environ,
        "XDG_RUNTIME_DIR": str(nowhere),
        "PULSE_SERVER": str(nowhere / "x"),
    }
    done = subprocess.run(
        [*DEMO, "--room", "pulse", "--workdir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        env=environment,
    )
    assert done.returncode == 1
    said = done.stdout + done.stderr
    assert "PulseAudio room cannot be used" in said and ".ci/audio-room" in said
