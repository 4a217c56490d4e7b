"""The turn model shared by the tracks: a verdict within a bound, a hung model never a hung
track."""

from __future__ import annotations

import threading
import time

import pytest
from assist.core.turn_models import TurnVerdict
from assist.listen.turn_judge import SharedJudge

BOUND_S = 30.0
"""What a test waits at most for a thread it released."""


class Stuck:
    """A model that judges only once `release` is set, and says whether it was closed."""

    name = "stuck"

    def __init__(self) -> None:
        self.release = threading.Event()
        self.closed = False

    def judge(self, samples: object) -> TurnVerdict:
        assert self.release.wait(BOUND_S)
        if samples == "bad":
            raise ValueError("cannot judge that")
        return TurnVerdict(True, 0.9)

    def close(self) -> None:
        self.closed = True


def test_a_verdict_in_time_is_the_models_and_its_error_is_raised_as_its_own() -> None:
    model = Stuck()
    model.release.set()
    judge = SharedJudge(model, wait_s=BOUND_S)
    assert judge.judge("audio") == TurnVerdict(True, 0.9)
    with pytest.raises(ValueError, match="cannot judge that"):
        judge.judge("bad")
    judge.close()
    assert model.closed


def test_a_model_that_hangs_times_out_then_counts_as_busy_until_it_answers() -> None:
    model = Stuck()
    judge = SharedJudge(model, wait_s=0.05)
    with pytest.raises(TimeoutError, match=r"no verdict within 0\.05 s"):
        judge.judge("audio")
    with pytest.raises(TimeoutError, match="still judging an earlier pause"):
        judge.judge("audio")
    judge.close()
    assert not model.closed  # left to the thread it hangs in
    model.release.set()
    deadline = time.monotonic() + BOUND_S
    while True:  # once it has answered the earlier pause, it is asked again
        try:
            assert judge.judge("audio") == TurnVerdict(True, 0.9)
            break
        except TimeoutError:
            assert time.monotonic() < deadline, "the model never became free again"
            time.sleep(0.01)
