"""The echo feeder: what the room's microphone would hear of the assistant's own voice.

In a real room the loudspeakers feed the microphone, so everything the assistant says comes
back in the transcript a few seconds later (behaviour 6). During a replay the feeder plays
that part: it follows the session's `assistant.jsonl`, and each time a line has been spoken it
hands back an echo to write into the room track `delay_s` after the line ended.

- `exact` mode writes back the very words that were spoken.
- `asr` mode writes back what pocketsphinx hears in the saved WAV of the line
  (`reply-<id>.wav` in the voice's save folder, `assist mcp --save-audio DIR`), so the echo
  test meets real recognition errors. The recogniser runs in a worker process (unless a
  `worker` executor is given), so `transcribe` must be a module-level function.

What was spoken, and when it ended: the consent notice of each `joined` event (unless an
`error` with `stage` `notice` follows it), and every `spoke` event (a voice `error` never
reached the room). The log has no event for the end of the notice, so its end is the moment
its WAV appeared (the helper writes each WAV whole when the line is done); with no save
folder it is estimated from its length in words.

WAVs are matched to spoken lines by order: the helper numbers its requests in order and the
log lists what it was asked to say in the same order (`joined` before the notice is said,
`speaking` before a remark is). This holds for one watcher whose helper was not restarted,
which is the replay's setting; a restarted helper numbers from the start again and overwrites
files, and the feeder then echoes what it can and never a line twice.
"""

from __future__ import annotations

import wave
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import attrs
from assist.core.files import LOG_FILE, REPLY_WAV
from assist.core.meeting_log import LogEvent, read_events

MODES: tuple[str, ...] = ("exact", "asr")
ECHO_DELAY_S = 3.0
"""How long after a line ends its echo is in the transcript, in meeting seconds: the pause
the reference's feeder used, standing for the recorder finishing and publishing the turn."""
WORDS_PER_S = 2.5
"""Speaking rate used to guess how long a line lasted when no WAV tells (about 150 words a
minute, a calm speaking voice)."""
WAV_WAIT_S = 15.0
"""In `asr` mode, how long past a line's end its WAV may take to appear before the line is
given up (the helper writes it before it reports the line done, so it is normally there)."""


@attrs.frozen
class Echo:
    """One echo to write: the words the microphone heard and the line they came from."""

    text: str
    said: str
    kind: str
    ended: float
    audio_s: float
    mode: str


@attrs.define
class _Spoken:
    """A line the voice was asked to say, as the log and the save folder tell it."""

    kind: str
    text: str
    started: float
    utterance: str | None = None
    ended: float | None = None
    audio_s: float | None = None
    wav: Path | None = None
    heard: Future[str] | None = None
    done: bool = False
    dropped: bool = False


class EchoFeeder:
    """Follows one session's log; `poll(now)` returns the echoes due by `now` (wall seconds)."""

    def __init__(
        self,
        session_dir: Path,
        mode: str,
        *,
        delay_s: float = ECHO_DELAY_S,
        audio_dir: Path | None = None,
        transcribe: Callable[[Path], str] | None = None,
        worker: Executor | None = None,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"echo mode {mode!r} is not one of {', '.join(MODES)}")
        if mode == "asr" and (audio_dir is None or transcribe is None):
            raise ValueError("asr echoes need the voice's save folder and a recogniser")
        self.mode = mode
        self.delay_s = delay_s
        self.log = session_dir / LOG_FILE
        self.audio_dir = audio_dir
        self.given_up: list[str] = []
        self._transcribe = transcribe
        self._offset = 0
        self._spoken: list[_Spoken] = []
        self._seen: set[str] = set(self._wav_names()) if audio_dir is not None else set()
        self._unmatched: list[Path] = []
        self._worker: Executor | None = worker
        if mode == "asr" and worker is None:
            # A process of its own: the recogniser holds the GIL while it decodes, which in a
            # thread would stall the replay's clock for a second or more per line.
            self._worker = ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn"))
            self._worker.submit(warm_up)  # load the model now, not when the first line ends

    def poll(self, now: float) -> list[Echo]:
        """Read what the log and the save folder gained; the echoes now due, in order."""
        for event in self._new_events():
            self._take(event)
        self._match_wavs()
        due = []
        for spoken in self._spoken:
            if spoken.done or spoken.dropped:
                continue
            echo = self._due(spoken, now)
            if echo is not None:
                spoken.done = True
                if echo.text:
                    due.append(echo)
                else:
                    self.given_up.append(f"{echo.said} (the recogniser heard nothing)")
        return due

    def waiting(self) -> int:
        """Spoken lines whose echo has not been written yet."""
        return sum(1 for spoken in self._spoken if not spoken.done and not spoken.dropped)

    def close(self) -> None:
        if self._worker is not None:
            self._worker.shutdown(wait=False, cancel_futures=True)

    # The log --------------------------------------------------------------------------

    def _new_events(self) -> list[LogEvent]:
        """The events appended since the last look that have a time (read by the core)."""
        try:
            with open(self.log, "rb") as file:
                file.seek(self._offset)
                data = file.read()
        except FileNotFoundError:
            return []
        complete = data[: data.rfind(b"\n") + 1]
        self._offset += len(complete)
        events = read_events(complete.decode("utf-8", errors="replace"))
        return [event for event in events if event.at is not None]

    def _take(self, event: LogEvent) -> None:
        assert event.at is not None
        at, text = event.at.timestamp(), event.text
        if event.name == "joined" and event.notice is not None:
            self._spoken.append(_Spoken("notice", event.notice, at))
        elif event.failed_notice:
            for spoken in reversed(self._spoken):
                if spoken.kind == "notice" and spoken.ended is None:
                    spoken.dropped = True  # the notice never reached the room
                    break
        elif event.name == "speaking" and text is not None:
            self._spoken.append(_Spoken("remark", text, at, utterance=event.utterance))
        elif event.closes_utterance and text is not None:
            closed = self._open_remark(event.utterance, text)
            if closed is None:  # a log without `speaking` events (Ambient's)
                closed = _Spoken("remark", text, at)
                self._spoken.append(closed)
            if event.name == "error":
                closed.dropped = True  # the voice broke down: nothing reached the room
                return
            closed.ended = at
            if event.audio_s is not None:
                closed.audio_s = closed.audio_s or event.audio_s

    def _open_remark(self, utterance: str | None, text: str) -> _Spoken | None:
        for spoken in reversed(self._spoken):
            if spoken.kind != "remark" or spoken.ended is not None or spoken.dropped:
                continue
            if utterance is not None and spoken.utterance == utterance:
                return spoken
            if utterance is None and spoken.text == text:
                return spoken
        return None

    # The save folder ------------------------------------------------------------------

    def _wav_names(self) -> list[str]:
        assert self.audio_dir is not None
        try:
            names = [path.name for path in self.audio_dir.iterdir()]
        except OSError:
            return []
        return sorted((name for name in names if REPLY_WAV.fullmatch(name)), key=_wav_order)

    def _match_wavs(self) -> None:
        if self.audio_dir is not None:
            for name in self._wav_names():
                if name not in self._seen:
                    self._seen.add(name)
                    self._unmatched.append(self.audio_dir / name)
        while self._unmatched:
            spoken = next(
                (item for item in self._spoken if item.wav is None and not item.dropped), None
            )
            if spoken is None:
                return
            wav = self._unmatched.pop(0)
            spoken.wav = wav
            try:
                facts = wav.stat()
                spoken.audio_s = _wav_seconds(wav)
            except OSError:
                continue
            if spoken.kind == "notice" and spoken.ended is None and not spoken.dropped:
                spoken.ended = facts.st_mtime
            if self._worker is not None and self._transcribe is not None:
                spoken.heard = self._worker.submit(self._transcribe, wav)

    # When an echo is due --------------------------------------------------------------

    def _due(self, spoken: _Spoken, now: float) -> Echo | None:
        if spoken.ended is None and spoken.kind == "notice" and self.audio_dir is None:
            spoken.ended = spoken.started + len(spoken.text.split()) / WORDS_PER_S
        if spoken.ended is None or now < spoken.ended + self.delay_s:
            return None
        audio_s = spoken.audio_s or len(spoken.text.split()) / WORDS_PER_S
        if self.mode == "exact":
            return Echo(spoken.text, spoken.text, spoken.kind, spoken.ended, audio_s, "exact")
        if spoken.heard is None:
            if now >= spoken.ended + self.delay_s + WAV_WAIT_S:
                spoken.dropped = True
                self.given_up.append(f"{spoken.text} (its WAV never came)")
            return None
        if not spoken.heard.done():
            return None
        try:
            heard = spoken.heard.result().strip()
        except Exception as error:  # the recogniser failed on this file: no echo for it
            self.given_up.append(f"{spoken.text} ({type(error).__name__}: {error})")
            heard = ""
        return Echo(heard, spoken.text, spoken.kind, spoken.ended, audio_s, "asr")


def warm_up() -> None:
    """Load the recogniser's model in the worker before the first line needs it."""
    from assist.mcp.replay.audio import transcribe

    transcribe([0.0] * 1600, 16_000)


def _wav_order(name: str) -> tuple[int, int, str]:
    match = REPLY_WAV.fullmatch(name)
    part = match[1] if match else name
    return (0, int(part), name) if part.isdigit() else (1, 0, name)


def _wav_seconds(path: Path) -> float:
    """A WAV's length from its header (16-bit PCM as the helper writes it)."""
    with wave.open(str(path), "rb") as source:
        return source.getnframes() / source.getframerate()
