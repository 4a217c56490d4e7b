"""Where Supertonic 3's files live, whether they are all there, and fetching them once.

The weights stay in supertonic's own cache (behaviour.md 8.4): `~/.cache/supertonic3`, or the
folder SUPERTONIC_CACHE_DIR names, as the supertonic package itself resolves it. This module
repeats that rule and the file list instead of importing supertonic, because importing it
loads onnxruntime, and asking whether the engine can start offline must stay cheap.

supertonic is always loaded with `auto_download` off. A missing model is fetched here, with a
line on stderr and the hub's progress bars; when HF_HUB_OFFLINE forbids it, the start fails at
once with an error saying what is missing, so the supervisor falls back within seconds
instead of waiting on the network. The hub is asked once before supertonic's own download
starts, because that download lists the pinned revision's files with five retries, which
keeps a machine without a network waiting about 24 s before it fails.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

MODEL = "supertonic-3"
REPOSITORY = "Supertone/supertonic-3"
CACHE_VARIABLE = "SUPERTONIC_CACHE_DIR"
DEFAULT_FOLDER = "~/.cache/supertonic3"
REQUIRED = (
    "onnx/tts.json",
    "onnx/unicode_indexer.json",
    "onnx/duration_predictor.onnx",
    "onnx/text_encoder.onnx",
    "onnx/vector_estimator.onnx",
    "onnx/vocoder.onnx",
    "voice_styles",
)
"""What supertonic 1.3.1's loader reads (its config.py): the config, the text indexer, the
four ONNX graphs and the voice-style folder."""
TRUE_WORDS = ("1", "on", "yes", "true")
REACH_TIMEOUT_S = 10.0
"""How long the hub may take to answer that first request: enough for a slow link, and a
refused or unresolvable connection fails at once anyway."""
log = logging.getLogger("assist.voice.supertonic")
"""This engine's logger; the voice helper writes its records on stderr as `assist-voice: ...`."""


class ModelUnavailable(RuntimeError):
    """The model is not in the cache and cannot be downloaded now."""


def model_folder() -> Path:
    """supertonic's cache folder for supertonic-3."""
    return Path(os.environ.get(CACHE_VARIABLE) or DEFAULT_FOLDER).expanduser()


def missing_files(folder: Path) -> list[str]:
    return [name for name in REQUIRED if not (folder / name).exists()]


def offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in TRUE_WORDS


def ensure_model(folder: Path) -> None:
    """Make sure every model file is in `folder`, downloading them if that is allowed."""
    missing = missing_files(folder)
    if not missing:
        return
    if offline():
        raise ModelUnavailable(
            f"Supertonic 3 is not downloaded yet: {folder} lacks {', '.join(missing)}, and "
            "HF_HUB_OFFLINE is set; connect to the internet and unset HF_HUB_OFFLINE for the "
            f"first start, or put the files of {REPOSITORY} there"
        )
    log.warning(
        f"downloading {REPOSITORY} from the Hugging Face hub into {folder} (first use only)",
    )
    from huggingface_hub import HfApi
    from supertonic.config import get_model_revision
    from supertonic.loader import download_model

    try:
        HfApi().repo_info(REPOSITORY, revision=get_model_revision(MODEL), timeout=REACH_TIMEOUT_S)
        download_model(folder, MODEL)
    except Exception as error:
        raise ModelUnavailable(
            f"could not download {REPOSITORY} ({type(error).__name__}: {error}); check the "
            "network and start again"
        ) from error
