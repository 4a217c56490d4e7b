"""The parts of `assist eval --turns`, by hand: the turn timeline (valid SVG that renders with
every kind of mark), the table, its cells and the JSON of a made-up run whose score is the
core's; reading `--configs`; the built-in sets; and the errors when a model or Piper is missing."""

from __future__ import annotations

import io
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import numpy as np
import pytest
import resvg_py
from assist.core.turn_scoring import HeardLine, Pause, Phrase, ToldVerdict, score_turns
from assist.mcp.eval.turn_command import turns_table
from assist.mcp.eval.turn_report import COLOURS, turn_timeline_svg, turns_page
from assist.mcp.eval.turn_sets import TURN_SETS, SetPhrase
from assist.mcp.eval.turn_views import HEADINGS, cells, result_view, summary_view
from assist.mcp.eval.turns import (
    RATE_HZ,
    ConfigResult,
    Heard,
    Recording,
    TurnConfig,
    TurnsUnavailable,
    check_configs,
    default_configs,
    parse_configs,
    voice_set,
)
from PIL import Image
from rich.console import Console

PHRASES = (
    Phrase("What time is it?", 1.0, 2.0),
    Phrase("So the main problem with the … new billing system.", 4.0, 7.5, (Pause(5.5, 6.3),)),
)
RECORDING = Recording(np.zeros(round(9.5 * RATE_HZ), np.float32), PHRASES)
LINES = (
    HeardLine(0.8, 2.0, 2.6, "What time is it?"),
    HeardLine(3.8, 5.5, 6.2, "So the main problem with the."),  # cut at the pause
    HeardLine(6.1, 7.5, 8.3, "New billing system."),
)
VERDICTS = (
    ToldVerdict(2.0, True, 70),
    ToldVerdict(5.5, True, 90),
    ToldVerdict(7.5, False, 400),
    ToldVerdict(4.6, True, 60, words_end=False),  # a pause between words, held by them
)
SVG = "{http://www.w3.org/2000/svg}"


def made_up() -> ConfigResult:
    heard = Heard(LINES, VERDICTS, (), "whisper tiny.en", Path("/nowhere"))
    return ConfigResult(
        TurnConfig("smart-turn", 1000), heard, score_turns(PHRASES, LINES, VERDICTS)
    )


def rendered(svg: str) -> Image.Image:
    return Image.open(io.BytesIO(bytes(resvg_py.svg_to_bytes(svg_string=svg)))).convert("RGB")


def share_of(picture: Image.Image, colour: str) -> float:
    wanted = tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))
    found = picture.getcolors(maxcolors=picture.width * picture.height)
    assert found is not None
    return dict((c, n) for n, c in found).get(wanted, 0) / (picture.width * picture.height)


def test_the_timeline_is_svg_with_the_three_tracks_the_pause_and_each_verdicts_time() -> None:
    root = ElementTree.fromstring(turn_timeline_svg(RECORDING, made_up()))
    texts = [element.text for element in root.iter(f"{SVG}text")]
    for track in ("phrases", "verdicts (ms)", "lines"):
        assert track in texts
    assert "0.8" in texts, "the labelled pause's length"
    assert "cut off" in texts, "the hesitant phrase written as two lines"
    assert {"70", "90", "400", "60"} <= set(texts), "each verdict's time taken"
    titles = [element.text or "" for element in root.iter(f"{SVG}title")]
    assert "late, counted incomplete in 400 ms at 7.50 s (it said incomplete)" in titles
    assert sum(title.startswith("the turn ended at") for title in titles) == 3


@pytest.mark.parametrize(
    "mark", ["finished", "hesitant", "pause", "complete", "late", "held", "line", "cut"]
)
def test_every_kind_of_mark_shows_in_its_colour(mark: str) -> None:
    assert share_of(rendered(turn_timeline_svg(RECORDING, made_up())), COLOURS[mark]) > 0.0002


def test_the_page_holds_the_table_and_a_timeline_per_configuration() -> None:
    one = made_up()
    page = turns_page("made-up", "two phrases", RECORDING, [one, one], "a caption")
    assert page.count("<svg") == 2 and page.count("<tr>") == 3
    assert all(heading in page for heading in ("False cut-offs", "End → line p50"))


def test_the_table_has_a_row_per_configuration_and_names_the_goals() -> None:
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(turns_table([made_up(), made_up()], "a caption"))
    text = console.export_text()
    assert text.count("smart-turn") == 2 and "1 / 1 (100%)" in text
    assert "a caption" in text and "≤ 5 %" in text and "≤ 0.5 s" in text


def test_a_row_gives_cut_offs_with_their_share_and_the_latencies() -> None:
    row = dict(zip(HEADINGS, cells(made_up()), strict=True))
    assert row["False cut-offs"] == "1 / 1 (100%)"
    assert row["Split finished"] == "0 / 1"
    assert row["End → line p50"] == "0.70 s"
    assert row["Verdicts (late, held)"] == "4 (1, 1)"


def test_the_json_gives_the_figures_and_per_phrase_its_lines_cuts_and_verdicts() -> None:
    summary = summary_view(made_up())
    assert summary["config"] == "smart-turn:1000" and summary["false_cut_offs"] == 1
    assert summary["false_cut_off_share"] == 1.0 and summary["verdicts_late"] == 1
    finished, hesitant = result_view(made_up())["phrases"]
    assert len(finished["lines"]) == 1 and finished["cut_at_pauses"] == []
    assert len(hesitant["lines"]) == 2 and hesitant["cut_at_pauses"] == [0]
    assert [v["place"] for v in hesitant["verdicts"]] == ["speech", "pause", "end"]
    assert [v["kind"] for v in hesitant["verdicts"]] == ["held", "complete", "late"]


def test_configs_are_read_in_order_once_each_and_a_bad_one_says_how_to_write_it() -> None:
    assert parse_configs("smart-turn:1000, silence:600,smart-turn:1000") == [
        TurnConfig("smart-turn", 1000),
        TurnConfig("silence", 600),
    ]
    for bad, says in (("smart-turn", "MODEL:LIMIT_MS"), ("silence:fast", "MODEL:LIMIT_MS"),
                      ("silence:5", "outside")):  # fmt: skip
        with pytest.raises(ValueError, match=says):
            parse_configs(bad)


def test_the_default_compares_each_installed_model_with_silence_at_600_and_1000() -> None:
    assert [c.spec for c in default_configs(["silence", "smart-turn"])] == [
        "smart-turn:1000",
        "silence:600",
        "silence:1000",
    ]


def test_a_model_that_is_not_installed_or_cannot_run_is_refused_saying_so() -> None:
    ready = {"silence": None, "smart-turn": "onnxruntime is missing"}
    with pytest.raises(TurnsUnavailable, match="'other' is not installed here"):
        check_configs([TurnConfig("other", 1000)], ready)
    with pytest.raises(TurnsUnavailable, match="cannot run here: onnxruntime is missing"):
        check_configs([TurnConfig("smart-turn", 1000)], ready)
    check_configs([TurnConfig("silence", 600)], ready)


def test_every_hesitant_phrase_of_a_set_pauses_between_half_a_second_and_1_2_s() -> None:
    for turn_set in TURN_SETS.values():
        assert any(p.hesitant for p in turn_set.phrases), turn_set.name
        assert any(not p.hesitant for p in turn_set.phrases), turn_set.name
        for phrase in turn_set.phrases:
            assert all(0.5 <= pause <= 1.2 for pause in phrase.pauses_s), phrase
    texts = {name: {p.text for p in TURN_SETS[name].phrases} for name in TURN_SETS}
    assert not texts["held-out"] & texts["tuning"]
    assert not texts["fresh"] & (texts["tuning"] | texts["held-out"])
    assert not texts["blind"] & (texts["tuning"] | texts["held-out"] | texts["fresh"])
    for name in ("fresh", "blind"):
        assert sum(p.hesitant for p in TURN_SETS[name].phrases) == 20, "one cut-off is 5 %"
    for name in ("held-out", "fresh", "blind"):
        assert len({p.pace for p in TURN_SETS[name].phrases}) > 3, "voices differ"
    with pytest.raises(ValueError, match="one pause between each two pieces"):
        SetPhrase(("one", "two"))


def test_without_piper_a_set_cannot_be_voiced_and_the_error_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "assist.mcp.demo.rooms.voiced", None)  # as if not installed
    with pytest.raises(TurnsUnavailable, match=r"install assist-mcp\[demo\]"):
        voice_set(TURN_SETS["short"])


def test_a_voicing_that_does_not_exist_is_refused_naming_those_that_do() -> None:
    with pytest.raises(ValueError, match="there is no voicing 'loud'; there are one-breath, apart"):
        voice_set(TURN_SETS["short"], "loud")


def test_one_breath_and_apart_say_the_finished_phrase_alike_and_the_hesitant_one_differently() -> (
    None
):
    breath, apart = voice_set(TURN_SETS["short"]), voice_set(TURN_SETS["short"], "apart")
    (finished_breath, hesitant_breath), (finished_apart, hesitant_apart) = (
        breath.phrases,
        apart.phrases,
    )
    assert finished_breath == finished_apart
    said = [
        recording.samples[round(phrase.start_s * 16_000) : round(phrase.pauses[0].start_s * 16_000)]
        for recording, phrase in ((breath, hesitant_breath), (apart, hesitant_apart))
    ]
    assert said[0].shape != said[1].shape, "the piece before the pause is not said as a sentence"
    assert all(
        p.pauses[0].end_s - p.pauses[0].start_s == pytest.approx(0.8, abs=1e-3)
        for p in (hesitant_breath, hesitant_apart)
    )
