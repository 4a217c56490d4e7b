"""How each of the six tones sounds in espeak-ng: a speaking rate, a pitch and a pitch range.

espeak-ng has no expressive model, but rate and pitch carry mood well enough: livelier moods
speak a little faster, higher and with a wider melody; sorry and worried moods slower, lower
and flatter. `neutral` (and any unknown tone) is espeak-ng's own default, read from the
library at start-up (175 words per minute, pitch 50, range 50 in espeak-ng 1.52). The changes
stay small so that every tone remains as intelligible as neutral.
"""

from __future__ import annotations

from assist.core.tones import NEUTRAL, tone_or_neutral
from assist.voice.espeak.library import Prosody

MOODS: dict[str, Prosody] = {
    "warm": Prosody(rate=165, pitch=46, range=60),  # kind: a touch slower, lower, more melody
    "amused": Prosody(rate=185, pitch=56, range=70),  # friendly and light: a little quicker
    "excited": Prosody(rate=200, pitch=62, range=80),  # lively, high-energy
    "apologetic": Prosody(rate=155, pitch=44, range=40),  # soft, sorry, slightly slowed
    "concerned": Prosody(rate=150, pitch=40, range=35),  # grave, worried, unhurried
}
"""Rate in words per minute, pitch and range on espeak-ng's 0-100 scales."""


def prosody_for(tone: str, defaults: Prosody) -> Prosody:
    """The rate and pitch for a tone; neutral and unknown tones get espeak-ng's defaults."""
    mood = tone_or_neutral(tone)
    return defaults if mood == NEUTRAL else MOODS[mood]
