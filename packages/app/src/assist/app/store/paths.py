"""Where assist's files live: the config file, the sessions root, the voice cache (behaviour 1.1).

Each place is the first of an ordered list that applies, so `assist` can share Ambient's files
on a Mac where Ambient records and stand alone anywhere else. An environment variable set to
the empty string counts as unset (ours), so `ASSIST_HOME= assist mcp` falls through to the next
rule instead of meaning the current folder.

`environ` is passed in for the assist and Ambient variables; the home folder comes from `HOME`
in it when set, and platformdirs reads the process environment as usual.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import attrs
import platformdirs
from assist.app.cache import VOICE_CACHE_VARIABLE
from assist.core import environment
from assist.core.settings import Settings

APP = "assist"
"""The platformdirs application name for our own config, data and cache folders."""

CONFIG_VARIABLES = (environment.CONFIG.name, environment.AMBIENT_CONFIG.name)
"""Config file overrides, ours first; the second is Ambient's own."""
HOME_VARIABLES = (environment.HOME.name, environment.AMBIENT_HOME.name)
"""Sessions root overrides, ours first; the second is Ambient's own."""

AMBIENT_CONFIG_UNDER_HOME = Path("Library", "Application Support", "Ambient", "config.json")
"""Ambient's default config file, relative to the home folder (macOS only in practice)."""
AMBIENT_SESSIONS_UNDER_HOME = Path("Documents", "Ambient")
"""Ambient's default sessions root, relative to the home folder."""
CONFIG_NAME = "config.json"
SESSIONS_NAME = "sessions"
VOICE_NAME = "voice"


@attrs.frozen
class ConfigLocation:
    """The config file in use; `ambient` when it is Ambient's (AMBIENT_CONFIG or its default)."""

    path: Path
    ambient: bool


def home(environ: Mapping[str, str]) -> Path:
    """The user's home folder: `HOME` from `environ` when set, else the system's idea of it."""
    value = environ.get("HOME")
    return Path(value) if value else Path.home()


def ambient_default_config(environ: Mapping[str, str]) -> Path:
    """`~/Library/Application Support/Ambient/config.json`, whether or not it exists."""
    return home(environ) / AMBIENT_CONFIG_UNDER_HOME


def config_path(environ: Mapping[str, str]) -> ConfigLocation:
    """The config file: ASSIST_CONFIG, AMBIENT_CONFIG, Ambient's default if present, ours."""
    ours = _variable(environ, CONFIG_VARIABLES[0])
    ambient_variable = _variable(environ, CONFIG_VARIABLES[1])
    ambient_default = ambient_default_config(environ)
    if ours is not None:
        chosen = ours
    elif ambient_variable is not None:
        chosen = ambient_variable
    elif ambient_default.is_file():
        chosen = _absolute(ambient_default)
    else:
        chosen = Path(platformdirs.user_config_dir(APP)) / CONFIG_NAME
    ambients = [path for path in (ambient_variable, ambient_default) if path is not None]
    return ConfigLocation(chosen, any(_same_key(chosen) == _same_key(a) for a in ambients))


def sessions_root(environ: Mapping[str, str], settings: Settings, config: ConfigLocation) -> Path:
    """The sessions root: ASSIST_HOME, AMBIENT_HOME, sessions_dir, ~/Documents/Ambient, ours.

    A relative `sessions_dir` is taken against the config file's folder (ours), so the same
    file means the same folder whatever the current directory is.
    """
    for name in HOME_VARIABLES:
        chosen = _variable(environ, name)
        if chosen is not None:
            return chosen
    if settings.sessions_dir:
        configured = _expand(settings.sessions_dir, environ)
        if not configured.is_absolute():
            configured = config.path.parent / configured
        return _absolute(configured)
    ambient = home(environ) / AMBIENT_SESSIONS_UNDER_HOME
    if ambient.is_dir():
        return _absolute(ambient)
    return Path(platformdirs.user_data_dir(APP)) / SESSIONS_NAME


def voice_cache_root(environ: Mapping[str, str]) -> Path:
    """ASSIST_VOICE_CACHE (a leading `~` expanded), else platformdirs' user cache folder +
    `/voice`. Ambient's cache is never used: its packs come from another loader. The helper is
    always given this root, so an engine's own default (`assist.app.cache`) applies only when
    it is built directly."""
    chosen = _variable(environ, VOICE_CACHE_VARIABLE)
    if chosen is not None:
        return chosen
    return Path(platformdirs.user_cache_dir(APP)) / VOICE_NAME


def beside_config(config: ConfigLocation) -> Path:
    """The config file's folder, created if missing (ours): heartbeat and lock live here."""
    folder = config.path.parent
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _variable(environ: Mapping[str, str], name: str) -> Path | None:
    value = environ.get(name)
    return _absolute(_expand(value, environ)) if value else None


def _expand(value: str, environ: Mapping[str, str]) -> Path:
    """A leading `~` (alone or followed by a separator) becomes the home folder."""
    if value == "~" or value.startswith(("~/", "~" + os.sep)):
        return home(environ) / value[2:]
    return Path(value)


def _absolute(path: Path) -> Path:
    return Path(os.path.abspath(path))


def _same_key(path: Path) -> Path:
    """What two spellings of one file compare as: absolute, symlinks in folders resolved."""
    return _absolute(path).resolve(strict=False)
