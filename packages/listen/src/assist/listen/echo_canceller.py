"""Echo cancellation with the played audio as the reference (behaviour 14.2, 16.3).

The assistant's own voice comes back through the microphone, at 0 dB on a laptop with its
speakers close to the microphone: louder than the barge-in gate, so on its own the gate would
let the assistant cut itself off. While the voice helper plays, each 32 ms capture frame goes
through an adaptive filter (`echo_filters`: WebRTC's AEC3, or speexdsp when it cannot load)
with the reference over the same span of time (`echo_ring`), shifted by the lag found between
the two (`echo_delay`: the stamps are bounds, the sound never before its reference's stamp nor
a capture frame after its own, so the echo comes some 4-40 ms after its reference, more than
speex's filter spans) and taken LEAD_S ahead, so an echo that arrives a little sooner still
lies inside the filter. The lag is found from the first half second of the voice heard, and
checked again on every further second while it plays (a restarted helper opens a new output
stream, with latencies of its own); when the helper's device ran dry and started again (a new
timeline), it is looked for afresh. Speex waits for the lag, its frames passing untouched, and
follows it to the sample. AEC3 cancels from the first frame with the stamps as they are (or
the last lag found), and a lag found is taken out only when the echo would come before its
reference (AEC3 cannot take out such an echo: stamps that put it there are wrong) or further
after it than AEC3 follows by itself. Where the echo moved, by a new timeline or a lag that
jumped, the filter starts afresh (`Filter.relearn`).

Speex's preprocessor (residual echo suppression) stays off: it took the user's own loud
frames apart while the voice played, and the user talking over the line is what barge-in is
for. AEC3 runs without noise suppression or gain control; its own echo suppressor cannot be
switched off, and the user's words over the line still come through at most of their level.
The cancelled frame is what the VAD, the loud-onset gate, the turn segmenter and the
recogniser get. When nothing has played for a while, frames pass untouched: the path is then
exactly the one without a reference.

What the filter leaves of the voice, some 25-35 dB down, whisper still writes down ("budget
plan."), and a residue that joins the user's words makes one turn the echo test cannot place
(seen in the PulseAudio room and in `assist demo --talk`). So once the filter is trusted, a
cancelled frame quieter than RESIDUAL_GATE while the voice plays is taken for that residue
and replaced by a quiet room's noise (COMFORT_RMS), AGENT-A's echo gate applied after the
canceller rather than before it: the user talking over the line is far louder and passes.

Until the filter is trusted its output is not used at all: a half-learnt filter leaves the
voice garbled ("As late as me." for "It is late in the evening"), which the word-based echo
test (6.2) cannot place, so the voice reaches the agent as the user's; the whole voice, as
heard, is what that test knows. It learns all the same.

One canceller lives as long as the listener, so the filter it learnt on one line holds for
the next. Until the filter has shown it takes the voice out (SETTLED_DB over its `settle_s`
of played sound, once the lag is known), the voice comes through, so until then a loud onset
while the voice plays is not taken for the user's: with speex that made the first 2-4 s of a
conversation uninterruptible, with AEC3 it is under a second (FIRST_LAG_S, then a quarter
second). The lag must be known first because a quiet output proves nothing before: AEC3
handed a reference later than its echo made everything 40 dB quieter for half a second, then
let the echo through. Once shown, that holds until the lag jumps: while the user talks over
the line the cancellation looks poor, and that is when barge-in must work.
"""

from __future__ import annotations

import math

import numpy as np
from assist.core.echo_reference import RATE_HZ
from assist.listen.echo_delay import MAX_LAG_S, echo_lag
from assist.listen.echo_filters import Filter
from assist.listen.echo_ring import ReferenceRing
from assist.listen.onsets import OnsetNeeds

LEAD_S = 0.016
"""The reference is taken this much ahead of where the lag puts it, so an echo a little
sooner than the lag found (its error, a jitter of the stamps) is still inside the filter:
with it speex spans from 16 ms before the lag to 48 ms after it."""
FIRST_LAG_S = 0.5
"""Microphone audio, heard while the voice plays, that the first look for the lag correlates:
until the lag is known the filter is not trusted, and AEC3 settles a quarter second after."""
LAG_FROM_S = 1.0
"""Microphone audio that each further look correlates: the lag to the sample, for speex."""
LAG_NUDGE_S = 0.0005
"""A lag found this far or more from the one in use, beyond what the filter follows by
itself, replaces it (closer: jitter of the estimate, kept): through PulseAudio the lag held to
the sample while the timeline did, and a speex filter learnt at one lag cancelled 6 dB instead
of 30 once the echo had moved by 3.6 ms."""
LAG_JUMP_S = 0.001
"""A change of the lag this large from one look to the next means the filter's taps no longer
fit (a 3.6 ms move cost speex 24 dB; AEC3 has to find the delay again): it must show again
that it takes the voice out before a loud onset is trusted. A lag that drifts is followed
instead (the shift for speex, AEC3 by itself): in the software room it crept from 28.9 to 29.6
ms within a minute, and measured from where trust began, such a drift passed 1 ms every minute
or so, at a look a second into a line, where a person talking over it kept the filter from
showing anything, and until it did their words counted as the voice's: a whole "Sorry, can I
ask something?" was never heard (benchmarks/README.md)."""
WAIT_S = 0.15
"""Longest a frame waits for reference still to come: the helper hands the device its blocks
ahead of their time, but a starved writer thread can fall behind the capture. The wait comes
before deciding whether the voice plays: a line's first echo (through PulseAudio it then came
some 100 ms before its stamps) once reached the listener ahead of its reference, passed
uncancelled and cut its own line 0.6 s in (1 of 50 at load 1-2, 1 of 4 with both cores busy)."""
LIVE_S = 1.0
"""Reference that ended longer ago than this before a frame is not coming: the helper
stopped, so the frame does not wait."""
SETTLED_DB = 20.0
"""How much quieter the voice must come out over the filter's `settle_s` of played sound: at
0 dB a Piper line peaks at RMS 0.3-0.37, so 20 dB leaves it near 0.035, under the barge-in
gate's 0.05; in the PulseAudio room speex reached 24-36 dB within 2 s of speech
(benchmarks/echo.py)."""
SOUND_LEVEL = 0.003
"""A reference frame at or above this RMS (-50 dBFS) is sound the filter learns from."""
ECHO_FLOOR = 0.005
"""RMS (-46 dBFS) under which the voice, as heard or as the filter leaves it over a span, is no
echo to speak of: a quarter of RESIDUAL_GATE, near a quiet room's own noise (-55 dBFS in the
software rooms). An echo that quiet cannot come 20 dB down through the filter, the noise
floor being under it by less: at -20 dB in software AEC3 left only the room's noise (RMS
0.0015) of a voice heard at 0.004-0.011, 8-18 dB, and through headphones the microphone hears
none of the voice at all; held to SETTLED_DB alone, the filter was never trusted, and the user
could not be heard over the line (benchmarks/README.md)."""
RESIDUAL_GATE = 0.02
"""RMS (-34 dBFS) under which a cancelled frame, while the voice plays and the filter is
trusted, is the voice's residue: in the PulseAudio room the residue peaked at 0.006, in
software at 0.02 (Piper at 0 dB, 25 dB cancelled), while a user talking over the line reached
0.15-0.29 in 32 ms frames (benchmarks/echo.py)."""
COMFORT_RMS = 3e-4
"""What the residual gate leaves in place of the residue: noise at -70 dBFS, a quiet room's
own, not digital silence. Fed seconds of exact zeros over a line, Silero then heard a short
word as less than speech: "No," of "No, keep it." said half a second after a question scored
0.34-0.55, started no turn, and the answer came as "keep it" (3 of 10); after noise it scores
as after the room (benchmarks/README.md)."""
HOLD_S = 0.5
"""After the last reference block stops sounding, the voice counts as playing this long for
the echo's tail (the filter's span, the lead and the room's reverberation, a lag not yet
found), then frames pass."""
REVERB_S = 0.2
"""Once the lag is known, how long the echo of the voice's last sound rings on after it is
heard: from then to the end of HOLD_S the frames pass untouched. A living room's reverberation
falls some 60 dB in 0.3-0.5 s, so after 0.2 s the voice at 0 dB (RMS 0.3) has left less than
the residual gate. In that part of the tail the filter and the residual gate took the soft
start of a word said just after a line: the "No," of "No, keep it." said half a second after
a question, lost in 4 of 10 answers in the software room (confirm heard "keep it")."""


class EchoCanceller:
    """Frames (float32, 16 kHz) in, the same frames with the played audio taken out."""

    def __init__(self, ring: ReferenceRing, filter: Filter) -> None:
        self.ring = ring
        self.filter = filter
        self._learning = [0.0, 0.0, 0.0]  # seconds, energy in, energy out, of played sound
        self._settled = False
        self._filtering = False
        """Whether the last frame went through the filter (if not, the next one does not
        follow on from what the filter holds)."""
        self._heard: list[np.ndarray] = []
        self._heard_from = 0.0
        self._timeline = 0
        self._waited_in_vain = -math.inf
        """The end of the frame that last waited for its reference in vain: no frame waits
        again until the reference reaches it. A helper that died or hung sends nothing more,
        and one whose stamps run behind the capture clock sends blocks that never cover the
        frame; every frame waiting WAIT_S for them would put the listener seconds behind (and
        overflow its capture queue), or as far behind as the stamps, with barge-in as late."""
        self.lag: float | None = None
        """Seconds the echo comes after its stamps (negative: before), as last found; None
        until found on this timeline."""
        self._shift: float | None = None if filter.needs_lag else 0.0
        """The lag the reference is taken at: the lag found, unless the filter follows the
        echo that far by itself (then the one before: for AEC3 the stamps as they are, to
        begin with); None while a filter that needs the lag waits for it."""
        self.playing = False
        """Whether the last frame was heard while the voice (or its echo's tail) played."""
        self._comfort = np.random.default_rng(0)
        """The faint noise the residual gate leaves (COMFORT_RMS)."""

    @property
    def settled(self) -> bool:
        """Whether the filter has shown it takes the voice out, since the lag last changed."""
        return self._settled

    @property
    def onset_needs(self) -> OnsetNeeds:
        """What a loud onset needs in the last frame: while the filter's output is used, the
        filter's own speech probability and run (AEC3's suppressor leaves the user's words
        sounding less like speech, and gates its residue to a quiet room's noise), and where
        it lowers the user's words with the echo, the residual gate's level rather than the
        barge-in gate's: a frame that passed the residual gate is not the voice's residue,
        and at the barge-in gate's level a first word AEC3 lowered was often missed
        (`Aec3Filter.lowers_words`). Otherwise the turn rules' and the barge-in gate's."""
        if not (self.playing and self._settled):
            return OnsetNeeds()
        kind = self.filter
        level = RESIDUAL_GATE if kind.lowers_words else None
        return OnsetNeeds(
            kind.onset_prob, level, kind.onset_frames, kind.onset_lead_prob, kind.onset_sure_level
        )

    @property
    def informed(self) -> bool:
        """Whether a voice has sent what it plays: until then `playing` knows nothing (a
        voice that sends no reference, as the tests' stand-in, may be playing all the same)."""
        return self.ring.last_end is not None

    def active(self, at: float) -> bool:
        """Whether the voice sounded recently enough, at `at`, for its echo to be heard."""
        last = self.ring.last_sound
        return last is not None and at <= last + HOLD_S

    def cancel(self, frame: np.ndarray, at: float) -> np.ndarray:
        """`frame` (float32) whose first sample was captured at `at` (monotonic seconds)."""
        ahead = at - (self._shift or 0.0) + LEAD_S  # where its echo is in the reference
        until = ahead + len(frame) / RATE_HZ
        last = self.ring.last_end
        # sounded within LIVE_S, and past the frame that last waited in vain
        alive = last is not None and last >= max(ahead - LIVE_S, self._waited_in_vain)
        if alive and not self.ring.wait_for(until, WAIT_S):
            self._waited_in_vain = until
        self.playing = self.active(ahead)
        if not self.playing:
            self._heard, self._filtering = [], False
            return frame
        if self.ring.timeline != self._timeline:  # the stamps started afresh
            self._timeline, self._settled, self._heard = self.ring.timeline, False, []
            self.lag = None
            self.filter.relearn()
            if self.filter.needs_lag:
                self._shift = None
        self._look_for_lag(frame, at)
        if self._shift is None:
            return frame
        if self._rung_out(at):
            self._filtering = False
            return frame
        if not self._filtering:
            self.filter.restart()
            self._filtering = True
        microphone = np.round(np.clip(frame, -1.0, 1.0) * 32767).astype(np.int16)
        reference = self.ring.take(at - self._shift + LEAD_S, len(frame))
        cancelled = self.filter.cancel(microphone, reference).astype(np.float32) / 32767.0
        sounding = np.sqrt(np.mean(np.square(reference / 32768.0))) >= SOUND_LEVEL
        if not self._settled and sounding:
            self._learn(frame, cancelled)
        if not self._settled:
            return frame
        if np.sqrt(np.mean(np.square(cancelled))) < RESIDUAL_GATE:
            return (self._comfort.standard_normal(len(cancelled)) * COMFORT_RMS).astype(np.float32)
        return cancelled

    def _rung_out(self, at: float) -> bool:
        """Whether the voice's echo has died away by `at`: heard `lag` after its stamps, the
        last sound played has rung on for REVERB_S since."""
        last = self.ring.last_sound
        return self.lag is not None and last is not None and at > last + self.lag + REVERB_S

    def _learn(self, frame: np.ndarray, cancelled: np.ndarray) -> None:
        """Settle once the filter's `settle_s` of played sound, the lag known, came out
        SETTLED_DB quieter or under ECHO_FLOOR; or once the voice was heard under ECHO_FLOOR
        (headphones, a speaker far away), where no lag may ever be found and nothing of it
        needs taking out."""
        learning = self._learning
        learning[0] += len(frame) / RATE_HZ
        learning[1] += float(np.sum(np.square(frame, dtype=np.float64)))
        learning[2] += float(np.sum(np.square(cancelled, dtype=np.float64)))
        if learning[0] >= self.filter.settle_s:
            floor = ECHO_FLOOR**2 * learning[0] * RATE_HZ  # its energy over the span
            taken_out = learning[1] >= learning[2] * 10 ** (SETTLED_DB / 10)
            left_quiet = learning[2] < floor
            self._settled = learning[1] < floor or (
                self.lag is not None and (taken_out or left_quiet)
            )
            self._learning = [0.0, 0.0, 0.0]

    def _look_for_lag(self, frame: np.ndarray, at: float) -> None:
        """Gather FIRST_LAG_S, then LAG_FROM_S, of the microphone; correlate it with the
        reference."""
        if not self._heard:
            self._heard_from = at
        self._heard.append(frame)
        heard = sum(len(part) for part in self._heard)
        if heard < (FIRST_LAG_S if self.lag is None else LAG_FROM_S) * RATE_HZ:
            return
        microphone = np.concatenate(self._heard)
        self._heard = []
        reach = round(MAX_LAG_S * RATE_HZ)
        reference = self.ring.take(self._heard_from - MAX_LAG_S, heard + 2 * reach)
        lag = echo_lag(microphone, reference, RATE_HZ)
        if lag is None:
            return
        previous, self.lag = self.lag, lag
        if previous is None or abs(lag - previous) >= LAG_JUMP_S:
            if previous is not None:
                self.filter.relearn()
            self._settled = False
            self._learning = [0.0, 0.0, 0.0]
        strayed = None if self._shift is None else lag - self._shift
        if strayed is None or not -LAG_NUDGE_S < strayed < self.filter.follows_s + LAG_NUDGE_S:
            self._shift = lag
