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


def test_damaged_weights_are_named_by_engines_doctor_and_the_listener_alike(tmp_path, monkeypatch):
    """`assist doctor` and `assist engines` used to call damaged weights fine (only the file's
    presence was checked); the listener, running silence in their place, said what to
    reinstall. Now all three say it, in the same words."""
    from assist.app.turn_models import installed_turn_models, load_turn_model
    from assist.mcp.speech.turn_model_choice import describe_turn_models
    from assist.turn.smart import weights

    damaged = tmp_path / model_path().name
    damaged.write_bytes(b"not the model")
    monkeypatch.setattr(weights, "model_path", lambda: damaged)
    registry = installed_turn_models({"ASSIST_TURNS": "smart-turn"})
    listed = describe_turn_models(registry)
    smart = next(line for line in listed if line.startswith("  smart-turn "))
    assert smart.endswith(
        f"cannot load here: {damaged} is damaged or not Smart Turn v3.2 "
        f"(SHA-256 {hashlib.sha256(b'not the model').hexdigest()}, expected {SHA256}); "
        "reinstall assist-turn-smart (pip install --force-reinstall assist-turn-smart)"
    )
    loaded = load_turn_model(None, registry)
    assert loaded.model.name == "silence"
    assert listed[-1] == f"  auto: silence, since {loaded.warning}"
    assert "reinstall assist-turn-smart" in loaded.warning
