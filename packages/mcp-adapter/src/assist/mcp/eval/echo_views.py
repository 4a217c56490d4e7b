"""The figures `assist eval --echo-set` shows, in one place for the table, the JSON and the report.

A row is one kind of trial in one room: how many trials, lines of the assistant's own voice
handed to the agent, answers lost, the person's words lost (of answers and interruptions),
lines paused, resumed and stopped, false stops, missed interruptions, and the sound's first
sample → the line paused (p50, p95). A figure that cannot happen for a kind (an interruption
resuming, a reply with nobody speaking missed) is shown as a dash.
"""

from __future__ import annotations

from typing import Any

from assist.core.echo_scoring import GOES_ON, HANDED, SILENT, STOPS, Kind, KindScore, own_line
from assist.mcp.eval.echo import PlaceResult, TrialRun
from assist.mcp.eval.echo_sets import ANSWER_AFTER_S

HEADINGS: tuple[str, ...] = (
    "Room",
    "Trial",
    "Trials",
    "Own voice → agent",
    "Answers lost",
    "Words lost",
    "Paused",
    "Resumed",
    "Stopped",
    "False stops",
    "Missed",
    "→ pause p50",
    "p95",
)
KIND_LABELS: dict[Kind, str] = {
    "echo": "a reply, nobody speaking",
    "back_to_back": "3 lines back to back",
    "answer": f"an answer {ANSWER_AFTER_S:g} s after a question",
    "cough": "a cough over a reply",
    "backchannel": "a backchannel over a reply",
    "interruption": "an interruption",
}
GOALS = (
    "goals (16.3): no line of its own voice reaches the agent, every answer heard, 0 false "
    "stops, a cough or backchannel goes on (resumes) in ≥ 9 of 10, an interruption stops in "
    "10 of 10, the sound → the line paused p95 ≤ 200 ms"
)


def cells(result: PlaceResult, kind: KindScore) -> list[str]:
    """One row as text, in the order of HEADINGS."""
    trials = kind.trials

    def of(count: int, applies: bool = True) -> str:
        return f"{count} of {trials}" if applies else "–"

    sounded = kind.kind not in SILENT
    return [
        result.place.label,
        KIND_LABELS[kind.kind],
        str(trials),
        str(kind.own_lines),
        of(kind.answers_lost, kind.kind == "answer"),
        f"{kind.words_lost} of {kind.words_said}" if kind.kind in HANDED else "–",
        of(kind.paused),
        of(kind.resumed, kind.kind in GOES_ON),
        of(kind.stopped),
        of(kind.false_stops, kind.kind not in STOPS),
        of(kind.missed, kind.kind in STOPS),
        _ms(kind.pause_p50_s) if sounded else "–",
        _ms(kind.pause_p95_s) if sounded else "–",
    ]


def summary_view(result: PlaceResult) -> list[dict[str, Any]]:
    """A room's figures as JSON, one object per kind of trial."""
    return [
        {
            "room": result.place.room,
            "level_db": result.place.level_db,
            "kind": kind.kind,
            "trials": kind.trials,
            "own_lines": kind.own_lines,
            "answers_lost": kind.answers_lost,
            "words_said": kind.words_said,
            "words_lost": kind.words_lost,
            "paused": kind.paused,
            "resumed": kind.resumed,
            "stopped": kind.stopped,
            "went_on": kind.went_on,
            "false_stops": kind.false_stops,
            "missed": kind.missed,
            "to_pause_p50_ms": _rounded_ms(kind.pause_p50_s),
            "to_pause_p95_ms": _rounded_ms(kind.pause_p95_s),
        }
        for kind in result.score.kinds
    ]


def run_view(run: TrialRun) -> dict[str, Any]:
    """One trial as JSON: what was said and heard, what became of the line, and its times
    (seconds from the trial's start; where the trial and each line began on the listener's
    capture clock, in ms, null where the room cannot say)."""
    trial = run.trial
    return {
        "room": run.place.room,
        "level_db": run.place.level_db,
        "round": run.round,
        "kind": trial.kind,
        "said": list(trial.said),
        "person": trial.person,
        "heard": [
            {
                "text": heard.text,
                "at_s": _rounded(heard.at_s),
                "start_ms": heard.start_ms,
                "own": own_line(heard.text, trial),
            }
            for heard in run.heard
        ],
        "paused": trial.paused,
        "resumed": trial.resumed,
        "stopped": trial.stopped,
        "to_pause_ms": _rounded_ms(trial.to_pause_s),
        "wanted": trial.wanted,
        "answered": trial.answered,
        "line_s": None if run.line_s is None else [_rounded(at) for at in run.line_s],
        "sound_s": None if run.sound_s is None else [_rounded(at) for at in run.sound_s],
        "marks": [{"kind": mark.kind, "at_s": _rounded(mark.at_s)} for mark in run.marks],
        "session": run.session,
        "started_ms": run.started_ms,
    }


def _ms(value: float | None) -> str:
    return "–" if value is None else f"{value * 1000:.0f} ms"


def _rounded_ms(value: float | None) -> float | None:
    return None if value is None else round(value * 1000, 1)


def _rounded(value: float) -> float:
    return round(value, 3)
