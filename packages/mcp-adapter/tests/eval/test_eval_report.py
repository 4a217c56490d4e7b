"""The report's timeline picture (valid SVG that renders to a picture with every part in it)
and the table's cells (spread over runs, what an external agent's run cannot show).

A run is built by hand (the score is the core's), drawn, parsed as XML and rasterised with
resvg; the PNG must not be blank and must show the colours of each kind of mark where the
run has one (a false remark red, an answer green, the shaded stretches, people's lines).
"""

from __future__ import annotations

import io
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import attrs
import pytest
import resvg_py
from assist.core.scoring import HeardLine, Label, Limits, Measured, Utterance, score_meeting
from assist.mcp.eval.measure import Echo, MeetingResult, Turn
from assist.mcp.eval.report import COLOURS, index_page, page_name, run_page, timeline_svg
from assist.mcp.eval.views import HEADINGS, cells, row_view, rows
from PIL import Image

LINES = [
    ("Maya", "room", 0.5, 2.0, "Morning, everyone.", Label("quiet")),
    ("Priya", "call", 2.5, 4.0, "Hi all, sorry I'm late.", None),
    ("Tom", "room", 5.0, 7.0, "Claude, what's the rate limit?", Label("answer")),
    ("Priya", "call", 11.0, 12.5, "Good, that matches.", Label("quiet")),
    ("Sam", "room", 13.0, 15.0, "Claude, and the status code?", Label("answer", 3.0)),
]
SAID = [
    Utterance(3.0, "Nice weather.", 0.4, 4.0),
    Utterance(7.3, "Six hundred a minute.", 0.8, 9.5),
]


def result() -> MeetingResult:
    turns = tuple(
        Turn(who, track, start, end, HeardLine(end, text, label))
        for who, track, start, end, text, label in LINES
    )
    scored = score_meeting(
        [turn.heard for turn in turns],
        SAID,
        "Claude",
        limits=Limits(10, 1),
        measured=Measured(turns=6, echoes_fed=2, echoes_left_out=2),
    )
    return MeetingResult(
        meeting="made-up",
        title="A made-up meeting",
        agent="stand-in",
        run=1,
        speed=1.0,
        scored=scored,
        turns=turns,
        utterances=tuple(SAID),
        echoes=(Echo(4.5, "Nice weather."), Echo(10.0, "Six hundred a minute.")),
        ended_at=20.0,
    )


def rendered(svg: str) -> Image.Image:
    return Image.open(io.BytesIO(bytes(resvg_py.svg_to_bytes(svg_string=svg)))).convert("RGB")


def colours(picture: Image.Image) -> dict[tuple[int, int, int], int]:
    """How many pixels have each colour."""
    found = picture.getcolors(maxcolors=picture.width * picture.height)
    assert found is not None
    return {colour: count for count, colour in found}


def share_of(picture: Image.Image, colour: str) -> float:
    wanted = tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return colours(picture).get(wanted, 0) / (picture.width * picture.height)


@pytest.fixture(scope="module")
def picture() -> Image.Image:
    return rendered(timeline_svg(result()))


def test_the_timeline_is_well_formed_svg_with_a_track_per_person_and_the_assistant() -> None:
    svg = timeline_svg(result())
    root = ElementTree.fromstring(svg)
    texts = [element.text for element in root.iter("{http://www.w3.org/2000/svg}text")]
    for track in ("Maya", "Priya", "Tom", "Sam", "echo (room mic)", "Claude"):
        assert track in texts
    assert "missed" in texts, "the status-code question was never answered"
    assert "1.1 s" in texts, "the rate-limit answer's latency, line to first sound"
    assert "A made-up meeting: 1 false speech, 1 of 2 answers" in texts[0]


def test_the_timeline_renders_to_a_picture_that_is_not_blank(picture: Image.Image) -> None:
    assert picture.size == (1000, 64 + 28 * 6 + 34)
    assert len(colours(picture)) > 50, "text, bars and shading, not one flat colour"
    white = share_of(picture, "#ffffff")
    assert 0.05 < white < 0.6, "a margin around a drawn plot"


@pytest.mark.parametrize(
    ("mark", "least"),
    [
        ("false", 0.0005),
        ("answer", 0.002),
        ("quiet", 0.05),
        ("room", 0.005),
        ("call", 0.002),
    ],
)
def test_every_kind_of_mark_shows_in_its_colour(
    picture: Image.Image, mark: str, least: float
) -> None:
    assert share_of(picture, COLOURS[mark]) >= least


def test_a_run_page_holds_the_table_and_one_picture_per_meeting(tmp_path: Path) -> None:
    one = result()
    page = run_page("scripted stand-in for your model", 1, rows([one], ["stand-in"]), [one, one])
    assert page.count("<svg") == 2 and "<table>" in page and "Latency median" in page
    front = index_page(rows([one], ["stand-in"]), [(page_name("stand-in", 1), "stand-in, run 1")])
    assert 'href="stand-in-run-1.html"' in front
    assert page_name("claude -p '/mcp__assist__watch'", 2) == "claude-p-mcp-assist-watch-run-2.html"


def test_with_several_runs_a_cell_shows_the_median_and_the_lowest_and_highest() -> None:
    one = result()
    quieter = attrs.evolve(
        one,
        run=2,
        scored=attrs.evolve(one.scored, score=attrs.evolve(one.scored.score, false_speech=0)),
    )
    noisier = attrs.evolve(
        one,
        run=3,
        scored=attrs.evolve(one.scored, score=attrs.evolve(one.scored.score, false_speech=4)),
    )
    [meeting, total] = rows([one, quieter, noisier], ["stand-in"])
    assert total.meeting == "total" and len(total.scores) == 3
    shown = dict(zip(HEADINGS, cells(meeting), strict=True))
    assert shown["False speech"] == "1 (0–4)"
    assert shown["Missed answers"] == "1 of 2", "the same in every run: no brackets"
    assert shown["Latency median"] == "1.1 s" and shown["Limits held"] == "yes"
    view = row_view(meeting)
    assert view["spread"]["false_speech"] == {"low": 0, "median": 1, "high": 4}
    assert [run["false_speech"] for run in view["runs"]] == [1, 0, 4]


def test_an_external_agents_unseen_counts_read_n_a_and_a_long_command_is_cut() -> None:
    one = result()
    unseen = attrs.evolve(one.scored.score, turns=None, echoes_left_out=None, latencies_s=())
    agent = "claude -p /mcp__assist__watch --model haiku"
    row = rows(
        [attrs.evolve(one, agent=agent, scored=attrs.evolve(one.scored, score=unseen))], [agent]
    )[0]
    shown = dict(zip(HEADINGS, cells(row), strict=True))
    assert shown["Turns"] == "n/a" and shown["Echoes left out"] == "n/a"
    assert shown["Latency median"] == "–"
    assert shown["Agent"] == agent[:23] + "…"


def test_a_meeting_files_path_is_escaped_in_its_heading() -> None:
    one = attrs.evolve(result(), meeting="/tmp/q&a <draft>.jsonl")
    page = run_page("mute baseline", 1, rows([one], ["mute"]), [one])
    assert "<small>(/tmp/q&amp;a &lt;draft&gt;.jsonl)</small>" in page
    assert "<draft>" not in page
