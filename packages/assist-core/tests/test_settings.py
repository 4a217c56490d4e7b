"""Settings: per-key fallback when reading (2.1), `assist config` parsing (2.3, 2.4)."""

from __future__ import annotations

import json

import attrs
import pytest
from assist.core.engines import ENGINE_PACKAGES
from assist.core.recognisers import RECOGNISER_PACKAGES
from assist.core.settings import (
    END_SILENCE_RANGE_MS,
    JSON_PATHS,
    KEYS,
    TURN_PAUSE_RANGE_MS,
    U32_MAX,
    AssistantSettings,
    EngineVoice,
    ListenSettings,
    SettingError,
    Settings,
    VoiceSettings,
    describe,
    engine_voice,
    format_document,
    helper_reference,
    parse_settings,
    reference_candidates,
    reference_not_found,
    resolve_reference,
    sessions_dir_live_refusal,
    set_key,
)
from assist.core.settings import (
    VoiceSettings as Voice,
)
from assist.core.turn_models import TURN_MODEL_PACKAGES
from hypothesis import given
from hypothesis import strategies as st

SHIPPED = tuple(ENGINE_PACKAGES)
"""The engines we ship: always valid values, installed or not."""
INSTALLED = ("espeak", "kokoro", "toy")
"""What the installed plugins register in these tests: two of ours and a third party's."""
RECOGNISERS = ("whisper", "toy")
"""The recognisers installed in these tests: one of ours and a third party's."""

AMBIENT_STYLE_FILE = {
    "sessions_dir": "/Users/dana/Documents/Ambient",
    "assistant": {"enabled": True, "name": "Ada", "cooldown_s": 30, "max_per_meeting": 4},
    "voice": {"engine": "kokoro", "speaker": "af_heart", "helper_dir": "/opt/ambient/voice"},
    "talk": {"hotkey": "F5", "model": "haiku"},
}


def test_an_empty_document_means_every_default_with_no_warning():
    settings, warnings = parse_settings({}, engines=INSTALLED)
    assert settings == Settings()
    assert settings.assistant == AssistantSettings(False, "Claude", 60, 10)
    assert settings.voice == VoiceSettings()
    assert warnings == []


def test_a_full_file_is_read_and_unknown_sections_are_ignored():
    settings, warnings = parse_settings(AMBIENT_STYLE_FILE, engines=INSTALLED)
    assert warnings == []
    assert settings.sessions_dir == "/Users/dana/Documents/Ambient"
    assert settings.assistant == AssistantSettings(True, "Ada", 30, 4)
    assert settings.voice == VoiceSettings(
        engine="kokoro", speaker="af_heart", helper_dir="/opt/ambient/voice"
    )


@pytest.mark.parametrize("document", [None, [], "on", 3, True])
def test_a_document_that_is_not_an_object_gives_every_default_and_one_warning(document):
    settings, warnings = parse_settings(document, engines=INSTALLED)
    assert settings == Settings()
    assert len(warnings) == 1
    assert "not an object" in warnings[0]


@pytest.mark.parametrize(
    ("key", "section", "value"),
    [
        ("assistant.enabled", "assistant", "yes"),
        ("assistant.name", "assistant", 7),
        ("assistant.name", "assistant", "   "),
        ("assistant.cooldown_s", "assistant", -1),
        ("assistant.cooldown_s", "assistant", 2**32),
        ("assistant.cooldown_s", "assistant", 60.0),
        ("assistant.max_per_meeting", "assistant", True),
        ("voice.engine", "voice", "festival"),
        ("voice.engine", "voice", 1),
        ("voice.speaker", "voice", ["af_heart"]),
        ("voice.fallback", "voice", "festival"),
    ],
)
def test_one_bad_value_takes_its_default_with_a_warning_naming_the_key(key, section, value):
    field = key.split(".")[1]
    document = json.loads(json.dumps(AMBIENT_STYLE_FILE))
    document[section][field] = value
    settings, warnings = parse_settings(document, engines=INSTALLED)
    assert len(warnings) == 1
    assert key in warnings[0]
    assert settings == _with_default(
        parse_settings(AMBIENT_STYLE_FILE, engines=INSTALLED)[0], section, field
    )


def _with_default(settings: Settings, section: str, field: str) -> Settings:
    """`settings` with one field back at its default."""
    part = getattr(settings, section)
    default = getattr(type(part)(), field)
    return attrs.evolve(settings, **{section: attrs.evolve(part, **{field: default})})


def test_a_section_that_is_not_an_object_defaults_that_section_only():
    document = {"assistant": "on", "voice": {"engine": "espeak"}}
    settings, warnings = parse_settings(document, engines=INSTALLED)
    assert settings.assistant == AssistantSettings()
    assert settings.voice.engine == "espeak"
    assert len(warnings) == 1 and "assistant" in warnings[0]


def test_null_optional_values_and_null_sections_read_as_defaults_silently():
    document = {"sessions_dir": None, "voice": {"engine": None, "cue": None}, "assistant": None}
    assert parse_settings(document, engines=INSTALLED) == (Settings(), [])


def test_blank_and_default_text_values_read_as_unset():
    settings, warnings = parse_settings(
        {"voice": {"speaker": "  ", "style": "Default"}}, engines=INSTALLED
    )
    assert settings.voice == VoiceSettings()
    assert warnings == []


def test_auto_in_the_file_means_the_machine_chooses():
    settings, warnings = parse_settings(
        {"voice": {"engine": "auto", "fallback": "default"}}, engines=INSTALLED
    )
    assert settings.voice.engine is None and settings.voice.fallback is None
    assert warnings == []


@pytest.mark.parametrize("word", ["true", "YES", "On", "1", " on "])
def test_the_assistant_switch_accepts_every_true_word_in_any_case(word):
    doc = set_key({}, "assistant", word, ambient_file=False, engines=INSTALLED)
    assert doc == {"assistant": {"enabled": True}}


@pytest.mark.parametrize("word", ["false", "No", "OFF", "0"])
def test_the_assistant_switch_accepts_every_false_word_in_any_case(word):
    assert set_key({}, "assistant", word, ambient_file=False, engines=INSTALLED) == {
        "assistant": {"enabled": False}
    }


def test_a_word_that_is_not_a_boolean_is_refused_naming_the_accepted_words():
    with pytest.raises(SettingError) as refusal:
        set_key({}, "assistant", "maybe", ambient_file=False, engines=INSTALLED)
    message = str(refusal.value)
    assert "maybe" in message and "not a recognised boolean" in message
    for word in ("true", "yes", "on", "1", "false", "no", "off", "0"):
        assert word in message


@pytest.mark.parametrize("text", ["abc", "-1", "4294967296", "1.5", "", "+5", "1_000", "٣"])
def test_a_count_that_is_not_an_unsigned_32_bit_integer_is_refused(text):
    for key in ("assistant.cooldown_s", "assistant.max_per_meeting"):
        with pytest.raises(SettingError, match="not a whole number"):
            set_key(
                {"assistant": {"cooldown_s": 5}}, key, text, ambient_file=False, engines=INSTALLED
            )


def test_counts_store_integers_up_to_the_unsigned_32_bit_limit():
    assert set_key({}, "assistant.cooldown_s", " 0 ", ambient_file=False, engines=INSTALLED) == {
        "assistant": {"cooldown_s": 0}
    }
    doc = set_key(
        {}, "assistant.max_per_meeting", str(U32_MAX), ambient_file=False, engines=INSTALLED
    )
    assert doc == {"assistant": {"max_per_meeting": U32_MAX}}


def test_the_name_is_trimmed_and_an_empty_name_is_refused():
    assert set_key({}, "assistant.name", "  Ada  ", ambient_file=False, engines=INSTALLED) == {
        "assistant": {"name": "Ada"}
    }
    with pytest.raises(SettingError, match="empty"):
        set_key({}, "assistant.name", "   ", ambient_file=False, engines=INSTALLED)


def test_auto_or_default_engine_is_stored_as_null():
    for word in ("auto", "default", "AUTO"):
        doc = set_key(
            {"voice": {"engine": "kokoro"}},
            "voice.engine",
            word,
            ambient_file=False,
            engines=INSTALLED,
        )
        assert doc == {"voice": {"engine": None}}


def test_every_engine_name_is_accepted():
    for name in SHIPPED:
        assert set_key({}, "voice.engine", name, ambient_file=False, engines=INSTALLED) == {
            "voice": {"engine": name}
        }


def test_an_unknown_engine_is_refused_naming_it_and_listing_the_valid_ones():
    with pytest.raises(SettingError) as refusal:
        set_key({}, "voice.engine", "festival", ambient_file=False, engines=INSTALLED)
    message = str(refusal.value)
    assert "festival" in message
    for name in ("auto", *SHIPPED):
        assert name in message
    with pytest.raises(SettingError):
        set_key({}, "voice.engine", "none", ambient_file=False, engines=INSTALLED)


def test_an_engine_an_installed_plugin_registers_is_accepted_for_engine_and_fallback():
    for key in ("voice.engine", "voice.fallback"):
        doc = set_key({}, key, "Toy", ambient_file=False, engines=INSTALLED)
        assert doc == {"voice": {key.split(".")[1]: "toy"}}
        settings, warnings = parse_settings(doc, engines=INSTALLED)
        assert (settings.voice.engine or settings.voice.fallback) == "toy"
        assert warnings == []


def test_an_engine_no_installed_plugin_registers_is_refused_listing_the_installed_ones():
    with pytest.raises(SettingError) as refusal:
        set_key({}, "voice.engine", "toy", ambient_file=False, engines=("espeak",))
    message = str(refusal.value)
    assert "voice.engine not changed" in message
    assert "'toy'" in message and "the installed engines are: espeak" in message
    nothing = pytest.raises(SettingError, match="the installed engines are: none")
    with nothing:
        set_key({}, "voice.fallback", "toy", ambient_file=False, engines=())


def test_a_file_naming_an_engine_no_longer_installed_reads_as_auto_with_a_warning():
    document = {"voice": {"engine": "toy", "fallback": "toy", "speaker": "Bob"}}
    settings, warnings = parse_settings(document, engines=("espeak", "kokoro"))
    assert settings.voice == VoiceSettings(speaker="Bob")
    assert len(warnings) == 2
    assert all("'toy'" in w and "installed engines are: espeak, kokoro" in w for w in warnings)
    assert parse_settings(document, engines=INSTALLED)[0].voice.engine == "toy"


def test_the_fallback_takes_auto_none_or_an_engine_name():
    assert set_key({}, "voice.fallback", "auto", ambient_file=False, engines=INSTALLED) == {
        "voice": {"fallback": None}
    }
    assert set_key({}, "voice.fallback", "None", ambient_file=False, engines=INSTALLED) == {
        "voice": {"fallback": "none"}
    }
    assert set_key({}, "voice.fallback", "espeak", ambient_file=False, engines=INSTALLED) == {
        "voice": {"fallback": "espeak"}
    }
    with pytest.raises(SettingError, match="none"):
        set_key({}, "voice.fallback", "festival", ambient_file=False, engines=INSTALLED)


@pytest.mark.parametrize(
    "key",
    [
        "voice.speaker",
        "voice.style",
        "voice.description",
        "voice.cue",
        "voice.reference",
        "voice.helper_dir",
        "sessions_dir",
    ],
)
def test_default_or_an_empty_value_clears_a_text_setting(key):
    path = key.split(".")
    for word in ("default", "", "  "):
        doc = set_key({}, key, word, ambient_file=False, engines=INSTALLED)
        stored = doc
        for part in path:
            stored = stored[part]
        assert stored is None
    doc = set_key({}, key, "a value", ambient_file=False, engines=INSTALLED)
    assert parse_settings(doc, engines=INSTALLED)[0] != Settings()


def test_an_unknown_key_is_refused_naming_it_and_listing_the_known_keys():
    with pytest.raises(SettingError) as refusal:
        set_key({}, "assistant.volume", "3", ambient_file=False, engines=INSTALLED)
    message = str(refusal.value)
    assert "assistant.volume" in message
    for key in KEYS:
        assert key in message


@pytest.mark.parametrize("engine", ["piper", "espeak", "Piper", "toy"])
def test_engines_ambient_cannot_read_are_refused_while_the_file_is_ambients(engine):
    with pytest.raises(SettingError) as refusal:
        set_key({}, "voice.engine", engine, ambient_file=True, engines=INSTALLED)
    message = str(refusal.value)
    assert "Ambient could not read its config" in message
    assert "ASSIST_CONFIG" in message
    assert set_key({}, "voice.engine", engine, ambient_file=False, engines=INSTALLED) == {
        "voice": {"engine": engine.lower()}
    }


def test_engines_ambient_knows_and_any_fallback_are_fine_in_ambients_file():
    assert set_key({}, "voice.engine", "kokoro", ambient_file=True, engines=INSTALLED) == {
        "voice": {"engine": "kokoro"}
    }
    assert set_key({}, "voice.fallback", "espeak", ambient_file=True, engines=INSTALLED) == {
        "voice": {"fallback": "espeak"}
    }


def test_setting_a_key_keeps_every_other_key_and_section_and_leaves_the_input_alone():
    before = json.loads(json.dumps(AMBIENT_STYLE_FILE))
    after = set_key(before, "voice.cue", "brisk", ambient_file=True, engines=INSTALLED)
    assert before == AMBIENT_STYLE_FILE
    assert after["talk"] == {"hotkey": "F5", "model": "haiku"}
    assert after["voice"] == {**AMBIENT_STYLE_FILE["voice"], "cue": "brisk"}
    assert after["assistant"] == AMBIENT_STYLE_FILE["assistant"]


def test_a_section_that_is_not_an_object_is_replaced_when_a_key_in_it_is_set():
    doc = set_key(
        {"assistant": "broken"}, "assistant.name", "Ada", ambient_file=False, engines=INSTALLED
    )
    assert doc == {"assistant": {"name": "Ada"}}


def test_the_document_is_formatted_with_a_two_space_indent_and_a_final_newline():
    text = format_document({"assistant": {"name": "Zoë"}})
    assert text == '{\n  "assistant": {\n    "name": "Zoë"\n  }\n}\n'


def test_describe_lists_every_key_with_its_effective_value():
    shown = dict(describe(parse_settings(AMBIENT_STYLE_FILE, engines=INSTALLED)[0]))
    assert list(shown) == list(KEYS)
    assert shown["assistant"] == "on"
    assert shown["assistant.name"] == "Ada"
    assert shown["assistant.cooldown_s"] == "30"
    assert shown["voice.engine"] == "kokoro"
    assert shown["voice.fallback"] == "auto"
    assert shown["voice.style"] == "default"
    assert dict(describe(Settings()))["assistant"] == "off"


def test_an_absolute_reference_is_its_own_only_candidate():
    assert reference_candidates("/voices/v1", "/helper", "/shipped", "/cfg") == ["/voices/v1"]


def test_a_relative_reference_is_tried_against_helper_dir_shipped_voices_then_config_folder():
    assert reference_candidates("voices/v1-gravel", "/opt/ambient", "/pkg/voices", "/cfg") == [
        "/opt/ambient/voices/v1-gravel",
        "/pkg/voices/voices/v1-gravel",
        "/cfg/voices/v1-gravel",
    ]
    assert reference_candidates("v1", None, None, "/cfg") == ["/cfg/v1"]
    assert reference_candidates("v1", "helper", None, "/cfg") == ["/cfg/helper/v1", "/cfg/v1"]


def test_a_relative_helper_dir_is_taken_from_the_config_folder_not_the_working_directory():
    holding = {"/cfg/helper/v1"}
    candidates = reference_candidates("v1", "helper", None, "/cfg")
    assert helper_reference(candidates, holding.__contains__) == "/cfg/helper/v1"


def test_with_no_folder_to_try_a_relative_reference_is_its_own_candidate():
    assert reference_candidates("v1", None, None, None) == ["v1"]
    assert reference_candidates("v1", "helper", None, None) == ["helper/v1"]


def test_the_helper_gets_the_last_candidate_when_none_holds_voice_json():
    assert helper_reference(["/a/v1", "/b/v1"], lambda folder: False) == "/b/v1"
    assert helper_reference(["/a/v1", "/b/v1"], "/a/v1".__eq__) == "/a/v1"


def test_the_first_candidate_holding_voice_json_wins():
    candidates = ["/a/v1", "/b/v1", "/c/v1"]
    holding = {"/b/v1", "/c/v1"}
    assert resolve_reference(candidates, holding.__contains__) == "/b/v1"
    assert resolve_reference(candidates, lambda folder: False) is None


def test_a_reference_that_cannot_be_found_names_every_folder_tried():
    message = reference_not_found("v1", ["/a/v1", "/b/v1"])
    assert "/a/v1" in message and "/b/v1" in message and "voice.json" in message


FULL = Voice(
    engine="kokoro",
    speaker="af_heart",
    style="calm",
    description="a deep voice",
    cue="slowly",
    reference=None,
)


def test_the_chosen_engine_takes_the_speaker_and_style_and_only_qwen3_the_design():
    assert engine_voice(FULL, designs_voices=False, stand_in=False) == EngineVoice(
        "af_heart", "calm"
    )
    assert engine_voice(FULL, designs_voices=True, stand_in=False) == EngineVoice(
        "af_heart", "calm", None, "a deep voice", "slowly"
    )


def test_a_stand_in_takes_no_speaker_and_only_qwen3_keeps_the_style():
    assert engine_voice(FULL, designs_voices=False, stand_in=True) == EngineVoice()
    assert engine_voice(FULL, designs_voices=True, stand_in=True) == EngineVoice(
        None, "calm", None, "a deep voice", "slowly"
    )


def test_a_reference_wins_over_a_description_and_a_cue_needs_a_description():
    cloned = attrs.evolve(FULL, reference="voices/v1")
    assert engine_voice(cloned, designs_voices=True, stand_in=False) == EngineVoice(
        "af_heart", "calm", "voices/v1"
    )
    bare_cue = attrs.evolve(FULL, description=None)
    assert engine_voice(bare_cue, designs_voices=True, stand_in=False).cue is None


@given(
    st.builds(
        Voice,
        speaker=st.none() | st.just("s"),
        style=st.none() | st.just("st"),
        description=st.none() | st.just("d"),
        cue=st.none() | st.just("c"),
        reference=st.none() | st.just("r"),
    ),
    st.booleans(),
    st.booleans(),
)
def test_an_engine_never_takes_a_setting_that_is_not_set_or_not_its_own(voice, designs, stand_in):
    took = engine_voice(voice, designs_voices=designs, stand_in=stand_in)
    for name in ("speaker", "style", "reference", "description", "cue"):
        assert getattr(took, name) in (None, getattr(voice, name))
    if stand_in:
        assert took.speaker is None
    if not designs:
        assert (took.reference, took.description, took.cue) == (None, None, None)
        assert took.style == (None if stand_in else voice.style)
    assert not (took.reference and took.description)


def test_the_sessions_dir_refusal_names_the_live_session():
    assert "2026-08-29T1101-smoke" in sessions_dir_live_refusal("2026-08-29T1101-smoke")


def test_the_listen_keys_read_from_their_section_with_per_key_fallback():
    settings, warnings = parse_settings(
        {"listen": {"stt": "Whisper", "model": "base.en", "device": "USB", "end_silence_ms": 5}}
    )
    assert settings.listen == ListenSettings(stt="whisper", model="base.en", device="USB")
    assert len(warnings) == 1
    assert "listen.end_silence_ms" in warnings[0]


def test_auto_and_default_clear_the_listen_engine_model_and_devices():
    doc = {"listen": {"stt": "whisper", "model": "tiny.en", "call_device": "monitor"}}
    for key, value in (("listen.stt", "auto"), ("listen.model", "default")):
        doc = set_key(doc, key, value, ambient_file=False)
    doc = set_key(doc, "listen.call_device", "default", ambient_file=False)
    assert doc == {"listen": {"stt": None, "model": None, "call_device": None}}
    assert parse_settings(doc)[0].listen == ListenSettings()


@pytest.mark.parametrize("text", ["", "six hundred", "-5", "99", "10001", "600.5"])
def test_an_end_silence_outside_its_range_or_not_whole_is_refused(text):
    with pytest.raises(SettingError, match=r"listen.end_silence_ms not changed.*600"):
        set_key({}, "listen.end_silence_ms", text, ambient_file=False)


def test_a_recogniser_name_with_spaces_or_slashes_is_refused():
    for text in ("faster whisper", "../whisper"):
        with pytest.raises(SettingError, match=r"listen\.stt not changed"):
            set_key({}, "listen.stt", text, ambient_file=False)
    doc = set_key({}, "listen.stt", "Pocketsphinx", ambient_file=False)
    assert doc == {"listen": {"stt": "pocketsphinx"}}


def test_a_recogniser_an_installed_plugin_registers_is_accepted_as_listen_stt():
    doc = set_key({}, "listen.stt", "Toy", ambient_file=False, recognisers=RECOGNISERS)
    assert doc == {"listen": {"stt": "toy"}}
    settings, warnings = parse_settings(doc, recognisers=RECOGNISERS)
    assert (settings.listen.stt, warnings) == ("toy", [])


def test_a_recogniser_no_installed_plugin_registers_is_refused_listing_the_installed_ones():
    with pytest.raises(SettingError) as refusal:
        set_key({}, "listen.stt", "toy", ambient_file=False, recognisers=("pocketsphinx",))
    message = str(refusal.value)
    assert "listen.stt not changed" in message and "'toy'" in message
    assert "the installed recognisers are: pocketsphinx" in message
    with pytest.raises(SettingError, match="the installed recognisers are: none"):
        set_key({}, "listen.stt", "toy", ambient_file=False)


def test_the_recognisers_we_ship_are_accepted_installed_or_not():
    for name in RECOGNISER_PACKAGES:
        assert set_key({}, "listen.stt", name, ambient_file=False) == {"listen": {"stt": name}}


def test_a_file_naming_a_recogniser_no_longer_installed_reads_as_auto_with_a_warning():
    document = {"listen": {"stt": "toy", "model": "base.en"}}
    settings, [warning] = parse_settings(document, recognisers=("whisper", "pocketsphinx"))
    assert settings.listen == ListenSettings(model="base.en")
    assert "listen.stt" in warning and "'toy'" in warning
    assert "installed recognisers are: pocketsphinx, whisper" in warning
    assert parse_settings(document, recognisers=RECOGNISERS)[0].listen.stt == "toy"


def test_the_turn_model_and_its_short_pause_default_to_auto_and_200_ms():
    settings, warnings = parse_settings({})
    assert (settings.listen.turn, settings.listen.turn_pause_ms, warnings) == (None, 200, [])
    assert dict(describe(settings))["listen.turn"] == "auto"
    assert dict(describe(settings))["listen.turn_pause_ms"] == "200"


def test_the_turn_keys_read_from_the_listen_section_with_per_key_fallback():
    settings, warnings = parse_settings({"listen": {"turn": "Silence", "turn_pause_ms": 20}})
    assert settings.listen == ListenSettings(turn="silence")
    assert len(warnings) == 1 and "listen.turn_pause_ms" in warnings[0]


def test_silence_auto_and_the_turn_models_we_ship_are_accepted_as_listen_turn():
    assert set_key({}, "listen.turn", "silence", ambient_file=False) == {
        "listen": {"turn": "silence"}
    }
    assert set_key({}, "listen.turn", "Smart-Turn", ambient_file=False) == {
        "listen": {"turn": "smart-turn"}
    }
    assert set_key({}, "listen.turn", "auto", ambient_file=False) == {"listen": {"turn": None}}


def test_a_turn_model_no_installed_plugin_registers_is_refused_listing_the_installed_ones():
    with pytest.raises(SettingError) as refusal:
        set_key({}, "listen.turn", "toy", ambient_file=False, turn_models=("smart-turn",))
    message = str(refusal.value)
    assert "listen.turn not changed" in message and "'toy'" in message
    assert "the installed turn models are: silence, smart-turn" in message
    doc = set_key({}, "listen.turn", "toy", ambient_file=False, turn_models=("toy",))
    assert parse_settings(doc, turn_models=("toy",))[0].listen.turn == "toy"


@pytest.mark.parametrize("text", ["", "two hundred", "-5", "49", "10001", "200.5"])
def test_a_short_pause_outside_its_range_or_not_whole_is_refused(text):
    with pytest.raises(SettingError, match=r"listen.turn_pause_ms not changed.*200"):
        set_key({}, "listen.turn_pause_ms", text, ambient_file=False)
    assert set_key({}, "listen.turn_pause_ms", "250", ambient_file=False) == {
        "listen": {"turn_pause_ms": 250}
    }


# Properties ------------------------------------------------------------------------------

words = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1).filter(
    lambda text: text.strip() and text.strip().lower() != "default"
)
optional_words = st.none() | words.map(str.strip)
settings_strategy = st.builds(
    Settings,
    sessions_dir=optional_words,
    assistant=st.builds(
        AssistantSettings,
        enabled=st.booleans(),
        name=words.map(str.strip),
        cooldown_s=st.integers(0, U32_MAX),
        max_per_meeting=st.integers(0, U32_MAX),
    ),
    voice=st.builds(
        VoiceSettings,
        engine=st.none() | st.sampled_from((*SHIPPED, *INSTALLED)),
        speaker=optional_words,
        style=optional_words,
        description=optional_words,
        cue=optional_words,
        reference=optional_words,
        helper_dir=optional_words,
        fallback=st.none() | st.sampled_from(("none", *SHIPPED, *INSTALLED)),
    ),
    listen=st.builds(
        ListenSettings,
        stt=st.none() | st.sampled_from((*RECOGNISER_PACKAGES, *RECOGNISERS)),
        model=optional_words,
        device=optional_words,
        call_device=optional_words,
        end_silence_ms=st.integers(*END_SILENCE_RANGE_MS),
        turn=st.none() | st.sampled_from(tuple(TURN_MODEL_PACKAGES)),
        turn_pause_ms=st.integers(*TURN_PAUSE_RANGE_MS),
    ),
)


@given(settings_strategy, st.dictionaries(st.text(), st.integers(), max_size=3))
def test_setting_every_described_value_then_reading_gives_the_settings_back(settings, extra):
    doc = dict(extra)
    for key, value in describe(settings):
        doc = set_key(
            doc, key, value, ambient_file=False, engines=INSTALLED, recognisers=RECOGNISERS
        )
    text = format_document(doc)
    again, warnings = parse_settings(json.loads(text), engines=INSTALLED, recognisers=RECOGNISERS)
    assert again == settings
    assert warnings == []
    for key, value in extra.items():
        if key not in {path[0] for path in JSON_PATHS.values()}:
            assert doc[key] == value


@given(st.sampled_from(KEYS), st.text())
def test_set_key_either_refuses_or_stores_a_value_that_reads_back_without_warning(key, value):
    try:
        doc = set_key({"talk": {"x": 1}}, key, value, ambient_file=False, engines=INSTALLED)
    except SettingError as refusal:
        assert str(refusal)
        return
    settings, warnings = parse_settings(json.loads(format_document(doc)), engines=INSTALLED)
    assert warnings == []
    assert doc["talk"] == {"x": 1}
    assert dict(describe(settings))[key] != ""


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=10,
)


@given(
    st.dictionaries(
        st.sampled_from(["assistant", "voice", "sessions_dir", "listen", "talk"]),
        json_values
        | st.dictionaries(
            st.sampled_from(
                [
                    *("enabled", "name", "cooldown_s", "engine", "fallback", "cue"),
                    *("stt", "end_silence_ms", "device", "turn", "turn_pause_ms"),
                ]
            ),
            json_values,
        ),
    )
)
def test_reading_any_document_gives_valid_settings_and_never_raises(document):
    settings, warnings = parse_settings(document, engines=INSTALLED)
    assert settings.assistant.name.strip()
    assert 0 <= settings.assistant.cooldown_s <= U32_MAX
    assert settings.voice.engine in (None, *SHIPPED, *INSTALLED)
    low, high = END_SILENCE_RANGE_MS
    assert low <= settings.listen.end_silence_ms <= high
    low, high = TURN_PAUSE_RANGE_MS
    assert low <= settings.listen.turn_pause_ms <= high
    assert settings.listen.turn in (None, *TURN_MODEL_PACKAGES)
    assert all(isinstance(warning, str) for warning in warnings)
