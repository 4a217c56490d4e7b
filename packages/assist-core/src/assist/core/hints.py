"""What the watching tools tell the agent to do next after a success (behaviour.md 3.4 to 3.7).

Each result that ends a step carries one of these as its `next` (or `note`): plain words, ours,
naming the tool to call or saying to stop.
"""

from __future__ import annotations


def next_after_watch() -> str:
    """The hint of a watch_meeting result."""
    return (
        "Call wait_for_transcript next, and call it again after each turn "
        "for as long as its status stays live."
    )


def next_after_off() -> str:
    """The hint of an `off` wait result."""
    return (
        "The user switched the assistant off, so the watch is over. "
        "Stop here; there is no need to call stop_watching."
    )


def next_after_ended() -> str:
    """The hint of an `ended` wait result."""
    return (
        "The recording has finished, and the watch with it. "
        "Stop here; there is no need to call stop_watching."
    )


def next_after_start() -> str:
    """The hint of a start_conversation result."""
    return (
        "The user has heard the greeting. Call wait_for_transcript next: each thing the user "
        "says comes back at once. Call it again after each turn for as long as its status "
        "stays live."
    )


def next_after_conversation_ended(why: str) -> str:
    """The hint of an `ended` wait result in a conversation, for `why` it ended."""
    reasons = {
        "idle": "nobody spoke for a while, so it was closed with a goodbye",
        "time limit": "it reached its time limit, so it was closed with a goodbye",
        "listener stopped": "the listener stopped, so nothing more can be heard",
    }
    return (
        f"The conversation is over: {reasons.get(why, why)}. Tell the user so in one line; "
        "there is no need to call stop_watching. Call start_conversation to talk again."
    )


def nothing_to_stop() -> str:
    """The note of a stop_watching with nothing watched."""
    return "There was no watch to stop: no meeting is being watched."
