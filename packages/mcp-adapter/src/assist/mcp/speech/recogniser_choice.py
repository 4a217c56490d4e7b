"""Which speech recogniser `assist listen` would run here, as `assist engines` and
`assist doctor` show it beside the voices (behaviour.md 12.4).

The choice is pure (`assist.core.recognisers.choose_recogniser`: a configured name wins,
else the highest rank, so whisper before pocketsphinx); this module gathers the installed
recogniser plugins (loading one imports only its registration module, never the recognition
library) and says what each can do here.
"""

from __future__ import annotations

from collections.abc import Mapping

from assist.app.engines import load_plugins
from assist.core.plugins import Registry
from assist.core.recognisers import (
    RECOGNISERS,
    RecogniserOptions,
    RecogniserSpec,
    choose_recogniser,
)
from assist.mcp.speech.engine_choice import describe_plugins

INDENT = "  "
FIRST_CHOICE_PACKAGE = "assist-stt-whisper"
"""What to install when no recogniser is installed: whisper needs no download for tiny.en."""


def recognisers(environ: Mapping[str, str]) -> Registry[RecogniserSpec]:
    """The installed recogniser plugins (ASSIST_STT and ASSIST_STT_BLOCK apply)."""
    return load_plugins(RECOGNISERS, environ)


def ready_offline(spec: RecogniserSpec, options: RecogniserOptions) -> bool:
    """Whether the recogniser's default model loads now without a download (a plugin that
    fails telling counts as needing one)."""
    try:
        return bool(spec.ready_offline(options))
    except Exception:
        return False


def describe_recognisers(
    registry: Registry[RecogniserSpec], options: RecogniserOptions, configured: str | None = None
) -> list[str]:
    """A `recognisers:` heading, one indented line per recogniser (with its default model),
    the broken plugins, and the one `assist listen` would run: `configured` (`listen.stt`)
    when set, else auto's choice."""
    nothing = (
        "no speech recognisers are installed (assist listen needs one); install one, for "
        f"example {FIRST_CHOICE_PACKAGE}"
    )
    lines = describe_plugins(
        registry,
        lambda spec: ready_offline(spec, options),
        nothing,
        lambda spec: f" (model {spec.default_model})" if spec.default_model else "",
    )
    chosen = choose_recogniser(configured, registry.available())
    if chosen is None:
        choice = []
    elif chosen == configured:
        choice = [f"listen.stt: {chosen} (set in the config file)"]
    else:
        choice = [f"auto: {chosen} (the most accurate installed)"]
    return ["recognisers:", *(INDENT + line for line in [*lines, *choice])]
