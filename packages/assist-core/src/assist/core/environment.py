"""The environment variables assist reads, as one table: name, meaning, form and audience.

Each variable is one row of `VARIABLES`; the module that reads it takes its name from here,
and docs/behaviour.md 2.5 is generated from the table (`markdown`), checked by a test, so
neither the code nor the doc can name a variable the table does not hold. The reading itself
stays with the module that does the I/O (a path, a command line to split, a number to check);
`form` says what it takes.
"""

from __future__ import annotations

import enum

import attrs


class Audience(enum.Enum):
    """Who sets a variable."""

    USER = "user option"
    TEST = "test option"
    """Tests, the demo and `assist eval`, to stand in for a device or a program."""
    ASSIST = "set by assist"
    """Given by assist to a process it starts; not to be set by hand."""


@attrs.frozen
class Variable:
    """One environment variable: its name, what it does, the value it takes, who sets it."""

    name: str
    meaning: str
    form: str
    audience: Audience


PATH = "a path"
COMMAND = "a command line, split as a shell would"
NAMES = "entry-point names separated by commas"
ANYTHING = "any non-empty value"

CONFIG = Variable(
    "ASSIST_CONFIG", "the config file (§1.1), before every other place", PATH, Audience.USER
)
AMBIENT_CONFIG = Variable(
    "AMBIENT_CONFIG",
    "Ambient's own config file, used (and shared with Ambient) when `ASSIST_CONFIG` is unset",
    PATH,
    Audience.USER,
)
HOME = Variable(
    "ASSIST_HOME", "the sessions root (§1.1), before every other place", PATH, Audience.USER
)
AMBIENT_HOME = Variable(
    "AMBIENT_HOME", "Ambient's sessions root, used when `ASSIST_HOME` is unset", PATH, Audience.USER
)
VOICE_CACHE = Variable(
    "ASSIST_VOICE_CACHE", "the voice engines' cache root (§1.1, §8.8)", PATH, Audience.USER
)
STT_CACHE = Variable("ASSIST_STT_CACHE", "the recognisers' cache root", PATH, Audience.USER)
VOICES = Variable(
    "ASSIST_VOICES", "when set, only these engine plugins are loaded", NAMES, Audience.USER
)
VOICES_BLOCK = Variable(
    "ASSIST_VOICES_BLOCK", "engine plugins that are never loaded", NAMES, Audience.USER
)
STT = Variable(
    "ASSIST_STT", "when set, only these recogniser plugins are loaded", NAMES, Audience.USER
)
STT_BLOCK = Variable(
    "ASSIST_STT_BLOCK", "recogniser plugins that are never loaded", NAMES, Audience.USER
)
TURNS = Variable(
    "ASSIST_TURNS", "when set, only these turn model plugins are loaded", NAMES, Audience.USER
)
TURNS_BLOCK = Variable(
    "ASSIST_TURNS_BLOCK", "turn model plugins that are never loaded", NAMES, Audience.USER
)
VOICE_COMMAND = Variable(
    "ASSIST_VOICE_COMMAND",
    "the command that starts the voice helper, its arguments following (default: the "
    "`assist-voice` beside the running Python)",
    COMMAND,
    Audience.USER,
)
VOICE_READY_WITHIN = Variable(
    "ASSIST_VOICE_READY_WITHIN",
    "seconds a voice helper gets to send `ready` (default 1800, §9.3)",
    "a positive number",
    Audience.USER,
)
LOG = Variable(
    "ASSIST_LOG",
    "the log level on stderr (default warning)",
    "debug, info, warning, error or critical",
    Audience.USER,
)
KOKORO_MODEL = Variable(
    "ASSIST_KOKORO_MODEL", "Kokoro's model file, instead of the downloaded one", PATH, Audience.USER
)
KOKORO_VOICES = Variable(
    "ASSIST_KOKORO_VOICES",
    "Kokoro's voices file, instead of the downloaded one",
    PATH,
    Audience.USER,
)
QWEN3_CPU = Variable(
    "ASSIST_QWEN3_CPU",
    "run Qwen3-TTS on MLX's CPU backend away from Apple silicon (far slower than speech)",
    ANYTHING,
    Audience.TEST,
)
PACING_SCALE = Variable(
    "ASSIST_PACING_SCALE",
    "multiplies the batching clock (§4.1), for a meeting replayed faster than it was held",
    "a positive number",
    Audience.TEST,
)
LISTEN_FROM = Variable(
    "ASSIST_LISTEN_FROM",
    "a file or FIFO of 16 kHz mono s16le PCM that a conversation's listener hears instead of "
    "the microphone (§13)",
    PATH,
    Audience.TEST,
)
PLAY_INTO = Variable(
    "ASSIST_PLAY_INTO",
    "a FIFO the voice helper plays into at real time instead of the speakers (§13)",
    PATH,
    Audience.TEST,
)
LISTEN_COMMAND = Variable(
    "ASSIST_LISTEN_COMMAND",
    "the command that replaces `assist listen` for a conversation's listener",
    COMMAND,
    Audience.TEST,
)
ECHO_REFERENCE = Variable(
    "ASSIST_ECHO_REFERENCE",
    "the Unix socket the voice helper sends what it plays to, for the listener (§14.2)",
    PATH,
    Audience.ASSIST,
)
DEMO_MCP_CONFIG = Variable(
    "ASSIST_DEMO_MCP_CONFIG",
    "the MCP config file `assist demo --agent` wrote, for the agent command it starts",
    PATH,
    Audience.ASSIST,
)

VARIABLES: tuple[Variable, ...] = (
    CONFIG,
    AMBIENT_CONFIG,
    HOME,
    AMBIENT_HOME,
    VOICE_CACHE,
    STT_CACHE,
    VOICES,
    VOICES_BLOCK,
    STT,
    STT_BLOCK,
    TURNS,
    TURNS_BLOCK,
    VOICE_COMMAND,
    VOICE_READY_WITHIN,
    LOG,
    KOKORO_MODEL,
    KOKORO_VOICES,
    QWEN3_CPU,
    PACING_SCALE,
    LISTEN_FROM,
    PLAY_INTO,
    LISTEN_COMMAND,
    ECHO_REFERENCE,
    DEMO_MCP_CONFIG,
)
"""Every variable, the user's options first, then the tests', then those assist sets."""


def markdown() -> str:
    """The table of docs/behaviour.md 2.5."""
    rows = [
        "| Variable | Meaning | Value | Set by |",
        "|---|---|---|---|",
        *(
            f"| `{variable.name}` | {variable.meaning} | {variable.form} | "
            f"{variable.audience.value} |"
            for variable in VARIABLES
        ),
    ]
    return "\n".join(rows) + "\n"
