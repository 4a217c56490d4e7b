"""Which engine the voice helper runs and the command line it is started with (behaviour 9.1, 9.2).

The engine for this machine comes from `engine_choice` (the pure choice in `assist.core.engines`
fed with the installed plugins and the machine's memory); this module adds the fallback, the
helper's arguments in their order, and where a relative designed-voice folder lives. The helper
is the `assist-voice` console script beside the running interpreter, so it sees the same
installed engines as the server.
"""

from __future__ import annotations

import importlib.util
import os
import shlex
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from assist.app.engines import choose_here
from assist.app.logs import log
from assist.core import environment
from assist.core.engines import (
    ENGINE_PACKAGES,
    PACKAGE_PLATFORMS,
    EngineSpec,
    VoiceOptions,
    choose_fallback,
)
from assist.core.files import VOICE_JSON
from assist.core.plugins import Registry
from assist.core.settings import (
    VoiceChoices,
    engine_voice,
    helper_reference,
    reference_candidates,
)

PROGRAM = "assist-voice"
VOICE_COMMAND_VARIABLE = environment.VOICE_COMMAND.name
"""Replaces the command line that starts the voice helper (see `helper_program`)."""
"""The helper's console script, looked for beside the running interpreter."""
MODULE = "assist.mcp.voice.helper"
"""The helper's module, run with `-m` when the console script is not installed there."""
QWEN_PACKAGE = "assist.voice.qwen3"
"""The package whose `voices` folder may ship designed voices for a relative reference."""


@dataclass(frozen=True)
class EnginePlan:
    """The engine to run (None: nothing can speak here) and the one to switch to once."""

    engine: str | None
    fallback: str | None


def helper_program(
    executable: str | None = None, environ: Mapping[str, str] | None = None
) -> list[str]:
    """The command that starts the helper: `ASSIST_VOICE_COMMAND` when it is set, else the
    `assist-voice` beside the running interpreter (or `python -m` its module).

    `ASSIST_VOICE_COMMAND` is an option for a helper kept elsewhere (a virtual environment that
    holds the engines, a wrapper that lowers its priority) and for the tests' fake helpers. It
    is split as a shell would split it; the helper's own arguments follow it. A value that
    cannot be split is reported on stderr and the default is used."""
    command = (environ or {}).get(VOICE_COMMAND_VARIABLE, "").strip()
    if command:
        try:
            return shlex.split(command)
        except ValueError as error:
            log.warning(
                f"{VOICE_COMMAND_VARIABLE}={command!r} cannot be split ({error}); "
                "starting the assist-voice installed here"
            )
    python = executable or sys.executable
    folder = Path(python).parent
    for name in (PROGRAM, f"{PROGRAM}.exe"):
        if (folder / name).is_file():
            return [str(folder / name)]
    return [python, "-m", MODULE]


def engine_packages(platform: str = sys.platform) -> list[str]:
    """The engine packages worth installing on this platform (some run on one only)."""
    return [
        package
        for package in ENGINE_PACKAGES.values()
        if PACKAGE_PLATFORMS.get(package, platform) == platform
    ]


def plan_engines(
    voice: VoiceChoices,
    registry: Registry[EngineSpec],
    *,
    memory: int | None = None,
    cache_root: str | None = None,
    platform: str = sys.platform,
) -> EnginePlan:
    """The chosen engine and its fallback, from the settings and what is installed."""
    options = VoiceOptions(cache_root=cache_root)
    engine = choose_here(voice.engine, registry, options, memory=memory, platform=platform)
    if engine is None:
        return EnginePlan(None, None)
    return EnginePlan(engine, choose_fallback(voice.fallback, engine, registry.available()))


def why_not_here(engine: str, registry: Registry[EngineSpec]) -> str | None:
    """Why `engine` cannot run on this machine, or None when it can."""
    if engine not in registry.specs:
        package = ENGINE_PACKAGES.get(engine, "its package")
        return (
            f"no installed package offers the {engine} engine; install {package} "
            "(`assist engines` lists what is installed)"
        )
    return registry.reasons()[engine]


def helper_arguments(
    engine: str,
    voice: VoiceChoices,
    *,
    designs_voices: bool = False,
    fallback: bool = False,
    config_dir: Path | None = None,
    no_play: bool = False,
    save_dir: str | os.PathLike[str] | None = None,
    own_lines: str | None = None,
) -> list[str]:
    """The helper's arguments in the order of behaviour 9.2, with what of the settings the
    engine takes (`assist.core.settings.engine_voice`: a fallback is a stand-in), as its
    spec's `designs_voices` says; `own_lines` names the assistant whose conversation lines
    the helper renders ahead (16.2)."""
    taken = engine_voice(voice, designs_voices=designs_voices, stand_in=fallback)
    arguments = ["--engine", engine]
    if taken.speaker:
        arguments += ["--voice", taken.speaker]
    if taken.style:
        arguments += ["--style", taken.style]
    if taken.reference:
        reference = resolve_reference(
            taken.reference, helper_dir=voice.helper_dir, config_dir=config_dir
        )
        arguments += ["--reference", reference]
    elif taken.description:
        arguments += ["--description", taken.description]
        if taken.cue:
            arguments += ["--cue", taken.cue]
    if no_play:
        arguments.append("--no-play")
    if save_dir is not None:
        arguments += ["--save-dir", os.fspath(save_dir)]
    if own_lines:
        arguments += ["--own-lines", own_lines]
    return arguments


def resolve_reference(
    reference: str,
    *,
    helper_dir: str | None,
    config_dir: Path | None,
    shipped: Path | None = None,
) -> str:
    """A designed-voice folder as the helper should get it (behaviour 2.3), by the core's
    rule (`assist.core.settings.reference_candidates`): a relative `helper_dir` is taken
    from the config file's folder; `~` is expanded here first."""
    shipped = shipped if shipped is not None else shipped_voices()
    candidates = reference_candidates(
        os.path.expanduser(reference),
        os.path.expanduser(helper_dir) if helper_dir else None,
        str(shipped) if shipped is not None else None,
        str(config_dir) if config_dir is not None else None,
    )
    return helper_reference(candidates, lambda folder: (Path(folder) / VOICE_JSON).is_file())


def shipped_voices() -> Path | None:
    """The `voices` folder inside the installed qwen3-tts package, found without importing it."""
    try:
        spec = importlib.util.find_spec(QWEN_PACKAGE)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "voices"
