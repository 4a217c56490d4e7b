"""The recogniser contract: what a speech recogniser is, how packages offer one, which runs.

Recognisers are plugins as voices are (behaviour.md 12.4): a package registers through the
entry-point group `assist.stt` with a registrar hook, `assist_stt_engines(register)`, that
calls `register(RecogniserSpec(...))`; `assist.core.plugins` loads the group one plugin at a
time (`Registry(RECOGNISERS)`), so one broken package never takes the others down. The
recognition library is imported only inside `RecogniserSpec.build`, so listing recognisers
(`assist engines`, `assist doctor`) stays cheap.

The auto choice is pure: the most preferred available recogniser by its `rank`, so Whisper
(accurate) is chosen before PocketSphinx (small) whenever both are installed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

import attrs
import pluggy
from assist.core import environment
from assist.core.plugins import PluginKind

GROUP = "assist.stt"
"""Entry-point group and pluggy project name for recogniser plugins."""

RECOGNISER_PACKAGES: dict[str, str] = {
    "whisper": "assist-stt-whisper",
    "pocketsphinx": "assist-stt-pocketsphinx",
}
"""The distribution that offers each recogniser we ship, to name what to install."""

ALLOW_VARIABLE = environment.STT.name
BLOCK_VARIABLE = environment.STT_BLOCK.name

AUTO = "auto"
"""The `listen.stt` value (and `--stt` argument) that leaves the choice to `rank`."""

SAMPLE_RATE = 16_000
"""Every recogniser is fed float32 mono samples at this rate: the VAD's and Whisper's."""

hookspec = pluggy.HookspecMarker(GROUP)
hookimpl = pluggy.HookimplMarker(GROUP)


def _confidence(instance: object, attribute: attrs.Attribute[Any], value: float | None) -> None:
    if value is not None and not 0.0 <= value <= 1.0:
        raise ValueError(f"{attribute.name} must be between 0 and 1, got {value}")


@attrs.frozen
class Recognised:
    """What a recogniser heard in one turn: its text ("" for none) and a confidence, 0 to 1,
    written to `raw.jsonl` beside the text. `last_word_confidence`, 0 to 1, is how sure it was
    of the text's last word, where it can say (None where it cannot): a sentence's end on a
    word it doubts is not trusted as the end of a turn (16.1)."""

    text: str
    confidence: float = attrs.field(validator=_confidence)
    last_word_confidence: float | None = attrs.field(default=None, validator=_confidence)


@runtime_checkable
class Recogniser(Protocol):
    """A loaded recogniser. `transcribe` takes one turn as a float32 mono numpy array at
    16 kHz (assist.core never imports numpy) and returns what was said; silence gives
    empty text. `prompt` is text the speech is likely to hold (a peek's backchannels, 16.3),
    a hint a recogniser may ignore. It is called from one thread at a time.

    A recogniser that ends every sentence it hears finished with ".", "?" or "!" says so with
    a class attribute `punctuates = True` (optional, False if absent): a turn's words without
    one then count as broken off (`assist.core.turn_words`, 16.1). A recogniser may also have
    `peek(samples, prompt)`, answered like `transcribe` but for the fraction of a second after
    a loud onset (16.3), where being quick matters more than being thorough: with it the
    listener's looks never wait for a slow decoding (optional; `transcribe` is used without)."""

    name: str
    model: str
    """The model it runs, as `session.json`'s `model` names it."""

    def transcribe(self, samples: Any, prompt: str = "") -> Recognised: ...

    def close(self) -> None: ...


@attrs.frozen
class RecogniserOptions:
    """What `assist listen` says about the recogniser: the model (None: the spec's default),
    where downloaded models are kept, and how many CPU threads it may use (None: its own)."""

    model: str | None = None
    cache_root: str | None = None
    threads: int | None = None


@attrs.frozen
class RecogniserSpec:
    """One recogniser a package offers.

    `check` returns why it cannot run on this machine (a missing library), or None; it must
    be cheap and must not import the recognition library. `ready_offline` says whether the
    model the options name can load now without a download. `rank` orders the auto choice
    (higher first); `models` lists the model names it accepts, `default_model` first.
    """

    name: str
    package: str
    build: Callable[[RecogniserOptions], Recogniser]
    needs: str = ""
    memory_mb: int = 0
    rank: int = 0
    default_model: str = ""
    models: tuple[str, ...] = ()
    check: Callable[[], str | None] = attrs.field(default=lambda: None)
    ready_offline: Callable[[RecogniserOptions], bool] = attrs.field(default=lambda options: True)


class RecogniserHooks:
    """The hook a recogniser plugin implements."""

    @hookspec
    def assist_stt_engines(self, register: Callable[[RecogniserSpec], None]) -> None:
        """Call `register(RecogniserSpec(...))` once for each recogniser this plugin offers."""


RECOGNISERS = PluginKind(
    group=GROUP,
    hooks=RecogniserHooks,
    hook="assist_stt_engines",
    spec_type=RecogniserSpec,
    allow_variable=ALLOW_VARIABLE,
    block_variable=BLOCK_VARIABLE,
    noun="recogniser",
    known_packages=RECOGNISER_PACKAGES,
)
"""The recogniser plugin group; `Registry(RECOGNISERS)` holds the installed ones."""


def choose_recogniser(
    configured: str | None, available: Mapping[str, RecogniserSpec]
) -> str | None:
    """The recogniser to run: a configured name always wins (None, "" and "auto" leave the
    choice open); else the available one of highest rank, by name among equals. None means
    nothing can recognise."""
    if configured and configured != AUTO:
        return configured
    if not available:
        return None
    return min(available.values(), key=lambda spec: (-spec.rank, spec.name)).name
