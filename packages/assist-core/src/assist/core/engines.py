"""The engine contract: what a voice engine is, how packages offer engines, which one runs.

An engine package registers itself through the entry-point group `assist.voices`
with a registrar hook, `assist_voice_engines(register)` that calls
`register(EngineSpec(...))`; `assist.core.plugins` loads the group, one plugin at a time.
The heavy TTS library is imported only inside `EngineSpec.build`.

The auto choice (behaviour.md 9.1) is pure: the memory figure and the available
specs are passed in, and it ranks them by what each declares, so a third-party engine
takes part exactly as ours do.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from typing import Any, Protocol, runtime_checkable

import attrs
import pluggy
from assist.core import environment
from assist.core.plugins import PluginKind

GROUP = "assist.voices"
"""Entry-point group and pluggy project name for engine plugins."""

ENGINE_PACKAGES: dict[str, str] = {
    "qwen3-tts": "assist-voice-qwen3",
    "supertonic3": "assist-voice-supertonic",
    "kokoro": "assist-voice-kokoro",
    "piper": "assist-voice-piper",
    "espeak": "assist-voice-espeak",
}
"""The engines we ship and the distribution of each (behaviour.md 8.4), to name what to
install; any other engine an installed plugin registers is just as usable."""
PACKAGE_PLATFORMS: dict[str, str] = {"assist-voice-qwen3": "darwin"}
"""Those of our distributions that run on one platform only (MLX needs Apple silicon), so
another platform is never told to install them."""

GIB = 2**30

ALLOW_VARIABLE = environment.VOICES.name
BLOCK_VARIABLE = environment.VOICES_BLOCK.name

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

    The auto choice ranks engines by what they declare (behaviour.md 9.1): `rank`, how rich
    the delivery is (higher first); `auto_memory`, the total installed memory in bytes from
    which auto may take it before poorer engines; `fallback`, whether it starts offline and
    fast enough to be the automatic fallback (9.4). `designs_voices`: the engine makes a voice
    of its own from the settings (a reference recording to clone, else a description with its
    cue, behaviour 8.6), and takes the style even when it stands in for another engine.
    """

    name: str
    package: str
    build: Callable[[VoiceOptions], Engine]
    needs: str = ""
    memory_mb: int = 0
    check: Callable[[], str | None] = attrs.field(default=lambda: None)
    ready_offline: Callable[[VoiceOptions], bool] = attrs.field(default=lambda options: True)
    rank: int = 0
    auto_memory: int = 0
    fallback: bool = False
    designs_voices: bool = False


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


class Ranked(Protocol):
    """What the auto choice reads of an engine (`EngineSpec` fits)."""

    @property
    def name(self) -> str: ...
    @property
    def rank(self) -> int: ...
    @property
    def auto_memory(self) -> int: ...
    @property
    def fallback(self) -> bool: ...


def auto_order(total_memory: int, specs: Iterable[Ranked]) -> tuple[str, ...]:
    """The ladder for this much installed memory (bytes; 0 = unknown): the engines the memory
    affords, richest first, then the others, lightest first. For the engines we ship this is
    the memory table's engine, down the ladder from it, then up (behaviour.md 9.1)."""
    ranked = list(specs)
    affordable = [spec for spec in ranked if spec.auto_memory <= total_memory]
    too_rich = [spec for spec in ranked if spec.auto_memory > total_memory]
    affordable.sort(key=lambda spec: (-spec.rank, spec.name))
    too_rich.sort(key=lambda spec: (spec.auto_memory, spec.rank, spec.name))
    return tuple(spec.name for spec in affordable + too_rich)


def choose_engine(
    configured: str | None,
    total_memory: int,
    available: Mapping[str, Ranked],
    ready_offline: Collection[str] | None = None,
) -> str | None:
    """The engine to run: a configured one always wins; else the first available engine of
    the ladder. With `ready_offline` given (machines that cannot run the memory table's
    engines well, such as anything but macOS), an available engine that loads without a
    download is preferred. None means nothing can speak."""
    if configured:
        return configured
    order = auto_order(total_memory, available.values())
    if ready_offline is not None:
        for name in order:
            if name in ready_offline:
                return name
    return order[0] if order else None


def choose_fallback(
    setting: str | None, chosen: str, available: Mapping[str, Ranked]
) -> str | None:
    """The engine to switch to once when `chosen` fails (behaviour.md 9.4).

    `setting` is `voice.fallback`: None = automatic (the richest available engine that
    declares itself a fallback and is not the chosen one: piper, then espeak, of ours),
    "none" = no fallback, else that engine name."""
    if setting == "none":
        return None
    if setting:
        return setting if setting != chosen else None
    fallbacks = [spec for spec in available.values() if spec.fallback and spec.name != chosen]
    fallbacks.sort(key=lambda spec: (-spec.rank, spec.name))
    return fallbacks[0].name if fallbacks else None
