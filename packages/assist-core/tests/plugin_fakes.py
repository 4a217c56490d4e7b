"""What the plugin tests of every group share: a fake entry point and a plugin offering specs.

Import it by name: the root pyproject's pytest `pythonpath` puts this folder on the path.
"""

from __future__ import annotations

from collections.abc import Callable

import attrs


@attrs.frozen
class FakeEntryPoint:
    """An entry point that loads `plugin`, or raises `error` as a broken package would."""

    name: str
    plugin: object = None
    error: Exception | None = None

    def load(self) -> object:
        if self.error is not None:
            raise self.error
        return self.plugin


class Offers:
    """A plugin offering the given specs; a subclass passes them on from its group's registrar
    hook with `offer`."""

    def __init__(self, *specs: object) -> None:
        self.specs = specs

    def offer(self, register: Callable[[object], None]) -> None:
        for offered in self.specs:
            register(offered)
