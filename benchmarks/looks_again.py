"""The looks of kept echo sets with every look taken, and as `Looks` takes them (16.3).

Every pause of a line in echo set runs with their sessions kept

    uv run assist eval --echo-set full --rooms pulse --json --workdir DIR > DIR/eval.json

is cut from the session's `audio/room.wav` (what the listener heard, after the canceller) as
`Track._peek` cuts its looks, and each look is decoded by the recogniser's `peek`, told of the
sounds and backchannels (`peek_prompt`); under `HEARD_CONFIDENCE` a text is nothing heard. The
frames' levels go through `Looks` as the listener feeds them, each look back before the next is
due, so a look is left out where the listener would leave it out (a look not back in time is
decided when the recogniser comes to it, with the one before it back). For each kind of sound it
prints how many would stop the line (a look that is not a backchannel) with all three looks and
with the looks `Looks` takes, and how many looks each takes; then each sound's looks: the text,
the confidence and the loudest frame since the last look taken.

    uv run python benchmarks/looks_again.py DIR/eval.json [DIR2/eval.json ...]
"""

from __future__ import annotations

import sys
import wave
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from peek_windows import KINDS, pauses


def levels(audio: np.ndarray, onset_ms: int, frame_ms: int) -> list[float]:
    """The RMS of each frame from the onset's frame to the last look's end."""
    from assist.listen.onsets import HEARD_AFTER_MS

    size = frame_ms * 16
    first = onset_ms // frame_ms
    last = (onset_ms + HEARD_AFTER_MS[-1]) // frame_ms
    frames = [audio[index * size : (index + 1) * size] for index in range(first, last + 1)]
    return [float(np.sqrt(np.mean(np.square(frame)))) if frame.size else 0.0 for frame in frames]


def main(paths: list[Path]) -> None:
    from assist.core.interruptions import is_backchannel, peek_prompt
    from assist.core.recognisers import RecogniserOptions
    from assist.core.turns import TurnRules
    from assist.listen.onsets import HEARD_AFTER_MS, HEARD_PRE_ROLL_MS, Looks, heard_text
    from assist.stt.whisper.plugin import build

    recogniser: Any = build(RecogniserOptions())
    prompt, frame_ms = peek_prompt(), TurnRules().frame_ms
    stops: Counter[tuple[str, str]] = Counter()
    looks_taken: Counter[tuple[str, str]] = Counter()
    sounds: Counter[str] = Counter()
    rows = []
    for path in paths:
        for kind, wav_path, onset_ms in pauses(path):
            with wave.open(str(wav_path)) as wav:
                audio = np.frombuffer(wav.readframes(wav.getnframes()), np.int16) / 32768.0
            audio = audio.astype(np.float32)
            heard = []
            for after in HEARD_AFTER_MS:
                clip = audio[max(0, onset_ms - HEARD_PRE_ROLL_MS) * 16 : (onset_ms + after) * 16]
                result = recogniser.peek(clip, prompt)
                heard.append((heard_text(result.text, result.confidence), result.confidence))
            frame_levels = levels(audio, onset_ms, frame_ms)
            onset = onset_ms // frame_ms
            looks, taken, loudest, since = Looks(frame_ms), [], [], 0.0
            looks.start(onset)
            for offset, level in enumerate(frame_levels[1:], start=1):
                since = max(since, level)
                look = looks.feed(onset + offset + 1, level)
                due = [onset + -(-after // frame_ms) for after in HEARD_AFTER_MS]
                if onset + offset + 1 in due:
                    loudest.append(since)
                if look is not None:
                    since = 0.0
                    index = due.index(onset + offset + 1)
                    taken.append(index)
                    looks.heard(look, heard[index][0])
            sounds[kind] += 1
            for way, indexes in (("all", range(len(HEARD_AFTER_MS))), ("Looks", taken)):
                looks_taken[(kind, way)] += len(indexes)
                stops[(kind, way)] += any(not is_backchannel(heard[i][0]) for i in indexes)
            rows.append((kind, heard, loudest, taken))
    recogniser.close()
    for kind in KINDS:
        print(
            f"{kind:12} of {sounds[kind]}: stop with every look {stops[(kind, 'all')]}, "
            f"as Looks takes them {stops[(kind, 'Looks')]}; looks "
            f"{looks_taken[(kind, 'all')]} / {looks_taken[(kind, 'Looks')]}"
        )
    print()
    for kind, heard, loudest, taken in rows:
        cells = [
            f"{'' if index in taken else 'left out: '}{text!r} {confidence:.2f} ≤{level:.3f}"
            for index, ((text, confidence), level) in enumerate(zip(heard, loudest, strict=True))
        ]
        print(f"{kind:12} " + " | ".join(cells))


if __name__ == "__main__":
    main([Path(argument) for argument in sys.argv[1:]])
