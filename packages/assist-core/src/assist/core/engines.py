"""The engine contract: what a voice engine is, how packages offer engines, which one runs.

An engine package registers itself through the entry-point group `assist.voices`
with a registrar hook, `assist_voice_engines(register)` that calls
`register(EngineSpec(...))`; `assist.core.plugins` loads the group, one plugin at a time.
The heavy TTS library is imported only inside `EngineSpec.build`.

The auto choice (behaviour.md 9.1) is pure: the memory figure and the available
set are passed in.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from typing import Any, Protocol, runtime_checkable

import attrs
import pluggy
from assist.core.plugins import PluginKind

GROUP = "assist.voices"
"""Entry-point group and pluggy project name for engine plugins."""

ENGINE_NAMES: tuple[str, ...] = ("qwen3-tts", "supertonic3", "kokoro", "piper", "espeak")
"""Every engine name, in the order of the auto ladder: richest first, last resort last."""

ENGINE_PACKAGES: dict[str, str] = {
    "qwen3-tts": "assist-voice-qwen3",
    "supertonic3": "assist-voice-supertonic",
    "kokoro": "assist-voice-kokoro",
    "piper": "assist-voice-piper",
    "espeak": "assist-voice-espeak",
}
"""The distribution that offers each engine (behaviour.md 8.4), to name what to install."""

GIB = 2**30
MEMORY_TIERS: tuple[tuple[int, str], ...] = (
    (32 * GIB, "qwen3-tts"),  # the richest delivery; ~2.7 GB fits easily
    (16 * GIB, "supertonic3"),  # laugh and sigh tags for ~0.6 GB
    (0, "kokoro"),  # natural voice in the least memory, ~0.4 GB; also "unknown" (0)
)
"""Total installed memory to engine. Total, never free: a machine's voice must not change
from meeting to meeting with whatever else happens to be running."""

AUTOMATIC_FALLBACKS: tuple[str, ...] = ("piper", "espeak")
"""Engines tried, in order, when `voice.fallback` is unset: both start offline and fast."""

ALLOW_VARIABLE = "ASSIST_VOICES"
"""Comma-separated entry-point names: when set, only these engine plugins are loaded."""
BLOCK_VARIABLE = "ASSIST_VOICES_BLOCK"
"""Comma-separated entry-point names that are never loaded."""

hookspec = pluggy.HookspecMarker(GROUP)
hookimpl = pluggy.HookimplMarker(GROUP)


@runtime_checkable
class Engine(Protocol):
    """A loaded voice. `stream` yields float32 mono numpy chunks at `sample_rate`.

    Engines that do not stream split the text into sentences (`assist.core.sentences`)
    and yield one chunk per sentence, so the player sounds one while the next is made.
    `stream` is always called on the thread that built the engine.
    """

    name: str
    sample_rate: int

    def stream(self, text: str, tone: str) -> Iterator[Any]: ...

    def close(self) -> None: ...


@attrs.frozen
class VoiceOptions:
    """What the helper's command line says about the voice, plus where caches live."""

    voice: str | None = None
    style: str | None = None
    reference: str | None = None
    description: str | None = None
    cue: str | None = None
    cache_root: str | None = None


@attrs.frozen
class EngineSpec:
    """One engine a package offers.

    `check` returns why the engine cannot run on this machine (platform, missing
    library), or None; it must be cheap and must not import the heavy library.
    `ready_offline` says whether the engine can load now without a download.
    """

    name: str
    package: str
    build: Callable[[VoiceOptions], Engine]
    needs: str = ""
    memory_mb: int = 0
    check: Callable[[], str | None] = attrs.field(default=lambda: None)
    ready_offline: Callable[[VoiceOptions], bool] = attrs.field(default=lambda options: True)


class EngineHooks:
    """The hook an engine plugin implements."""

    @hookspec
    def assist_voice_engines(self, register: Callable[[EngineSpec], None]) -> None:
        """Call `register(EngineSpec(...))` once for each engine this plugin offers."""


VOICES = PluginKind(
    group=GROUP,
    hooks=EngineHooks,
    hook="assist_voice_engines",
    spec_type=EngineSpec,
    allow_variable=ALLOW_VARIABLE,
    block_variable=BLOCK_VARIABLE,
    noun="voice engine",
    known_packages=ENGINE_PACKAGES,
)
"""The voice plugin group; `Registry(VOICES)` holds the installed engines."""


def tier_engine(total_memory: int) -> str:
    """The engine the memory table gives for this much installed memory (bytes; 0 = unknown)."""
    for floor, engine in MEMORY_TIERS:
        if total_memory >= floor:
            return engine
    return MEMORY_TIERS[-1][1]


def auto_order(total_memory: int) -> tuple[str, ...]:
    """The ladder walked from the memory tier: down from it, then up from it."""
    start = ENGINE_NAMES.index(tier_engine(total_memory))
    return ENGINE_NAMES[start:] + tuple(reversed(ENGINE_NAMES[:start]))


def choose_engine(
    configured: str | None,
    total_memory: int,
    available: Collection[str],
    ready_offline: Collection[str] | None = None,
) -> str | None:
    """The engine to run: a configured one always wins; else the memory table's, walked
    along the ladder to the first available. With `ready_offline` given (machines that
    cannot run the memory table's engines well, such as anything but macOS), an available
    engine that loads without a download is preferred. None means nothing can speak."""
    if configured:
        return configured
    order = auto_order(total_memory)
    if ready_offline is not None:
        for name in order:
            if name in available and name in ready_offline:
                return name
    for name in order:
        if name in available:
            return name
    return None


def choose_fallback(setting: str | None, chosen: str, available: Collection[str]) -> str | None:
    """The engine to switch to once when `chosen` fails (behaviour.md 9.4).

    `setting` is `voice.fallback`: None = automatic (first available of piper, espeak
    that is not the chosen one), "none" = no fallback, else that engine name."""
    if setting == "none":
        return None
    if setting:
        return setting if setting != chosen else None
    for name in AUTOMATIC_FALLBACKS:
        if name != chosen and name in available:
            return name
    return None
