"""What every recogniser takes as one turn (assist.app.turn_audio)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from assist.app.turn_audio import turn_samples
from hypothesis import given
from hypothesis import strategies as st


@given(st.lists(st.floats(-1, 1, width=32)))
def test_finite_mono_samples_come_back_as_the_same_float32_array(values):
    audio = turn_samples(values)
    assert audio.dtype == np.float32 and audio.ndim == 1
    assert audio.tolist() == values


def test_samples_that_are_not_mono_are_refused_with_their_shape():
    with pytest.raises(ValueError, match=r"expected mono samples \(1-D\).*\(2, 3\)"):
        turn_samples(np.zeros((2, 3)))


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_samples_holding_nan_or_infinity_are_refused(bad):
    with pytest.raises(ValueError, match="NaN or infinite"):
        turn_samples([0.0, bad, 0.1])
