"""The figures `assist eval --turns` shows, in one place for the table, the JSON and the report.

A row is one configuration (turn model and limit) over the whole set: phrases, false cut-offs
of the hesitant ones (n / N and the share), finished phrases split, phrases missed, end of
phrase to line p50 and p95, and the model's verdicts (how many, how many late).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from assist.core.turn_scoring import HeardLine, Outcome, Phrase, TurnScore
from assist.mcp.eval.turns import ConfigResult

HEADINGS: tuple[str, ...] = (
    "Turn model",
    "Limit",
    "Phrases",
    "False cut-offs",
    "Split finished",
    "Missed",
    "End → line p50",
    "p95",
    "Verdicts (late, held)",
)
GOALS = (
    "goals (16.1): false cut-offs ≤ 5 %, end of phrase → line p50 ≤ 0.5 s on an idle 2-core machine"
)


def cells(result: ConfigResult) -> list[str]:
    """The row as text, in the order of HEADINGS."""
    score = result.scored.score
    share = score.false_cut_off_share
    cut = f"{score.false_cut_offs} / {score.hesitant}"
    if share is not None:
        cut += f" ({share:.0%})"
    verdicts = "–" if not score.verdicts else f"{score.verdicts} ({score.late}, {score.held})"
    return [
        result.config.turn,
        f"{result.config.limit_ms} ms",
        str(score.phrases),
        cut,
        f"{score.split_finished} / {score.finished}",
        str(score.missed),
        _seconds(score.p50_s),
        _seconds(score.p95_s),
        verdicts,
    ]


def summary_view(result: ConfigResult) -> dict[str, Any]:
    """A configuration's figures as JSON."""
    score = result.scored.score
    return {
        "turn": result.config.turn,
        "limit_ms": result.config.limit_ms,
        "config": result.config.spec,
        **score_view(score),
        "recogniser": result.heard.recogniser,
        "warnings": list(result.heard.warnings),
    }


def score_view(score: TurnScore) -> dict[str, Any]:
    return {
        "phrases": score.phrases,
        "hesitant": score.hesitant,
        "false_cut_offs": score.false_cut_offs,
        "false_cut_off_share": _rounded(score.false_cut_off_share),
        "finished": score.finished,
        "split_finished": score.split_finished,
        "missed": score.missed,
        "stray_lines": score.stray,
        "p50_s": _rounded(score.p50_s),
        "p95_s": _rounded(score.p95_s),
        "verdicts": score.verdicts,
        "verdicts_late": score.late,
        "verdicts_complete_in_time": score.complete_in_time,
        "verdicts_held_by_words": score.held,
        "verdict_took_ms_median": _rounded(score.took_ms_median),
    }


def phrase_view(phrase: Phrase) -> dict[str, Any]:
    """A phrase of the recording as JSON: its words, where it lies, its labelled pauses."""
    return {
        "text": phrase.text,
        "hesitant": phrase.hesitant,
        "start_s": _rounded(phrase.start_s),
        "end_s": _rounded(phrase.end_s),
        "pauses": [
            {"start_s": _rounded(p.start_s), "end_s": _rounded(p.end_s)} for p in phrase.pauses
        ],
    }


def result_view(result: ConfigResult) -> dict[str, Any]:
    """One configuration's run as JSON: per phrase its lines, verdicts, cuts and latency."""
    lines = result.heard.lines
    return {
        "config": result.config.spec,
        "session": str(result.heard.folder),
        "phrases": [_outcome_view(outcome, lines) for outcome in result.scored.outcomes],
        "stray_lines": [_line_view(lines[number]) for number in result.scored.stray],
    }


def _outcome_view(outcome: Outcome, lines: Sequence[HeardLine]) -> dict[str, Any]:
    return {
        "lines": [_line_view(lines[number]) for number in outcome.lines],
        "latency_s": _rounded(outcome.latency_s),
        "cut_at_pauses": list(outcome.cut_at),
        "verdicts": [
            {
                "at_s": _rounded(v.at_s),
                "kind": v.kind,
                "said_complete": v.complete,
                "took_ms": v.took_ms,
                "place": v.place,
            }
            for v in outcome.verdicts
        ],
    }


def _line_view(line: HeardLine) -> dict[str, Any]:
    return {
        "start_s": _rounded(line.start_s),
        "end_s": _rounded(line.end_s),
        "arrived_s": _rounded(line.arrived_s),
        "text": line.text,
    }


def _seconds(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f} s"


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 3)
