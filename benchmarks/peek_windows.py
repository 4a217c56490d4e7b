"""The looks of a kept echo set, decoded on the peek's window now and as before (16.3).

Every pause of a line in an echo set run with its sessions kept

    uv run assist eval --echo-set full --rooms pulse --json --workdir DIR > DIR/eval.json

is cut from the session's `audio/room.wav` (what the listener heard, after the canceller) as
`Track._peek` cuts its looks: from `HEARD_PRE_ROLL_MS` before the onset (the `paused` entry's
`heard_ms` in `assistant.jsonl`) to each of `HEARD_AFTER_MS` after it, and told the
backchannels (`peek_prompt`). Each look is decoded two ways:

- `before`: the 10 s fitted window, and where whisper does not trust it, the full 30 s
  window once, greedily, for at most the tokens the speech can hold (a loop there is nothing);
- `now`: the recogniser's `peek`, a fitted window of at least 20 s and nothing where it is
  not trusted.

Under `HEARD_CONFIDENCE` a text is nothing heard, as the listener sends it. For each kind of
sound it prints how many would stop the line (any look that is not a backchannel), which look
first, how many looks the window did not trust, and the time per look (median, p95, max),
measured here one after another, not at real time.

    uv run python benchmarks/peek_windows.py DIR/eval.json
"""

from __future__ import annotations

import json
import statistics
import sys
import time
import wave
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

KINDS = ("cough", "backchannel", "interruption")


def paused_trials(eval_json: Path) -> list[tuple[dict[str, Any], Path, int]]:
    """(trial, room.wav, onset ms) of every paused trial, matched in order to the `paused`
    entries of its session's log; a session whose counts differ is left out, said why."""
    report = json.loads(eval_json.read_text())
    trials: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for trial in report["trials"]:
        if trial["kind"] in KINDS and trial["paused"]:
            trials[trial["session"]].append(trial)
    found = []
    for session, paused in trials.items():
        folder = Path(session)
        log = [json.loads(line) for line in (folder / "assistant.jsonl").open()]
        onsets = [entry["heard_ms"] for entry in log if entry.get("event") == "paused"]
        if len(onsets) != len(paused):
            print(f"{folder.name}: {len(onsets)} pauses for {len(paused)} trials, left out")
            continue
        wav = folder / "audio" / "room.wav"
        found += [(trial, wav, at) for trial, at in zip(paused, onsets, strict=True)]
    return found


def pauses(eval_json: Path) -> list[tuple[str, Path, int]]:
    """(kind, room.wav, onset ms) of every paused trial (`paused_trials`)."""
    return [(trial["kind"], wav, at) for trial, wav, at in paused_trials(eval_json)]


def main(eval_json: Path) -> None:
    from assist.core.interruptions import is_backchannel, peek_prompt
    from assist.core.recognisers import RecogniserOptions
    from assist.listen.onsets import HEARD_AFTER_MS, HEARD_CONFIDENCE, HEARD_PRE_ROLL_MS
    from assist.stt.whisper import window
    from assist.stt.whisper.engine import EMPTY, _recognised
    from assist.stt.whisper.plugin import build

    recogniser: Any = build(RecogniserOptions())
    prompt = peek_prompt()

    def before(clip: np.ndarray) -> Any:
        fitted = recogniser._window.decode(clip, prompt)
        if fitted is not None:
            return _recognised(*fitted)
        segments, _ = recogniser._model.transcribe(
            clip, language="en", beam_size=1, without_timestamps=True,
            condition_on_previous_text=False, vad_filter=False, temperature=0.0,
            max_new_tokens=window.token_budget(clip.size / 16_000), initial_prompt=prompt,
        )  # fmt: skip
        kept = [segment for segment in segments if segment.text.strip()]
        text = " ".join(segment.text.strip() for segment in kept)
        if not text or window.repeats_itself(text):
            return EMPTY
        tokens = [max(len(segment.tokens), 1) for segment in kept]
        mean = sum(s.avg_logprob * n for s, n in zip(kept, tokens, strict=True)) / sum(tokens)
        return _recognised(text, mean)

    ways = {"before": before, "now": lambda clip: recogniser.peek(clip, prompt)}
    rows: dict[tuple[str, str], list[Any]] = defaultdict(list)
    times: dict[str, list[float]] = defaultdict(list)
    unsure: dict[str, int] = defaultdict(int)
    for kind, path, onset in pauses(eval_json):
        with wave.open(str(path)) as wav:
            audio = np.frombuffer(wav.readframes(wav.getnframes()), np.int16) / 32768.0
        audio = audio.astype(np.float32)
        for name, decode in ways.items():
            heard = []
            for after in HEARD_AFTER_MS:
                clip = audio[(onset - HEARD_PRE_ROLL_MS) * 16 : (onset + after) * 16]
                started = time.perf_counter()
                result = decode(clip)
                times[name].append(time.perf_counter() - started)
                unsure[name] += result.confidence < HEARD_CONFIDENCE
                heard.append(result.text if result.confidence >= HEARD_CONFIDENCE else "")
            stops = [at for at, text in enumerate(heard) if not is_backchannel(text)]
            rows[(kind, name)].append(stops[0] if stops else None)
            print(f"{kind:12} {name:6} {heard}", flush=True)
    print()
    for name in ways:
        took = sorted(times[name])
        p95 = took[min(len(took) - 1, round(0.95 * (len(took) - 1)))]
        print(
            f"{name}: per look median {statistics.median(took):.2f} s, p95 {p95:.2f} s, "
            f"max {took[-1]:.2f} s; not trusted or unsure {unsure[name]} of {len(took)}"
        )
        for kind in KINDS:
            firsts = rows[(kind, name)]
            stopped = [first for first in firsts if first is not None]
            by_look = [stopped.count(at) for at in range(len(HEARD_AFTER_MS))]
            print(f"  {kind:12} stop {len(stopped)} of {len(firsts)}, first on look {by_look}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
