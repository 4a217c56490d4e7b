"""Which voice engine the demo runs: the best installed one that needs no download.

The demo must reach its summary on a fresh machine with no network, and quickly. Piper with
the voice its package bundles is the fit: it loads in about a second on a laptop's CPU and
needs nothing from the network. Richer engines follow in the order of the auto ladder when
they can load offline here (their weights already cached), and espeak, which always can but
sounds robotic, comes last. The chosen name is written into the demo's own config as
`voice.engine`, so the server runs exactly that engine.
"""

from __future__ import annotations

from collections.abc import Mapping

from assist.app.engines import load_plugins, ready_offline
from assist.app.store.paths import voice_cache_root
from assist.core.engines import VOICES, VoiceOptions

PREFERENCE: tuple[str, ...] = ("piper", "kokoro", "supertonic3", "qwen3-tts", "espeak")
"""Fast and natural with a bundled voice first; the robotic last resort last."""


class NoVoice(RuntimeError):
    """No installed engine can speak here without a download; the message says what to do."""


def demo_engine(environ: Mapping[str, str], wanted: str | None = None) -> str:
    """`wanted` when it can run here, else the first engine of PREFERENCE that loads offline."""
    registry = load_plugins(VOICES, environ)
    available = registry.available()
    options = VoiceOptions(cache_root=str(voice_cache_root(environ)))
    if wanted is not None:
        if wanted not in available:
            reason = registry.reasons().get(wanted) or "no installed package offers it"
            raise NoVoice(
                f"the {wanted} engine cannot run here ({reason}); "
                "`assist engines` lists the engines that can"
            )
        return wanted
    for name in PREFERENCE:
        spec = available.get(name)
        if spec is not None and ready_offline(spec, options):
            return name
    raise NoVoice(
        "no installed voice engine can speak here without a download; install one that "
        "ships its voice, e.g. pip install assist-voice-piper (or assist-voice-espeak)"
    )
