"""The voice of a command typed at a terminal (`assist say`, `assist doctor --prepare`).

It is the server's voice, built the same way from the same places: the config file and voice
cache of behaviour 1.1, the `voice` settings, the installed engine plugins, the fallback and
the start-up limit (`ASSIST_VOICE_READY_WITHIN`). What one of these commands does with the
helper is therefore what a watch will do, downloads and designed voices included.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from assist.app.engines import load_plugins
from assist.app.store.config import ConfigFile
from assist.app.store.paths import ConfigLocation, config_path, voice_cache_root
from assist.core.engines import VOICES, EngineSpec
from assist.core.plugins import Registry
from assist.core.settings import Settings, VoiceChoices
from assist.mcp.speech.supervisor import Voice


class Machine:
    """Where this machine's files are and what its config file says, read once."""

    def __init__(self, environ: Mapping[str, str]) -> None:
        self.environ = environ
        self.location: ConfigLocation = config_path(environ)
        self.registry: Registry[EngineSpec] = load_plugins(VOICES, environ)
        self.settings: Settings = ConfigFile.at(self.location, environ).load()
        self.cache_root: Path = voice_cache_root(environ)

    def voice(
        self,
        choices: VoiceChoices | None = None,
        *,
        no_play: bool,
        save_dir: str | os.PathLike[str] | None = None,
    ) -> Voice:
        """A voice as a watch would build it; `choices` replaces the `voice` settings."""
        return Voice(
            self.settings.voice if choices is None else choices,
            no_play=no_play,
            save_dir=save_dir,
            config_dir=self.location.path.parent,
            cache_root=str(self.cache_root),
            environ=self.environ,
            registry=self.registry,
            span="this command",
        )
