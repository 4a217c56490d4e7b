"""The Smart Turn v3.2 weights installed with this package, and the check that they are intact.

The file is checked against its pinned SHA-256 whenever the model is loaded, and by the
plugin's check that `assist doctor` and `assist engines` show: a damaged or
replaced file is refused with what to reinstall, rather than judging turns with weights
nobody tested. Hashing 8.7 MB takes a few milliseconds, once per listener.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

PACKAGE = "assist-turn-smart"
MODEL_FILE = "smart-turn-v3.2-cpu.onnx"
SHA256 = "2bb026316b14a660486a75b1733cd3fbab8c2fd0314dc9af7be49f8cca967e4f"
REINSTALL = f"reinstall {PACKAGE} (pip install --force-reinstall {PACKAGE})"


class DamagedModel(RuntimeError):
    """The model file is missing, or not the one this package was tested with."""


def model_path() -> Path:
    """Where the package installed the model."""
    return Path(__file__).with_name(MODEL_FILE)


def verified(path: Path) -> Path:
    """`path`, once its SHA-256 is the pinned one; DamagedModel saying what to do otherwise."""
    if not path.is_file():
        raise DamagedModel(f"{path} is missing; {REINSTALL}")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != SHA256:
        raise DamagedModel(
            f"{path} is damaged or not Smart Turn v3.2 (SHA-256 {digest}, expected {SHA256}); "
            f"{REINSTALL}"
        )
    return path
