"""What `assist mcp` offers an agent: the nine tools, the `watch` and `talk` prompts, results.

The input schemas are written out here, not generated from function signatures, so they are
exactly those of behaviour 3.3-3.7 and 14.1 (the watching tools read their arguments
leniently, which a generated schema plus validation would not allow). Descriptions come from
`assist.core.descriptions`, `refusals`, `hints` and `prompt`, where every agent-facing text
lives.

Results (3.2): always one text block and `isError`. A JSON value is written compactly with
non-ASCII kept; a refusal is plain text. `structuredContent` is not sent: clients that show the
model both would pay for every result twice, and the text block is what Ambient's clients read.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
from assist.core import descriptions, prompt
from assist.core.tones import TONES

SESSION_TOOLS = ("sessions", "transcript", "status")
WATCHING_TOOLS = (
    "watch_meeting",
    "start_conversation",
    "wait_for_transcript",
    "speak",
    "confirm",
    "stop_watching",
)
TOOL_NAMES = SESSION_TOOLS + WATCHING_TOOLS
"""The exact order of tools/list (3.3, 13)."""
PROMPT_NAMES = (prompt.PROMPT_NAME, prompt.TALK_PROMPT_NAME)

EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


def _property(tool: str, name: str, **schema: Any) -> dict[str, Any]:
    return {**schema, "description": descriptions.PROPERTY_DESCRIPTIONS[tool][name]}


SCHEMAS: dict[str, dict[str, Any]] = {
    "sessions": EMPTY_SCHEMA,
    "transcript": {
        "type": "object",
        "properties": {
            "session": _property("transcript", "session", type="string"),
            "since": _property("transcript", "since", type="integer"),
            "verbatim": _property("transcript", "verbatim", type="boolean"),
        },
        "required": ["session"],
    },
    "status": EMPTY_SCHEMA,
    "watch_meeting": {
        "type": "object",
        "properties": {"session": _property("watch_meeting", "session", type="string")},
    },
    "start_conversation": EMPTY_SCHEMA,
    "wait_for_transcript": {
        "type": "object",
        "properties": {
            "timeout_s": _property(
                "wait_for_transcript", "timeout_s", type="integer", minimum=1, maximum=120
            )
        },
    },
    "speak": {
        "type": "object",
        "properties": {
            "text": _property("speak", "text", type="string"),
            "emotion": _property("speak", "emotion", type="string", enum=list(TONES)),
        },
        "required": ["text"],
    },
    "confirm": {
        "type": "object",
        "properties": {
            "question": _property("confirm", "question", type="string"),
            "timeout_s": _property("confirm", "timeout_s", type="integer", minimum=5, maximum=120),
        },
        "required": ["question"],
    },
    "stop_watching": EMPTY_SCHEMA,
}

READ_ONLY = types.ToolAnnotations(read_only_hint=True)
"""The session tools only read (3.3); clients may run them without asking."""


def tool_list() -> list[types.Tool]:
    """The nine tools, in order, with our schemas and descriptions."""
    return [
        types.Tool(
            name=name,
            description=descriptions.TOOL_DESCRIPTIONS[name],
            input_schema=SCHEMAS[name],
            annotations=READ_ONLY if name in SESSION_TOOLS else None,
        )
        for name in TOOL_NAMES
    ]


def prompt_list() -> list[types.Prompt]:
    """The two prompts, `watch` then `talk` (13), each with its optional `focus`."""
    return [
        types.Prompt(
            name=prompt.PROMPT_NAME,
            title=prompt.PROMPT_TITLE,
            description=prompt.PROMPT_DESCRIPTION,
            arguments=[
                types.PromptArgument(
                    name="focus", description=prompt.FOCUS_DESCRIPTION, required=False
                )
            ],
        ),
        types.Prompt(
            name=prompt.TALK_PROMPT_NAME,
            title=prompt.TALK_PROMPT_TITLE,
            description=prompt.TALK_PROMPT_DESCRIPTION,
            arguments=[
                types.PromptArgument(
                    name="focus", description=prompt.TALK_FOCUS_DESCRIPTION, required=False
                )
            ],
        ),
    ]


def get_prompt(prompt_name: str, name: str, focus: object) -> types.GetPromptResult:
    """prompts/get `watch` or `talk`: the prompt for the assistant `name`, with `focus` if a
    string."""
    if prompt_name == prompt.TALK_PROMPT_NAME:
        text = prompt.talk_prompt(name, focus if isinstance(focus, str) else None)
        description = prompt.TALK_PROMPT_DESCRIPTION
    else:
        text = prompt.watch_prompt(name, focus if isinstance(focus, str) else None)
        description = prompt.PROMPT_DESCRIPTION
    return types.GetPromptResult(
        description=description,
        messages=[
            types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))
        ],
    )


def compact(value: Any) -> str:
    """A JSON value as the one text block: compact separators, non-ASCII not escaped."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def result(value: Any) -> types.CallToolResult:
    """A success carrying a JSON value."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=compact(value))], is_error=False
    )


def refusal(text: str) -> types.CallToolResult:
    """The tool ran and could not do what was asked; `text` tells the agent what to do."""
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)
