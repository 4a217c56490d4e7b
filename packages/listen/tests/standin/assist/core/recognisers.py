"""A stand-in for assist.core.recognisers (branch listen-core) until it lands on main: the
names assist-listen uses, as that branch defines them. Put on the path by conftest.py only
when the real module is missing."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs
import pluggy
from assist.core.plugins import PluginKind

GROUP = "assist.stt"
hookspec = pluggy.HookspecMarker(GROUP)
hookimpl = pluggy.HookimplMarker(GROUP)


@attrs.frozen
class Recognised:
    text: str
    confidence: float


@attrs.frozen
class RecogniserOptions:
    model: str | None = None
    cache_root: str | None = None
    threads: int | None = None


@attrs.frozen
class RecogniserSpec:
    name: str
    package: str
    build: Callable[[RecogniserOptions], Any]
    needs: str = ""
    memory_mb: int = 0
    rank: int = 0
    default_model: str = ""
    models: tuple[str, ...] = ()
    check: Callable[[], str | None] = attrs.field(default=lambda: None)
    ready_offline: Callable[[RecogniserOptions], bool] = attrs.field(default=lambda options: True)


class RecogniserHooks:
    @hookspec
    def assist_stt_engines(self, register: Callable[[RecogniserSpec], None]) -> None: ...


RECOGNISERS = PluginKind(
    group=GROUP,
    hooks=RecogniserHooks,
    hook="assist_stt_engines",
    spec_type=RecogniserSpec,
    allow_variable="ASSIST_STT",
    block_variable="ASSIST_STT_BLOCK",
    noun="recogniser",
)


def choose_recogniser(
    configured: str | None, available: Mapping[str, RecogniserSpec]
) -> str | None:
    if configured and configured != "auto":
        return configured
    if not available:
        return None
    return min(available.values(), key=lambda spec: (-spec.rank, spec.name)).name
