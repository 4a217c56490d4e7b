"""The echo set's sounds are what a person says (behaviour.md 16.5)."""

from __future__ import annotations

from assist.mcp.eval.echo_sets import BACKCHANNELS, SAID_AS
from assist.voice.piper.engine import load_voice
from assist.voice.piper.voices import find_voice

SPELLED = ("ɛm", "eɪtʃ")
"""The letter names M and H in espeak's phonemes: "Mm-hm." read as its spelling."""


def test_piper_says_each_backchannel_as_a_sound_not_as_the_letters_of_its_spelling() -> None:
    piper = load_voice(find_voice(None, None))  # the bundled voice the set's person speaks with
    for person in BACKCHANNELS:
        said = "".join("".join(part) for part in piper.phonemize(SAID_AS.get(person, person)))
        assert not any(letter in said for letter in SPELLED), (person, said)
        unknown = [mark for mark in said if mark not in piper.config.phoneme_id_map]
        assert not unknown, f"Piper would drop {unknown} from {person!r}"
