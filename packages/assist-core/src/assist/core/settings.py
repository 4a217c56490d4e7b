"""The settings file: its shape and defaults, reading it per key, and `assist config` writes.

Reading falls back per key (behaviour.md 2.1): one bad value takes its default with a
warning naming the key, and the rest of the file still applies. Writing goes through
`set_key`, which parses the command-line value exactly as 2.3 says and returns a new
document in which every key we do not know is kept unchanged. Nothing here touches the
file; `assist.mcp` reads, writes and reports.

An engine value (`voice.engine`, `voice.fallback`) is any engine an installed plugin registers,
or one of the engines we ship (a value may name a package not installed yet); `listen.stt` is
the same for recognisers and `listen.turn` for turn models. The caller passes the installed
names in.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Collection, Sequence
from pathlib import PurePath
from typing import Any, Protocol, TypeVar

import attrs
from assist.core import json_text
from assist.core.answers import NO_WORDS, YES_WORDS, answer_words
from assist.core.engines import ENGINE_PACKAGES
from assist.core.files import VOICE_JSON
from assist.core.json_values import json_kind, show
from assist.core.recognisers import RECOGNISER_PACKAGES
from assist.core.turn_ends import TURN_PAUSE_MS
from assist.core.turn_models import SILENCE, TURN_MODEL_PACKAGES

T = TypeVar("T")

U32_MAX = 2**32 - 1
"""The counts are unsigned 32-bit integers in Ambient's config; larger values would make
the shared file unreadable to Ambient."""

TRUE_WORDS: tuple[str, ...] = ("true", "yes", "on", "1")
FALSE_WORDS: tuple[str, ...] = ("false", "no", "off", "0")
"""The boolean words of 2.3, accepted in any letter case."""

AUTO_WORDS: tuple[str, ...] = ("auto", "default")
"""Engine values meaning "choose for this machine" (stored as null)."""

NO_FALLBACK = "none"
"""`voice.fallback` value meaning no fallback engine (ours)."""

AMBIENT_ENGINES: tuple[str, ...] = ("qwen3-tts", "supertonic3", "kokoro")
"""The engines Ambient knows: any other value would make Ambient fall back to every default."""

DESIGNED_VOICE_ENGINE = "qwen3-tts"
"""The one engine that takes a style as a stand-in, a reference, a description and a cue."""


@attrs.frozen
class AssistantSettings:
    """The `assistant` section: the master switch, the name and the speaking limits."""

    enabled: bool = False
    name: str = "Claude"
    cooldown_s: int = 60
    max_per_meeting: int = 10


@attrs.frozen
class VoiceSettings:
    """The `voice` section; None everywhere means "the default for this machine"."""

    engine: str | None = None
    speaker: str | None = None
    style: str | None = None
    description: str | None = None
    cue: str | None = None
    reference: str | None = None
    helper_dir: str | None = None
    fallback: str | None = None


END_SILENCE_MS = 600
"""The end-of-turn silence of `assist listen` in a meeting (behaviour.md 12.1)."""
END_SILENCE_RANGE_MS = (100, 10_000)
"""`listen.end_silence_ms` bounds: under 100 ms every pause between words ends a turn; past
10 s a turn would end only at the 15 s cut."""
TURN_PAUSE_RANGE_MS = (50, 10_000)
"""`listen.turn_pause_ms` bounds: under 50 ms the turn model is asked at every gap between
words; a pause as long as the end-of-turn silence never asks it (the silence rule alone)."""


@attrs.frozen
class ListenSettings:
    """The `listen` section (ours, behaviour.md 12.6); None means "the default here"."""

    stt: str | None = None
    model: str | None = None
    device: str | None = None
    call_device: str | None = None
    end_silence_ms: int = END_SILENCE_MS
    turn: str | None = None
    """The turn model (16.1): a name, or None for the best installed."""
    turn_pause_ms: int = TURN_PAUSE_MS


@attrs.frozen
class ConversationSettings:
    """The `conversation` section (13): fillers, the ceilings and the end of a turn."""

    fillers: bool = True
    max_s: int = 600
    idle_s: int = 90
    end_silence_ms: int = 1000


@attrs.frozen
class ConfirmSettings:
    """The `confirm` section (14.1): the phrases that answer a question yes or no."""

    yes_words: tuple[str, ...] = YES_WORDS
    no_words: tuple[str, ...] = NO_WORDS


@attrs.frozen
class Settings:
    """Everything the assistant reads from the config file."""

    sessions_dir: str | None = None
    assistant: AssistantSettings = AssistantSettings()
    voice: VoiceSettings = VoiceSettings()
    conversation: ConversationSettings = ConversationSettings()
    confirm: ConfirmSettings = ConfirmSettings()
    listen: ListenSettings = ListenSettings()
    barge_in: bool = True
    """14.2: a person starting to speak over the assistant's line stops it (ours to switch)."""


class SettingError(ValueError):
    """A value `assist config` refuses; the message says why and what to do."""


OPTIONAL_TEXT_KEYS: tuple[str, ...] = (
    "voice.speaker",
    "voice.style",
    "voice.description",
    "voice.cue",
    "voice.reference",
    "voice.helper_dir",
)
"""Keys holding free text or a path, where `default` or an empty value means null."""

DURATION_KEYS: tuple[str, ...] = ("conversation.max_s", "conversation.idle_s")
"""Conversation ceilings (13): whole numbers of seconds of at least 1, since a ceiling of zero
would end every conversation at once. `conversation.end_silence_ms` has the bounds of
`listen.end_silence_ms`."""

WORD_LIST_KEYS: tuple[str, ...] = ("confirm.yes_words", "confirm.no_words")
"""The yes/no phrase lists (14.1); given at the command line as phrases separated by commas."""

PHRASE_SEPARATOR = ","

KEYS: tuple[str, ...] = (
    "assistant",
    "assistant.name",
    "assistant.cooldown_s",
    "assistant.max_per_meeting",
    "voice.engine",
    *OPTIONAL_TEXT_KEYS,
    "voice.fallback",
    "sessions_dir",
    "conversation.fillers",
    *DURATION_KEYS,
    "conversation.end_silence_ms",
    *WORD_LIST_KEYS,
    "barge_in",
)
"""The keys of `assist config KEY VALUE`, in the order of behaviour.md 2.3, then those of
13, 14.1 and 14.2."""

LISTEN_KEYS: tuple[str, ...] = (
    "listen.stt",
    "listen.model",
    "listen.device",
    "listen.call_device",
    "listen.end_silence_ms",
    "listen.turn",
    "listen.turn_pause_ms",
)
"""The keys of `assist listen` (behaviour.md 12.6 and 16.1), after those of 2.3."""
KEYS = (*KEYS, *LISTEN_KEYS)

JSON_PATHS: dict[str, tuple[str, ...]] = {
    key: ("assistant", "enabled") if key == "assistant" else tuple(key.split(".")) for key in KEYS
}
"""Where each key lives in the JSON document (`assistant` is `assistant.enabled`)."""


# Reading ---------------------------------------------------------------------------------


def parse_settings(
    data: object,
    *,
    engines: Collection[str] = (),
    recognisers: Collection[str] = (),
    turn_models: Collection[str] = (),
) -> tuple[Settings, list[str]]:
    """The settings in a parsed JSON document, with a warning for each value not used.

    `data` is what `json.loads` gave for the file (pass `{}` for a missing file). Anything
    but an object means every default and one warning. `engines`, `recognisers` and
    `turn_models` are the names the installed plugins register (the ones we ship are always
    accepted).
    """
    defaults = Settings()
    if not isinstance(data, dict):
        return defaults, [
            f"the config file holds a JSON {json_kind(data)}, not an object, so every "
            "setting takes its default (the assistant is off); fix or remove the file, "
            "or set values with `assist config KEY VALUE`"
        ]
    warnings: list[str] = []
    section = _section(data, "assistant", warnings)
    assistant = AssistantSettings(
        enabled=_read(section, "assistant.enabled", _bool_value, False, warnings),
        name=_read(section, "assistant.name", _name_value, "Claude", warnings),
        cooldown_s=_read(section, "assistant.cooldown_s", _u32_value, 60, warnings),
        max_per_meeting=_read(section, "assistant.max_per_meeting", _u32_value, 10, warnings),
    )
    section = _section(data, "voice", warnings)
    voice = VoiceSettings(
        engine=_read(section, "voice.engine", _engine_reader(engines, False), None, warnings),
        speaker=_read(section, "voice.speaker", _text_value, None, warnings),
        style=_read(section, "voice.style", _text_value, None, warnings),
        description=_read(section, "voice.description", _text_value, None, warnings),
        cue=_read(section, "voice.cue", _text_value, None, warnings),
        reference=_read(section, "voice.reference", _text_value, None, warnings),
        helper_dir=_read(section, "voice.helper_dir", _text_value, None, warnings),
        fallback=_read(section, "voice.fallback", _engine_reader(engines, True), None, warnings),
    )
    sessions_dir = _read(data, "sessions_dir", _text_value, None, warnings)
    talk = _talk_sections(data, warnings)
    listen = _listen(data, recognisers, turn_models, warnings)
    barge_in = _read(data, "barge_in", _bool_value, True, warnings)
    return Settings(
        sessions_dir, assistant, voice, *talk, listen=listen, barge_in=barge_in
    ), warnings


def _talk_sections(
    data: dict[str, Any], warnings: list[str]
) -> tuple[ConversationSettings, ConfirmSettings]:
    """The `conversation` and `confirm` sections (13, 14.1), each key falling back alone."""
    section = _section(data, "conversation", warnings)
    conversation = ConversationSettings(
        fillers=_read(section, "conversation.fillers", _bool_value, True, warnings),
        max_s=_read(section, "conversation.max_s", _duration_value, 600, warnings),
        idle_s=_read(section, "conversation.idle_s", _duration_value, 90, warnings),
        end_silence_ms=_read(
            section, "conversation.end_silence_ms", _end_silence_value, 1000, warnings
        ),
    )
    section = _section(data, "confirm", warnings)
    confirm = ConfirmSettings(
        yes_words=_read_phrases(section, "confirm.yes_words", YES_WORDS, warnings),
        no_words=_read_phrases(section, "confirm.no_words", NO_WORDS, warnings),
    )
    return conversation, confirm


def _read_phrases(
    section: dict[str, Any], key: str, default: tuple[str, ...], warnings: list[str]
) -> tuple[str, ...]:
    """A phrase list; null (what `assist config KEY default` stores) means the default."""
    if section.get(key.rsplit(".", 1)[-1]) is None:
        return default
    return _read(section, key, _phrases_value, default, warnings)


def _listen(
    data: dict[str, Any],
    recognisers: Collection[str],
    turn_models: Collection[str],
    warnings: list[str],
) -> ListenSettings:
    section = _section(data, "listen", warnings)
    return ListenSettings(
        stt=_read(section, "listen.stt", _recogniser_reader(recognisers), None, warnings),
        model=_read(section, "listen.model", _text_value, None, warnings),
        device=_read(section, "listen.device", _text_value, None, warnings),
        call_device=_read(section, "listen.call_device", _text_value, None, warnings),
        end_silence_ms=_read(
            section, "listen.end_silence_ms", _end_silence_value, END_SILENCE_MS, warnings
        ),
        turn=_read(section, "listen.turn", _turn_model_reader(turn_models), None, warnings),
        turn_pause_ms=_read(
            section, "listen.turn_pause_ms", _turn_pause_value, TURN_PAUSE_MS, warnings
        ),
    )


def _recogniser_reader(recognisers: Collection[str]) -> Callable[[object], str | None]:
    def read(value: object) -> str | None:
        if not isinstance(value, str):
            raise TypeError("expected a recogniser name, auto or null")
        name = value.strip().lower()
        if name in AUTO_WORDS or not name:
            return None
        if name in usable_names(recognisers, RECOGNISER_PACKAGES):
            return name
        raise ValueError(not_installed("recogniser", "recognisers", name, recognisers))

    return read


def _turn_model_reader(turn_models: Collection[str]) -> Callable[[object], str | None]:
    def read(value: object) -> str | None:
        if not isinstance(value, str):
            raise TypeError("expected a turn model name, silence, auto or null")
        name = value.strip().lower()
        if name in AUTO_WORDS or not name:
            return None
        if name in usable_names(turn_models, TURN_MODEL_PACKAGES):
            return name
        raise ValueError(not_installed("turn model", "turn models", name, {*turn_models, SILENCE}))

    return read


def _turn_pause_value(value: object) -> int:
    low, high = TURN_PAUSE_RANGE_MS
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"expected a whole number of milliseconds from {low} to {high}")
    return value


def _end_silence_value(value: object) -> int:
    low, high = END_SILENCE_RANGE_MS
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected a whole number of milliseconds from {low} to {high}")
    if not low <= value <= high:
        raise ValueError(f"expected a whole number of milliseconds from {low} to {high}")
    return value


def _section(data: dict[str, Any], name: str, warnings: list[str]) -> dict[str, Any]:
    value = data.get(name)
    if value is None:
        return {}
    if isinstance(value, dict):
        return value
    warnings.append(
        f"config: {name} is {show(value)}, not an object, so every {name} setting takes its default"
    )
    return {}


def _read(
    section: dict[str, Any],
    key: str,
    check: Callable[[object], T],
    default: T,
    warnings: list[str],
) -> T:
    """The value of `key` in its section, or `default` (with a warning when it was there)."""
    field = key.rsplit(".", 1)[-1]
    if field not in section:
        return default
    value = section[field]
    if value is None and default is None:
        return default
    try:
        return check(value)
    except (TypeError, ValueError) as problem:
        warnings.append(
            f"config: {key} is {show(value)}, which is not usable ({problem}); "
            f"using the default, {show(default)}"
        )
        return default


def _bool_value(value: object) -> bool:
    if not isinstance(value, bool):
        raise TypeError("expected true or false")
    return value


def _name_value(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError("expected a string")
    if not value.strip():
        raise ValueError("the name is empty")
    return value.strip()


def _u32_value(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected a whole number from 0 to {U32_MAX}")
    if not 0 <= value <= U32_MAX:
        raise ValueError(f"expected a whole number from 0 to {U32_MAX}")
    return value


def _duration_value(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected a whole number from 1 to {U32_MAX}")
    if not 1 <= value <= U32_MAX:
        raise ValueError(f"expected a whole number from 1 to {U32_MAX}")
    return value


def _phrases_value(value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise TypeError("expected a list of phrases (strings)")
    phrases = tuple(item.strip() for item in value)
    if not phrases:
        raise ValueError("the list is empty")
    for phrase in phrases:
        _check_phrase(phrase)
    return phrases


def _check_phrase(phrase: str) -> None:
    """A phrase must hold a word, and no comma (commas separate phrases on the command line)."""
    if PHRASE_SEPARATOR in phrase:
        raise ValueError(f"the phrase {phrase!r} holds a comma, which separates phrases")
    if not answer_words(phrase):
        raise ValueError(f"the phrase {phrase!r} holds no word")


def _text_value(value: object) -> str | None:
    if not isinstance(value, str):
        raise TypeError("expected a string or null")
    text = value.strip()
    return None if not text or text.lower() == "default" else text


def _engine_reader(engines: Collection[str], allow_none: bool) -> Callable[[object], str | None]:
    def read(value: object) -> str | None:
        if not isinstance(value, str):
            none = f", {NO_FALLBACK}" if allow_none else ""
            raise TypeError(f"expected an engine name{none} or null")
        name = value.strip().lower()
        if name in AUTO_WORDS:
            return None
        if name in usable_names(engines, ENGINE_PACKAGES) or (allow_none and name == NO_FALLBACK):
            return name
        raise ValueError(not_installed("voice engine", "engines", name, engines))

    return read


def usable_names(installed: Collection[str], shipped: Collection[str]) -> list[str]:
    """The values a setting naming a plugin accepts: the installed ones and the ones we ship
    (a package not installed yet may be named), sorted."""
    return sorted({*installed, *shipped})


def not_installed(noun: str, plural: str, name: str, installed: Collection[str]) -> str:
    """Why `name` is no `noun`: no installed package offers it; the installed ones."""
    listed = ", ".join(sorted(installed)) or "none"
    return (
        f"no installed package offers a {noun} {name!r}; the installed {plural} are: "
        f"{listed} (`assist engines` lists them)"
    )


# Writing ---------------------------------------------------------------------------------


def set_key(
    doc: dict[str, Any],
    key: str,
    value: str,
    *,
    ambient_file: bool,
    engines: Collection[str] = (),
    recognisers: Collection[str] = (),
    turn_models: Collection[str] = (),
) -> dict[str, Any]:
    """A copy of `doc` with `key` set from the command-line `value` (behaviour.md 2.3).

    Every other key and section, known or not, is kept as it was. Raises SettingError,
    with a message for the person at the command line, when the value is refused; `doc`
    is never changed. `ambient_file` is true while the config file is Ambient's own;
    `engines` and `recognisers` are the names the installed plugins register.
    """
    if key not in JSON_PATHS:
        raise SettingError(f"unknown setting {key!r}; the settings are: {', '.join(KEYS)}")
    stored = _parse_cli_value(key, value, engines, recognisers, turn_models)
    if (
        ambient_file
        and key == "voice.engine"
        and stored is not None
        and stored not in AMBIENT_ENGINES
    ):
        raise SettingError(
            f"voice.engine not changed: this config file is Ambient's, and Ambient does not "
            f"know the {stored} engine, so Ambient could not read its config any more. To use "
            f"{stored}, set ASSIST_CONFIG to the path of a separate config file for assist "
            "and set the engine there"
        )
    new = copy.deepcopy(doc)
    *sections, field = JSON_PATHS[key]
    target = new
    for section in sections:
        if not isinstance(target.get(section), dict):
            target[section] = {}
        target = target[section]
    target[field] = stored
    return new


def _parse_cli_value(
    key: str,
    value: str,
    engines: Collection[str],
    recognisers: Collection[str],
    turn_models: Collection[str],
) -> Any:
    text = value.strip()
    if key == "assistant":
        return _parse_bool(key, text)
    if key == "assistant.name":
        if not text:
            raise SettingError(
                "assistant.name not changed: the name is empty; give the name people will "
                "call the assistant, for example: assist config assistant.name Claude"
            )
        return text
    if key in ("assistant.cooldown_s", "assistant.max_per_meeting"):
        return _parse_u32(key, text)
    if key == "voice.engine":
        return _parse_engine(key, text, engines, allow_none=False)
    if key == "voice.fallback":
        return _parse_engine(key, text, engines, allow_none=True)
    if key in ("conversation.fillers", "barge_in"):
        return _parse_bool(key, text)
    if key in DURATION_KEYS:
        return _parse_duration(key, text)
    if key in WORD_LIST_KEYS:
        return _parse_phrases(key, text)
    if key == "listen.stt":
        return _parse_with(
            key, text, _recogniser_reader(recognisers), "a recogniser name such as whisper"
        )
    if key == "listen.turn":
        return _parse_with(
            key,
            text,
            _turn_model_reader(turn_models),
            "a turn model such as smart-turn, or silence",
        )
    if key == "listen.turn_pause_ms":
        value_ms: object = int(text) if text.isascii() and text.isdigit() else text
        return _parse_with(key, value_ms, _turn_pause_value, "a number such as 200")
    if key in ("listen.end_silence_ms", "conversation.end_silence_ms"):
        low, high = END_SILENCE_RANGE_MS
        if text.isascii() and text.isdigit():
            return _parse_with(key, int(text), _end_silence_value, "600")
        raise SettingError(
            f"{key} not changed: {text!r} is not a whole number of milliseconds from {low} "
            f"to {high}; give a number such as 600"
        )
    return None if not text or text.lower() == "default" else text


def _parse_with(key: str, value: object, check: Callable[[object], T], example: str) -> T:
    try:
        return check(value)
    except (TypeError, ValueError) as problem:
        raise SettingError(
            f"{key} not changed: {show(value)} is not usable ({problem}); give {example}"
        ) from None


def _parse_bool(key: str, text: str) -> bool:
    word = text.lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise SettingError(
        f"{key} not changed: {text!r} is not a recognised boolean; use one of "
        f"{', '.join(TRUE_WORDS)} to switch it on, or {', '.join(FALSE_WORDS)} to switch it off"
    )


def _parse_u32(key: str, text: str) -> int:
    if text.isascii() and text.isdigit() and int(text) <= U32_MAX:
        return int(text)
    raise SettingError(
        f"{key} not changed: {text!r} is not a whole number from 0 to {U32_MAX}; "
        "give a number such as 60"
    )


def _parse_duration(key: str, text: str) -> int:
    if text.isascii() and text.isdigit() and 1 <= int(text) <= U32_MAX:
        return int(text)
    raise SettingError(
        f"{key} not changed: {text!r} is not a whole number from 1 to {U32_MAX}; "
        "give a number such as 90"
    )


def _parse_phrases(key: str, text: str) -> list[str] | None:
    """Phrases separated by commas; `default` (or nothing) means the English defaults."""
    if not text or text.lower() == "default":
        return None
    phrases = [part.strip() for part in text.split(PHRASE_SEPARATOR) if part.strip()]
    if not phrases:
        raise SettingError(
            f"{key} not changed: {text!r} holds no phrase; give phrases separated by commas, "
            f'for example: assist config {key} "yes, go ahead", or default for the English ones'
        )
    for phrase in phrases:
        if not answer_words(phrase):
            raise SettingError(
                f"{key} not changed: {phrase!r} holds no word (only letters and digits "
                "count); give phrases separated by commas, or default for the English ones"
            )
    return phrases


def _parse_engine(key: str, text: str, engines: Collection[str], *, allow_none: bool) -> str | None:
    try:
        return _engine_reader(engines, allow_none)(text)
    except ValueError as why:
        usable = usable_names(engines, ENGINE_PACKAGES)
        valid = (*AUTO_WORDS, *usable, *((NO_FALLBACK,) if allow_none else ()))
        raise SettingError(
            f"{key} not changed: {text!r} is not a voice engine: {why}; "
            f"the valid values are: {', '.join(valid)}"
        ) from None


def format_document(doc: dict[str, Any]) -> str:
    """The file text for `doc`: pretty-printed with a 2-space indent and a final newline."""
    return json.dumps(json_text.encodable(doc), indent=2, ensure_ascii=False) + "\n"


# Showing ---------------------------------------------------------------------------------


def describe(settings: Settings) -> list[tuple[str, str]]:
    """Each key of 2.3 with its effective value, as `assist config KEY VALUE` would take it."""
    assistant, voice = settings.assistant, settings.voice
    shown: dict[str, str] = {
        "assistant": "on" if assistant.enabled else "off",
        "assistant.name": assistant.name,
        "assistant.cooldown_s": str(assistant.cooldown_s),
        "assistant.max_per_meeting": str(assistant.max_per_meeting),
        "voice.engine": voice.engine or "auto",
    }
    for key in OPTIONAL_TEXT_KEYS:
        shown[key] = getattr(voice, key.split(".")[1]) or "default"
    shown["voice.fallback"] = voice.fallback or "auto"
    shown["sessions_dir"] = settings.sessions_dir or "default"
    conversation, confirm = settings.conversation, settings.confirm
    shown["conversation.fillers"] = "yes" if conversation.fillers else "no"
    for key in (*DURATION_KEYS, "conversation.end_silence_ms"):
        shown[key] = str(getattr(conversation, key.split(".")[1]))
    shown["confirm.yes_words"] = f"{PHRASE_SEPARATOR} ".join(confirm.yes_words)
    shown["confirm.no_words"] = f"{PHRASE_SEPARATOR} ".join(confirm.no_words)
    shown["barge_in"] = "yes" if settings.barge_in else "no"
    listen = settings.listen
    shown["listen.stt"] = listen.stt or "auto"
    shown["listen.model"] = listen.model or "default"
    shown["listen.device"] = listen.device or "default"
    shown["listen.call_device"] = listen.call_device or "default"
    shown["listen.end_silence_ms"] = str(listen.end_silence_ms)
    shown["listen.turn"] = listen.turn or "auto"
    shown["listen.turn_pause_ms"] = str(listen.turn_pause_ms)
    return [(key, shown[key]) for key in KEYS]


# Resolving -------------------------------------------------------------------------------


def reference_candidates(
    reference: str, helper_dir: str | None, shipped_voices: str | None, config_dir: str | None
) -> list[str]:
    """The folders a `voice.reference` may name, in the order of behaviour.md 2.3.

    An absolute reference is the only candidate. A relative one is tried against
    `voice.helper_dir` (itself relative to the config folder when relative), the voices
    folder shipped in assist-voice-qwen3 when there is one, then the config folder.
    With no folder to try it against, the reference is its own only candidate.
    A leading `~` must be expanded by the caller first.
    """
    if PurePath(reference).is_absolute():
        return [reference]
    bases: list[str] = []
    if helper_dir:
        bases.append(str(PurePath(config_dir or "") / helper_dir))
    if shipped_voices:
        bases.append(shipped_voices)
    if config_dir:
        bases.append(config_dir)
    return [str(PurePath(base) / reference) for base in bases] or [reference]


def resolve_reference(
    candidates: Sequence[str], has_voice_json: Callable[[str], bool]
) -> str | None:
    """The first candidate folder holding `voice.json`, or None when none does."""
    for folder in candidates:
        if has_voice_json(folder):
            return folder
    return None


def helper_reference(candidates: Sequence[str], has_voice_json: Callable[[str], bool]) -> str:
    """The folder the helper gets as `--reference`: the first candidate holding `voice.json`,
    else the last candidate, so that the helper's error names a real place."""
    return resolve_reference(candidates, has_voice_json) or candidates[-1]


def reference_not_found(reference: str, candidates: Sequence[str]) -> str:
    """Why a relative `voice.reference` could not be used, and what to do."""
    return (
        f"voice.reference {reference!r} is not a designed-voice folder: none of "
        f"{', '.join(candidates)} holds {VOICE_JSON}; set voice.reference to a folder that "
        "does (an absolute path is used as it is), or `assist config voice.reference default`"
    )


class VoiceChoices(Protocol):
    """The `voice` settings an engine is started with (`VoiceSettings` fits)."""

    @property
    def engine(self) -> str | None: ...
    @property
    def speaker(self) -> str | None: ...
    @property
    def style(self) -> str | None: ...
    @property
    def description(self) -> str | None: ...
    @property
    def cue(self) -> str | None: ...
    @property
    def reference(self) -> str | None: ...
    @property
    def helper_dir(self) -> str | None: ...
    @property
    def fallback(self) -> str | None: ...


@attrs.frozen
class EngineVoice:
    """The voice settings one engine is started with (behaviour.md 9.2, 9.4)."""

    speaker: str | None = None
    style: str | None = None
    reference: str | None = None
    description: str | None = None
    cue: str | None = None


def engine_voice(voice: VoiceChoices, engine: str, *, stand_in: bool) -> EngineVoice:
    """What of the `voice` settings `engine` takes.

    A stand-in (the fallback, or an engine other than the settings' chosen for one command)
    takes neither the speaker, since a voice name belongs to one engine and another would
    refuse to load with it, nor, unless it is qwen3-tts, the style. Only qwen3-tts takes a
    reference, or else a description with its cue.
    """
    designed = engine == DESIGNED_VOICE_ENGINE
    return EngineVoice(
        speaker=None if stand_in else voice.speaker,
        style=voice.style if designed or not stand_in else None,
        reference=voice.reference if designed else None,
        description=voice.description if designed and not voice.reference else None,
        cue=voice.cue if designed and not voice.reference and voice.description else None,
    )


def sessions_dir_live_refusal(live_session: str) -> str:
    """Why `sessions_dir` cannot change now: a recording is live in the current root."""
    return (
        f"sessions_dir not changed: the session {live_session} is being recorded in the "
        "current sessions folder; try again once that recording has stopped"
    )
