"""`assist eval --echo-set` end to end, the CI-short version: the `short` set (one round of a
reply, three lines back to back, a question answered, a cough, a backchannel and an
interruption) played through a real conversation in the software room and in the tests'
PulseAudio room, with `--json` and `--report`.

What is checked is that every trial was played as the set says (the sound inside the line, the
answer after the question), that the figures agree with the trials they count, and that the
person's words reach the agent at all; never a timing figure or a goal, which depend on the
machine (those belong in `benchmarks/`). The run is bounded: `subprocess.run`'s timeout here,
and inside, a bound on every wait.
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
from assist.core.echo_scoring import HANDED
from assist.core.words import kept_words, scored_words

EVAL = [str(Path(sys.executable).parent / "assist"), "eval"]
KINDS = ["echo", "back_to_back", "answer", "cough", "backchannel", "interruption"]
ROOMS = ["software", "pulse"]
RUN_TIMEOUT_S = 900
"""Two conversations of six trials at real time, about 70 s each on an idle machine; a few
minutes on a loaded one."""


def run_eval(
    *arguments: str, timeout: float = 60, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*EVAL, *arguments],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("eval-echo-report")


@pytest.fixture(scope="module")
def evaluated(report: Path, audio_room: dict[str, str]) -> dict[str, Any]:
    done = run_eval(
        *("--echo-set", "short", "--json", "--report", str(report)),
        timeout=RUN_TIMEOUT_S,
        env=audio_room,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout)  # nothing but the JSON on stdout
    result["stderr"] = done.stderr
    return result


def test_every_kind_of_trial_ran_once_in_each_room_and_none_failed(
    evaluated: dict[str, Any],
) -> None:
    assert evaluated["failures"] == []
    assert evaluated["set"] == "short"
    assert [room["room"] for room in evaluated["rooms"]] == ROOMS
    assert [(room["room"], room["level_db"]) for room in evaluated["rooms"]] == [
        ("software", -20),
        ("pulse", 0),
    ]
    expected = [(room, kind) for room in ROOMS for kind in KINDS]
    assert [(row["room"], row["kind"]) for row in evaluated["summary"]] == expected
    assert [(trial["room"], trial["kind"]) for trial in evaluated["trials"]] == expected
    assert all(row["trials"] == 1 for row in evaluated["summary"])


def test_each_trial_was_played_as_the_set_says(evaluated: dict[str, Any]) -> None:
    for trial in evaluated["trials"]:
        start, end = trial["line_s"]
        assert 0 <= start < end, trial
        if trial["kind"] in ("echo", "back_to_back"):
            assert trial["sound_s"] is None and trial["person"] == ""
        elif trial["kind"] == "answer":
            assert trial["wanted"] in ("yes", "no") and trial["answered"] is not None
            assert end <= trial["sound_s"][0] <= end + 1.0, "answered within a second"
        else:
            assert start < trial["sound_s"][0] < end, f"the sound came over the line: {trial}"
    back_to_back = [t for t in evaluated["trials"] if t["kind"] == "back_to_back"]
    assert all(len(trial["said"]) == 3 for trial in back_to_back)


def test_the_figures_count_the_trials_they_summarise(evaluated: dict[str, Any]) -> None:
    trials = {(t["room"], t["kind"]): t for t in evaluated["trials"]}
    for row in evaluated["summary"]:
        trial = trials[(row["room"], row["kind"])]
        assert row["own_lines"] == sum(heard["own"] for heard in trial["heard"]), trial
        assert row["paused"] == int(trial["paused"])
        assert row["stopped"] == int(trial["stopped"])
        assert row["went_on"] == 1 - int(trial["stopped"])
        assert row["missed"] == int(row["kind"] == "interruption" and not trial["stopped"])
        assert row["answers_lost"] == int(
            row["kind"] == "answer" and trial["answered"] != trial["wanted"]
        )
        heard = [line["text"] for line in trial["heard"]]
        said = len(scored_words(trial["person"])) if row["kind"] in HANDED else 0
        assert row["words_said"] == said
        assert row["words_lost"] == (said and said - kept_words(trial["person"], heard))
        if row["kind"] in ("echo", "back_to_back"):
            assert row["own_lines"] == len(trial["heard"]), "nobody else spoke"
        if trial["to_pause_ms"] is not None:
            assert row["to_pause_p50_ms"] == trial["to_pause_ms"]
            assert trial["paused"] and trial["to_pause_ms"] >= 0


def test_the_persons_interruption_reaches_the_agent_in_each_room(
    evaluated: dict[str, Any],
) -> None:
    for trial in evaluated["trials"]:
        if trial["kind"] == "interruption":
            assert [heard for heard in trial["heard"] if not heard["own"]], trial


def test_the_report_shows_the_table_and_a_timeline_per_room_with_a_row_per_trial(
    evaluated: dict[str, Any], report: Path
) -> None:
    page = (report / "echo.html").read_text(encoding="utf-8")
    assert evaluated["report"] == str(report.resolve() / "echo.html")
    assert "Own voice → agent" in page and "False stops" in page
    pictures = [chunk.split("</svg>")[0] + "</svg>" for chunk in page.split("<svg")[1:]]
    assert len(pictures) == len(ROOMS)
    for picture in pictures:
        root = ElementTree.fromstring("<svg" + picture)  # well-formed
        labels = [element.text or "" for element in root.iter("{http://www.w3.org/2000/svg}text")]
        assert sum(label.startswith("round 1:") for label in labels) == len(KINDS)


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        (("--echo-set", "nope"), "there is no echo set 'nope'"),
        (("--echo-set", "short", "--rooms", "attic"), "'attic' is not a room"),
        (("--rooms", "software"), "give --echo-set with it"),
        (("--echo-set", "short", "--agent", "x"), "--echo-set plays its own trials"),
        (("--turns", "short", "--echo-set", "short"), "--turns scores turn-taking"),
    ],
)
def test_bad_input_is_refused_with_what_to_do_before_anything_plays(
    arguments: tuple[str, ...], says: str
) -> None:
    done = run_eval(*arguments)
    assert done.returncode == 2, done.stderr
    assert says in done.stderr and done.stdout == ""
