"""What the watching tools say to the agent (behaviour.md 3.3 to 3.7, 4.4, 9.4)."""

from __future__ import annotations

import inspect

from assist.core import descriptions, hints, refusals
from assist.core.tones import TONES


def test_the_off_refusal_names_the_command_and_asks_to_wait_for_the_users_word() -> None:
    text = refusals.off_refusal(ambient_config=False)
    assert "switched off" in text
    assert "`assist config assistant on`" in text
    assert "confirm" in text
    assert "watch_meeting" in text
    assert "Live Assistant" not in text


def test_with_ambients_config_the_off_refusal_also_names_its_menu_item() -> None:
    text = refusals.off_refusal(ambient_config=True)
    assert "`assist config assistant on`" in text
    assert "Live Assistant" in text
    assert "Ambient" in text


def test_without_a_recording_the_agent_is_told_to_have_one_started() -> None:
    text = refusals.no_recording()
    assert "recording" in text
    assert "watch_meeting" in text


def test_a_session_that_is_not_recording_is_named() -> None:
    text = refusals.not_live("2026-08-29T1101-smoke")
    assert "2026-08-29T1101-smoke" in text
    assert "not the one being recorded" in text


def test_an_unreadable_transcript_names_the_session_and_the_error() -> None:
    text = refusals.transcript_unreadable("2026-09-05T1608", "raw.jsonl is a symlink")
    assert "2026-09-05T1608" in text
    assert "raw.jsonl is a symlink" in text


def test_a_failed_notice_gives_its_reason_and_says_no_watch_runs() -> None:
    text = refusals.notice_failed("the voice helper would not start")
    assert "the voice helper would not start" in text
    assert "no watch is running" in text
    assert "user" in text


def test_with_no_engine_the_reason_names_the_packages_to_install() -> None:
    text = refusals.no_voice_engine(["assist-voice-kokoro", "assist-voice-espeak"])
    assert "assist-voice-kokoro, assist-voice-espeak" in text


def test_the_wait_refusal_names_watch_meeting() -> None:
    assert "Call watch_meeting first" in refusals.not_watching()


def test_a_second_wait_is_told_one_is_already_running() -> None:
    assert "already running" in refusals.wait_running()


def test_the_hints_say_what_comes_next() -> None:
    assert "wait_for_transcript" in hints.next_after_watch()
    assert "live" in hints.next_after_watch()
    off, ended = hints.next_after_off(), hints.next_after_ended()
    assert "switched the assistant off" in off
    assert "recording has finished" in ended
    for hint in (off, ended):
        assert "no need to call stop_watching" in hint
    assert "no watch to stop" in hints.nothing_to_stop()


def test_speech_refusals_carry_their_facts() -> None:
    assert "blank" in refusals.blank_text()
    too_long = refusals.too_long(612, 600)
    assert "612" in too_long
    assert "600" in too_long
    unknown = refusals.unknown_emotion("Warm")
    assert '"Warm"' in unknown
    assert all(tone in unknown for tone in TONES)


def test_a_held_line_gives_the_hold_text_and_says_to_keep_listening() -> None:
    text = refusals.held("this meeting's allowance of 10 utterances is used up")
    assert "not spoken" in text
    assert "allowance of 10 utterances is used up" in text
    assert "wait_for_transcript" in text


def test_a_busy_lock_names_who_holds_it_and_its_pid() -> None:
    talk = refusals.lock_busy("talk", 4242)
    assert '"talk"' in talk
    assert "ambient talk" in talk
    assert "pid 4242" in talk
    assert "another assistant" in refusals.lock_busy("assistant", 7)
    assert '"dictation"' in refusals.lock_busy("dictation", 7)


def test_a_busy_lock_without_a_pid_says_there_is_none_to_name() -> None:
    text = refusals.lock_busy(None, None)
    assert "another voice" in text
    assert "no pid" in text
    assert "pid None" not in text


def test_a_voice_failure_ends_with_the_error_chain_and_says_it_still_counts() -> None:
    chain = ["the voice helper died while speaking", "RuntimeError: synthesis failed"]
    text = refusals.voice_failed(chain)
    assert text.endswith("the voice helper died while speaking: RuntimeError: synthesis failed")
    assert "never reached the room" in text
    assert "still counts" in text
    assert refusals.voice_failed("one error").endswith("one error")


def test_giving_up_says_how_many_helper_failures_led_to_it() -> None:
    text = refusals.gave_up(3)
    assert "3 voice helper failures" in text
    assert "rest of this watch" in text


def test_a_shutting_down_server_says_to_start_it_again_then_watch() -> None:
    text = refusals.shutting_down()
    assert "shutting down" in text and "watch_meeting" in text


def test_an_unwritable_lock_folder_is_named_as_such_not_as_a_busy_floor() -> None:
    text = refusals.floor_unavailable("[Errno 13] Permission denied")
    assert "was not spoken" in text and "Permission denied" in text
    assert "must be writable" in text and "floor" not in text
    reason = refusals.notice_floor_unavailable("[Errno 30] Read-only file system")
    assert "Read-only file system" in reason and "must be writable" in reason


def test_a_notice_that_could_not_take_the_floor_names_the_wait_and_the_holder() -> None:
    text = refusals.notice_floor_busy("talk", 4242, 5.0)
    assert "5 s" in text and "pid 4242" in text and "ambient talk" in text


def test_a_tool_failing_unexpectedly_names_the_tool_and_the_error() -> None:
    text = refusals.unexpected_failure("speak", "KeyError: 'x'")
    assert text.startswith("speak failed unexpectedly (KeyError: 'x')")
    assert "stderr" in text and "tell the user" in text


def test_a_wrong_session_tool_argument_names_it_the_type_expected_and_what_it_is() -> None:
    for argument, expected in [
        ("session", "string"),
        ("since", "integer"),
        ("verbatim", "boolean"),
    ]:
        text = refusals.wrong_argument("transcript", argument, "the number 5")
        assert text.startswith("transcript was not run")
        assert f"`{argument}`" in text and expected in text and "the number 5" in text


def test_every_text_function_says_something() -> None:
    facts = {
        "ambient_config": True,
        "session_id": "s",
        "error": "e",
        "reason": "r",
        "packages": ["p"],
        "who": "talk",
        "pid": 1,
        "count": 601,
        "maximum": 600,
        "value": "v",
        "hold_text": "h",
        "chain": ["c"],
        "failures": 3,
        "tool": "transcript",
        "wait_s": 5.0,
        "argument": "since",
        "given": "a string",
        "kind": "number",
        "session": "s",
        "root": "/sessions",
        "why": "idle",
    }
    public = [
        function
        for module in (refusals, hints)
        for _, function in inspect.getmembers(module, inspect.isfunction)
        if function.__module__ == module.__name__ and function.__name__[0] != "_"
    ]
    assert len(public) >= 24
    for function in public:
        names = inspect.signature(function).parameters
        text = function(**{name: facts[name] for name in names})
        assert isinstance(text, str)
        assert len(text.split()) >= 4, function.__name__


def test_the_tools_are_described_in_the_order_of_tools_list() -> None:
    assert list(descriptions.TOOL_DESCRIPTIONS) == [
        "sessions",
        "transcript",
        "status",
        "watch_meeting",
        "start_conversation",
        "wait_for_transcript",
        "speak",
        "confirm",
        "stop_watching",
    ]
    assert all(len(text.split()) >= 5 for text in descriptions.TOOL_DESCRIPTIONS.values())


def test_the_property_descriptions_cover_every_input_property() -> None:
    assert {tool: set(props) for tool, props in descriptions.PROPERTY_DESCRIPTIONS.items()} == {
        "transcript": {"session", "since", "verbatim"},
        "watch_meeting": {"session"},
        "wait_for_transcript": {"timeout_s"},
        "speak": {"text", "emotion"},
        "confirm": {"question", "timeout_s"},
    }
    assert "90" in descriptions.CONFIRM_TIMEOUT_DESCRIPTION
    assert "30" in descriptions.WAIT_TIMEOUT_DESCRIPTION
    assert "neutral" in descriptions.SPEAK_EMOTION_DESCRIPTION
    assert "`next`" in descriptions.TRANSCRIPT_SINCE_DESCRIPTION


def test_the_watching_tool_descriptions_carry_what_an_agent_must_know() -> None:
    watch = descriptions.WATCH_MEETING_DESCRIPTION
    assert "out loud" in watch
    assert "wait_for_transcript" in watch
    assert "switched off" in watch
    wait = descriptions.WAIT_FOR_TRANSCRIPT_DESCRIPTION
    assert all(word in wait for word in ("quiet", "name", "timeout", "own voice", "ended", "off"))
    speak = descriptions.SPEAK_DESCRIPTION
    assert all(word in speak for word in ("one to three", "lists", "markdown", "links", "code"))
    assert "pause" in speak
    assert "allowance" in speak
    assert "frees the voice" in descriptions.STOP_WATCHING_DESCRIPTION


def test_the_confirm_description_says_when_to_ask_and_to_act_only_on_yes() -> None:
    text = descriptions.CONFIRM_DESCRIPTION
    assert "out loud" in text
    assert "changes files, runs commands or sends" in text
    assert "act only on yes" in text
    assert "no answer" in text
    assert "heard" in text and "wait_for_transcript" in text
    assert "utterance" in text


def test_every_confirm_refusal_says_not_to_act() -> None:
    texts = [
        refusals.blank_question(),
        refusals.question_not_text("number"),
        refusals.question_too_long(700, 600),
        refusals.not_asked(refusals.held("the pause is running, 5 seconds to go")),
        refusals.confirm_during_wait(),
        refusals.confirm_watch_stopped(),
    ]
    for text in texts:
        assert "Nothing was asked" in text or "not asked" in text or "there is none" in text
        assert "do not do" in text or "nothing should be done" in text
    assert "700" in texts[2] and "600" in texts[2]
    assert "5 seconds to go" in texts[3] and "was not spoken" in texts[3]
