"""`assist listen --events`: the speech signals a supervising server reads (behaviour 13, 14.2)."""

from __future__ import annotations

import io
import itertools
import json
from pathlib import Path

import attrs
import numpy as np
from assist.core.conversation import BARGE_IN_LEVEL
from assist.core.turns import TurnRules
from assist.listen.onsets import (
    HEARD_AFTER_MS,
    HEARD_CONFIDENCE,
    REARM_MS,
    LoudOnsets,
    OnsetNeeds,
    Signals,
)
from hypothesis import given
from hypothesis import strategies as st
from listen_harness import Listener, listen_env, write_wav


def test_a_loud_onset_needs_three_speech_frames_over_the_gate_and_rearms_after_quiet() -> None:
    onsets = LoudOnsets(TurnRules())
    frames = [(0.9, 0.2)] * 5 + [(0.9, 0.01)] * 4 + [(0.9, 0.2)] * 4 + [(0.9, 0.01)] * 9
    frames += [(0.9, 0.2)] * 3 + [(0.2, 0.3)] * 3 + [(0.9, 0.04)] * 5
    found = [onsets.feed(i, p, level) for i, (p, level) in enumerate(frames)]
    # The first run; the second came before 256 ms of quiet (4 frames < 8) so it is the same;
    # the third after 9 quiet frames; loud non-speech and quiet speech are never onsets.
    assert [frame for frame in found if frame is not None] == [0, 22]


def test_a_run_may_open_on_a_loud_frame_that_does_not_sound_like_speech_yet() -> None:
    """AEC3's run: a word's first loud frame, which Silero scores low, opens it when the
    frame after it is loud speech; a loud frame alone, or two of them, never."""
    needs = OnsetNeeds(prob=0.2, level=0.02, frames=2, lead_prob=0.0)

    def onsets(frames: list[tuple[float, float]], needs: OnsetNeeds) -> list[int | None]:
        found = LoudOnsets(TurnRules())
        return [found.feed(i, p, level, needs) for i, (p, level) in enumerate(frames)]

    word = [(0.0, 0.0), (0.1, 0.1), (0.3, 0.1), (0.6, 0.2)]
    assert onsets(word, needs) == [None, None, 2, None]  # found a frame sooner, same onset
    assert onsets(word, attrs.evolve(needs, lead_prob=None)) == [None, None, None, 2]
    not_speech = [(0.1, 0.1), (0.1, 0.1), (0.05, 0.3), (0.1, 0.01), (0.3, 0.1)]
    assert onsets(not_speech, needs) == [None] * 5
    alone = [(0.1, 0.1), (0.1, 0.1)]
    assert onsets(alone, attrs.evolve(needs, frames=1)) == [None, None]  # it only leads


def test_frames_over_the_sure_level_are_speech_whatever_silero_says() -> None:
    """A word that opens on a fricative: "Sorry" through AEC3, loud for two frames that
    Silero scores 0.04-0.08. Over the sure level the run is confirmed on its second frame,
    with its first as the onset; without one, three frames later, where Silero says 0.2."""
    needs = OnsetNeeds(prob=0.2, level=0.02, frames=2, lead_prob=0.0, sure_level=0.05)

    def onsets(frames: list[tuple[float, float]], needs: OnsetNeeds) -> list[int | None]:
        found = LoudOnsets(TurnRules())
        return [found.feed(i, p, level, needs) for i, (p, level) in enumerate(frames)]

    sorry = [(0.0, 0.0), (0.04, 0.2), (0.08, 0.25), (0.19, 0.03), (0.3, 0.14), (0.4, 0.15)]
    assert onsets(sorry, needs) == [None, None, 1, None, None, None]
    assert onsets(sorry, attrs.evolve(needs, sure_level=None)) == [None] * 4 + [4, None]
    soft = [(0.04, 0.04), (0.08, 0.04), (0.1, 0.04)]  # loud past the gate, under the sure level
    assert onsets(soft, needs) == [None] * 3


def test_events_give_each_turns_start_and_end_and_a_loud_onset_on_stdout(
    tmp_path: Path, meeting, meeting_wav: Path
) -> None:
    quiet = tmp_path / "quiet.wav"
    write_wav(quiet, meeting.samples * 0.1, meeting.rate)
    for path, loud in ((meeting_wav, True), (quiet, False)):
        listener = Listener(
            tmp_path / f"sessions-{loud}",
            listen_env(tmp_path),
            "--from",
            str(path),
            "--fast",
            "--stt",
            "fake",
            "--events",
        )
        code, out, err = listener.wait()
        assert code == 0, err
        events = [json.loads(line) for line in out.splitlines()[1:]]
        kinds = [event["event"] for event in events]
        starts = [e["ms"] for e in events if e["event"] == "speech_started"]
        assert len(starts) == len(meeting.lines) == kinds.count("speech_stopped")
        for ms, spoken in zip(starts, meeting.lines, strict=True):
            assert abs(ms - spoken.start_s * 1000) < 200
        louds = [e for e in events if e["event"] == "loud"]
        if loud:
            assert len(louds) >= len(meeting.lines)
            assert all(e["level"] >= 0.05 for e in louds)
        else:
            assert louds == []  # speech at -20 dB stays under the echo gate
        assert np.all(np.diff(starts) > 0)


def test_a_heard_text_the_recogniser_is_unsure_of_is_sent_as_nothing_heard() -> None:
    out = io.StringIO()
    signals = Signals(out)
    signals.heard("room", 1624, 1240, "Wait.", HEARD_CONFIDENCE)
    signals.heard("room", 1624, 1240, "Thank you.", 0.32)
    sent = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [(e["text"], e["confidence"]) for e in sent] == [("Wait.", 0.368), ("", 0.32)]
    assert sent[0] == {
        "event": "heard", "track": "room", "ms": 1624, "onset_ms": 1240, "text": "Wait.",
        "confidence": 0.368,
    }  # fmt: skip


def test_the_speech_after_each_loud_onset_is_recognised_early_and_sent_as_heard(
    tmp_path: Path, meeting_wav: Path
) -> None:
    """16.3: the words of a hold reach the server long before the turn's line."""
    listener = Listener(
        tmp_path / "sessions",
        listen_env(tmp_path),
        "--from",
        str(meeting_wav),
        "--fast",
        "--stt",
        "fake",
        "--events",
    )
    code, out, err = listener.wait()
    assert code == 0, err
    events = [json.loads(line) for line in out.splitlines()[1:]]
    louds = {e["ms"] for e in events if e["event"] == "loud"}
    heard = [e for e in events if e["event"] == "heard"]
    assert heard
    for event in heard:
        assert event["onset_ms"] in louds
        assert event["ms"] - event["onset_ms"] in HEARD_AFTER_MS
        assert event["text"].startswith("heard ")  # the fake recogniser (0.5) is over the floor
        assert event["confidence"] == 0.5
    lines = (next((tmp_path / "sessions").iterdir()) / "raw.jsonl").read_text().splitlines()
    assert len(lines) == len({e["ms"] for e in events if e["event"] == "speech_started"})


@given(
    st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), max_size=300),
    st.sampled_from([None, 1, 2, 3]),
    st.sampled_from([None, 0.0, 0.2]),
    st.sampled_from([None, 0.1, 0.5]),
)
def test_loud_onsets_open_a_run_of_loud_speech_and_are_apart_by_a_quiet_spell(
    frames: list[tuple[float, float]], run: int | None, lead: float | None, sure: float | None
) -> None:
    """The run asked for (AEC3's two frames, the first of them only loud, any frame over the
    sure level speech; None, the turn rules' three of loud speech) is the run found."""
    rules = TurnRules()
    onsets = LoudOnsets(rules)
    needs = OnsetNeeds(frames=run, lead_prob=lead, sure_level=sure)
    found = []
    for i, (p, level) in enumerate(frames):
        onset = onsets.feed(i, p, level, needs)
        if onset is not None:
            found.append((onset, i))

    def over(level: float) -> bool:
        return sure is not None and level >= sure

    gate = BARGE_IN_LEVEL
    loud = [(p >= rules.start_prob or over(level)) and level >= gate for p, level in frames]
    first = rules.start_prob if lead is None else lead
    opens = [(p >= first or over(level)) and level >= gate for p, level in frames]
    rearm = -(-REARM_MS // rules.frame_ms)
    for onset, at in found:  # found as the run completes: speech from the onset on
        assert all(loud[onset : at + 1])
        led = at + 1 - onset < (run or rules.start_frames)
        assert not led or (onset > 0 and opens[onset - 1] and not loud[onset - 1])
        assert at + 1 - onset + led == (run or rules.start_frames)
    opened = [o - (o > 0 and opens[o - 1] and not loud[o - 1]) for o, _ in found]
    for earlier, later in itertools.pairwise(opened):
        quiet_run, longest = 0, 0
        for is_loud in opens[earlier:later]:
            quiet_run = 0 if is_loud else quiet_run + 1
            longest = max(longest, quiet_run)
        assert longest >= rearm


def test_the_cough_of_the_tests_is_a_loud_onset_for_the_vad() -> None:
    """What the pause tests rely on: `voiced.cough` is one loud onset, so it pauses a line
    (16.3) as a real cough would."""
    from assist.listen.vad import FRAME_SAMPLES, SileroVad
    from assist.mcp.demo.rooms.voiced import cough

    for seed in range(3):
        audio = np.concatenate(
            (np.zeros(8000, np.float32), cough(seed), np.zeros(8000, np.float32))
        )
        vad, onsets, found = SileroVad(), LoudOnsets(TurnRules()), []
        for index in range(len(audio) // FRAME_SAMPLES):
            frame = audio[index * FRAME_SAMPLES : (index + 1) * FRAME_SAMPLES]
            level = float(np.sqrt(np.mean(np.square(frame))))
            onset = onsets.feed(index, vad.probability(frame), level)
            if onset is not None:
                found.append(onset)
        assert len(found) == 1, seed


def test_the_cough_of_the_tests_peeked_as_the_listener_looks_is_a_note_not_words() -> None:
    """Told of coughs (`peek_prompt`), whisper writes the cough as a note of a sound; told
    only the backchannels it wrote "Yeah.", a backchannel by luck, and through the PulseAudio
    room words ("Alright.") that stopped the line. A line never holds a note."""
    from assist.core.interruptions import NOTES, is_backchannel, peek_prompt
    from assist.core.recognisers import RecogniserOptions
    from assist.listen.onsets import HEARD_AFTER_MS, HEARD_CONFIDENCE, HEARD_PRE_ROLL_MS
    from assist.mcp.demo.rooms.voiced import cough
    from assist.stt.whisper.plugin import build

    recogniser = build(RecogniserOptions())
    before = np.zeros(HEARD_PRE_ROLL_MS * 16, np.float32)
    for seed in range(3):
        look = np.concatenate((before, cough(seed)))[: before.size + HEARD_AFTER_MS[0] * 16]
        heard = recogniser.peek(look, peek_prompt())
        assert heard.confidence >= HEARD_CONFIDENCE, heard
        assert is_backchannel(heard.text, backchannels=()), heard  # no word at all
        assert not NOTES.search(recogniser.transcribe(look, peek_prompt()).text)
    recogniser.close()


def test_a_backchannel_the_prompt_makes_whisper_loop_on_is_heard_once() -> None:
    """Told the backchannels, whisper said Piper's "Yeah." again and again ("Yeah. Yeah.
    Yeah. …"), a loop the peek does not trust, so every look heard nothing; the same loop hid
    the "but what about" of an interruption for a look. Said only against a penalty, it is
    heard as said."""
    from assist.core.answers import answer_words
    from assist.core.interruptions import peek_prompt
    from assist.core.recognisers import RecogniserOptions
    from assist.listen.onsets import HEARD_PRE_ROLL_MS
    from assist.mcp.demo.rooms.voiced import Voice
    from assist.stt.whisper.plugin import build

    voice = Voice()
    try:
        yeah = voice.say("Yeah.")
    finally:
        voice.close()
    recogniser = build(RecogniserOptions())
    said = np.concatenate((np.zeros(HEARD_PRE_ROLL_MS * 16, np.float32), yeah))
    for after in HEARD_AFTER_MS:
        heard = recogniser.peek(said[: (HEARD_PRE_ROLL_MS + after) * 16], peek_prompt())
        assert heard.confidence >= HEARD_CONFIDENCE, (after, heard)
        assert answer_words(heard.text) == ["yeah"], (after, heard)
    recogniser.close()
