"""The two baseline agents of `assist eval`: they show that its scores discriminate.

A score means something only if a bad policy scores badly. `Mute` never speaks, so it must
have no false speech and miss every answer; `Chatty` speaks after every batch that has a
line in it, whatever the room is doing and whether or not it may speak now, so it must
talk through small talk (and the gate's limits must still hold). Both are driven by the
stand-in's loop (`agent.run_stand_in`) in place of its `Policy`.
"""

from __future__ import annotations

from assist.mcp.demo.policy import Decision

CHATTY_LINE = "Good point, I agree with that."
"""What the chatty baseline says every time: short, and plain enough to echo back cleanly."""


class Mute:
    """Never says anything."""

    def decide(self, lines: list[str], may_speak: bool) -> Decision | None:
        return None


class Chatty:
    """Speaks after every non-empty batch, even while `may_speak` says not now."""

    def decide(self, lines: list[str], may_speak: bool) -> Decision | None:
        if not lines:
            return None
        return Decision(CHATTY_LINE, "neutral", "chatty", lines[-1])
