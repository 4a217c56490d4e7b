"""The settings file: its shape and defaults, reading it per key, and `assist config` writes.

Every key is one row of the table `SETTINGS`: its name, its `Kind` (how the file's value is
read, how `assist config` takes it from the command line, how `describe` shows it), where it
lives in the JSON document and which attribute of `Settings` holds it; the attrs classes give
the defaults. Reading, setting and describing are loops over that table.

Adding a key is a typed field with its default on its section's class, and a row in `SETTINGS`
naming a `Kind` (an existing one, or a new one made as `whole_number` makes bounded integers);
its place in the row order is its place in `assist config`'s listing. Tests fail for a field
without a row, a kind without test values, and a key the spec does not document.

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
from collections.abc import Callable, Collection, Mapping, Sequence
from functools import reduce
from pathlib import PurePath
from typing import Any, Protocol

import attrs
from assist.core import json_text
from assist.core.answers import NO_WORDS, YES_WORDS, answer_words
from assist.core.engines import ENGINE_PACKAGES
from assist.core.files import VOICE_JSON
from assist.core.interruptions import BACKCHANNELS, HOLD_MS, HOLD_RANGE_MS
from assist.core.json_values import json_kind, show
from assist.core.recognisers import RECOGNISER_PACKAGES
from assist.core.turn_ends import TURN_PAUSE_MS
from assist.core.turn_models import SILENCE, TURN_MODEL_PACKAGES
from assist.core.turns import END_SILENCE_MS

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
class InterruptionSettings:
    """Keys `barge_in.hold_ms` and `barge_in.backchannels` (16.3): how long a paused line
    waits for words, and the words that are no interruption."""

    hold_ms: int = HOLD_MS
    backchannels: tuple[str, ...] = BACKCHANNELS


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
    interruptions: InterruptionSettings = InterruptionSettings()


class SettingError(ValueError):
    """A value `assist config` refuses; the message says why and what to do."""


@attrs.frozen
class Installed:
    """The names the installed plugins register: besides the ones we ship, what an engine
    value (`voice.engine`, `voice.fallback`) or a recogniser value (`listen.stt`) may name."""

    engines: Collection[str] = ()
    recognisers: Collection[str] = ()
    turn_models: Collection[str] = ()


# Kinds of value --------------------------------------------------------------------------


@attrs.frozen
class Kind:
    """One type of value in its three forms: in the file, on the command line, and shown by
    `describe` (in the form the command line takes back, so a shown value can be set again)."""

    read: Callable[[object, Installed], Any]
    """The file's JSON value as the setting's; TypeError or ValueError says why it is unusable."""
    parse: Callable[[str, str, Installed], Any]
    """(key, trimmed text) -> the JSON value `assist config` stores; SettingError says why not."""
    show: Callable[[Any], str]
    """The setting's value as `assist config KEY VALUE` takes it."""
    null_is_default: bool = False
    """A null in the file means the default, silently: what `assist config KEY default` stores."""


def _bool_value(value: object, installed: Installed) -> bool:
    if not isinstance(value, bool):
        raise TypeError("expected true or false")
    return value


def _parse_bool(key: str, text: str, installed: Installed) -> bool:
    word = text.lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise SettingError(
        f"{key} not changed: {text!r} is not a recognised boolean; use one of "
        f"{', '.join(TRUE_WORDS)} to switch it on, or {', '.join(FALSE_WORDS)} to switch it off"
    )


ON_OFF = Kind(_bool_value, _parse_bool, lambda on: "on" if on else "off")
YES_NO = Kind(_bool_value, _parse_bool, lambda on: "yes" if on else "no")
"""Booleans (2.3): the same words set them; the master switch reads back as on or off."""


def _name_value(value: object, installed: Installed) -> str:
    if not isinstance(value, str):
        raise TypeError("expected a string")
    if not value.strip():
        raise ValueError("the name is empty")
    return value.strip()


def _parse_name(key: str, text: str, installed: Installed) -> str:
    if not text:
        raise SettingError(
            f"{key} not changed: the name is empty; give the name people will "
            f"call the assistant, for example: assist config {key} Claude"
        )
    return text


NAME = Kind(_name_value, _parse_name, str)
"""A name people call out: trimmed, never empty."""


def whole_number(low: int, high: int, *, example: int, unit: str = "") -> Kind:
    """Whole numbers from `low` to `high`; `unit` and `example` go in the refusals."""
    expected = f"a whole number{unit} from {low} to {high}"

    def read(value: object, installed: Installed) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"expected {expected}")
        if not low <= value <= high:
            raise ValueError(f"expected {expected}")
        return value

    def parse(key: str, text: str, installed: Installed) -> int:
        if text.isascii() and text.isdigit() and low <= int(text) <= high:
            return int(text)
        raise SettingError(
            f"{key} not changed: {text!r} is not {expected}; give a number such as {example}"
        )

    return Kind(read, parse, str)


COUNT = whole_number(0, U32_MAX, example=60)
DURATION = whole_number(1, U32_MAX, example=90)
"""Conversation ceilings (13), in seconds: at least 1, since a ceiling of zero would end every
conversation at once."""
END_SILENCE = whole_number(*END_SILENCE_RANGE_MS, example=END_SILENCE_MS, unit=" of milliseconds")
TURN_PAUSE = whole_number(*TURN_PAUSE_RANGE_MS, example=TURN_PAUSE_MS, unit=" of milliseconds")
HOLD = whole_number(*HOLD_RANGE_MS, example=HOLD_MS, unit=" of milliseconds")


def _text_value(value: object, installed: Installed) -> str | None:
    if not isinstance(value, str):
        raise TypeError("expected a string or null")
    text = value.strip()
    return None if not text or text.lower() == "default" else text


TEXT = Kind(
    _text_value,
    lambda key, text, installed: _text_value(text, installed),
    lambda text: text or "default",
    null_is_default=True,
)
"""Free text or a path, where `default` or an empty value means null (the default here)."""


def _engine(allow_none: bool) -> Kind:
    """An engine name, or `auto`; a fallback may also be `none`."""
    none = (NO_FALLBACK,) if allow_none else ()

    def read(value: object, installed: Installed) -> str | None:
        if not isinstance(value, str):
            raise TypeError(f"expected an engine name{''.join(f', {n}' for n in none)} or null")
        name = value.strip().lower()
        if name in AUTO_WORDS:
            return None
        if name in (*usable_names(installed.engines, ENGINE_PACKAGES), *none):
            return name
        raise ValueError(not_installed("voice engine", "engines", name, installed.engines))

    def parse(key: str, text: str, installed: Installed) -> str | None:
        try:
            return read(text, installed)
        except ValueError as why:
            valid = (*AUTO_WORDS, *usable_names(installed.engines, ENGINE_PACKAGES), *none)
            raise SettingError(
                f"{key} not changed: {text!r} is not a voice engine: {why}; "
                f"the valid values are: {', '.join(valid)}"
            ) from None

    return Kind(read, parse, lambda name: name or "auto", null_is_default=True)


ENGINE = _engine(allow_none=False)
FALLBACK = _engine(allow_none=True)


def _plugin_name(
    noun: str,
    plural: str,
    installed_names: Callable[[Installed], Collection[str]],
    ours: Mapping[str, str],
    example: str,
    built_in: Collection[str] = (),
) -> Kind:
    """A plugin's name (`listen.stt`, `listen.turn`): auto (null), or one installed or ours."""

    def read(value: object, installed: Installed) -> str | None:
        if not isinstance(value, str):
            raise TypeError(f"expected a {noun} name, auto or null")
        name = value.strip().lower()
        if name in AUTO_WORDS or not name:
            return None
        if name in usable_names(installed_names(installed), ours):
            return name
        known = {*installed_names(installed), *built_in}
        raise ValueError(not_installed(noun, plural, name, known))

    def parse(key: str, text: str, installed: Installed) -> str | None:
        try:
            return read(text, installed)
        except ValueError as problem:
            raise SettingError(
                f"{key} not changed: {show(text)} is not usable ({problem}); give {example}"
            ) from None

    return Kind(read, parse, lambda name: name or "auto", null_is_default=True)


RECOGNISER = _plugin_name(
    "recogniser",
    "recognisers",
    lambda installed: installed.recognisers,
    RECOGNISER_PACKAGES,
    "a recogniser name such as whisper",
)
TURN_MODEL = _plugin_name(
    "turn model",
    "turn models",
    lambda installed: installed.turn_models,
    TURN_MODEL_PACKAGES,
    "a turn model such as smart-turn, or silence",
    built_in=(SILENCE,),
)

PHRASE_SEPARATOR = ","


def _phrases_value(value: object, installed: Installed) -> tuple[str, ...]:
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


def _parse_phrases(key: str, text: str, installed: Installed) -> list[str] | None:
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


PHRASES = Kind(
    _phrases_value,
    _parse_phrases,
    lambda phrases: f"{PHRASE_SEPARATOR} ".join(phrases),
    null_is_default=True,
)
"""A list of phrases (14.1, 16.3), given at the command line separated by commas."""


# The table -------------------------------------------------------------------------------


@attrs.frozen
class Key:
    """One key of `assist config`: its name, its kind, where it lives in the JSON document,
    and which attribute of `Settings` holds it (whose class gives the default)."""

    name: str
    kind: Kind
    path: tuple[str, ...] = attrs.field(
        default=attrs.Factory(lambda key: tuple(key.name.split(".")), takes_self=True)
    )
    """Where in the file: the name's parts, unless the key switches a section (`enabled`)."""
    attribute: str = attrs.field(default=attrs.Factory(lambda key: key.name, takes_self=True))
    """Where in `Settings`, dotted as the name is."""

    def value_in(self, settings: Settings) -> Any:
        """This key's value in `settings`."""
        return reduce(getattr, self.attribute.split("."), settings)

    @property
    def default(self) -> Any:
        """The value when the file does not give one."""
        return self.value_in(Settings())


SETTINGS: tuple[Key, ...] = (
    Key("assistant", ON_OFF, path=("assistant", "enabled"), attribute="assistant.enabled"),
    Key("assistant.name", NAME),
    Key("assistant.cooldown_s", COUNT),
    Key("assistant.max_per_meeting", COUNT),
    Key("voice.engine", ENGINE),
    Key("voice.speaker", TEXT),
    Key("voice.style", TEXT),
    Key("voice.description", TEXT),
    Key("voice.cue", TEXT),
    Key("voice.reference", TEXT),
    Key("voice.helper_dir", TEXT),
    Key("voice.fallback", FALLBACK),
    Key("sessions_dir", TEXT),
    Key("conversation.fillers", YES_NO),
    Key("conversation.max_s", DURATION),
    Key("conversation.idle_s", DURATION),
    Key("conversation.end_silence_ms", END_SILENCE),
    Key("confirm.yes_words", PHRASES),
    Key("confirm.no_words", PHRASES),
    Key("barge_in", YES_NO, path=("barge_in", "enabled")),
    Key("barge_in.hold_ms", HOLD, attribute="interruptions.hold_ms"),
    Key("barge_in.backchannels", PHRASES, attribute="interruptions.backchannels"),
    Key("listen.stt", RECOGNISER),
    Key("listen.model", TEXT),
    Key("listen.device", TEXT),
    Key("listen.call_device", TEXT),
    Key("listen.end_silence_ms", END_SILENCE),
    Key("listen.turn", TURN_MODEL),
    Key("listen.turn_pause_ms", TURN_PAUSE),
)
"""Every key of `assist config KEY VALUE`, in the order of behaviour.md 2.3, then those of 13,
14.1, 14.2, 16.3 and 12.6; `parse_settings`, `set_key` and `describe` are loops over it. A key
is at most one section deep."""

KEYS: tuple[str, ...] = tuple(key.name for key in SETTINGS)
JSON_PATHS: dict[str, tuple[str, ...]] = {key.name: key.path for key in SETTINGS}
_BY_NAME: dict[str, Key] = {key.name: key for key in SETTINGS}

PLAIN_SWITCHES: tuple[str, ...] = ("barge_in",)
"""Sections that were a plain boolean before they had keys (16.3): that older form is read,
and kept when a key of the section is set, as the section's `enabled`."""


def _current_form(doc: dict[str, Any], sections: Collection[str]) -> dict[str, Any]:
    """`doc` with each of `sections` that is an older plain switch turned into its section."""
    older = {
        name: {"enabled": doc[name]}
        for name in sections
        if name in PLAIN_SWITCHES and isinstance(doc.get(name), bool)
    }
    return {**doc, **older}


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
    if not isinstance(data, dict):
        return Settings(), [
            f"the config file holds a JSON {json_kind(data)}, not an object, so every "
            "setting takes its default (the assistant is off); fix or remove the file, "
            "or set values with `assist config KEY VALUE`"
        ]
    data = _current_form(data, PLAIN_SWITCHES)
    installed = Installed(engines, recognisers, turn_models)
    warnings: list[str] = []
    sections: dict[str, dict[str, Any]] = {}
    values: dict[str, Any] = {}
    for key in SETTINGS:
        *outer, field = key.path
        section = data
        for name in outer:
            if name not in sections:
                sections[name] = _section(data, name, warnings)
            section = sections[name]
        values[key.attribute] = _read(section, field, key, installed, warnings)
    return _settings_of(values), warnings


def _settings_of(values: dict[str, Any]) -> Settings:
    """`Settings` holding `values`, by dotted attribute."""
    top: dict[str, Any] = {}
    parts: dict[str, dict[str, Any]] = {}
    for attribute, value in values.items():
        part, _, field = attribute.rpartition(".")
        if part:
            parts.setdefault(part, {})[field] = value
        else:
            top[field] = value
    defaults = Settings()
    for part, fields in parts.items():
        top[part] = attrs.evolve(getattr(defaults, part), **fields)
    return attrs.evolve(defaults, **top)


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
    section: dict[str, Any], field: str, key: Key, installed: Installed, warnings: list[str]
) -> Any:
    """The value of `key` in its section, or its default (with a warning when it was there)."""
    default = key.default
    if field not in section:
        return default
    value = section[field]
    if value is None and key.kind.null_is_default:
        return default
    try:
        return key.kind.read(value, installed)
    except (TypeError, ValueError) as problem:
        warnings.append(
            f"config: {'.'.join(key.path)} is {show(value)}, which is not usable ({problem}); "
            f"using the default, {show(default)}"
        )
        return default


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
    `engines`, `recognisers` and `turn_models` are the names the installed plugins register.
    """
    setting = _BY_NAME.get(key)
    if setting is None:
        raise SettingError(f"unknown setting {key!r}; the settings are: {', '.join(KEYS)}")
    stored = setting.kind.parse(key, value.strip(), Installed(engines, recognisers, turn_models))
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
    new = _current_form(copy.deepcopy(doc), setting.path[:1])
    *sections, field = setting.path
    target = new
    for section in sections:
        if not isinstance(target.get(section), dict):
            target[section] = {}
        target = target[section]
    target[field] = stored
    return new


def format_document(doc: dict[str, Any]) -> str:
    """The file text for `doc`: pretty-printed with a 2-space indent and a final newline."""
    return json.dumps(json_text.encodable(doc), indent=2, ensure_ascii=False) + "\n"


# Showing ---------------------------------------------------------------------------------


def describe(settings: Settings) -> list[tuple[str, str]]:
    """Each key with its effective value, as `assist config KEY VALUE` would take it."""
    return [(key.name, key.kind.show(key.value_in(settings))) for key in SETTINGS]


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


def engine_voice(voice: VoiceChoices, *, designs_voices: bool, stand_in: bool) -> EngineVoice:
    """What of the `voice` settings an engine takes, by what it can do (`EngineSpec`).

    A stand-in (the fallback, or an engine other than the settings' chosen for one command)
    takes neither the speaker, since a voice name belongs to one engine and another would
    refuse to load with it, nor, unless it designs voices, the style. Only an engine that
    designs voices takes a reference, or else a description with its cue.
    """
    designed = designs_voices
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
