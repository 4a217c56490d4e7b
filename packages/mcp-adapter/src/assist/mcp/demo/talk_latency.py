"""The latency a user of `assist demo --talk` feels, from what the run recorded (pure).

For each phrase the scripted user says, from the moment its last sample played into the room:

- **line**: until the listener's line for it reached `raw.jsonl` (the last one, should the
  phrase have been cut in two). A line is the phrase's when their spans overlap most
  (`turn_scoring.owning_phrase`) on the room's clock, which is the listener's capture clock
  (`talk_room`); echoes of the assistant overlap no phrase of the user's and are nobody's.
- **reply**: until the first sound of the assistant's reply (its `speaking` time plus the
  voice's `first_audio_ms`, `summary.remarks_from_log`), for a phrase the agent answers aloud
  at once (the request's acknowledgement). The others get none by design: after the spoken
  yes the agent works (its fillers are measured apart), a barge-in is answered by the line
  stopping, and a goodbye by `stop_watching`.

Times are wall-clock seconds; `p50` takes the nearest-rank median (the meeting summary's
`quantile`).
"""

from __future__ import annotations

from typing import Any

import attrs
from assist.core.turn_scoring import owning_phrase
from assist.mcp.demo.summary import quantile

GOAL_S = 0.6
"""Behaviour 16.2: end of phrase to the reply's first sound, p50, idle 2-core machine."""


@attrs.frozen
class Phrase:
    """One phrase the user said: its story step, text, span on the room's clock and in wall
    seconds, and whether the agent answers it aloud at once."""

    step: str
    text: str
    start_s: float
    end_s: float
    ended_at: float
    replied: bool


@attrs.frozen
class Arrival:
    """One line as it reached `raw.jsonl`: its span on the capture clock, when it was seen
    there, and when it was last looked for and not there (it was written in between)."""

    start_s: float
    end_s: float
    text: str
    at: float
    since: float


def felt(
    phrases: list[Phrase], arrivals: list[Arrival], remarks: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Each phrase's line and reply figures (None when there is none)."""
    mine: dict[int, list[Arrival]] = {}
    for arrival in arrivals:
        index = owning_phrase(phrases, arrival)
        if index is not None:
            mine.setdefault(index, []).append(arrival)
    result = []
    for index, phrase in enumerate(phrases):
        lines = mine.get(index, [])
        line_at = max((line.at for line in lines), default=None)
        written_after = max((line.since for line in lines), default=None)
        reply_at = _reply(phrase, written_after, remarks) if phrase.replied else None
        result.append(
            {
                "phrase": phrase.step,
                "text": phrase.text,
                "heard": " / ".join(line.text for line in lines) or None,
                "line_s": None if line_at is None else round(line_at - phrase.ended_at, 2),
                "reply_s": None if reply_at is None else round(reply_at - phrase.ended_at, 2),
                "replied": phrase.replied,
            }
        )
    return result


def p50(figures: list[dict[str, Any]], key: str) -> dict[str, Any]:
    """The median of one figure over the phrases that have it, and how many do."""
    values = sorted(figure[key] for figure in figures if figure[key] is not None)
    return {"p50": quantile(values, 0.5), "n": len(values)}


def _reply(
    phrase: Phrase, written_after: float | None, remarks: list[dict[str, Any]]
) -> float | None:
    """The first sound of the first remark begun once the phrase was written (or, unheard,
    once it ended). The line was written after the last look that missed it: the look that
    found it can come after the reply began (the server wakes on the line within 50 ms),
    and then the reply was taken for the next remark, 1.5 s later."""
    after = phrase.ended_at if written_after is None else max(phrase.ended_at, written_after)
    return next(
        (
            float(remark["first_sound"])
            for remark in remarks
            if remark["started"] >= after and remark["first_sound"] is not None
        ),
        None,
    )
