"""The six tones (emotions) a line may be spoken in.

The MCP `speak` tool accepts exactly these, case-sensitively; the helper treats
any other value as `neutral`. Every engine accepts all six, mapping each to what
it can express.
"""

NEUTRAL = "neutral"
TONES: tuple[str, ...] = ("neutral", "warm", "amused", "excited", "apologetic", "concerned")


def tone_or_neutral(value: object) -> str:
    """The tone to use for a helper `say`: unknown, missing or empty means neutral."""
    return value if isinstance(value, str) and value in TONES else NEUTRAL
