"""The config file on disk (behaviour 2): cheap re-reads, atomic writes.

Settings are re-read on every watching call and every 0.5 s poll inside a wait, so a reload
must cost a `stat` when nothing changed: the file is reparsed only when its inode, size or
mtime (in nanoseconds) differs from the last read. What the settings mean, their defaults and
per-key fallbacks, and every refusal of a write are decided by `assist.core.settings`; this
module only reads and writes bytes.

A file that is not a JSON object gives one warning line on stderr and every default, so the
assistant reads as off. Per-key warnings are printed once per change of the file, not on every
poll. A write replaces the file atomically (temp file in the same folder, then rename), keeps
every key we do not know, and refuses to overwrite a file it cannot read as a JSON object (ours:
rewriting it would lose whatever the user had in it). `assist config` is
`assist.mcp.commands.config`.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
import threading
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from assist.app.engines import installed_engines, load_plugins
from assist.app.logs import log
from assist.app.store.paths import ConfigLocation
from assist.app.turn_models import installed_turn_models
from assist.core import json_text
from assist.core.recognisers import RECOGNISERS
from assist.core.settings import (
    SettingError,
    Settings,
    format_document,
    parse_settings,
    sessions_dir_live_refusal,
    set_key,
)

SESSIONS_DIR_KEY = "sessions_dir"
"""The one key refused while a recording is live: moving the root mid-meeting loses it."""


class NotWritten(SettingError):
    """The file cannot take the key now (unreadable, not an object, or `sessions_dir` while a
    recording is live): a refusal, not a usage error."""


class ConfigFile:
    """One config file: `load()` the effective settings, `set(key, value)` one key."""

    def __init__(
        self,
        path: Path,
        *,
        engines: Collection[str] = (),
        recognisers: Collection[str] = (),
        turn_models: Collection[str] = (),
        ambient: bool = False,
    ) -> None:
        self.path = path
        self.ambient = ambient
        self.engines = engines
        """The engine names the installed plugins register: what `voice.engine` may name."""
        self.recognisers = recognisers
        """The recogniser names the installed plugins register: what `listen.stt` may name."""
        self.turn_models = turn_models
        """The turn model names the installed plugins register: what `listen.turn` may name."""
        self._seen: tuple[int, int, int] | None = None
        self._settings: Settings = Settings()
        self._problem: str | None = None
        self._loading = threading.Lock()

    @classmethod
    def at(cls, location: ConfigLocation, environ: Mapping[str, str]) -> ConfigFile:
        """The file at `location`, checked against the engines and recognisers the plugins
        installed here register (their allow and block variables from `environ` apply)."""
        return cls(
            location.path,
            engines=sorted(installed_engines(environ).specs),
            recognisers=sorted(load_plugins(RECOGNISERS, environ).specs),
            turn_models=sorted(installed_turn_models(environ).specs),
            ambient=location.ambient,
        )

    def load(self) -> Settings:
        """The effective settings, reparsing only when the file changed since the last load."""
        with self._loading:
            return self._load()

    def _load(self) -> Settings:
        try:
            with open(self.path, "rb") as file:
                facts = os.fstat(file.fileno())
                identity = (facts.st_ino, facts.st_size, facts.st_mtime_ns)
                if identity == self._seen:
                    return self._settings
                content = file.read()
        except OSError as error:
            self._seen, self._settings = None, Settings()
            problem = None if isinstance(error, FileNotFoundError) else str(error)
            if problem is not None and problem != self._problem:
                log.warning(
                    f"cannot read the config file {self.path} ({problem}); using every default"
                )
            self._problem = problem
            return self._settings
        self._seen, self._problem = identity, None
        try:
            document = json_text.parse_bytes(content)
        except json_text.Unreadable as error:
            log.warning(
                f"the config file {self.path} is not valid JSON ({error}), so every setting "
                "takes its default (the assistant is off); fix or remove the file"
            )
            self._settings = Settings()
            return self._settings
        self._settings, warnings = parse_settings(
            document,
            engines=self.engines,
            recognisers=self.recognisers,
            turn_models=self.turn_models,
        )
        for warning in warnings:
            log.warning(f"{self.path}: {warning}")
        return self._settings

    def document(self) -> dict[str, Any]:
        """The whole JSON object in the file ({} when missing); SettingError when unreadable."""
        try:
            content = self.path.read_bytes()
        except FileNotFoundError:
            return {}
        except OSError as error:
            raise NotWritten(
                f"cannot read the config file {self.path} ({error}); check its permissions"
            ) from error
        try:
            document = json_text.parse_bytes(content)
        except json_text.Unreadable as error:
            document = error
        if not isinstance(document, dict):
            raise NotWritten(
                f"the config file {self.path} is not a JSON object, so it was left untouched "
                "(writing would lose what it holds); fix it or move it away, then set the key again"
            )
        return document

    def set(self, key: str, value: str, *, live_session: str | None = None) -> None:
        """Set one key atomically, keeping unknown keys; SettingError (file untouched) if refused.

        `live_session` is the id being recorded now, if any: `sessions_dir` is refused then.
        """
        if key == SESSIONS_DIR_KEY and live_session is not None:
            raise NotWritten(sessions_dir_live_refusal(live_session))
        updated = set_key(
            self.document(),
            key,
            value,
            ambient_file=self.ambient,
            engines=self.engines,
            recognisers=self.recognisers,
            turn_models=self.turn_models,
        )
        write_atomically(self.path, format_document(updated))


def write_atomically(path: Path, text: str) -> None:
    """Replace `path` with `text` via a temp file in the same folder and a rename.

    A symlinked config file (a dotfiles manager's) is written through: its target is replaced,
    the link stays. The old file's permission bits are kept.
    """
    target = Path(os.path.realpath(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        with contextlib.suppress(FileNotFoundError):
            os.chmod(temp, stat.S_IMODE(os.stat(target).st_mode))
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
