"""JSON text in and out: the one way every reader and writer of assist handles it (behaviour 3.1).

Python's `json` has two traps for hostile input. `json.loads` raises RecursionError, not
ValueError, on nesting deeper than the interpreter's stack (and ValueError for an integer
over 4,300 digits), so a reader that catches only ValueError lets a file end a request. And
it accepts `"\\ud800"`, a lone surrogate that UTF-8 cannot encode, so the value fails only
later, when something writes it. `parse` turns every parser failure into `Unreadable` and
replaces each lone surrogate with U+FFFD in every string it returns (keys included); `dumps`
does the same on the way out, so a string from anywhere (a file name, a library, an old
reader) can always be written. Both walk values without recursion, so no depth breaks them.
"""

from __future__ import annotations

import json
import re
from typing import Any

REPLACEMENT = "\ufffd"
"""What each lone surrogate becomes: Unicode's own mark for a character that was lost."""

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
"""In a decoded str every surrogate is lone: `json.loads` joins an escaped pair into one."""

TOO_DEEP = "it is nested too deeply to read"


class Unreadable(ValueError):
    """Text that is not JSON, or not JSON this process can read; the message says why."""


class _NotFinite(ValueError):
    def __init__(self, name: str) -> None:
        super().__init__(f"it holds {name}, which is not JSON; numbers must be finite")


def _refuse_constant(name: str) -> object:
    raise _NotFinite(name)


def parse(text: str, *, finite: bool = False) -> Any:
    """The JSON value of `text`, every string in it encodable; Unreadable for anything else.

    `finite` refuses the literals `NaN` and `Infinity`, which Python accepts and JSON does not.
    """
    constant = _refuse_constant if finite else None
    try:
        value = json.loads(text, parse_constant=constant)
    except RecursionError:
        raise Unreadable(TOO_DEEP) from None
    except ValueError as error:  # JSONDecodeError, _NotFinite, an integer too long
        raise Unreadable(str(error)) from None
    return encodable(value)


def parse_bytes(data: bytes, *, finite: bool = False) -> Any:
    """`parse` for bytes that must be UTF-8 (a file's content); Unreadable when they are not."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise Unreadable(f"it is not UTF-8 text ({error.reason} at byte {error.start})") from None
    return parse(text, finite=finite)


def encodable_text(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD, so UTF-8 can encode it."""
    if text.isascii():
        return text
    return _LONE_SURROGATE.sub(REPLACEMENT, text)


def encodable(value: Any) -> Any:
    """A copy of `value` with every string in it (keys too) made encodable. Lists, tuples
    (which become lists) and dicts are walked with a stack, not recursion, so a value nested
    as deep as memory allows is still handled."""
    if isinstance(value, str):
        return encodable_text(value)
    if not isinstance(value, list | tuple | dict):
        return value
    root: list[Any] = [value]
    stack: list[tuple[Any, Any, Any]] = [(root, 0, value)]  # (parent, key, container)
    while stack:
        parent, key, container = stack.pop()
        if isinstance(container, dict):
            fixed: Any = {}
            for name, item in container.items():
                fixed[encodable_text(name) if isinstance(name, str) else name] = item
        else:
            fixed = list(container)
        slots = fixed.items() if isinstance(fixed, dict) else enumerate(fixed)
        for slot, item in list(slots):
            if isinstance(item, str):
                fixed[slot] = encodable_text(item)
            elif isinstance(item, list | tuple | dict):
                stack.append((fixed, slot, item))
        parent[key] = fixed
    return root[0]


def dumps(value: Any, *, ascii_only: bool = False) -> str:
    """`value` as compact JSON text with every string encodable. Non-ASCII is kept unless
    `ascii_only`. A value nested deeper than `json.dumps` can go still raises RecursionError:
    nothing `parse` returns is that deep."""
    return json.dumps(encodable(value), ensure_ascii=ascii_only, separators=(",", ":"))
