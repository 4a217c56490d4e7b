"""Smart Turn on Piper speech: a finished phrase is complete, a cut-off one is not."""

from __future__ import annotations

import os

import numpy as np
import pytest
from assist.app.engines import load_plugins
from assist.core.turn_models import TURN_MODELS, TurnModel, TurnModelOptions, choose_turn_model

COMPLETE = ("What time is it?", "Thanks, that is all for today.", "The meeting is on Tuesday.")
CUT_OFF = ("I was thinking we could move the launch to", "If we decide to go ahead with")


@pytest.fixture(scope="module")
def model():
    registry = load_plugins(TURN_MODELS, os.environ)
    built = registry.spec("smart-turn").build(TurnModelOptions())
    yield built
    built.close()


def test_smart_turn_is_installed_through_its_entry_point_ready_offline_and_chosen_by_auto():
    registry = load_plugins(TURN_MODELS, os.environ)
    spec = registry.spec("smart-turn")
    assert (spec.package, spec.check(), spec.ready_offline()) == ("assist-turn-smart", None, True)
    assert choose_turn_model(None, registry.available()) == "smart-turn"


def test_the_model_keeps_the_turn_model_contract(model):
    assert isinstance(model, TurnModel) and model.name == "smart-turn"


@pytest.mark.parametrize("text", COMPLETE)
def test_a_finished_phrase_is_complete(model, say, text):
    verdict = model.judge(say(text))
    assert verdict.complete and verdict.probability > 0.5


@pytest.mark.parametrize("text", CUT_OFF)
def test_a_phrase_cut_off_mid_thought_is_incomplete(model, say, text):
    verdict = model.judge(say(text))
    assert not verdict.complete and verdict.probability <= 0.5


def test_stereo_samples_are_refused_and_a_closed_model_says_so(say):
    model = load_plugins(TURN_MODELS, os.environ).spec("smart-turn").build(TurnModelOptions())
    with pytest.raises(ValueError, match="mono"):
        model.judge(np.zeros((2, 16_000), np.float32))
    model.close()
    with pytest.raises(RuntimeError, match="closed"):
        model.judge(say(COMPLETE[0]))
