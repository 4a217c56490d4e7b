"""The engine contract: what a voice engine is, how packages offer engines, which one runs.

An engine package registers itself through the entry-point group `assist.voices`
with a registrar hook, `assist_voice_engines(register)`, in the manner of
simonw/llm: the hook calls `register(EngineSpec(...))`, and importing a plugin
does nothing by itself. Each entry point is loaded inside its own try/except, so one broken
package is reported and the others still work. The heavy TTS library is imported
only inside `EngineSpec.build`.

The auto choice (behaviour.md 9.1) is pure: the memory figure and the available
set are passed in.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from typing import Any, Protocol, runtime_checkable

import attrs
import pluggy

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


class UnknownEngine(LookupError):
    """An engine name that no installed package registers."""


@attrs.frozen
class BrokenPlugin:
    """An entry point that failed to load or register, with the error to show."""

    name: str
    error: str


class EntryPointLike(Protocol):
    name: str

    def load(self) -> Any: ...


@attrs.define
class EngineRegistry:
    """The engines the installed plugins offer, and the plugins that broke on the way."""

    specs: dict[str, EngineSpec] = attrs.field(factory=dict)
    broken: list[BrokenPlugin] = attrs.field(factory=list)
    plugins: dict[str, Any] = attrs.field(factory=dict)

    def add_plugin(self, name: str, plugin: Any) -> None:
        """Register one plugin module or object; a failure is recorded, never raised."""
        manager = pluggy.PluginManager(GROUP)
        manager.add_hookspecs(EngineHooks)
        offered: list[EngineSpec] = []
        try:
            manager.register(plugin, name=name)
            manager.check_pending()
            manager.hook.assist_voice_engines(register=offered.append)
        except Exception as error:  # a broken plugin must not take the others down
            self.broken.append(BrokenPlugin(name, f"{type(error).__name__}: {error}"))
            return
        self.plugins[name] = plugin
        for spec in offered:
            if not isinstance(spec, EngineSpec):
                self.broken.append(BrokenPlugin(name, f"registered {spec!r}, not an EngineSpec"))
            elif spec.name in self.specs:
                duplicate = f"engine {spec.name!r} is already registered"
                self.broken.append(BrokenPlugin(name, duplicate))
            else:
                self.specs[spec.name] = spec

    def load(self, entry_points: Iterable[EntryPointLike], environ: Mapping[str, str]) -> None:
        """Load each entry point in its own try/except, honouring the allow and block lists."""
        allowed = _names(environ.get(ALLOW_VARIABLE))
        blocked = _names(environ.get(BLOCK_VARIABLE))
        for entry_point in entry_points:
            if entry_point.name in blocked or (allowed and entry_point.name not in allowed):
                continue
            try:
                plugin = entry_point.load()
            except Exception as error:
                self.broken.append(
                    BrokenPlugin(entry_point.name, f"{type(error).__name__}: {error}")
                )
                continue
            self.add_plugin(entry_point.name, plugin)

    def available(self) -> dict[str, EngineSpec]:
        """Registered engines whose `check` finds nothing in the way on this machine."""
        return {name: spec for name, spec in self.specs.items() if _reason(spec) is None}

    def reasons(self) -> dict[str, str | None]:
        """For each registered engine, why it cannot run here (None when it can)."""
        return {name: _reason(spec) for name, spec in self.specs.items()}

    def spec(self, name: str) -> EngineSpec:
        """The spec for `name`, or UnknownEngine naming it and the engines that exist."""
        try:
            return self.specs[name]
        except KeyError:
            installed = ", ".join(sorted(self.specs)) or "none"
            if name in ENGINE_PACKAGES:
                problem = f"voice engine {name!r} is not installed ({ENGINE_PACKAGES[name]})"
            else:
                problem = f"unknown voice engine {name!r} (known: {', '.join(ENGINE_NAMES)})"
            raise UnknownEngine(f"{problem}; the installed engines are: {installed}") from None


def _reason(spec: EngineSpec) -> str | None:
    try:
        return spec.check()
    except Exception as error:
        return f"{type(error).__name__}: {error}"


def _names(value: str | None) -> set[str]:
    return {part.strip() for part in (value or "").split(",") if part.strip()}


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
