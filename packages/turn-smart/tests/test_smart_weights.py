"""The weights installed with the package are the pinned ones, and a damaged file is refused."""

from __future__ import annotations

import hashlib
import shutil

import pytest
from assist.turn.smart.model import SmartTurn
from assist.turn.smart.weights import SHA256, DamagedModel, model_path, verified


def test_the_installed_model_has_the_pinned_digest():
    path = model_path()
    assert hashlib.sha256(path.read_bytes()).hexdigest() == SHA256
    assert verified(path) == path


def test_a_damaged_model_is_refused_saying_what_to_reinstall(tmp_path):
    damaged = tmp_path / model_path().name
    shutil.copy(model_path(), damaged)
    with damaged.open("r+b") as file:
        file.seek(4096)
        file.write(b"\0" * 16)
    with pytest.raises(DamagedModel, match=r"damaged.*reinstall assist-turn-smart"):
        SmartTurn(damaged)


def test_a_missing_model_is_refused_saying_what_to_reinstall(tmp_path):
    with pytest.raises(DamagedModel, match=r"missing; reinstall assist-turn-smart"):
        verified(tmp_path / "smart-turn-v3.2-cpu.onnx")
