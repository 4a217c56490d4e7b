"""Where the Qwen3-TTS weights come from: the Hugging Face hub cache, filled on first use.

A model already in the hub cache is used without touching the network, so a machine that has
started once starts offline ever after. A missing model is downloaded with the hub's progress
bars on stderr, after one line saying what is being fetched and why; `HF_HUB_OFFLINE` (the hub's
own switch) forbids that, and then the start fails at once with an error naming the model.
Any download failure becomes the same kind of error, so the helper reports it in one line and
the supervisor can fall back instead of waiting.

The cache folder and the offline switch are read from the environment on every call (the hub
library reads them once, at import), so a test or a later setting is honoured.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

ALLOW_PATTERNS = ["*.json", "*.safetensors", "*.txt", "*.jinja", "*.model", "*.tiktoken"]
"""The files mlx-audio reads from a Qwen3-TTS repository: configs, weights, and the text
tokenizer (vocab.json, merges.txt, its config and chat template)."""
TRUE_WORDS = ("1", "on", "yes", "true")
"""Values of HF_HUB_OFFLINE that mean offline, as the hub library reads them."""
log = logging.getLogger("assist.voice.qwen3")
"""This engine's logger; the voice helper writes its records on stderr as `assist-voice: ...`."""


class ModelUnavailable(RuntimeError):
    """A model is not in the hub cache and cannot be downloaded now."""


def hub_cache() -> Path:
    """The hub cache folder, resolved as the hub library does, from the environment now."""
    for variable in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        if os.environ.get(variable):
            return Path(os.environ[variable]).expanduser()
    if os.environ.get("HF_HOME"):
        return Path(os.environ["HF_HOME"]).expanduser() / "hub"
    base = os.environ.get("XDG_CACHE_HOME") or "~/.cache"
    return Path(base).expanduser() / "huggingface" / "hub"


def offline() -> bool:
    """Whether HF_HUB_OFFLINE forbids downloads."""
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in TRUE_WORDS


def is_cached(repo_id: str) -> bool:
    """Whether the model's snapshot is in the hub cache (checked without the network)."""
    from huggingface_hub import try_to_load_from_cache

    return isinstance(try_to_load_from_cache(repo_id, "config.json", cache_dir=hub_cache()), str)


def fetch(repo_id: str) -> Path:
    """The local snapshot folder of `repo_id`, downloading it first if it is not cached."""
    from huggingface_hub import snapshot_download

    if is_cached(repo_id):
        cached = snapshot_download(repo_id, cache_dir=hub_cache(), local_files_only=True)
        return Path(cached)
    if offline():
        raise ModelUnavailable(
            f"the model {repo_id} is not in the Hugging Face cache ({hub_cache()}) and "
            "HF_HUB_OFFLINE is set; connect to the internet and unset HF_HUB_OFFLINE for the "
            f"first start, or copy the model there (`hf download {repo_id}`)"
        )
    log.warning(
        f"downloading {repo_id} from the Hugging Face hub into {hub_cache()} (first use only)",
    )
    try:
        path = snapshot_download(repo_id, cache_dir=hub_cache(), allow_patterns=ALLOW_PATTERNS)
    except Exception as error:
        raise ModelUnavailable(
            f"could not download the model {repo_id} from the Hugging Face hub "
            f"({type(error).__name__}: {error}); check the network and start again, or "
            f"fetch it ahead with `hf download {repo_id}`"
        ) from error
    return Path(path)
