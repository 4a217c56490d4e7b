"""`assist eval --turns`: a turn set voiced once, heard by a real listener per configuration.

The set's phrases are said by Piper into one 16 kHz recording, `GAP_S` apart, each hesitant
phrase's pauses placed and labelled exactly. For each configuration (a turn model and the
end-of-turn limit it runs under) a real `assist listen --from - --quiet --events` is fed the
recording on stdin at real time, `CHUNK_S` at a time, while `raw.jsonl` is watched every
`WATCH_S` for when each line arrives and its `turn_verdict` events are read. The judgement is
`assist.core.turn_scoring`'s; this module voices, feeds, watches and reads.

The listener's config is an empty file of its own, so the developer's settings do not apply
and two runs compare: the recogniser is the listener's own choice, the short pause its
default. Every wait has a bound; a listener that does not start or end in time is killed and
its configuration reported as failed, not waited on.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import attrs
from assist.core import environment
from assist.core.settings import END_SILENCE_RANGE_MS
from assist.core.turn_models import SILENCE
from assist.core.turn_scoring import HeardLine, Pause, Phrase, ToldVerdict, TurnsScored, score_turns
from assist.mcp.eval.turn_sets import TurnSet

RATE_HZ = 16_000
"""The listener's rate: the recording is made at it, so nothing is resampled on the way in."""
LEAD_S = 1.0
"""Silence before the first phrase, as a recording starts before anyone talks."""
GAP_S = 2.0
"""Silence after each phrase: longer than any limit compared plus the line's recognition, so
each phrase's last line is written before the next phrase starts."""
CHUNK_S = 0.02
"""The recording is written 20 ms at a time, as a sound card's blocks come."""
WATCH_S = 0.005
"""How often `raw.jsonl` is looked at: a line's arrival is known to within 5 ms."""
DRAIN_S = 1.5
"""After the last sample, the input stays open this long before it is closed, so the last
phrase ends by its silence rather than by the end of the input."""
START_TIMEOUT_S = 120.0
"""How long a listener may take to load its recogniser and turn model and say its session."""
END_TIMEOUT_S = 120.0
"""How long a listener may take, once its input is closed, to recognise what is left and end."""
MODEL_LIMIT_MS = 1000
"""The limit a turn model is compared at by default: a conversation's (16.1), where `auto`
runs the model."""
SILENCE_LIMITS_MS = (600, 1000)
"""The silence rule at a meeting's limit and a conversation's, the rule a model must beat."""


class TurnsUnavailable(Exception):
    """What a turn set needs is missing here (Piper, a turn model); the message says what to
    install."""


class ListenFailed(Exception):
    """One configuration's listener did not start, or did not end, in time or at all."""


@attrs.frozen
class TurnConfig:
    """What ends a turn in one listener: a turn model (or `silence`) and the limit."""

    turn: str
    limit_ms: int

    @property
    def spec(self) -> str:
        return f"{self.turn}:{self.limit_ms}"

    @property
    def label(self) -> str:
        return f"{self.turn}, {self.limit_ms} ms"


def parse_configs(text: str) -> list[TurnConfig]:
    """`smart-turn:1000,silence:600` as configurations, in order, each once; ValueError
    saying what is wrong."""
    found: list[TurnConfig] = []
    low, high = END_SILENCE_RANGE_MS
    for part in (piece.strip() for piece in text.split(",")):
        turn, colon, limit = part.partition(":")
        if not turn or not colon or not limit.strip().isdigit():
            raise ValueError(
                f"--configs: {part!r} is not MODEL:LIMIT_MS; write it like smart-turn:1000 or "
                "silence:600, separated by commas"
            )
        config = TurnConfig(turn.strip(), int(limit))
        if not low <= config.limit_ms <= high:
            raise ValueError(f"--configs: the limit of {part!r} is outside {low} to {high} ms")
        if config not in found:
            found.append(config)
    return found


def default_configs(models: Iterable[str]) -> list[TurnConfig]:
    """Each installed turn model at MODEL_LIMIT_MS, then the silence rule at each of
    SILENCE_LIMITS_MS."""
    chosen = [TurnConfig(model, MODEL_LIMIT_MS) for model in models if model != SILENCE]
    return chosen + [TurnConfig(SILENCE, limit) for limit in SILENCE_LIMITS_MS]


def check_configs(configs: Sequence[TurnConfig], ready: Mapping[str, str | None]) -> None:
    """TurnsUnavailable unless every configuration's model is installed and ready here
    (`ready`: each installed model's reason it cannot run, None when it can)."""
    for config in configs:
        if config.turn not in ready:
            raise TurnsUnavailable(
                f"the turn model {config.turn!r} is not installed here (installed: "
                f"{', '.join(sorted(ready))}); install it (smart-turn comes with "
                "assist-turn-smart), or leave it out of --configs"
            )
        reason = ready[config.turn]
        if reason is not None:
            raise TurnsUnavailable(f"the turn model {config.turn!r} cannot run here: {reason}")


@attrs.frozen
class Recording:
    """A set said aloud: 16 kHz mono float32 samples, and where each phrase lies."""

    samples: Any
    phrases: tuple[Phrase, ...]

    @property
    def duration_s(self) -> float:
        return len(self.samples) / RATE_HZ


ONE_BREATH = "one-breath"
"""A hesitant phrase said as one sentence and cut where each piece ends (`rooms.breath`), so
the words before a pause run on as a person's do who has not finished."""
APART = "apart"
"""Each piece said as a sentence of its own, so it ends with a finished sentence's fall: the
sets' voicing until 2026-12-05, kept to compare against."""
VOICINGS = (ONE_BREATH, APART)


def voice_set(turn_set: TurnSet, voicing: str = ONE_BREATH) -> Recording:
    """Say every phrase of the set with Piper into one recording, each hesitant one as
    `voicing` says (TurnsUnavailable without Piper)."""
    if voicing not in VOICINGS:
        raise ValueError(f"there is no voicing {voicing!r}; there are {', '.join(VOICINGS)}")
    try:
        import numpy as np
        from assist.mcp.demo.rooms.room import pitched
        from assist.mcp.demo.rooms.voiced import Voice
    except ImportError as error:
        raise TurnsUnavailable(
            f"the turn sets are voiced by Piper with numpy, which cannot be imported here "
            f"({error}); install assist-mcp[demo] (the workspace has it)"
        ) from None
    try:
        voice = Voice(alignments=voicing == ONE_BREATH)
    except ImportError as error:  # it says what to install
        raise TurnsUnavailable(f"Piper's voice cannot load here: {error}") from None
    except (OSError, LookupError) as error:
        raise TurnsUnavailable(
            f"Piper's voice cannot load here ({error}); install assist-voice-piper, which "
            "brings its bundled voice"
        ) from None
    parts = [np.zeros(round(LEAD_S * RATE_HZ), np.float32)]
    at = len(parts[0])
    phrases: list[Phrase] = []
    try:
        for phrase in turn_set.phrases:
            start = at
            pauses: list[Pause] = []
            said = (
                voice.say_in_one_breath(phrase.pieces)
                if voicing == ONE_BREATH and phrase.hesitant
                else [voice.say(piece) for piece in phrase.pieces]
            )
            for number, piece in enumerate(said):
                if number:
                    silence = np.zeros(round(phrase.pauses_s[number - 1] * RATE_HZ), np.float32)
                    pauses.append(Pause(at / RATE_HZ, (at + len(silence)) / RATE_HZ))
                    parts.append(silence)
                    at += len(silence)
                audio = pitched(piece, phrase.pace)
                parts.append(audio)
                at += len(audio)
            phrases.append(Phrase(phrase.text, start / RATE_HZ, at / RATE_HZ, tuple(pauses)))
            parts.append(np.zeros(round(GAP_S * RATE_HZ), np.float32))
            at += len(parts[-1])
    finally:
        voice.close()
    return Recording(np.concatenate(parts), tuple(phrases))


@attrs.frozen
class Heard:
    """What one listener made of the recording: its lines (their arrival on the recording's
    clock), its verdicts, its warnings, the recogniser it ran and its session folder."""

    lines: tuple[HeardLine, ...]
    verdicts: tuple[ToldVerdict, ...]
    warnings: tuple[str, ...]
    recogniser: str
    folder: Path


@attrs.frozen
class ConfigResult:
    """One configuration's run and its score."""

    config: TurnConfig
    heard: Heard
    scored: TurnsScored


def listen_command() -> list[str]:
    """`assist listen` from the running interpreter's environment."""
    return [str(Path(sys.executable).parent / "assist"), "listen"]


def listen_at_real_time(
    recording: Recording,
    config: TurnConfig,
    workdir: Path,
    fed: Callable[[float], None] = lambda seconds: None,
) -> Heard:
    """Feed the recording at real time to a fresh listener running `config`; `fed` is told
    the seconds of the recording written so far, about every half second."""
    from assist.mcp.demo.rooms.voiced import pcm16

    workdir.mkdir(parents=True, exist_ok=True)
    settings = workdir / "config.json"
    settings.write_text("{}\n", encoding="utf-8")
    process = subprocess.Popen(
        [
            *listen_command(),
            *("--into", str(workdir / "sessions"), "--from", "-", "--quiet", "--events"),
            *("--turn", config.turn, "--end-silence-ms", str(config.limit_ms)),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, environment.CONFIG.name: str(settings)},
    )
    assert process.stdin is not None and process.stdout is not None
    stderr = _Tail(process.stderr)
    watcher: _Watcher | None = None
    try:
        folder = _session_folder(process, stderr)
        verdicts: list[ToldVerdict] = []
        reader = threading.Thread(
            target=_read_verdicts, args=(process.stdout, verdicts), daemon=True
        )
        reader.start()
        watcher = _Watcher(folder / "raw.jsonl", time.monotonic())
        watcher.start()
        try:
            _feed(process.stdin, pcm16(recording.samples), watcher.started, fed)
            time.sleep(DRAIN_S)
            process.stdin.close()
        except OSError:
            _wait_briefly(process)
            raise ListenFailed(f"assist listen stopped reading: {stderr.text()}") from None
        try:
            process.wait(timeout=END_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise ListenFailed(
                f"assist listen did not end within {END_TIMEOUT_S:.0f} s of its input ending"
            ) from None
        watcher.stop()
        reader.join(timeout=10)
        if process.returncode != 0:
            raise ListenFailed(f"assist listen ended with {process.returncode}: {stderr.text()}")
        meta = json.loads((folder / "session.json").read_text(encoding="utf-8"))
        return Heard(
            lines=watcher.lines(),
            verdicts=tuple(verdicts),
            warnings=tuple(meta.get("warnings", [])),
            recogniser=str(meta.get("model", "")),
            folder=folder,
        )
    except (OSError, ValueError) as error:
        raise ListenFailed(f"assist listen could not be heard: {error}") from None
    finally:
        if watcher is not None:
            watcher.stop()  # at once when stopped already; never left polling a failed run
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)


def run_turns(
    recording: Recording,
    configs: Sequence[TurnConfig],
    workdir: Path,
    fed: Callable[[TurnConfig, float], None] = lambda config, seconds: None,
    finished: Callable[[ConfigResult], None] = lambda result: None,
) -> tuple[list[ConfigResult], list[tuple[TurnConfig, str]]]:
    """Every configuration heard in turn: the results, and those that failed with why;
    `fed` is told how far each has played, `finished` each result as it comes."""
    results: list[ConfigResult] = []
    failures: list[tuple[TurnConfig, str]] = []
    for number, config in enumerate(configs, 1):
        folder = workdir / f"{number}-{config.turn}-{config.limit_ms}"
        try:
            heard = listen_at_real_time(recording, config, folder, functools.partial(fed, config))
        except ListenFailed as error:
            failures.append((config, str(error)))
            continue
        scored = score_turns(recording.phrases, heard.lines, heard.verdicts)
        results.append(ConfigResult(config, heard, scored))
        finished(results[-1])
    return results, failures


def _session_folder(process: subprocess.Popen[bytes], stderr: _Tail) -> Path:
    """The folder the listener's first line names, read within START_TIMEOUT_S."""
    stdout = process.stdout
    assert stdout is not None
    first: list[bytes] = []
    reading = threading.Thread(target=lambda: first.append(stdout.readline()), daemon=True)
    reading.start()
    reading.join(timeout=START_TIMEOUT_S)
    line = first[0].decode("utf-8", "replace") if first else ""
    if " in " not in line:
        if process.poll() is None and not first:
            raise ListenFailed(f"assist listen did not start within {START_TIMEOUT_S:.0f} s")
        _wait_briefly(process)
        raise ListenFailed(f"assist listen did not start: {stderr.text() or line.strip()}")
    return Path(line.split(" in ", 1)[1].strip())


def _wait_briefly(process: subprocess.Popen[bytes]) -> None:
    """Give a listener that is ending a moment to end and say why (its stderr)."""
    with contextlib.suppress(subprocess.TimeoutExpired):  # then the caller kills it
        process.wait(timeout=10)


def _feed(stdin: IO[bytes], pcm: bytes, start: float, fed: Callable[[float], None]) -> None:
    step = round(CHUNK_S * RATE_HZ) * 2
    told = 0.0
    for offset in range(0, len(pcm), step):
        time.sleep(max(0.0, start + offset / 2 / RATE_HZ - time.monotonic()))
        stdin.write(pcm[offset : offset + step])
        stdin.flush()
        seconds = (offset + step) / 2 / RATE_HZ
        if seconds - told >= 0.5:
            fed(seconds)
            told = seconds
    fed(len(pcm) / 2 / RATE_HZ)


def _read_verdicts(stdout: IO[bytes], verdicts: list[ToldVerdict]) -> None:
    for raw in stdout:
        try:
            event = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(event, dict):
            continue
        if event.get("event") == "turn_verdict":
            verdicts.append(
                ToldVerdict(event["ms"] / 1000, bool(event["complete"]), float(event["took_ms"]))
            )
        elif event.get("event") == "turn_words" and _words_of_last(verdicts, event):
            verdicts[-1] = attrs.evolve(verdicts[-1], words_end=bool(event["ends"]))


def _words_of_last(verdicts: list[ToldVerdict], event: dict[str, Any]) -> bool:
    """Whether `turn_words` are for the pause the last verdict was told for."""
    return bool(verdicts) and verdicts[-1].at_s == event["ms"] / 1000


class _Watcher:
    """Looks at `raw.jsonl` every WATCH_S and notes when each line first appeared."""

    def __init__(self, path: Path, started: float) -> None:
        self._path = path
        self._seen: list[float] = []
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self.started = started

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        if self._done.is_set():
            return
        self._done.set()
        self._thread.join(timeout=10)
        self._look()  # the lines written as the listener ended

    def lines(self) -> tuple[HeardLine, ...]:
        found = []
        for text, arrived in zip(self._read(), self._seen, strict=False):
            line = json.loads(text)
            found.append(
                HeardLine(
                    line["start_ms"] / 1000,
                    line["end_ms"] / 1000,
                    arrived - self.started,
                    str(line.get("text", "")),
                )
            )
        return tuple(found)

    def _watch(self) -> None:
        while not self._done.wait(WATCH_S):
            self._look()

    def _look(self) -> None:
        count = len(self._read())
        now = time.monotonic()
        self._seen.extend([now] * (count - len(self._seen)))

    def _read(self) -> list[bytes]:
        try:
            data = self._path.read_bytes()
        except FileNotFoundError:
            return []
        return data.split(b"\n")[: data.count(b"\n")]  # whole lines only


class _Tail:
    """The last of a child's stderr, read as it comes so the pipe never fills."""

    def __init__(self, stream: IO[bytes] | None) -> None:
        self._chunks: list[bytes] = []
        if stream is not None:
            threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream: IO[bytes]) -> None:
        for chunk in iter(lambda: stream.read1(4096), b""):  # type: ignore[attr-defined]
            self._chunks.append(chunk)
            del self._chunks[:-16]

    def text(self) -> str:
        return b"".join(self._chunks).decode("utf-8", "replace").strip()[-2000:]
