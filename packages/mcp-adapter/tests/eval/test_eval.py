"""`assist eval` end to end, the CI-short version: two built-in meetings at speed 8, the
stand-in and both baselines, with `--json` and `--report`. Real processes, voice and files;
nothing is played and echoes come back as the exact words.

`small-talk` is all quiet; `claudia` is quiet through lines for a Claudia and ends with a
question to Claude by name. Each test reads one property of the one run, so a failure names
the rule that broke.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import resvg_py

EVAL = [str(Path(sys.executable).parent / "assist"), "eval"]
MEETINGS = ("small-talk", "claudia")
AGENTS = ("stand-in", "mute", "chatty")
FAKES = Path(__file__).parents[1] / "demo_fakes"


def run_eval(*arguments: str, timeout: float = 400) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*EVAL, *arguments], capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("eval-report")


@pytest.fixture(scope="module")
def evaluated(report: Path) -> dict[str, Any]:
    agents = [part for agent in AGENTS for part in ("--agent", agent)]
    done = run_eval(*MEETINGS, *agents, "--speed", "8", "--json", "--report", str(report))
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout)  # nothing but the JSON on stdout
    result["stderr"] = done.stderr
    return result


def summary(evaluated: dict[str, Any], agent: str, meeting: str) -> dict[str, Any]:
    return next(
        row for row in evaluated["summary"] if row["agent"] == agent and row["meeting"] == meeting
    )


def only_run(evaluated: dict[str, Any], agent: str, meeting: str) -> dict[str, Any]:
    [score] = summary(evaluated, agent, meeting)["runs"]
    return score


def test_every_agent_ran_every_meeting_once_and_nothing_failed(evaluated: dict[str, Any]) -> None:
    assert evaluated["failures"] == []
    assert [(r["agent"], r["meeting"]) for r in evaluated["results"]] == [
        (agent, meeting) for agent in AGENTS for meeting in MEETINGS
    ]
    assert evaluated["speed"] == 8 and evaluated["runs"] == 1


def test_the_mute_baseline_has_no_false_speech_and_misses_every_answer(
    evaluated: dict[str, Any],
) -> None:
    for meeting in MEETINGS:
        score = only_run(evaluated, "mute", meeting)
        assert score["false_speech"] == 0 and score["utterances"] == 0
        assert score["answers_missed"] == score["answers_expected"]
    assert only_run(evaluated, "mute", "total")["answers_missed"] == 1


def test_the_chatty_baseline_talks_through_small_talk_and_the_claudia_lines(
    evaluated: dict[str, Any],
) -> None:
    assert only_run(evaluated, "chatty", "small-talk")["false_speech"] >= 1
    assert only_run(evaluated, "chatty", "claudia")["false_speech"] >= 1


def test_the_stand_in_answers_claude_and_keeps_quiet_for_small_talk_and_claudia(
    evaluated: dict[str, Any],
) -> None:
    small_talk = only_run(evaluated, "stand-in", "small-talk")
    assert small_talk["utterances"] == 0 and small_talk["false_speech"] == 0
    claudia = only_run(evaluated, "stand-in", "claudia")
    assert (claudia["false_speech"], claudia["answers_missed"]) == (0, 0)
    assert claudia["answers_expected"] == 1 and claudia["utterances"] == 1
    [latency] = claudia["latencies_s"]
    assert 0 <= latency <= 10


def test_the_gate_held_every_agent_to_its_limits(evaluated: dict[str, Any]) -> None:
    for agent in AGENTS:
        assert summary(evaluated, agent, "total")["limits_held"] is True


def test_built_in_agents_are_seen_turn_by_turn_and_their_echoes_left_out(
    evaluated: dict[str, Any],
) -> None:
    for agent in AGENTS:
        total = only_run(evaluated, agent, "total")
        assert total["turns"] >= 2 * len(MEETINGS), "a watch and a wait at least per meeting"
        assert total["echoes_fed"] >= len(MEETINGS), "the notice came back in each"
        assert total["echoes_left_out"] == total["echoes_fed"]


def test_each_result_says_which_utterance_answered_and_how_each_was_judged(
    evaluated: dict[str, Any],
) -> None:
    claudia = next(
        r for r in evaluated["results"] if (r["agent"], r["meeting"]) == ("stand-in", "claudia")
    )
    [answer] = claudia["answers"]
    assert "Claude, what's the rate limit" in answer["text"] and answer["latency_s"] is not None
    assert [u["verdict"] for u in claudia["utterances"]] == ["answer"]
    chatty = next(
        r for r in evaluated["results"] if (r["agent"], r["meeting"]) == ("chatty", "small-talk")
    )
    assert {u["verdict"] for u in chatty["utterances"]} == {"false"}


def test_the_report_has_a_page_per_agent_and_run_with_a_picture_per_meeting(
    evaluated: dict[str, Any], report: Path
) -> None:
    assert evaluated["report"] == str(report.resolve())
    index = (report / "index.html").read_text(encoding="utf-8")
    for agent in AGENTS:
        page = (report / f"{agent}-run-1.html").read_text(encoding="utf-8")
        assert f'href="{agent}-run-1.html"' in index
        pictures = re.findall(r"<svg.*?</svg>", page, re.S)
        assert len(pictures) == len(MEETINGS)
        for picture in pictures:
            assert len(resvg_py.svg_to_bytes(svg_string=picture)) > 10_000, "not a blank PNG"


def test_an_external_agent_gets_its_mcp_config_and_is_scored_from_the_files(
    tmp_path: Path,
) -> None:
    agent = f"{sys.executable} {FAKES / 'watching_agent.py'} {{mcp_config}}"
    done = run_eval(
        "small-talk", "--agent", agent, "--speed", "10", "--json", "--workdir", str(tmp_path)
    )
    assert done.returncode == 0, done.stderr[-3000:]
    [row, _total] = json.loads(done.stdout)["summary"]
    [score] = row["runs"]
    assert score["false_speech"] == 0 and score["utterances"] == 0
    assert score["turns"] is None and score["echoes_left_out"] is None, "not seen from files"
    assert list(tmp_path.glob("*/run-1/small-talk/mcp.json")), "the config it was given"


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        (["--speed", "0"], "--speed 0.0 is not a positive number"),
        (["--runs", "0"], "--runs 0 is not a positive whole number"),
        (["no-such-meeting"], "cannot read the meeting file no-such-meeting"),
        (["--agent", "no-such-agent {mcp_config}"], "the agent no-such-agent is not installed"),
        (["--agent", 'claude -p "watch'], 'the agent command claude -p "watch cannot be read'),
        (["--agent", " "], "the agent command is empty"),
    ],
)
def test_unusable_arguments_are_refused_with_what_to_do(arguments: list[str], says: str) -> None:
    done = run_eval(*arguments, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert says in done.stderr and "Traceback" not in done.stderr, done.stderr


@pytest.mark.parametrize("name", ["notes[red].jsonl", "notes[/red].jsonl"])
def test_a_meeting_file_with_brackets_in_its_path_is_named_as_it_is_on_one_line(
    tmp_path: Path, name: str
) -> None:
    meeting = tmp_path / name  # the second holds a closing tag, which once crashed the command
    meeting.parent.mkdir(exist_ok=True)
    meeting.write_text('{"track": "room", "start_ms": 0, "end_ms": 900, "text": "Hi.",\n')
    done = run_eval(str(meeting), "--agent", "mute", timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    [line] = done.stderr.splitlines()  # not wrapped at 80 columns for a log or a script
    assert line.startswith(f"assist eval: {meeting} line 1 ")


def test_the_help_names_the_arguments_as_behaviour_15_does_with_their_defaults() -> None:
    shown = " ".join(run_eval("--help", timeout=60).stdout.split())
    assert "[--runs N] [--speed X]" in shown
    assert "--runs N run everything N times, for the spread (default 1)" in shown
    assert "--speed X replay the meetings X times faster (default 1)" in shown


def test_a_report_folder_that_cannot_be_made_is_refused_before_any_meeting_runs(
    tmp_path: Path,
) -> None:
    taken = tmp_path / "report.html"
    taken.write_text("not a folder")
    work = tmp_path / "work"
    done = run_eval("small-talk", "--agent", "mute", "--report", str(taken), "--workdir", str(work))
    assert done.returncode == 2 and done.stdout == "", done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith(f"assist eval: cannot write the report into {taken}: ")
    assert line.endswith("; give --report a folder that can be made or written")
    assert not work.exists(), "refused before any meeting ran, not after they all had"
