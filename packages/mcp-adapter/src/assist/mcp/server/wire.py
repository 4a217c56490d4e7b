"""Screening each line `assist mcp` reads before the MCP SDK sees it (behaviour 3.1).

The SDK's stdio transport drops what it cannot parse without answering, and it answers
malformed `tools/call` and `prompts/get` params with one generic -32602 that names nothing.
The protocol-error table of 3.1 needs exact codes and ids and messages that say what is wrong,
so every line is screened here first: it is skipped (blank, a reply from the client, or a
malformed notification, which is never answered), answered at once with a JSON-RPC error,
or forwarded to the SDK, sometimes with its params made lenient where behaviour asks for
leniency (a non-string `focus`, a sparse `initialize`).

Every line is read with `assist.core.json_text.parse`, so a lone surrogate anywhere in it
(an argument, a request id) is U+FFFD from here on, and nesting too deep is a parse error;
every answer is written with `encode_line`, which does the same for whatever reaches it.

Pure: takes the bytes of one line and the tool names, returns a decision.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import attrs
from assist.core import json_text
from assist.core.prompt import PROMPT_NAME, TALK_PROMPT_NAME

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

METHODS = ("initialize", "ping", "tools/list", "tools/call", "prompts/list", "prompts/get")
"""Every method answered; anything else is -32601 naming the method."""


NO_PARAMS = ("ping", "tools/list", "prompts/list")
"""Methods whose params carry nothing we use: params that are not an object are dropped."""

UNKNOWN_CLIENT = {"name": "unknown", "version": "0"}
"""`clientInfo` filled in for an `initialize` that leaves it out; nothing reads it."""


@attrs.frozen
class Skip:
    """Nothing to do with the line: blank, a reply, or a notification we cannot use."""

    why: str


@attrs.frozen
class Answer:
    """Answer at once with this JSON-RPC error; the SDK never sees the line."""

    id: str | int | None
    code: int
    message: str

    def response(self) -> dict[str, Any]:
        return {
            "jsonrpc": "2.0",
            "id": self.id,
            "error": {"code": self.code, "message": self.message},
        }


@attrs.frozen
class Forward:
    """Hand this message to the SDK. `request_id` is set for a request (it expects a reply)."""

    message: dict[str, Any]
    request_id: str | int | None = None


Screened = Skip | Answer | Forward


def screen(raw: bytes, tools: Sequence[str]) -> Screened:
    """Decide what to do with one line of stdin (its trailing newline may be included)."""
    text = raw.decode("utf-8", errors="replace")
    if not text.strip():
        return Skip("blank line")
    try:
        message = json_text.parse(text)
    except json_text.Unreadable as error:
        return Answer(
            None, PARSE_ERROR, f"the line is not JSON ({error}); send one JSON-RPC object per line"
        )
    if not isinstance(message, dict):
        return Answer(
            None,
            INVALID_REQUEST,
            f"the message is {kind(message)}; a JSON-RPC message is an object",
        )
    if "method" not in message and ("result" in message or "error" in message):
        return Skip("a reply from the client; this server sends no requests")
    has_id = "id" in message
    request_id = usable_id(message.get("id"))
    if message.get("jsonrpc") != "2.0":
        return _refuse(has_id, request_id, INVALID_REQUEST, '`jsonrpc` must be "2.0"')
    method = message.get("method")
    if not isinstance(method, str):
        return _refuse(
            has_id, request_id, INVALID_REQUEST, "`method` must be a string naming the method"
        )
    if not has_id:
        return Forward(message)
    if request_id is None:
        return Answer(None, INVALID_REQUEST, "`id` must be a string or an integer")
    if method not in METHODS:
        listed = ", ".join(METHODS)
        return Answer(
            request_id,
            METHOD_NOT_FOUND,
            f"there is no method {method!r} here; this server answers {listed}",
        )
    params = message.get("params")
    checked = _CHECKS[method](params, tools)
    if isinstance(checked, str):
        return Answer(request_id, INVALID_PARAMS, checked)
    forwarded: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if checked is not None:
        forwarded["params"] = checked
    return Forward(forwarded, request_id)


def encode_line(message: dict[str, Any]) -> bytes:
    """One JSON-RPC message as the line written to stdout: compact, UTF-8, each lone
    surrogate as U+FFFD, so no string from any source can fail to be written (3.1)."""
    return (json_text.dumps(message) + "\n").encode("utf-8")


def _refuse(has_id: bool, request_id: str | int | None, code: int, text: str) -> Screened:
    """A malformed request is answered with its id; a malformed notification never is."""
    if not has_id:
        return Skip(f"a notification that cannot be used: {text}")
    return Answer(request_id, code, text)


def usable_id(value: object) -> str | int | None:
    """A JSON-RPC id we can answer with: a string or an integer (a boolean is neither)."""
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    return None


# Each check returns the params to forward (None = none), or a string saying what is wrong.
Checked = dict[str, Any] | str | None


def _check_initialize(params: object, _tools: Sequence[str]) -> Checked:
    """Lenient: a client that sends little still gets an answer (version rules in the SDK)."""
    given = params if isinstance(params, dict) else {}
    version = given.get("protocolVersion")
    capabilities = given.get("capabilities")
    client = given.get("clientInfo")
    return {
        **given,
        "protocolVersion": version if isinstance(version, str) else "",
        "capabilities": capabilities if isinstance(capabilities, dict) else {},
        "clientInfo": client if _is_client_info(client) else UNKNOWN_CLIENT,
    }


def _is_client_info(value: object) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("name"), str)
        and isinstance(value.get("version"), str)
    )


def _check_no_params(params: object, _tools: Sequence[str]) -> Checked:
    return params if isinstance(params, dict) else None


def _check_tools_call(params: object, tools: Sequence[str]) -> Checked:
    if not isinstance(params, dict):
        return "tools/call needs `params`, an object with the tool `name` and its `arguments`"
    name = params.get("name")
    if not isinstance(name, str):
        return f"tools/call `name` is {kind(name)}; it must be the tool's name as a string"
    if "arguments" in params and not isinstance(params["arguments"], dict):
        given = kind(params["arguments"])
        return f"tools/call `arguments` is {given}; give an object, or leave it out"
    if name not in tools:
        return f"there is no tool {name!r}; the tools are {', '.join(tools)}"
    return params


def _check_prompts_get(params: object, _tools: Sequence[str]) -> Checked:
    if not isinstance(params, dict):
        return f"prompts/get needs `params`, an object with `name` {PROMPT_NAME!r}"
    name = params.get("name")
    if name not in (PROMPT_NAME, TALK_PROMPT_NAME):
        shown = repr(name) if isinstance(name, str) else kind(name)
        known = f"{PROMPT_NAME!r} and {TALK_PROMPT_NAME!r}"
        return f"there is no prompt {shown}; the prompts are {known}"
    arguments = params.get("arguments")
    kept = {}
    if isinstance(arguments, dict):
        kept = {key: value for key, value in arguments.items() if isinstance(value, str)}
    return {**params, "arguments": kept}


_CHECKS = {
    "initialize": _check_initialize,
    "ping": _check_no_params,
    "tools/list": _check_no_params,
    "prompts/list": _check_no_params,
    "tools/call": _check_tools_call,
    "prompts/get": _check_prompts_get,
}


def kind(value: object) -> str:
    """How a JSON value reads in an error message: its type, and its value when a number."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {json.dumps(value)}"
    if isinstance(value, int | float):
        return f"the number {json.dumps(value)}"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
