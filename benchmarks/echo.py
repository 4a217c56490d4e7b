"""Echo cancellation for barge-in (issue 12 and 20, behaviour 14.2 and 16.3): how much of the
assistant's own voice the listener's canceller takes out, with AEC3 and with speexdsp side by
side, what it costs, and what it does for barge-in.

- **ERLE in software**: a Piper line mixed back into a "microphone" at 0 dB through a 50 ms
  room impulse response, 0, 40 or 120 ms after its stamps or 100 ms before them (as through
  PulseAudio), through the real canceller frame by frame (`packages/listen/tests/echo_mix.py`);
  the echo's energy before and after the filter (its own output, before the listener's trust
  and residual gate, and the frame itself where speex waits for the lag) over the voice's
  first 2 s and after; when the listener first trusts it; its CPU per second of audio; and,
  with a user over the echo 1.5, 2.5 or 4.0 s into the line, their first sound → a loud onset.
- **ERLE through PulseAudio**: the real player (with its reference tee) plays Piper into the
  `.ci/audio-room` null sink, the real capture (`DeviceSource`) records its monitor, and the
  one recording is cancelled by each filter with the reference as it arrived over the socket;
  then again with the user (Piper) added into it 0.5, 1.5 and 2.5 s into its second line:
  their first sound → a loud onset, and the loud onsets of the echo alone.
- **False barge-ins through the room**: a real `assist mcp` in a conversation, its voice the
  real Piper helper playing into the room (the echo at 0 dB), its listener the real `assist
  listen` on the default input; barge-in on; `--replies N` replies, each a cut (`cut_off`) or
  not; with the canceller (the default) and with the gate alone (the helper started without
  the reference socket, so the listener has nothing to cancel with).
- **A watched meeting** (16.3): a separate `assist listen` records the room's input while a
  real `assist mcp` watches it and speaks `--meetings N` replies with Piper into the room (the
  echo at 0 dB, barge-in on, the default); the lines and words of its own voice the recorder
  writes to `raw.jsonl` (nobody else speaks), and the replies cut by its own voice, with the
  echo reference's route and without it (`reference.sock` taken away before the watch).
- **A real interruption**: the user (Piper, `paplay --device=room`) talks over a long line:
  whether it is cut, and the time from the user's first sound to the line silent, both read
  from one recording of the room (`parec` on the null sink's monitor): the user's speech is
  found there by cross-correlation and taken out, and the assistant's last sound is what is
  left. No clock is involved (the latencies PortAudio reports through PulseAudio are off by
  tens of milliseconds, so times across processes would be too).

    uv run python benchmarks/echo.py [--replies 50] [--interruptions 10] \
        [--meetings 20] [--only software|pulseaudio|room|interruption|meeting]

Prints a Markdown table and writes `echo.json` beside this file (with `--only`, the parts run
replace theirs in it). Linux with PulseAudio.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import wave
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

HERE = Path(__file__).parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "packages" / "listen" / "tests"))
from assist.listen.echo_ring import ReferenceRing  # noqa: E402
from assist.mcp.eval.conversation import Conversation  # noqa: E402
from echo_mix import erle_db, loud_onsets, mix  # noqa: E402
from mcp_server import ASSIST, Client, percentile  # noqa: E402

LINE = (
    "Tokyo is nine hours ahead of London, so it is late in the evening there, and most "
    "people have finished work."
)
USER = "Wait, stop, what about the weather?"
REPLIES = (
    "Tomorrow looks dry and mild, with some cloud in the afternoon.",
    "It is about twenty minutes on foot, or five by bus.",
    "We agreed to keep the budget flat and look again in March.",
    "The plan starts with a review of last quarter's numbers.",
    "Tokyo is nine hours ahead of London, so it is late in the evening there.",
)
LONG_LINE = (
    "The plan starts with a review of last quarter's numbers, then the hiring for the new "
    "team, then the move to the other office, and last of all the budget for next year."
)
PAUSE_S = 1.0
"""Between replies, as the user's turn would be."""


class Recorded:
    """A filter whose output is kept, so its ERLE is read before the listener's trust and
    residual gate decide what passes."""

    def __init__(self, filter: Any) -> None:
        self.filter, self.name = filter, filter.name
        self.needs_lag, self.follows_s = filter.needs_lag, filter.follows_s
        self.settle_s, self.onset_prob = filter.settle_s, filter.onset_prob
        self.lowers_words, self.onset_frames = filter.lowers_words, filter.onset_frames
        self.onset_lead_prob = filter.onset_lead_prob
        self.onset_sure_level = filter.onset_sure_level
        self.last: np.ndarray | None = None

    def restart(self) -> None:
        self.filter.restart()

    def relearn(self) -> None:
        self.filter.relearn()

    def cancel(self, microphone: np.ndarray, reference: np.ndarray) -> np.ndarray:
        self.last = self.filter.cancel(microphone, reference)
        return self.last


def recording_canceller(filter: Any, ring: Any = None) -> Any:
    """An EchoCanceller that keeps, per frame, what the filter made of it (the frame itself
    where the filter was not used: speex waiting for the lag)."""
    from assist.listen.echo_canceller import EchoCanceller

    class Recording(EchoCanceller):
        filtered: ClassVar[list[np.ndarray]] = []

        shifts: ClassVar[list[float | None]] = []

        def cancel(self, frame: np.ndarray, at: float) -> np.ndarray:
            recorded.last = None
            out = super().cancel(frame, at)
            self.filtered.append(frame if recorded.last is None else recorded.last / 32767)
            self.shifts.append(self._shift)
            return out

        def aligned_from(self, first: int) -> int:
            """The frame, within 2 s of `first`, from which the reference stays where the
            filter got it after (speex's first lag; AEC3's when the echo came too soon)."""
            window = self.shifts[first : first + round(2 / 0.032)]
            changes = [n for n in range(1, len(window)) if window[n] != window[n - 1]]
            return first + (changes[-1] if changes else 0)

    recorded = Recorded(filter)
    return Recording(ring or ReferenceRing(), recorded)


SOUND_RMS = 0.003
"""A frame of the room's recording this loud holds the voice (-50 dBFS; the null sink is
otherwise digital silence)."""
DELAYS_S = (0.0, 0.04, 0.12, -0.1)
"""Echo after its stamps (the software room's 40 ms, a long path) and before (PulseAudio)."""


def software(voice: Any) -> dict[str, Any]:
    from assist.listen.echo_canceller import EchoCanceller
    from assist.listen.echo_filters import Aec3Filter, SpeexFilter
    from assist.mcp.demo.rooms.room import pitched
    from echo_mix import room_impulse

    line = voice.say(LINE)
    user = pitched(voice.say(USER), 0.93)
    rows = []
    for kind in (Aec3Filter, SpeexFilter):
        for delay_s in DELAYS_S:
            canceller = recording_canceller(kind())
            started = time.process_time()
            heard = mix(
                line, delay_s=delay_s, gain=1.0, impulse=room_impulse(), canceller=canceller
            )
            cpu = time.process_time() - started
            filtered = np.concatenate(canceller.filtered)
            first, voiced = 2 * 16_000, len(line) + max(round(delay_s * 16_000), 0)
            aligned = canceller.aligned_from(0) * 512
            after = slice(aligned, aligned + first)
            rows.append(
                {
                    "filter": kind.name,
                    "delay_ms": round(delay_s * 1000),
                    "lag_ms": None if canceller.lag is None else canceller.lag * 1000,
                    "erle_db_first_2_s": erle_db(heard.microphone[:first], filtered[:first]),
                    "aligned_from_s": aligned / 16_000,
                    "erle_db_2_s_from_aligned": erle_db(heard.microphone[after], filtered[after]),
                    "erle_db_steady": erle_db(
                        heard.microphone[first:voiced], filtered[first:voiced]
                    ),
                    "echo_onsets_gate_alone": len(loud_onsets(heard.microphone)),
                    "echo_onsets_cancelled": len(loud_onsets(heard.cancelled, heard)),
                    "trusted_after_s": heard.unsettled.index(False) * 0.032
                    if False in heard.unsettled
                    else None,
                    "cpu_s_per_audio_s": cpu / (len(heard.microphone) / 16_000),
                }
            )
    over = {}
    for kind in (Aec3Filter, SpeexFilter):
        delays = []
        for at in (1.5, 2.5, 4.0):
            canceller = EchoCanceller(ReferenceRing(), kind())
            heard = mix(
                line, delay_s=0.04, gain=1.0, user=user, user_at_s=at, impulse=room_impulse(),
                canceller=canceller,
            )  # fmt: skip
            onsets = [t for t in loud_onsets(heard.cancelled, heard) if t >= at]
            delays.append(round((onsets[0] - at) * 1000) if onsets else None)
        over[kind.name] = delays
    return {"rows": rows, "user_onset_ms": over}


class AudioRoom:
    """A private PulseAudio room (.ci/audio-room), stopped at the end."""

    def __init__(self) -> None:
        self.base = tempfile.mkdtemp(prefix="assist-bench-room-")
        made = subprocess.run(
            ["bash", str(ROOT / ".ci" / "audio-room")],
            capture_output=True,
            text=True,
            env={**os.environ, "ASSIST_AUDIO_ROOM": self.base},
            check=False,
        )
        if made.returncode:
            raise SystemExit(f"no PulseAudio room: {made.stderr.strip()}")
        self.env = {"XDG_RUNTIME_DIR": f"{self.base}/runtime", "HOME": f"{self.base}/home"}
        os.environ.update(self.env)  # for this process's own capture and playing

    def play(self, path: Path) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            ["paplay", "--device=room", str(path)],
            env={**os.environ, **self.env},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def close(self) -> None:
        subprocess.run(["pactl", "exit"], env={**os.environ, **self.env}, capture_output=True)
        shutil.rmtree(self.base, ignore_errors=True)


def write_wav(path: Path, samples: np.ndarray) -> None:
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(16_000)
        out.writeframes((np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes())


def through_pulseaudio(voice: Any, room: AudioRoom, lines: int = 4) -> dict[str, Any]:
    """The real player and capture in this process; the recording cancelled afterwards."""
    import soxr
    from assist.core.echo_reference import VARIABLE
    from assist.listen.devices import find_device
    from assist.listen.echo_filters import Aec3Filter, SpeexFilter
    from assist.listen.echo_ring import ReferenceSocket
    from assist.listen.sources import DeviceSource
    from assist.voice.piper.engine import load_voice
    from assist.voice.piper.voices import find_voice

    folder = tempfile.mkdtemp(prefix="ae-")
    path = Path(folder) / "ref.sock"
    os.environ[VARIABLE] = str(path)
    from assist.mcp.voice.player import open_speakers

    ring = Arrivals()
    reference = ReferenceSocket(path, ring)
    device = find_device(None, track="room", config=None)
    source = DeviceSource(device.index, device.rate, device.name, "room")
    stop = threading.Event()
    captured: list[np.ndarray] = []
    capture = threading.Thread(target=lambda: captured.extend(source.blocks(stop)))
    capture.start()
    piper = load_voice(find_voice(None, None))
    audio = np.concatenate(
        [np.asarray(c.audio_float_array, np.float32) for c in piper.synthesize(LINE)]
    )
    player = open_speakers(piper.config.sample_rate)
    time.sleep(1.0)
    for _ in range(lines):
        player.begin()
        player.play(audio)
        player.wait()
        time.sleep(1.0)
    stop.set()
    capture.join()
    player.close()
    reference.close()
    del os.environ[VARIABLE]
    shutil.rmtree(folder, ignore_errors=True)
    raw = np.concatenate(captured).astype(np.float32) / 32768
    microphone = soxr.resample(raw, source.rate, 16_000) if source.rate != 16_000 else raw
    start = source.clock.at(0.0) if source.clock is not None else None
    assert start is not None
    user = voice.say(USER)
    return {
        "lines": lines,
        "timelines": len({timeline for *_, timeline in ring.blocks}),
        "filters": [
            cancelled_afterwards(kind, ring.blocks, microphone, start)
            | {"user_onset_ms": user_over_the_room(kind, ring.blocks, microphone, start, user)}
            for kind in (Aec3Filter, SpeexFilter)
        ],
    }


class Arrivals(ReferenceRing):
    """The reference as it came over the socket, each block with when it arrived."""

    def __init__(self) -> None:
        super().__init__(seconds=60)
        self.blocks: list[tuple[float, float, np.ndarray, int]] = []

    def add(self, sounds_at: float, samples: np.ndarray, timeline: int = 0) -> None:
        self.blocks.append((time.monotonic(), sounds_at, samples, timeline))
        super().add(sounds_at, samples, timeline)


class Replayed(ReferenceRing):
    """A ring fed again block by block, never waited on: what it holds is what had arrived."""

    def wait_for(self, until: float, within: float) -> bool:
        return self.last_end is not None and self.last_end >= until


def replayed(canceller: Any, blocks: list[Any], microphone: np.ndarray, start: float) -> Any:
    """A recording of the room through `canceller`, frame by frame; each frame sees the
    reference that had arrived by the end of its longest wait, so a new timeline (the player's
    stream ran dry) comes when it came. The frames out, and what the canceller made of each."""
    from assist.listen.echo_canceller import WAIT_S
    from echo_mix import Mix

    out, settled, playing, onset_needs = [], [], [], []
    arrived = 0
    for number in range(len(microphone) // 512):
        frame = microphone[number * 512 : (number + 1) * 512]
        at = start + number * 0.032
        while arrived < len(blocks) and blocks[arrived][0] <= at + 0.032 + WAIT_S:
            canceller.ring.add(*blocks[arrived][1:])
            arrived += 1
        out.append(canceller.cancel(frame, at))
        settled.append(canceller.settled)
        playing.append(canceller.playing)
        onset_needs.append(canceller.onset_needs)
    unsettled = [p and not s for p, s in zip(playing, settled, strict=True)]
    heard = Mix(microphone[: len(out) * 512], np.concatenate(out), unsettled, onset_needs)
    return heard, settled, playing


def cancelled_afterwards(kind: Any, blocks: list[Any], microphone: np.ndarray, start: float) -> Any:
    """One filter's ERLE on a recording of the room, timed from the voice's first frame."""
    canceller = recording_canceller(kind(), Replayed(seconds=60))
    begun = time.process_time()
    heard, settled, playing = replayed(canceller, blocks, microphone, start)
    cpu = time.process_time() - begun
    cancelled, filtered = heard.cancelled, np.concatenate(canceller.filtered)
    mic = microphone[: len(cancelled)]
    echo = np.sqrt(np.mean(np.square(mic.reshape(-1, 512)), axis=1)) > SOUND_RMS
    first = int(np.argmax(echo))  # the room's only sound is the voice
    playing = list(np.array(playing) & echo)
    first_2_s, from_aligned = np.zeros(len(playing), bool), np.zeros(len(playing), bool)
    first_2_s[first : first + round(2 / 0.032)] = True
    aligned = canceller.aligned_from(first)
    from_aligned[aligned : aligned + round(2 / 0.032)] = True
    steady = np.array(playing) & ~first_2_s
    voiced = [
        np.repeat(part & np.array(playing), 512) for part in (first_2_s, steady, from_aligned)
    ]
    levels = np.sqrt(np.mean(np.square(cancelled.reshape(-1, 512)), axis=1))
    return {
        "filter": kind.name,
        "lag_ms": None if canceller.lag is None else canceller.lag * 1000,
        "erle_db_first_2_s": erle_db(mic[voiced[0]], filtered[voiced[0]]),
        "erle_db_steady": erle_db(mic[voiced[1]], filtered[voiced[1]]),
        "aligned_from_s": (aligned - first) * 0.032,
        "erle_db_2_s_from_aligned": erle_db(mic[voiced[2]], filtered[voiced[2]]),
        "trusted_after_s": (settled.index(True) - first) * 0.032 if True in settled else None,
        "peak_echo_rms": float(np.sqrt(np.mean(np.square(mic.reshape(-1, 512)), axis=1)).max()),
        "peak_residual_rms_trusted": float(levels[np.array(settled)].max())
        if True in settled
        else None,
        "cpu_s_per_audio_s": cpu / (len(cancelled) / 16_000),
        "echo_onsets": len(loud_onsets(heard.cancelled, heard)),
    }


USER_INTO_S = (0.5, 1.5, 2.5)
"""Where the user starts talking over the second line, in its recording."""


def user_over_the_room(
    kind: Any, blocks: list[Any], microphone: np.ndarray, start: float, user: np.ndarray
) -> list[float | None]:
    """Milliseconds from the user's first sound to the first loud onset, the user (the same
    voice, as `interruptions` plays it) added into the recording USER_INTO_S into its second
    line; None where no onset came while they spoke."""
    from assist.listen.echo_canceller import EchoCanceller

    levels = np.sqrt(
        np.mean(np.square(microphone[: len(microphone) // 512 * 512].reshape(-1, 512)), 1)
    )
    voiced = np.flatnonzero(levels > 0.01)
    second = next(b for a, b in itertools.pairwise(voiced) if b - a > 20) * 512
    delays = []
    for into in USER_INTO_S:
        at = second + round(into * 16_000)
        mixed = microphone.copy()
        mixed[at : at + len(user)] += user[: len(mixed) - at]
        heard, _, _ = replayed(EchoCanceller(Replayed(seconds=60), kind()), blocks, mixed, start)
        spoken = (at / 16_000, (at + len(user)) / 16_000)
        onsets = [t for t in loud_onsets(heard.cancelled, heard) if spoken[0] <= t <= spoken[1]]
        delays.append(round((onsets[0] - spoken[0]) * 1000) if onsets else None)
    return delays


def talk(root: Path, room: AudioRoom, *, cancel: bool) -> Conversation:
    """A conversation through the room: a real server, Piper playing, the real listener."""
    settings = {
        "assistant": {"enabled": True},
        "voice": {"engine": "piper"},
        "conversation": {"fillers": False},
    }
    env = dict(room.env)
    if not cancel:  # the helper never learns the socket: the listener has no reference
        helper = Path(sys.executable).parent / "assist-voice"
        env["ASSIST_VOICE_COMMAND"] = f"env -u ASSIST_ECHO_REFERENCE {helper}"
    return Conversation(root, settings, env, ("mcp", "--save-audio", str(root / "replies")))


def learn_room(conversation: Conversation) -> None:
    """Two replies first: the canceller learns the room on them before any trial."""
    for _ in range(2):
        time.sleep(PAUSE_S)
        conversation.tool("speak", {"text": REPLIES[0]})


def false_barge_ins(room: AudioRoom, replies: int, *, cancel: bool) -> dict[str, Any]:
    cut: list[float] = []
    paused = 0
    with tempfile.TemporaryDirectory() as folder:
        conversation = talk(Path(folder), room, cancel=cancel)
        try:
            for number in range(replies):
                time.sleep(PAUSE_S)
                spoke = conversation.tool("speak", {"text": REPLIES[number % len(REPLIES)]})
                if spoke.get("cut_off"):
                    cut.append(spoke["audio_s"])
                paused += spoke.get("paused_ms") is not None
        finally:
            conversation.close()
    return {"replies": replies, "cut": len(cut), "cut_at_s": cut, "paused": paused}


class WatchedMeeting:
    """A meeting recorded by a separate `assist listen` on the room's input, watched by a real
    server whose Piper voice plays into the room (16.3); `routed` False takes `reference.sock`
    away before the watch, so the voice reaches no canceller (as before the route, or for a
    second watcher)."""

    def __init__(self, root: Path, room: AudioRoom, *, routed: bool) -> None:
        config = root / "config" / "config.json"
        config.parent.mkdir(parents=True)
        assistant = {"enabled": True, "cooldown_s": 0, "max_per_meeting": 100}
        settings = {"assistant": assistant, "voice": {"engine": "piper"}}
        config.write_text(json.dumps(settings))
        sessions = root / "sessions"
        sessions.mkdir()
        env = {
            **os.environ,
            "ASSIST_CONFIG": str(config),
            "ASSIST_HOME": str(sessions),
            "ASSIST_VOICE_CACHE": str(root / "cache"),
            **room.env,
        }
        self.listener = subprocess.Popen(
            [str(ASSIST), "listen", "--into", str(sessions), "--quiet"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        assert self.listener.stdout is not None
        self.folder = Path(self.listener.stdout.readline().decode().split(" in ", 1)[1].strip())
        if not routed:
            (self.folder / "reference.sock").unlink()
        try:
            self.client = Client([str(ASSIST), "mcp", "--save-audio", str(root / "said")], env)
            self.client.initialize()
            self.notice = self.tool("watch_meeting", {})["notice_spoken"]
        except BaseException:
            self.listener.kill()
            raise

    def tool(self, name: str, arguments: dict[str, Any]) -> Any:
        return self.client.tool(name, arguments)

    def close(self) -> list[str]:
        """Stop watching and recording; the lines the recorder wrote."""
        self.tool("stop_watching", {})
        assert self.client.process.stdin is not None
        self.client.process.stdin.close()
        self.client.process.wait(timeout=60)
        time.sleep(1.0)  # the last echo's turn ends
        self.listener.send_signal(2)
        self.listener.wait(timeout=120)
        raw = (self.folder / "raw.jsonl").read_text().splitlines()
        return [json.loads(line)["text"] for line in raw]


def meeting_echo(room: AudioRoom, replies: int, *, routed: bool) -> dict[str, Any]:
    """Everything the recorder writes is the assistant's own voice: nobody else speaks."""
    cut = 0
    with tempfile.TemporaryDirectory() as folder:
        meeting = WatchedMeeting(Path(folder), room, routed=routed)
        spoken = [meeting.notice]
        try:
            for number in range(replies):
                time.sleep(PAUSE_S)
                reply = REPLIES[number % len(REPLIES)]
                spoke = meeting.tool("speak", {"text": reply})
                spoken.append(reply)
                cut += bool(spoke.get("cut_off"))
        finally:
            heard = meeting.close()
    words = sum(len(text.split()) for text in spoken)
    return {
        "routed": routed,
        "lines_spoken": len(spoken),
        "words_spoken": words,
        "cut": cut,
        "own_lines": len(heard),
        "own_words": sum(len(text.split()) for text in heard),
        "heard": heard,
    }


def onset_to_silent(recording: np.ndarray, user: np.ndarray) -> float | None:
    """Seconds from the user's first sound to the assistant's last, in one recording of the
    room: the user's speech is found by cross-correlation with what was played and taken out
    (the null sink mixes linearly), and what is left is the assistant's voice."""
    size = 1 << int(np.ceil(np.log2(len(recording) + len(user))))
    scores = np.fft.irfft(np.fft.rfft(recording, size) * np.conj(np.fft.rfft(user, size)), size)
    at = int(np.argmax(scores[: len(recording)]))
    gain = scores[at] / float(np.sum(np.square(user)))
    voice = recording.copy()
    voice[at : at + len(user)] -= gain * user[: len(voice) - at]
    onset = at + int(np.argmax(np.abs(user) > 0.01))
    frames = np.sqrt(np.mean(np.square(voice[: len(voice) // 160 * 160].reshape(-1, 160)), 1))
    sounding = np.flatnonzero(frames > 0.01)  # 10 ms frames of the assistant, -40 dBFS
    if not len(sounding):
        return None
    return ((sounding[-1] + 1) * 160 - onset) / 16_000


def interruptions(room: AudioRoom, wav: Path, user: np.ndarray, trials: int) -> dict[str, Any]:
    stop_ms: list[float] = []
    silent_ms: list[float] = []
    missed = 0
    with tempfile.TemporaryDirectory() as folder:
        conversation = talk(Path(folder), room, cancel=True)
        try:
            learn_room(conversation)
            for number in range(trials):
                time.sleep(PAUSE_S)
                recorded = Path(folder) / f"room-{number}.raw"
                recorder = subprocess.Popen(
                    ["parec", "--device=room.monitor", "--rate=16000", "--channels=1",
                     "--format=s16le", "--raw", str(recorded)],
                    env={**os.environ, **room.env},
                )  # fmt: skip
                result: dict[str, Any] = {}
                speaking = threading.Thread(
                    target=lambda r=result: r.update(
                        conversation.tool("speak", {"text": LONG_LINE})
                    )
                )
                speaking.start()
                time.sleep(2.5)
                launched = time.time()
                player = room.play(wav)
                speaking.join()
                player.wait()
                time.sleep(0.5)
                recorder.terminate()
                recorder.wait()
                if result.get("interrupted"):
                    cut = [e for e in conversation.events() if e["event"] == "barge_in"][-1]
                    stopped = datetime.fromisoformat(cut["at"]).timestamp()
                    stop_ms.append((stopped - launched) * 1000)
                    audio = np.fromfile(recorded, dtype="<i2").astype(np.float32) / 32768
                    silent = onset_to_silent(audio, user)
                    if silent is not None:
                        silent_ms.append(silent * 1000)
                else:
                    missed += 1
                time.sleep(2.0)  # the interruption's turn ends before the next line
                conversation.tool("wait_for_transcript", {"timeout_s": 1})
        finally:
            conversation.close()
    return {
        "trials": trials,
        "missed": missed,
        "paplay_launch_to_stop_sent_ms": stop_ms,
        "onset_to_silent_ms": silent_ms,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--replies", type=int, default=50)
    parser.add_argument("--interruptions", type=int, default=10)
    parser.add_argument("--meetings", type=int, default=20, help="replies per meeting run")
    parser.add_argument(
        "--only", choices=("software", "pulseaudio", "room", "interruption", "meeting")
    )
    args = parser.parse_args()
    from assist.mcp.demo.rooms.voiced import Voice

    voice = Voice()
    results: dict[str, Any] = {
        "date": datetime.now().astimezone().isoformat(timespec="seconds"),
        "load_before": os.getloadavg(),
    }
    if args.only in (None, "software"):
        results["software"] = software(voice)
    if args.only != "software":
        room = AudioRoom()
        try:
            if args.only in (None, "meeting"):
                for routed in (True, False):
                    key = "meeting_routed" if routed else "meeting_unrouted"
                    results[key] = meeting_echo(room, args.meetings, routed=routed)
            if args.only not in ("interruption", "meeting"):
                results["pulseaudio"] = through_pulseaudio(voice, room)
            if args.only in (None, "room"):
                results["aec_and_gate"] = false_barge_ins(room, args.replies, cancel=True)
                gate_alone = max(10, args.replies // 5)
                results["gate_alone"] = false_barge_ins(room, gate_alone, cancel=False)
            if args.only not in ("pulseaudio", "meeting"):
                wav = Path(room.base) / "interruption.wav"
                user = voice.say(USER)
                write_wav(wav, user)
                results["interruption"] = interruptions(room, wav, user, args.interruptions)
        finally:
            room.close()
    voice.close()
    results["load_after"] = os.getloadavg()
    saved = HERE / "echo.json"
    kept = json.loads(saved.read_text()) if saved.exists() and args.only else {}
    (HERE / "echo.json").write_text(json.dumps(kept | results, indent=2) + "\n")
    print(table(results))


def shown(value: float | None, spec: str = ".1f") -> str:
    """A figure, or "none" where there was none (no lag found, never trusted)."""
    return "none" if value is None else format(value, spec)


def table(results: dict[str, Any]) -> str:
    rows = ["| What | Ours | Goal |", "| --- | --- | --- |"]
    for row in results.get("software", {}).get("rows", []):
        rows.append(
            f"| {row['filter']}: ERLE first 2 s / steady, Piper at 0 dB through a 50 ms room, "
            f"echo {row['delay_ms']} ms after its stamps (software) | "
            f"{row['erle_db_first_2_s']:.1f} / {row['erle_db_steady']:.1f} dB; 2 s from the "
            f"reference's place at {row['aligned_from_s']:.2f} s: "
            f"{row['erle_db_2_s_from_aligned']:.1f} dB; "
            f"trusted from {shown(row['trusted_after_s'], '.2f')} s; echo's "
            f"loud onsets {row['echo_onsets_gate_alone']} → {row['echo_onsets_cancelled']}; "
            f"CPU {row['cpu_s_per_audio_s'] * 1000:.1f} ms/s | ≥ 20 / ≥ 25 dB |"
        )
    for name, delays in results.get("software", {}).get("user_onset_ms", {}).items():
        rows.append(
            f"| {name}: a user over the echo 1.5 / 2.5 / 4.0 s into the line (software): their "
            f"first sound → a loud onset | {' / '.join(shown(d, 'd') for d in delays)} ms | "
            "the first word |"
        )
    pulse = results.get("pulseaudio")
    for row in pulse["filters"] if pulse else []:
        rows.append(
            f"| {row['filter']}: ERLE first 2 s / steady through PulseAudio ({pulse['lines']} "
            f"lines, {pulse['timelines']} timelines, lag {shown(row['lag_ms'])} ms) | "
            f"{row['erle_db_first_2_s']:.1f} / "
            f"{row['erle_db_steady']:.1f} dB; 2 s from the reference's place at "
            f"{row['aligned_from_s']:.2f} s: {row['erle_db_2_s_from_aligned']:.1f} dB; "
            f"trusted {shown(row['trusted_after_s'], '.2f')} s into the voice; "
            f"peak residual {shown(row['peak_residual_rms_trusted'], '.3f')} of "
            f"{row['peak_echo_rms']:.3f}; "
            f"CPU {row['cpu_s_per_audio_s'] * 1000:.1f} ms/s | ≥ 20 / ≥ 25 dB |"
        )
        rows.append(
            f"| {row['filter']}: the echo's own loud onsets; a user added "
            f"{' / '.join(str(s) for s in USER_INTO_S)} s into the second line: their first "
            f"sound → a loud onset | {row['echo_onsets']}; "
            f"{' / '.join(shown(d, 'd') for d in row['user_onset_ms'])} ms | 0; the first word |"
        )
    for key, name in (("aec_and_gate", "canceller + gate"), ("gate_alone", "gate alone")):
        if key in results:
            r = results[key]
            rows.append(
                f"| False barge-ins at 0 dB, {name}: cut (paused by its own voice) | "
                f"{r['cut']} ({r.get('paused', '?')}) of {r['replies']} | 0 |"
            )
    for key, name in (("meeting_routed", "with the route"), ("meeting_unrouted", "without it")):
        if key in results:
            r = results[key]
            rows.append(
                f"| A meeting recorded by `assist listen`, the watching server's voice at 0 dB, "
                f"{name}: its own lines / words in raw.jsonl; lines cut by its own voice | "
                f"{r['own_lines']} of {r['lines_spoken']} / {r['own_words']} of "
                f"{r['words_spoken']}; {r['cut']} of {r['lines_spoken'] - 1} | 0; 0 |"
            )
    if "interruption" in results:
        r = results["interruption"]
        cut = r["trials"] - r["missed"]
        rows.append(f"| A real interruption cut (canceller on) | {cut} of {r['trials']} | all |")
        for key, name in (
            ("onset_to_silent_ms", "The user's first sound → the line silent, in the room"),
            ("paplay_launch_to_stop_sent_ms", "paplay launched → `stop` sent"),
        ):
            ms = r[key]
            if ms:
                rows.append(
                    f"| {name}, p50 / p95 ({len(ms)}) | "
                    f"{percentile(ms, 0.5):.0f} / {percentile(ms, 0.95):.0f} ms | p95 ≤ 200 ms |"
                )
    before, after = results["load_before"][0], results["load_after"][0]
    rows.append(f"| Load average before / after | {before:.1f} / {after:.1f} | |")
    return "\n".join(rows)


if __name__ == "__main__":
    main()
