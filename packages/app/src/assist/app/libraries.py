"""Whether a plugin's libraries are installed, found without importing them (behaviour.md 12.4).

An engine or recogniser spec's `check` must be cheap and must not import the heavy library it
wraps, so listing plugins (`assist engines`, `assist doctor`) stays fast; every plugin asks the
same question, and says the same thing when the answer is no: what is missing and which
distribution to reinstall.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable


def missing_libraries(modules: Iterable[str], package: str) -> str | None:
    """Why a plugin cannot run: the top-level `modules` that are not installed and the
    distribution `package` to reinstall; None when every one is found."""
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if missing:
        return f"missing {', '.join(missing)}; reinstall {package}"
    return None
