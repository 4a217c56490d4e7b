"""Choosing and building the recogniser a session uses, from the `assist.stt` plugins.

The recognisers are plugins of the entry-point group `assist.stt`, loaded by the same code as
the voices (`assist.app.engines.load_plugins`, each entry point in its own try/except);
`--stt` or `listen.stt` names one, else the auto choice of `assist.core.recognisers` picks the
best available here. The recogniser is built before the session folder is made, so an
engine that cannot load leaves no empty session behind.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from assist.app.engines import load_plugins
from assist.core.recognisers import RecogniserOptions, choose_recogniser


class RecogniserError(Exception):
    """No recogniser can be built; the message says why and what to install or set."""


def build_recogniser(
    name: str | None, model: str | None, environ: Mapping[str, str] = os.environ
) -> Any:
    """The recogniser `name` (None: the auto choice) with `model` (None: its default)."""
    from assist.core.recognisers import RECOGNISERS

    registry = load_plugins(RECOGNISERS, environ)
    available = registry.available()
    broken = "".join(f"; {plugin.name} is broken: {plugin.error}" for plugin in registry.broken)
    if name is None:
        name = choose_recogniser(None, available)
        if name is None:
            raise RecogniserError(
                "no speech recogniser is installed that can run here; install one, for "
                f"example pip install 'assist-core[whisper]'{broken}"
            )
    spec = registry.specs.get(name)
    if spec is None:
        raise RecogniserError(f"{registry.unknown(name)}{broken}")
    reason = registry.reasons().get(name)
    if reason is not None:
        raise RecogniserError(f"the recogniser {name} cannot run here: {reason}")
    try:
        return spec.build(RecogniserOptions(model=model))
    except Exception as error:
        raise RecogniserError(
            f"the recogniser {name} could not load{f' the model {model}' if model else ''}: {error}"
        ) from error
