"""What the preset voice is asked to sound like in each tone (behaviour.md 8.4).

Qwen3-TTS's CustomVoice model takes a free-text instruction beside the text. Each tone has one,
written as a short delivery note. A standing `voice.style` comes first, then a space, then the
tone's note, so a style such as "Speak with a light Scottish accent." holds across every mood.
A cloned voice takes no instruction at all (behaviour.md 8.6): this module is for preset voices.
"""

from __future__ import annotations

from assist.core.tones import tone_or_neutral

INSTRUCTIONS: dict[str, str] = {
    "neutral": "Speak in an even, everyday voice, as in a normal conversation.",
    "warm": "Speak kindly and warmly, with a friendly smile in the voice.",
    "amused": "Speak in a friendly way, with some amusement in the voice, close to a laugh.",
    "excited": "Speak in a lively, high-energy way, with excitement in the voice.",
    "apologetic": "Speak softly, in a sorry tone, a little more slowly than usual.",
    "concerned": "Speak in a grave, worried tone, without hurrying.",
}
"""One delivery note per tone; the keys are exactly the six tones."""


def instruction(tone: str, style: str | None) -> str:
    """The instruction for a line: `style`, a space, then the tone's note (neutral's when the
    tone is unknown)."""
    note = INSTRUCTIONS[tone_or_neutral(tone)]
    style = (style or "").strip()
    return f"{style} {note}" if style else note
