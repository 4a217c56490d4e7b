"""What an agent reads before it calls anything: each tool's and each input's description
(behaviour.md 3.3 to 3.7), in the order of tools/list."""

from __future__ import annotations

SESSIONS_DESCRIPTION = "Lists every session recorded on this machine, most recent first."

TRANSCRIPT_DESCRIPTION = (
    "Returns the transcript lines of one session, also while it is still being recorded."
)
TRANSCRIPT_SESSION_DESCRIPTION = "A session id, as given by the sessions listing."
TRANSCRIPT_SINCE_DESCRIPTION = (
    "How many lines to skip; normally the `next` value of the previous reply."
)
TRANSCRIPT_VERBATIM_DESCRIPTION = (
    "Return the raw recognised words, without the edits that name speakers."
)

STATUS_DESCRIPTION = (
    "Reports the present state: which session, if any, is being recorded, "
    "and how many sessions are waiting for a transcript."
)

WATCH_MEETING_DESCRIPTION = (
    "Joins the meeting being recorded right now as its live assistant. Before anything "
    "else it tells the room out loud that an AI is present and may talk, then returns the "
    "latest lines of the transcript. It refuses when the assistant is switched off or "
    "nothing is being recorded. Call it once, then keep calling wait_for_transcript."
)
WATCH_MEETING_SESSION_DESCRIPTION = (
    "A particular session to watch instead of the current recording; "
    "it must still be the one being recorded."
)

START_CONVERSATION_DESCRIPTION = (
    "Starts a spoken conversation with the user through this computer's microphone and "
    "speaker: it starts listening, greets the user out loud, and returns. It refuses when "
    "the assistant is switched off or the microphone cannot be used. Call it once, then keep "
    "calling wait_for_transcript: every line the user says comes back at once."
)

WAIT_FOR_TRANSCRIPT_DESCRIPTION = (
    "Waits for new speech in the meeting and returns it. A stretch of talk comes back "
    "once the room goes quiet, at once when someone says the assistant's name, or empty "
    "when the timeout passes. The assistant's own voice, picked up by the microphone, is "
    "filtered out. The status stays live while the meeting runs; ended or off means stop."
)
WAIT_TIMEOUT_DESCRIPTION = "The longest to wait for new speech, in seconds; 30 when omitted."

SPEAK_DESCRIPTION = (
    "Talks to the room through the voice on this computer. Keep it to one to three brief "
    "sentences meant for the ear, with no lists, markdown, links or code. Returns once "
    "the speech has finished. Turned down while the pause that follows every utterance "
    "runs, and once the meeting's allowance of utterances is used up."
)
SPEAK_TEXT_DESCRIPTION = "The words to say out loud."
SPEAK_EMOTION_DESCRIPTION = "The tone of delivery; neutral when omitted."

CONFIRM_DESCRIPTION = (
    "Asks a yes-or-no question out loud and waits for the spoken answer. Use it before "
    "anything that changes files, runs commands or sends something: restate the action in "
    "one short sentence and ask. The answer is yes, no, or no answer (silence, or nothing "
    "clear before the timeout); act only on yes. The lines heard meanwhile come back in "
    "heard and are not returned again by wait_for_transcript. The question counts as an "
    "utterance, so it is turned down when speak would be."
)
CONFIRM_QUESTION_DESCRIPTION = "The yes-or-no question to say out loud, in one short sentence."
CONFIRM_TIMEOUT_DESCRIPTION = (
    "The longest to wait for the answer after the question, in seconds. When omitted: 90, "
    "or 50 counting the question when the call asks for no progress updates (such clients "
    "stop waiting after about a minute)."
)

STOP_WATCHING_DESCRIPTION = (
    "Ends the watch or the conversation: withdraws the indication that an assistant is "
    "listening, stops listening if it started the listener, and frees the voice."
)

TOOL_DESCRIPTIONS: dict[str, str] = {
    "sessions": SESSIONS_DESCRIPTION,
    "transcript": TRANSCRIPT_DESCRIPTION,
    "status": STATUS_DESCRIPTION,
    "watch_meeting": WATCH_MEETING_DESCRIPTION,
    "start_conversation": START_CONVERSATION_DESCRIPTION,
    "wait_for_transcript": WAIT_FOR_TRANSCRIPT_DESCRIPTION,
    "speak": SPEAK_DESCRIPTION,
    "confirm": CONFIRM_DESCRIPTION,
    "stop_watching": STOP_WATCHING_DESCRIPTION,
}
"""Each tool's description, in the exact order of tools/list."""

PROPERTY_DESCRIPTIONS: dict[str, dict[str, str]] = {
    "transcript": {
        "session": TRANSCRIPT_SESSION_DESCRIPTION,
        "since": TRANSCRIPT_SINCE_DESCRIPTION,
        "verbatim": TRANSCRIPT_VERBATIM_DESCRIPTION,
    },
    "watch_meeting": {"session": WATCH_MEETING_SESSION_DESCRIPTION},
    "wait_for_transcript": {"timeout_s": WAIT_TIMEOUT_DESCRIPTION},
    "speak": {"text": SPEAK_TEXT_DESCRIPTION, "emotion": SPEAK_EMOTION_DESCRIPTION},
    "confirm": {"question": CONFIRM_QUESTION_DESCRIPTION, "timeout_s": CONFIRM_TIMEOUT_DESCRIPTION},
}
"""Each input property's description, by tool and property name."""
