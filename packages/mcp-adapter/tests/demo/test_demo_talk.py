"""`assist demo --talk` end to end, as CI runs it: a real `assist mcp`, its own real listener
(Silero VAD, whisper tiny.en) hearing the software room, Piper for the user and the assistant,
the voice played at real time into the room (`ASSIST_PLAY_INTO`), so the user can talk over it.

The whole story runs once through the command (`--json`), and each test reads one step of it,
so a failure names the step. The variants run the story in process: the user says "no, don't",
or nothing at all, and nothing is done either way. Times are printed, never asserted; the
filler's delay is a rule of the server's (behaviour 13), read on the client's clock with room
for the moment the client takes to see `confirm` return.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from assist.mcp.demo import talk_policy
from assist.mcp.demo.talk import FILLER_BOUNDS_S, TalkPlan, run_talk, user_lines
from assist.mcp.demo.voice_choice import demo_engine
from mcp_harness import FAKE_LISTENER

DEMO = [str(Path(sys.executable).parent / "assist"), "demo", "--talk"]
STORY_WITHIN_S = 600
"""The story takes about a minute on a quiet machine; this only stops a hung run."""
CLIENT_SLACK_S = 1.0
"""The client sees `confirm` return a moment after the server handed the turn over."""


def run_command(
    *extra: str, env: dict[str, str] | None = None, within: float = STORY_WITHIN_S
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*DEMO, *extra],
        capture_output=True,
        text=True,
        timeout=within,
        env={**os.environ, **(env or {})},
    )


@pytest.fixture(scope="module")
def story(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    workdir = tmp_path_factory.mktemp("talk") / "run"
    done = run_command("--json", "--workdir", str(workdir))
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout)  # nothing but the JSON on stdout
    result["stderr"] = done.stderr
    print(f"\nthe story in {result['run_s']} s:", [(s["step"], s["t"]) for s in result["steps"]])
    return result


def steps_of(result: dict[str, Any]) -> list[str]:
    return [step["step"] for step in result["steps"]]


def test_the_story_happens_in_order_from_greeting_to_end(story: dict[str, Any]) -> None:
    order = ["greeting", "request heard", "ack", "question", "confirm", "fillers", "answer"]
    order += ["user interrupts", "answer ended", "goodbye heard", "ended"]
    assert [s for s in steps_of(story) if s in order] == order
    assert story["ended"] is True


def test_the_progress_goes_to_stderr_step_by_step_while_the_json_has_the_story(
    story: dict[str, Any],
) -> None:
    assert "the answer was cut off" in story["stderr"]
    assert story["workdir"] is not None


def test_the_user_is_heard_asking_and_the_stand_in_acknowledges_before_asking(
    story: dict[str, Any],
) -> None:
    heard = next(s for s in story["steps"] if s["step"] == "request heard")
    assert any("file" in line.lower() for line in heard["lines"]), heard
    ack = next(s for s in story["steps"] if s["step"] == "ack")
    assert ack["text"] == talk_policy.ACK


def test_the_spoken_yes_answers_confirm_yes(story: dict[str, Any]) -> None:
    assert story["confirm"]["answer"] == "yes", story["confirm"]
    assert "go ahead" not in story["confirm"]["question"].lower()


def test_a_filler_covers_the_work_within_its_bounds(story: dict[str, Any]) -> None:
    low, high = FILLER_BOUNDS_S
    first = story["fillers"][0]
    assert low - CLIENT_SLACK_S <= first["after_s"] <= high, story["fillers"]


def test_the_user_talking_over_the_long_answer_cuts_it_off(story: dict[str, Any]) -> None:
    spoken = story["answer_spoken"]
    assert spoken["cut_off"] is True and spoken["interrupted"] is True, spoken
    assert talk_policy.ANSWER.startswith(spoken["said_approx"]), spoken
    assert len(spoken["said_approx"]) < len(talk_policy.ANSWER) / 2, spoken


def test_the_goodbye_is_heard_before_the_conversation_ends(story: dict[str, Any]) -> None:
    goodbye = next(s for s in story["steps"] if s["step"] == "goodbye heard")
    assert any("bye" in line.lower() for line in goodbye["lines"]), goodbye


# The variants, in process ---------------------------------------------------------------


def run_variant(tmp_path: Path, answer: str) -> dict[str, Any]:
    plan = TalkPlan(tmp_path / "run", demo_engine(os.environ, None), answer)
    steps: list[dict[str, Any]] = []
    result = anyio.run(run_talk, plan, steps.append, user_lines(plan))
    print(f"\n{answer} in {result['run_s']} s:", [(s["step"], s["t"]) for s in steps])
    return result


def spoken_lines(result: dict[str, Any], workdir: Path) -> list[str]:
    logs = list((workdir / "run" / "sessions").glob("*/assistant.jsonl"))
    events = [json.loads(line) for log in logs for line in log.read_text().splitlines()]
    return [e["text"] for e in events if e["event"] == "speaking"]


@pytest.mark.parametrize("answer", ["no", "silence"])
def test_without_a_yes_nothing_is_done_and_no_answer_is_spoken(tmp_path: Path, answer: str) -> None:
    result = run_variant(tmp_path, answer)
    assert result["confirm"]["answer"] == {"no": "no", "silence": "no answer"}[answer]
    assert result["answer_spoken"] is None and result["fillers"] == []
    said = spoken_lines(result, tmp_path)
    assert talk_policy.DECLINED in said and talk_policy.ANSWER not in said, said
    assert "fillers" not in steps_of(result) and result["ended"] is True


def test_an_answer_the_story_does_not_know_is_refused_with_the_ones_it_does(
    tmp_path: Path,
) -> None:
    with pytest.raises(ValueError, match="'maybe' is not one of yes, no, silence"):
        TalkPlan(tmp_path, "piper", "maybe")


# The command's errors -------------------------------------------------------------------


def test_a_conversation_that_cannot_start_fails_the_demo_naming_the_step(tmp_path: Path) -> None:
    env = {"ASSIST_LISTEN_COMMAND": f"{sys.executable} {FAKE_LISTENER}", "FAKE_LISTENER": "refuse"}
    # Within a minute, not the story's time: the room it had opened must close at once (its
    # microphone FIFO, which nobody reads any more, once held the demo for ever).
    done = run_command("--workdir", str(tmp_path / "run"), env=env, within=60)
    assert done.returncode == 1
    assert "the step 'start_conversation' did not happen" in done.stdout
    assert "no input device found" in done.stdout


def test_the_meetings_options_are_refused_with_talk_naming_them() -> None:
    done = run_command("--text", "--speed", "4")
    assert done.returncode == 1
    assert "--talk runs its own story and takes no --speed, --text" in done.stdout


def test_a_workdir_that_is_not_empty_is_refused_before_anything_runs(tmp_path: Path) -> None:
    (tmp_path / "kept.txt").write_text("mine")
    done = run_command("--workdir", str(tmp_path))
    assert done.returncode == 1 and "is not empty" in done.stdout
    assert (tmp_path / "kept.txt").read_text() == "mine"


def test_ctrl_c_ends_the_demo_at_once_without_a_traceback(tmp_path: Path) -> None:
    """As a terminal does it: SIGINT to the demo's process group, 3 s in, while the user's
    lines are voiced or the server starts (the server, its listener and voice run in sessions
    of their own and end with the demo)."""
    demo = subprocess.Popen(
        [*DEMO, "--workdir", str(tmp_path / "run")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert demo.stdout is not None
        first = demo.stdout.readline()  # the heading: the story is under way
        assert first.startswith("assist demo --talk"), first
        time.sleep(3.0)  # the server, its listener and the voice are starting or running
        os.killpg(demo.pid, signal.SIGINT)
        _, err = demo.communicate(timeout=30)
    finally:
        if demo.poll() is None:
            os.killpg(demo.pid, signal.SIGKILL)
            demo.wait(timeout=30)
    assert demo.returncode == 130, err[-2000:]
    assert "Traceback" not in err, err[-3000:]
    assert "interrupted" in err
