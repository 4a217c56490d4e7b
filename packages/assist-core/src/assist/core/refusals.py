"""What the watching tools say when they refuse (behaviour.md 3.3 to 3.7, 4.4, 9.4, 14.1).

A refusal is advice, not a fault: it says what happened and what the agent
should do next, and the server returns it as a tool result with `isError`.
The hints after a success are `hints`; what an agent reads before it calls
anything is `descriptions`.

Every text is ours, in plain words; the facts each must carry (ids, counts,
pids, tool and command names) come in as arguments. Kept in one module so the
agent-facing voice of the server reads consistently and is tested in one place.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from assist.core.tones import TONES

ENABLE_COMMAND = "assist config assistant on"
"""The command that switches the assistant on."""

AMBIENT_MENU_ITEM = "Live Assistant"
"""Ambient's menu item that switches the assistant on when the config file is Ambient's."""

HOLDERS = {"talk": "an `ambient talk` reply", "assistant": "another assistant"}
"""What a `speaking.lock` holder's `who` means; any other string is named as it is."""

KEEP_LISTENING = "Go on listening with wait_for_transcript."


def _quote(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


# watch_meeting (3.4)


def off_refusal(ambient_config: bool) -> str:
    """The assistant is switched off (watch_meeting, speak, and a cut-off line)."""
    where = f"by running `{ENABLE_COMMAND}`"
    if ambient_config:
        where += f" or with the {AMBIENT_MENU_ITEM} item in Ambient's menu"
    return (
        "The live assistant is switched off, so no watching tool will work. "
        f"Ask the user to switch it on {where}, and wait until they confirm "
        "it is on before calling watch_meeting again."
    )


def no_recording() -> str:
    """No session argument and nothing is being recorded."""
    return (
        "No meeting is being recorded, so there is nothing to watch. "
        "Ask the user to start recording the meeting, then call watch_meeting again."
    )


def not_live(session_id: str) -> str:
    """The named session is not the one being recorded."""
    return (
        f"Session {session_id} is not the one being recorded, so it cannot be watched: "
        "only the meeting recording right now can be. "
        "Call watch_meeting without a session to watch the current recording."
    )


def transcript_unreadable(session_id: str, error: str) -> str:
    """The transcript of the session to watch could not be read."""
    return (
        f"The transcript of session {session_id} could not be read ({error}), "
        "so no watch was started. Try watch_meeting again in a moment; "
        "if it fails again, tell the user what the error says."
    )


def shutting_down() -> str:
    """watch_meeting after EOF or a signal: the server is on its way out."""
    return (
        "The server is shutting down, so no watch can start. "
        "Start the server again, then call watch_meeting."
    )


def notice_failed(reason: str) -> str:
    """The consent notice could not be said, so nobody is being watched."""
    return (
        f"The consent notice could not be said ({reason}), so no watch is running "
        "and nobody is being listened to. Tell the user why, and do not call the "
        "other watching tools."
    )


def no_voice_engine(packages: Sequence[str]) -> str:
    """Why the notice cannot be said when no engine is available (a `notice_failed` reason)."""
    return "no voice engine is available; install one of " + ", ".join(packages)


def voice_not_set_up(error: str) -> str:
    """Why the notice cannot be said when the watch's voice could not even be built."""
    return f"the voice could not be set up: {error}"


def notice_floor_busy(who: str | None, pid: int | None, wait_s: float) -> str:
    """Why the notice cannot be said when another voice kept `speaking.lock` for the wait."""
    return f"another voice kept the floor for {wait_s:g} s ({holder(who, pid)})"


def notice_floor_unavailable(error: str) -> str:
    """Why the notice cannot be said when the lock file itself cannot be written."""
    return (
        f"the speaking lock could not be taken ({error}); "
        "the folder of the config file must be writable"
    )


def stopped_during_notice() -> str:
    """Why a watch did not start: stop_watching or a shutdown came while the notice played."""
    return "the watch was stopped before the notice had been said"


def holder(who: str | None, pid: int | None) -> str:
    """Who holds `speaking.lock`, for the agent: its `who` and pid, or that the pid is unknown."""
    if who is None:
        named = "another voice"
    else:
        named = f"{_quote(who)} ({HOLDERS[who]})" if who in HOLDERS else _quote(who)
    return f"{named}, pid {pid}" if pid is not None else f"{named}, with no pid to name"


# wait_for_transcript (3.5, 4.4)


def not_watching() -> str:
    """A watching call came while nothing is watched."""
    return (
        "No meeting is being watched. Call watch_meeting first, "
        "then wait_for_transcript to follow the meeting."
    )


def wait_running() -> str:
    """A second wait_for_transcript while one is in flight."""
    return (
        "A wait_for_transcript call is already running for this watch, and only one "
        "runs at a time. Use its result instead of starting another."
    )


# speak (3.6)


def blank_text() -> str:
    """speak step 1: nothing to say."""
    return "Nothing was said: `text` is blank. Put the words to speak in `text`."


def text_not_a_string(kind: str) -> str:
    """speak step 1: `text` is there but not a string; `kind` is its JSON type (3.1)."""
    return (
        f"Nothing was said: `text` must be a string, and this one is a JSON {kind}. "
        "Put the words to say out loud in `text` as text."
    )


def too_long(count: int, maximum: int) -> str:
    """speak step 2: more code points than `maximum`."""
    return (
        f"Nothing was said: the text is {count} characters long and speak takes at most "
        f"{maximum}. Say it in one to three short sentences."
    )


def unknown_emotion(value: str) -> str:
    """speak step 3: an emotion that is not one of the six."""
    return (
        f"Nothing was said: {_quote(value)} is not an emotion speak knows. "
        f"Use one of {', '.join(TONES)}, or leave emotion out for neutral."
    )


def held(hold_text: str) -> str:
    """The gate holds (speak steps 6 and 8); `hold_text` is the gate's Hold.text."""
    return f"The line was not spoken: {hold_text}. {KEEP_LISTENING}"


def lock_busy(who: str | None, pid: int | None) -> str:
    """speak step 7: another voice kept `speaking.lock` past the wait."""
    return (
        f"The line was not spoken: another voice has the floor ({holder(who, pid)}). "
        f"{KEEP_LISTENING}"
    )


def floor_unavailable(error: str) -> str:
    """speak step 7 when the lock file itself cannot be written (not a busy floor)."""
    return (
        f"The line was not spoken: the speaking lock could not be taken ({error}). "
        "Tell the user that the folder of the config file must be writable."
    )


def voice_failed(chain: str | Sequence[str]) -> str:
    """speak step 11: the voice broke down; `chain` is the error chain, outermost first."""
    errors = chain if isinstance(chain, str) else ": ".join(chain)
    return (
        "The line never reached the room because the voice broke down. It still counts "
        "as an utterance, and the pause after it runs from now. "
        f"{KEEP_LISTENING} What failed: {errors}"
    )


def gave_up(failures: int) -> str:
    """9.4: speech is abandoned for the rest of the watch (the innermost error of a chain)."""
    return (
        f"speech was given up for the rest of this watch after {failures} voice helper "
        "failures in a row; a new watch starts a fresh voice"
    )


# confirm (14.1)

NO_ANSWER_NO_ACTION = "There is no answer, so do not do what the question was about."


def blank_question() -> str:
    """confirm: nothing to ask."""
    return (
        "Nothing was asked: `question` is blank. Put the question to say out loud in "
        f"`question`. {NO_ANSWER_NO_ACTION}"
    )


def question_not_text(kind: str) -> str:
    """confirm: `question` is there but is not a string."""
    return (
        f"Nothing was asked: `question` must be a string, and this one is a JSON {kind}. "
        f"Put the question to say out loud in `question` as text. {NO_ANSWER_NO_ACTION}"
    )


def question_too_long(count: int, maximum: int) -> str:
    """confirm: a question of more code points than `maximum`."""
    return (
        f"Nothing was asked: the question is {count} characters long and confirm takes at "
        f"most {maximum}. Restate what you would do in one short sentence and ask that. "
        f"{NO_ANSWER_NO_ACTION}"
    )


def not_asked(reason: str) -> str:
    """confirm: the question could not be said; `reason` is the refusal `speak` would give."""
    return f"{reason} The question was not asked. {NO_ANSWER_NO_ACTION}"


def confirm_during_wait() -> str:
    """confirm while a wait_for_transcript is in flight: both would read the same lines."""
    return (
        "A wait_for_transcript call is running for this watch, and confirm listens to the "
        "same transcript, so the question was not asked. Use the wait's result, then call "
        f"confirm again. {NO_ANSWER_NO_ACTION}"
    )


def confirm_watch_stopped() -> str:
    """confirm: the watch was stopped while it listened for the answer."""
    return (
        "The watch was stopped while confirm was listening for the answer, so there is none "
        "and nothing should be done. Call watch_meeting first to follow a meeting again."
    )


# start_conversation (13)


def listener_failed(reason: str) -> str:
    """The conversation's listener did not start capturing."""
    return (
        f"The conversation did not start: the listener could not capture ({reason}). "
        "No conversation is running. Tell the user what went wrong; `assist talk` checks the "
        "microphone, the listener and the voice."
    )


def greeting_failed(reason: str) -> str:
    """The greeting could not be said, so the conversation did not start."""
    return (
        f"The conversation did not start: the greeting could not be said ({reason}). "
        "Listening was stopped again. Tell the user; `assist talk` checks the voice."
    )


def listener_lost(reason: str) -> str:
    """The listener of a conversation crashed or hung (logged and told in `ended`)."""
    return f"the listener stopped ({reason})"


ASSISTANT_SPEAKING = "you are still speaking"
"""The conversation's only hold on `may_speak`: a line of the assistant is playing."""


# Any tool


def unexpected_failure(tool: str, error: str) -> str:
    """A watching tool failed in a way no rule foresaw; `error` names the exception."""
    return (
        f"{tool} failed unexpectedly ({error}); the details are on the server's stderr. "
        "Try the call again; if it fails again, tell the user."
    )


ARGUMENTS = {
    "transcript": {
        "session": ("a string, a session id", "Call sessions for the ids."),
        "since": (
            "an integer of 0 or more",
            "Pass the `next` of the previous reply, or leave it out to start at the first line.",
        ),
        "verbatim": (
            "a boolean, true or false",
            "Leave it out for the lines with speaker names applied.",
        ),
    },
}
"""Per session tool and argument: the type it must have and what to do about it (3.3)."""


def wrong_argument(tool: str, argument: str, given: str) -> str:
    """A session tool's argument is missing or of the wrong type (3.1: a tool result, so the
    model can correct itself); `given` is what it is: "missing", "null", "a string"..."""
    expected, hint = ARGUMENTS[tool][argument]
    return f"{tool} was not run: `{argument}` must be {expected}, but it is {given}. {hint}"


def session_id_not_text(value: object) -> str:
    """A session tool was given a session id that is not a string."""
    return f"{value!r} is not a session id: an id is a string; call sessions for the ids."


def session_id_not_a_folder_name(value: str) -> str:
    """A session id that could name another folder than one session's."""
    return (
        f"{value!r} is not a session id: an id is one folder name, not empty, not . or .., "
        "and without /, \\ or NUL; call sessions to see the ids recorded here."
    )


def session_is_a_symlink(session: str, root: str) -> str:
    """A session id names a symlink, which is never followed."""
    return (
        f"session {session!r} is a symlink in {root}; symlinks are never followed, "
        "so it is not a session. Call sessions for the real ones."
    )


def no_such_session(session: str, root: str) -> str:
    """A session id names no session."""
    return f"there is no session {session!r} in {root}; call sessions to see the ids recorded here."


def sessions_unreadable(error: str) -> str:
    """A session tool could not read the sessions folder at all."""
    return (
        f"The sessions folder could not be read ({error}). "
        "Check that it exists and is readable, then try again."
    )
