"""Turn model plugins for tests, registered through a real `assist.turns` entry point.

`always-complete` ends every turn at the short pause, `never-complete` leaves every turn to
the silence limit, `unloadable` fails to load, `failing` raises on every judgement and
`hanging` never answers one (it sleeps ten minutes). Each
judgement (the seconds judged) is logged to `FAKE_TURN_LOG` when set.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from assist.core.turn_models import TurnModelOptions, TurnModelSpec, TurnVerdict, hookimpl

RATE_HZ = 16_000


class FakeTurnModel:
    def __init__(self, name: str, says: bool | None) -> None:
        self.name = name
        self._says = says

    def judge(self, samples) -> TurnVerdict:
        path = os.environ.get("FAKE_TURN_LOG")
        if path:
            with open(path, "a", encoding="utf-8") as log:
                log.write(f"{len(samples) / RATE_HZ:.2f}\n")
        if self.name == "hanging":
            time.sleep(600)
        if self._says is None:
            raise RuntimeError("the fake turn model refuses")
        return TurnVerdict(self._says, 1.0 if self._says else 0.0)

    def close(self) -> None:
        pass


def unloadable(options: TurnModelOptions) -> FakeTurnModel:
    raise OSError("the fake weights are damaged")


@hookimpl
def assist_turn_models(register: Callable[[TurnModelSpec], None]) -> None:
    for name, says in (
        ("always-complete", True),
        ("never-complete", False),
        ("failing", None),
        ("hanging", None),
    ):
        register(
            TurnModelSpec(
                name=name,
                package="fake-turn-plugin",
                build=lambda options, name=name, says=says: FakeTurnModel(name, says),
            )
        )
    register(TurnModelSpec(name="unloadable", package="fake-turn-plugin", build=unloadable))
