"""The talk demo's latency figures, from made-up recordings (no conversation is run)."""

from __future__ import annotations

import io
from typing import Any

from assist.mcp.demo.talk_latency import Arrival, Phrase, felt, p50
from assist.mcp.demo.talk_output import overall, summary_table
from rich.console import Console

WALL = 1_000_000.0
"""The wall-clock time at which the room's clock read 0."""


def phrase(step: str, start_s: float, end_s: float, replied: bool = False) -> Phrase:
    return Phrase(step, f"the {step}", start_s, end_s, WALL + end_s, replied)


def arrival(
    start_s: float, end_s: float, after_s: float, text: str = "words", looked_s: float = 0.0
) -> Arrival:
    """A line spanning `start_s`..`end_s` on the capture clock, seen `after_s` later, and not
    there `looked_s` before that."""
    seen = WALL + end_s + after_s
    return Arrival(start_s, end_s, text, seen, seen - looked_s)


def remark(started_s: float, first_sound_s: float | None) -> dict[str, Any]:
    first = None if first_sound_s is None else WALL + first_sound_s
    return {"text": "Sure, one moment.", "started": WALL + started_s, "first_sound": first}


def test_a_request_gets_its_line_and_its_replys_first_sound_after_the_phrase_ended() -> None:
    request = phrase("request", 7.0, 10.0, replied=True)
    lines = [arrival(6.8, 10.2, 0.5, "please create a file")]
    figures = felt([request], lines, [remark(10.9, 11.2)])
    # written 0.5 s after the line's end, which is 0.2 s past the phrase's
    assert figures[0]["line_s"] == 0.7
    assert figures[0]["reply_s"] == 1.2
    assert figures[0]["heard"] == "please create a file"


def test_a_reply_begun_before_the_look_that_found_its_line_is_still_the_reply() -> None:
    """The look that finds the line may come after the server woke on it and the reply
    began; the line was written after the look before, and that is what counts."""
    request = phrase("request", 7.0, 10.0, replied=True)
    line = arrival(7.0, 10.0, 0.5, looked_s=0.1)  # not there at 10.4, there at 10.5
    figures = felt([request], [line], [remark(10.45, 10.6), remark(11.5, 12.0)])
    assert figures[0]["line_s"] == 0.5 and figures[0]["reply_s"] == 0.6


def test_the_assistants_echo_is_nobodys_line_and_a_remark_before_the_line_is_no_reply() -> None:
    request = phrase("request", 7.0, 10.0, replied=True)
    echo = arrival(11.0, 17.0, 0.4, "sure one moment you want me to create a file")
    early = remark(9.0, 9.3)  # the greeting still going, say: begun before the line was written
    figures = felt([request], [arrival(7.0, 10.0, 0.6), echo], [early, remark(10.8, 11.0)])
    assert figures[0]["line_s"] == 0.6 and figures[0]["reply_s"] == 1.0


def test_a_phrase_cut_in_two_counts_until_its_last_line() -> None:
    answer = phrase("answer", 20.0, 23.0)
    lines = [arrival(20.0, 21.0, 0.3), arrival(21.8, 23.0, 0.5)]
    figures = felt([answer], lines, [remark(24.0, 24.2)])
    assert figures[0]["line_s"] == 0.5
    assert figures[0]["reply_s"] is None  # not answered aloud at once: no reply figure


def test_a_phrase_never_written_has_no_figures_and_the_medians_skip_it() -> None:
    phrases = [phrase("request", 0, 2, True), phrase("answer", 5, 6), phrase("goodbye", 9, 10)]
    lines = [arrival(0.0, 2.0, 0.9), arrival(9.0, 10.0, 0.4)]
    figures = felt(phrases, lines, [remark(3.0, 3.5)])
    assert [f["line_s"] for f in figures] == [0.9, None, 0.4]
    assert [f["reply_s"] for f in figures] == [1.5, None, None]
    assert p50(figures, "line_s") == {"p50": 0.4, "n": 2}
    assert p50(figures, "reply_s") == {"p50": 1.5, "n": 1}
    assert p50(figures[1:2], "line_s") == {"p50": None, "n": 0}


def result(reply_s: float | None, turn: dict[str, Any] | None) -> dict[str, Any]:
    figure = {"phrase": "request", "text": "the request", "heard": "the request", "line_s": 0.7}
    figure |= {"reply_s": reply_s, "replied": True}
    figures = [figure, {**figure, "phrase": "goodbye", "replied": False, "reply_s": None}]
    return {
        "run_s": 45.0,
        "steps": [{"step": "felt", "t": 12.6, **figure}, {"step": "felt", "t": 44.0, **figures[1]}],
        "felt_p50": {"line_s": p50(figures, "line_s"), "reply_s": p50(figures, "reply_s")},
        "turn": turn,
    }


SMART = {"model": "smart-turn", "pause_ms": 200, "end_silence_ms": 1000}


def rendered(table: Any) -> str:
    console = Console(file=io.StringIO(), width=300)
    console.print(table)
    return " ".join(console.file.getvalue().replace("│", " ").split())  # type: ignore[attr-defined]


def test_the_summary_shows_each_phrase_and_ends_with_the_median_beside_the_goal() -> None:
    text = rendered(summary_table(result(0.9, SMART)))
    request = "the user's request: reply's first sound 0.9 s after the phrase ended (line 0.7 s)"
    assert request in text
    assert "the user's goodbye: line 0.7 s after the phrase ended (no reply at once:" in text
    assert text.rstrip("└─┴┘ ").endswith(
        "p50: reply's first sound 0.90 s after the phrase ended (n=1; goal <= 0.6 s idle 2-core, "
        "behaviour 16.2, MISSED), line 0.70 s (n=2); turns ended by smart-turn "
        "(short pause 200 ms, limit 1000 ms)"
    )


def test_a_reply_within_the_goal_is_not_marked_and_a_missing_one_or_turn_model_is_said() -> None:
    assert "MISSED" not in overall(result(0.5, SMART))
    assert overall(result(None, None)).startswith("p50: NO reply's first sound measured")
    assert overall(result(None, None)).endswith("the turn model is unknown (no session.json)")
