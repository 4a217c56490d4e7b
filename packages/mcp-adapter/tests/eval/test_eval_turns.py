"""`assist eval --turns` end to end, the CI-short version: the `short` set (one finished and one
hesitant phrase, voiced by Piper) heard at real time by a real `assist listen` with smart-turn
and with the silence rule at 1000 ms, with `--json` and `--report`.

What is checked is the shape of what comes out and that every phrase reached the transcript;
never a timing figure, which depends on the machine (those belong in `benchmarks/`). The run
is bounded: `subprocess.run`'s timeout here, and inside, a bound on every wait for a listener.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

import pytest

EVAL = [str(Path(sys.executable).parent / "assist"), "eval"]
CONFIGS = ("smart-turn:1000", "silence:1000")
RUN_TIMEOUT_S = 400
"""Voicing two phrases, two listeners loading whisper and hearing 11 s each at real time: well
under a minute on an idle machine, a few on a loaded one."""


def run_eval(
    *arguments: str, timeout: float = 60, **environ: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*EVAL, *arguments],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **environ},
    )


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("eval-turns-report")


@pytest.fixture(scope="module")
def evaluated(report: Path) -> dict[str, Any]:
    done = run_eval(
        *("--turns", "short", "--configs", ",".join(CONFIGS), "--json", "--report", str(report)),
        timeout=RUN_TIMEOUT_S,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout)  # nothing but the JSON on stdout
    result["stderr"] = done.stderr
    return result


def test_each_configuration_ran_in_order_over_the_set_and_none_failed(
    evaluated: dict[str, Any],
) -> None:
    assert evaluated["failures"] == []
    assert evaluated["set"] == "short" and evaluated["configs"] == list(CONFIGS)
    assert evaluated["voicing"] == "one-breath", "hesitant phrases said as one sentence"
    assert [row["config"] for row in evaluated["summary"]] == list(CONFIGS)
    assert [result["config"] for result in evaluated["results"]] == list(CONFIGS)


def test_the_set_is_one_finished_phrase_and_one_hesitant_one_with_its_pause_labelled(
    evaluated: dict[str, Any],
) -> None:
    finished, hesitant = evaluated["phrases"]
    assert not finished["hesitant"] and finished["pauses"] == []
    assert hesitant["hesitant"] and len(hesitant["pauses"]) == 1
    [pause] = hesitant["pauses"]
    assert hesitant["start_s"] < pause["start_s"] < pause["end_s"] < hesitant["end_s"]
    assert round(pause["end_s"] - pause["start_s"], 2) == 0.8, "the set's label"


def test_every_phrase_reached_the_transcript_under_every_configuration(
    evaluated: dict[str, Any],
) -> None:
    for row, result in zip(evaluated["summary"], evaluated["results"], strict=True):
        assert (row["phrases"], row["finished"], row["hesitant"], row["missed"]) == (2, 1, 1, 0)
        for phrase in result["phrases"]:
            assert phrase["lines"], (row["config"], phrase)
            assert all(line["text"].strip() for line in phrase["lines"])
            assert isinstance(phrase["latency_s"], float)
        assert row["recogniser"] and row["warnings"] == []


def test_the_figures_are_counts_of_the_set_and_the_latencies_numbers(
    evaluated: dict[str, Any],
) -> None:
    for row in evaluated["summary"]:
        assert 0 <= row["false_cut_offs"] <= row["hesitant"]
        assert 0 <= row["split_finished"] <= row["finished"]
        assert isinstance(row["p50_s"], float) and isinstance(row["p95_s"], float)


def test_the_turn_model_told_a_verdict_in_each_phrase_and_the_silence_rule_none(
    evaluated: dict[str, Any],
) -> None:
    model, silence = evaluated["results"]
    for phrase in model["phrases"]:
        assert phrase["verdicts"], phrase
        for verdict in phrase["verdicts"]:
            assert verdict["kind"] in ("complete", "incomplete", "late", "held")
            assert verdict["place"] in ("pause", "end", "speech")
            assert isinstance(verdict["said_complete"], bool)
    assert all(phrase["verdicts"] == [] for phrase in silence["phrases"])
    assert evaluated["summary"][1]["verdicts"] == 0


def test_the_report_holds_the_table_and_a_turn_timeline_per_configuration(
    evaluated: dict[str, Any], report: Path
) -> None:
    page = report / "turns.html"
    assert evaluated["report"] == str(page.resolve())
    text = page.read_text(encoding="utf-8")
    assert "<table>" in text and text.count("<tr>") == 1 + len(CONFIGS)
    pictures = text.split('<div class="timeline">')[1:]
    assert len(pictures) == len(CONFIGS)
    for picture in pictures:
        root = ElementTree.fromstring(picture.split("</div>")[0])
        texts = {element.text for element in root.iter("{http://www.w3.org/2000/svg}text")}
        assert {"phrases", "verdicts (ms)", "lines", "0.8"} <= texts


def test_progress_names_the_set_and_each_configuration_as_it_finishes(
    evaluated: dict[str, Any],
) -> None:
    stderr = evaluated["stderr"]
    assert "voicing the short set with Piper" in stderr
    for label in ("smart-turn, 1000 ms:", "silence, 1000 ms:"):
        assert label in stderr


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (("--turns", "nonsense"), "there is no turn set 'nonsense'"),
        (("--turns", "short", "--configs", "made-up:1000"), "'made-up' is not installed here"),
        (("--turns", "short", "--configs", "silence"), "MODEL:LIMIT_MS"),
        (("--configs", "silence:600"), "give --turns with it"),
        (("--voicing", "apart"), "give --turns with it"),
        (("--turns", "short", "--voicing", "mumbled"), "invalid choice: 'mumbled'"),
        (("--turns", "short", "--agent", "chatty"), "--agent goes with meetings"),
    ],
)
def test_a_wrong_choice_is_refused_before_anything_plays(
    arguments: tuple[str, ...], said: str
) -> None:
    done = run_eval(*arguments)
    assert done.returncode == 2 and said in done.stderr, done.stderr
    assert "voicing the" not in done.stderr, "refused before the set is said"


def test_a_listener_that_cannot_start_is_reported_with_its_reason_and_the_run_fails() -> None:
    done = run_eval(
        *("--turns", "short", "--configs", "silence:600", "--json"),
        timeout=RUN_TIMEOUT_S,
        ASSIST_STT="none",  # no recogniser loads, so assist listen refuses to start
    )
    assert done.returncode == 1, done.stderr
    result = json.loads(done.stdout)
    assert result["summary"] == [] and [f["config"] for f in result["failures"]] == ["silence:600"]
    assert "no speech recogniser" in result["failures"][0]["error"]
    assert "silence, 600 ms did not run" in done.stderr
