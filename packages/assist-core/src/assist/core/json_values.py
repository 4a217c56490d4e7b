"""How a JSON value is named in an error message, so every refusal says what it got."""

from __future__ import annotations

import json


def json_kind(value: object) -> str:
    """The JSON type of a decoded value: array, string, null, boolean or number (else object)."""
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    return "number"


def show(value: object) -> str:
    """A JSON value as it would appear in the request."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)
