"""`assist listen` with a turn model (behaviour.md 16.1): a hesitant phrase stays one line, a
finished one ends at the short pause, and nothing said is lost or written twice, whatever the
model says; a model that cannot load or fails leaves the silence rule, with one warning."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from listen_harness import Listener, listen_env, raw_lines, write_wav

RATE_HZ = 16_000
HESITANT = ("I was thinking we could move the launch to", "next Tuesday after the review")
FINISHED = "What time is it?"
MID_THOUGHT_S = 0.5
"""The pause inside the hesitant phrase: under the 600 ms limit, over the 200 ms short pause."""


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[tuple[float, float]]]:
    """A WAV of the hesitant phrase, then the finished one 1.5 s later, and where each of the
    three pieces of speech lies, in seconds."""
    from assist.mcp.demo.rooms.voiced import Voice

    voice = Voice()
    try:
        pieces = [voice.say(text) for text in (*HESITANT, FINISHED)]
    finally:
        voice.close()
    gaps = (0.5, MID_THOUGHT_S, 1.5, 1.0)
    parts, spans, at = [], [], 0
    for gap, piece in zip(gaps, [*pieces, None], strict=True):
        parts.append(np.zeros(int(gap * RATE_HZ), np.float32))
        at += len(parts[-1])
        if piece is not None:
            parts.append(piece)
            spans.append((at / RATE_HZ, (at + len(piece)) / RATE_HZ))
            at += len(piece)
    path = tmp_path_factory.mktemp("turns") / "hesitant.wav"
    write_wav(path, np.concatenate(parts), RATE_HZ)
    return path, spans


def listen(tmp_path: Path, path: Path, turn: str, *more: str, **fake: Any):
    """The lines and warnings of `listen_with_events`, which says what `fake` may set."""
    lines, warnings, _ = listen_with_events(tmp_path, path, turn, *more, **fake)
    return lines, warnings


def listen_with_events(
    tmp_path: Path,
    path: Path,
    turn: str,
    *more: str,
    ending: str = "",
    punctuates: bool = False,
    last_word: str = "",
):
    """The lines, warnings and NDJSON events after the session line (with `--events`) of
    `assist listen --turn TURN` on `path`, every turn model plugin loaded (the fake ones too),
    each recognised text ending in `ending`, by a recogniser that says it `punctuates` or not,
    and how sure it was of the `last_word` ("" unknown)."""
    folder = tmp_path / f"{turn}{''.join(more)}{len(ending)}{punctuates}{last_word}"
    listener = Listener(
        folder / "s",
        listen_env(
            folder,
            ASSIST_TURNS="",
            FAKE_STT_ENDING=ending,
            FAKE_STT_PUNCTUATES="1" if punctuates else "",
            FAKE_STT_LAST_WORD=last_word,
        ),
        *("--from", str(path), "--fast", "--stt", "fake", "--turn", turn, *more),
    )
    code, out, err = listener.wait()
    assert code == 0, err
    meta = json.loads((listener.folder / "session.json").read_text())
    events = [json.loads(line) for line in out.splitlines()[1:]]
    return raw_lines(listener.folder), meta["warnings"], events


def spans_of(lines: list[dict]) -> list[tuple[float, float]]:
    return [(line["start_ms"] / 1000, line["end_ms"] / 1000) for line in lines]


def assert_each_piece_in_exactly_one_line(lines: list[dict], pieces) -> None:
    """No line overlaps another, and each piece of speech lies within one line."""
    spans = spans_of(lines)
    assert all(end <= start for (_, end), (start, _) in pairwise(spans)), spans
    for start, end in pieces:
        holding = [s for s in spans if s[0] <= start + 0.05 and end - 0.1 <= s[1]]
        assert len(holding) == 1, (start, end, spans)


def test_smart_turn_keeps_a_hesitant_phrase_one_line_and_ends_the_finished_one(
    tmp_path: Path, recording
) -> None:
    path, pieces = recording
    lines, warnings = listen(tmp_path, path, "smart-turn")
    assert warnings == []
    assert len(lines) == 2, lines
    first = spans_of(lines)[0]
    assert first[0] <= pieces[0][0] and pieces[1][1] - 0.1 <= first[1]
    assert_each_piece_in_exactly_one_line(lines, pieces)


def test_a_model_that_says_complete_at_every_pause_splits_it_losing_and_doubling_nothing(
    tmp_path: Path, recording
) -> None:
    path, pieces = recording
    lines, warnings = listen(tmp_path, path, "always-complete")
    assert warnings == []
    assert len(lines) == 3, lines
    assert_each_piece_in_exactly_one_line(lines, pieces)


def test_complete_at_every_pause_with_words_that_stop_short_writes_the_silence_rules_lines(
    tmp_path: Path, recording
) -> None:
    """Each pause's words end on "to": no verdict ends a turn, the limit does, as it would
    with no model at all."""
    path, _ = recording
    complete = listen(tmp_path, path, "always-complete", ending=" to")
    assert complete == listen(tmp_path, path, "silence", ending=" to")
    assert len(complete[0]) == 2, complete


def test_a_recogniser_that_punctuates_holds_the_pauses_whose_words_have_no_sentence_mark(
    tmp_path: Path, recording
) -> None:
    """ "heard 1.2 seconds" from a recogniser that ends every finished sentence with a mark is a
    phrase broken off: the limit decides, as with no model. With the mark the short pause
    ends the turns; from a recogniser that never punctuates the last word alone decides."""
    path, _ = recording
    held = listen(tmp_path, path, "always-complete", punctuates=True)
    assert held == listen(tmp_path, path, "silence")
    assert len(held[0]) == 2, held
    assert len(listen(tmp_path, path, "always-complete", ending=".", punctuates=True)[0]) == 3
    assert len(listen(tmp_path, path, "always-complete")[0]) == 3


def test_a_sentences_end_on_a_last_word_the_recogniser_doubts_holds_the_pause(
    tmp_path: Path, recording
) -> None:
    """ "heard 1.2 seconds." with its last word at 0.3 is no evidence of an end: the limit
    decides, as with no model; at 0.9 the short pause ends the turns as before."""
    path, _ = recording
    doubted = listen(
        tmp_path, path, "always-complete", ending=".", punctuates=True, last_word="0.3"
    )
    assert doubted == listen(tmp_path, path, "silence", ending=".")
    assert len(doubted[0]) == 2, doubted
    sure = listen(tmp_path, path, "always-complete", ending=".", punctuates=True, last_word="0.9")
    assert len(sure[0]) == 3, sure


def test_whispers_words_keep_a_phrase_cut_short_going_though_the_model_says_complete(
    tmp_path: Path, recording
) -> None:
    """The real recogniser hears "... move the launch to." at the mid-thought pause: held
    there, the phrase stays one line, while the phrase ends still end at the short pause."""
    path, pieces = recording
    lines, warnings = listen(tmp_path, path, "always-complete", "--stt", "whisper")
    assert warnings == []
    assert len(lines) == 2, lines
    assert lines[0]["text"].lower().startswith("i was thinking"), lines
    assert_each_piece_in_exactly_one_line(lines, pieces)


def test_the_words_of_each_pause_called_complete_are_told_with_events(
    tmp_path: Path, recording
) -> None:
    path, _ = recording
    for ending, ends in (("", True), (" the", False)):
        _, _, events = listen_with_events(
            tmp_path, path, "always-complete", "--events", ending=ending
        )
        verdicts = [event["ms"] for event in events if event["event"] == "turn_verdict"]
        words = [event for event in events if event["event"] == "turn_words"]
        assert [event["ms"] for event in words] == verdicts
        assert all(set(event) == {"event", "track", "ms", "ends"} for event in words)
        assert [event["ends"] for event in words] == [ends] * len(verdicts)


def test_a_model_that_never_says_complete_writes_the_lines_of_the_silence_rule(
    tmp_path: Path, recording
) -> None:
    path, _ = recording
    assert listen(tmp_path, path, "never-complete") == listen(tmp_path, path, "silence")


@pytest.mark.parametrize(
    ("turn", "said"),
    [
        ("unloadable", "the turn model 'unloadable' could not load (the fake weights are damaged)"),
        ("failing", "room: the turn model failing failed (the fake turn model refuses)"),
        ("hanging", "room: the turn model hanging failed (it gave no verdict within 5 s)"),
    ],
)
def test_a_turn_model_that_cannot_load_or_fails_leaves_the_silence_rule_with_one_warning(
    tmp_path: Path, recording, turn: str, said: str
) -> None:
    path, _ = recording
    lines, warnings = listen(tmp_path, path, turn)
    silence_lines, _ = listen(tmp_path, path, "silence")
    assert lines == silence_lines
    assert len(warnings) == 1 and warnings[0].startswith(said), warnings


def test_each_verdict_is_told_with_events_and_the_silence_rule_tells_none(
    tmp_path: Path, recording
) -> None:
    path, pieces = recording
    _, _, events = listen_with_events(tmp_path, path, "always-complete", "--events")
    verdicts = [event for event in events if event["event"] == "turn_verdict"]
    assert len(verdicts) == 3
    for verdict, (_, end) in zip(verdicts, pieces, strict=True):
        assert set(verdict) == {"event", "track", "ms", "complete", "took_ms"}
        assert verdict["track"] == "room" and verdict["complete"] is True
        assert end * 1000 - 100 <= verdict["ms"] <= end * 1000 + 200
    _, _, events = listen_with_events(tmp_path, path, "silence", "--events")
    assert [event for event in events if event["event"] == "turn_verdict"] == []
