"""What `assist listen --events` tells a supervising server as it happens (behaviour.md 13, 14.2).

A conversation's server needs three signals from its listener with no polling delay: the user
began to speak (no filler then, and the idle ceiling waits), the user stopped, and a *loud*
speech onset, the one that may cut off the assistant's line (barge-in). Each is one NDJSON line
on stdout, flushed at once, after the `session` line:

    {"event":"speech_started","track":"room","ms":1234}
    {"event":"speech_stopped","track":"room","ms":2345}
    {"event":"loud","track":"room","ms":1240,"level":0.12}

With a turn model (16.1) each short pause also gives its verdict: `ms` where the pause began,
what the model said, and how long it took (over 150 ms it counted as incomplete):

    {"event":"turn_verdict","track":"room","ms":2300,"complete":true,"took_ms":64}

A complete verdict ends the turn only once the words recognised up to the pause are in and
do not stop mid-phrase (on "the", "to", "is" ...); they are told too, for the same pause:

    {"event":"turn_words","track":"room","ms":2300,"ends":false}

A loud onset may pause the assistant's line, and only words heard within the server's hold
stop it (16.3), long before the turn ends and its line is written. So the speech from each loud
onset is recognised while it goes on (`HEARD_AFTER_MS` in, up to three looks: `Looks`) and its
text sent, `ms` where the speech recognised ends, `onset_ms` the onset it follows, and the
recogniser's confidence; a text it is less sure of than `HEARD_CONFIDENCE` is sent as "",
nothing heard:

    {"event":"heard","track":"room","ms":1624,"onset_ms":1240,"text":"Wait.","confidence":0.65}

The same lines go, as datagrams, to the socket that `signals.sock` in the session folder links
to, when a server watching the meeting has made it (barge-in in a meeting, 14.2; the socket
itself lives in a short folder, as a deep session folder could not hold it). `ms` is on the
capture clock (from the session's start).

The loud onset is found apart from the turn segmenter: while the assistant's own voice comes
back through the microphone the segmenter is already inside a turn (the echo), so a person
talking over it starts no new turn. A loud onset is a run of speech frames as long as the
segmenter's onset rule (96 ms) that are also at or above the echo gate's level (AGENT-A's RMS
0.05; while AEC3's output is used, the canceller asks for its own, `OnsetNeeds`: a lower
probability and level, a run of two whose first frame need only be loud, and any
frame at the barge-in gate's level counted as speech whatever its probability);
the next one is found only once the level has stayed below the gate for REARM_MS.
"""

from __future__ import annotations

import json
import math
import os
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import attrs
from assist.core.conversation import BARGE_IN_LEVEL
from assist.core.turns import TurnRules

REARM_MS = 256
"""Quiet (below the gate) that ends one loud run, so the next loud onset is a new one."""
HEARD_AFTER_MS = (384, 704, 1024)
"""When the speech since a loud onset is recognised for `heard`: at 384 ms a backchannel or
the first word ("Wait") is said, and whisper tiny.en takes about half a second on two busy
cores, so its text reaches the server well within the 1200 ms hold; the second look hears
the words after a first "Yeah," and still lands about when the hold ends; the third hears
them when the "Yeah," was slow or the onset late (through the canceller, a frame or two into
the word): "Yeah, but what about Friday?" was heard as "Yeah." by both looks before, and the
line resumed. Its words, said within the hold, stop the line even when they come after it."""
HEARD_CONFIDENCE = math.exp(-1)
"""Below this (0.37) a peek's text is no words heard: whisper's own mark of a failed decoding
(its `log_prob_threshold`, -1 in mean log probability). On a fraction of a second cut from a
cough, whisper tiny.en makes up "Thank you.", "Okay." or "So." at 0.17-0.36; a user's "wait"
over the assistant's echo in `assist demo --talk` came at 0.37-0.51, the first words of
interruptions heard clear ("Wait.", "No.", "Sorry.", "Hold on.") at 0.58-0.93, so no floor
parts Piper's spelled-out "Mm-hm", heard untold as "and then make it." at 0.43-0.59, from
them: the peek's prompt does (told the backchannels, whisper hears "Mm-hm."). Words said
within the hold whose look comes back after it still stop the line (16.3)."""
HEARD_PRE_ROLL_MS = 96
"""Audio before the onset given with it: the onset is where the loud run was confirmed to
start, and the recogniser needs the word's very beginning."""


LOOK_AGAIN_LEVEL = 0.02
"""A frame this loud since a look may hold words it did not hear. Through the PulseAudio room
(two echo sets, 60 paused sounds, after AEC3) the frames after a cough's first look reached
0.004 to 0.010 and then none; an interruption's words going on, 0.034 to 0.32."""


def heard_text(text: str, confidence: float) -> str:
    """What a look heard, as sent: its text, or "" (nothing heard) under `HEARD_CONFIDENCE`."""
    return text if confidence >= HEARD_CONFIDENCE else ""


@attrs.define
class Looks:
    """When the speech since a loud onset is looked at (recognised for `heard`):
    `HEARD_AFTER_MS` after it, each later look only when it may hear something new. A look
    that heard the sound (words, a backchannel, or a note: "(coughs)"), after which no frame
    was loud, would hear the same sound again with quiet after it, and of that whisper tiny.en
    makes words: through the PulseAudio room a cough written "(coughs)" at its first look was
    "Alright." or "Right." at the next, and stopped the line. So a look is left out when no
    frame since the end of a look of the same onset that came back having heard something
    (a text as sent, not "") was loud (`LOOK_AGAIN_LEVEL`). On a busy machine a look takes
    longer than the 320 ms between two, so one due while the look before is not back is
    handed over all the same, and decided again when the recogniser comes to it (`wanted`),
    by then knowing what that look heard."""

    frame_ms: int
    _due: list[int] = attrs.field(factory=list, init=False)
    """The frames at which the looks still to come are due."""
    _taken: int = attrs.field(default=0, init=False)
    """How many looks were handed over, so far in the session: each look's number."""
    _looks: dict[int, tuple[int, int]] = attrs.field(factory=dict, init=False)
    """Each look of this onset: the frames it holds, and the last loud frame among them."""
    _last_loud: int = attrs.field(default=-1, init=False)
    """The last loud frame fed (the onset's first frame, at least)."""
    _heard_upto: int = attrs.field(default=0, init=False)
    """The frames a look of this onset holds that came back having heard something."""

    @property
    def to_come(self) -> bool:
        """Whether the looks of an onset are still to come."""
        return bool(self._due)

    def start(self, onset: int) -> None:
        """A loud onset at frame `onset`: its looks are due `HEARD_AFTER_MS` after it; what
        the looks of an onset before heard counts no more."""
        self._due = [onset + -(-after // self.frame_ms) for after in HEARD_AFTER_MS]
        self._looks = {}
        self._last_loud = max(self._last_loud, onset)
        self._heard_upto = 0

    def feed(self, frames: int, level: float) -> int | None:
        """`frames` frames are in, the last of them at `level`: the number of the look to hand
        over now, or None (none is due, or the one due is left out)."""
        if level >= LOOK_AGAIN_LEVEL:
            self._last_loud = frames - 1
        if not self._due or frames < self._due[0]:
            return None
        self._due.pop(0)
        if self._last_loud < self._heard_upto:
            return None
        self._taken += 1
        self._looks[self._taken] = (frames, self._last_loud)
        return self._taken

    def wanted(self, look: int) -> bool:
        """Whether look number `look` is still wanted when the recogniser comes to it: not
        when a look of its onset has come back having heard every loud frame it holds."""
        taken = self._looks.get(look)
        return taken is None or taken[1] >= self._heard_upto

    def heard(self, look: int, text: str) -> None:
        """Look number `look` came back with `text` as sent ("" for nothing heard): called on
        the recogniser's thread; a look of an onset before counts no more."""
        taken = self._looks.get(look)
        if text and taken is not None:
            self._heard_upto = max(self._heard_upto, taken[0])


@attrs.frozen
class OnsetNeeds:
    """What a loud onset needs in a frame, where the echo canceller's output calls for its own
    (`EchoCanceller.onset_needs`); None is the turn rules' speech probability and run of
    frames, and the barge-in gate's level."""

    prob: float | None = None
    level: float | None = None
    frames: int | None = None
    lead_prob: float | None = None
    """The probability the run's first frame needs (None: the same as the rest)."""
    sure_level: float | None = None
    """A frame this loud counts as the run's speech whatever its probability (None: none
    does)."""


class LoudOnsets:
    """Loud speech onsets from (frame, probability, level): the first frame of each run."""

    def __init__(self, rules: TurnRules, level: float = BARGE_IN_LEVEL) -> None:
        self._rules = rules
        self._level = level
        self._run = 0
        self._quiet = 0
        self._armed = True
        self._led = False
        """Whether the run opened on a frame that only leads."""
        self._rearm_frames = -(-REARM_MS // rules.frame_ms)

    def feed(
        self,
        frame: int,
        probability: float,
        level: float,
        needs: OnsetNeeds = OnsetNeeds(),
    ) -> int | None:
        """One frame; the onset frame when a loud run has just been confirmed, the run and
        its frames as `needs` asks (a frame over `OnsetNeeds.sure_level` is speech whatever
        its probability). The onset is the run's first frame of speech: a loud frame before
        it that only leads (`OnsetNeeds.lead_prob`) counts towards the run but
        does not move the onset, so what is heard after it (`HEARD_AFTER_MS`) is the same."""
        needed = self._rules.start_prob if needs.prob is None else needs.prob
        lead = needed if needs.lead_prob is None else needs.lead_prob
        loud = self._level if needs.level is None else needs.level
        run = self._rules.start_frames if needs.frames is None else needs.frames
        sure = needs.sure_level is not None and level >= needs.sure_level
        speech = level >= loud and (probability >= needed or sure)
        if speech:
            self._run += 1
            self._quiet = 0
        elif probability >= lead and level >= loud:
            self._run, self._led = 1, True  # a run may open on it, not go on through it
            self._quiet = 0
        else:
            self._run = 0
            self._quiet += 1
            if self._quiet >= self._rearm_frames:
                self._armed = True
        if self._run == 1 and speech:
            self._led = False
        if self._armed and speech and self._run >= run:
            self._armed = False
            return frame + 1 - self._run + self._led
        return None


class Signals:
    """Writes the events to `out` (stdout with `--events`), one whole line at a time from any
    thread, and sends each as a datagram to the socket `link` names whenever a watching server
    has made it (14.2: barge-in in a meeting this listener records). A send that finds nobody
    costs a failed system call, and never waits: a lost signal is better than a stalled
    capture. Any other failure is said once through `warn`."""

    def __init__(
        self,
        out: TextIO | None = None,
        link: Path | None = None,
        warn: Callable[[str], None] | None = None,
    ) -> None:
        self._out = out
        self._lock = threading.Lock()
        self._link = link
        self._warn = warn
        self._socket: socket.socket | None = None
        if link is not None:
            self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            self._socket.setblocking(False)

    def started(self, track: str, ms: int) -> None:
        self._write({"event": "speech_started", "track": track, "ms": ms})

    def stopped(self, track: str, ms: int) -> None:
        self._write({"event": "speech_stopped", "track": track, "ms": ms})

    def loud(self, track: str, ms: int, level: float) -> None:
        self._write({"event": "loud", "track": track, "ms": ms, "level": round(level, 4)})

    def heard(self, track: str, ms: int, onset_ms: int, text: str, confidence: float) -> None:
        said = heard_text(text, confidence)
        event = {"event": "heard", "track": track, "ms": ms, "onset_ms": onset_ms, "text": said}
        self._write({**event, "confidence": round(confidence, 3)})

    @property
    def wanted(self) -> bool:
        """Whether anyone reads the signals now: a supervising server on `out`, or a watching
        server whose socket the link names (what is costly to send, `heard`, waits on this)."""
        return self._out is not None or (self._link is not None and os.path.exists(self._link))

    def verdict(self, track: str, ms: int, complete: bool, took_ms: float) -> None:
        event = {"event": "turn_verdict", "track": track, "ms": ms, "complete": complete}
        self._write({**event, "took_ms": round(took_ms)})

    def words(self, track: str, ms: int, ends: bool) -> None:
        self._write({"event": "turn_words", "track": track, "ms": ms, "ends": ends})

    def _write(self, event: dict[str, Any]) -> None:
        line = json.dumps(event, separators=(",", ":")) + "\n"
        with self._lock:
            self._send(line.encode())
            if self._out is not None:
                try:
                    self._out.write(line)
                    self._out.flush()
                except (OSError, ValueError):
                    pass  # the server is gone; the session itself goes on

    def _send(self, data: bytes) -> None:
        if self._socket is None or self._link is None:
            return
        try:
            self._socket.sendto(data, os.readlink(self._link))
        except (FileNotFoundError, ConnectionRefusedError, BlockingIOError):
            pass  # no server watching, one that died, or one too busy to read
        except OSError as error:
            if self._warn is not None:
                self._warn(
                    f"barge-in signals cannot reach the watching server through {self._link} "
                    f"({error}); the recording goes on without them"
                )
            self._warn = None
