"""The scripted user of `assist demo --talk` (issue 12): what they say, as data.

The user asks for something that changes the world, answers the agent's question (`ANSWERS`:
the demo says yes; the tests also say no, or nothing), talks over the agent's long answer
`BARGE_IN_AFTER_S` into it, and says goodbye. `talk` plays each line with Piper into the room
when the conversation reaches its point; the stand-in (`talk_policy`) answers.
"""

from __future__ import annotations

REQUEST = "Please create a file called notes with today's agenda."
ANSWERS: dict[str, str | None] = {"yes": "Yes, go ahead.", "no": "No, don't.", "silence": None}
"""The user's answer to the agent's question, by the story's variant."""
BARGE_IN = "Wait, stop, that's enough."
BARGE_IN_AFTER_S = 2.5
"""How far into the long answer the user talks over it: well inside the line."""
GOODBYE = "Thanks, goodbye."
