"""The names of the files processes share, and the time limits they agree on (behaviour 1, 5, 8, 9).

The recorder, every watching server, `assist say`, `assist replay`, the echo feeder and the
voice helper meet in these files, so each name and each shared limit is written once, here.
"""

from __future__ import annotations

import re

# A session folder (1.3) --------------------------------------------------------------------

SESSION_FILE = "session.json"
RAW_FILE = "raw.jsonl"
TRANSCRIPT_FILE = "transcript.md"
STATUS_FILE = "status"
TRANSCRIBING_LOCK = "transcribing.lock"
AUDIO_FOLDER = "audio"
ROOM_WAV = "room.native.wav"
"""The room track, in `AUDIO_FOLDER`."""
SIGNALS_SOCKET = "signals.sock"
"""(ours, 14.2) A symbolic link in the session folder to the Unix datagram socket a watching
server binds (in a short folder, `/tmp/assist-<uid>`), to which `assist listen` sends its
speech onsets for barge-in."""
REFERENCE_SOCKET = "reference.sock"
"""(ours, 16.3) A symbolic link in the session folder to the Unix datagram socket `assist
listen` binds (in the same short folder) when it records a meeting from a device, to which the
watching server's voice helper sends what it plays, as the echo canceller's reference."""
LOG_FILE = "assistant.jsonl"
"""The meeting's memory of what its assistants said (5.2)."""
HEARTBEAT_FILE = "assistant.json"
"""A watching server's heartbeat (7)."""

# Beside the config file ----------------------------------------------------------------------

LOCK_FILE = "speaking.lock"
"""Whoever holds it has the floor (5.4)."""

# Voices ------------------------------------------------------------------------------------

VOICE_JSON = "voice.json"
"""The file that marks a designed-voice folder (8.6)."""
REPLY_WAV = re.compile(r"reply-(.+)\.wav")
"""A line the helper saved with `--save-dir` (8.3); the group is the request id."""
REPLY_GLOB = "reply-*.wav"


def reply_wav(part: str) -> str:
    """The saved line's file name for the request id written as `part`."""
    return f"reply-{part}.wav"


# Shared time limits --------------------------------------------------------------------------

LOCK_WAIT_S = 5.0
"""How long a line (a `speak`, the consent notice, `assist say`) waits for another voice to
finish before it gives up (5.4)."""
SAY_WITHIN_S = 120.0
"""The supervisor's hang limit for one line (9.3): a live process closes every `speaking` it
logs within about this long."""
READY_WITHIN_S = 1800.0
"""How long a helper may take to send `ready` (9.3): a first run downloads its model."""
