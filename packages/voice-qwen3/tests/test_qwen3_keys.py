"""The pure parts of qwen3-tts: the cache keys of behaviour.md 8.6 and 8.7, and the moods."""

from __future__ import annotations

import hashlib
import json

import pytest
from assist.core.tones import TONES
from assist.voice.qwen3 import keys
from assist.voice.qwen3.designed import design_instruction
from assist.voice.qwen3.moods import INSTRUCTIONS, instruction
from hypothesis import given
from hypothesis import strategies as st

AUDIO = b"RIFF....WAVEfmt pretend clip bytes"


def test_the_design_key_is_the_spec_formula_over_the_design_inputs() -> None:
    inputs = [keys.DESIGN_MODEL, "a warm alto", "", keys.REFERENCE_TEXT, keys.SEED]
    expected = hashlib.sha256(json.dumps(inputs).encode()).hexdigest()[:16]
    assert keys.design_key("a warm alto", None) == expected
    assert keys.design_key("a warm alto", "") == expected


def test_a_changed_description_or_cue_names_another_designed_voice() -> None:
    base = keys.design_key("a warm alto", "smiling")
    assert keys.design_key("a warm alto", "serious") != base
    assert keys.design_key("a cool alto", "smiling") != base
    assert keys.design_key("a warm alto", None) != base


def test_the_pack_key_is_the_spec_formula_over_model_text_and_clip_bytes() -> None:
    head = json.dumps([keys.PACK_VERSION, keys.EMBED_BITS, keys.CLONE_MODEL, "Hello there."])
    expected = hashlib.sha256(head.encode("utf-8") + AUDIO).hexdigest()[:16]
    assert keys.pack_key(keys.CLONE_MODEL, "Hello there.", AUDIO) == expected


def test_the_pack_key_changes_with_the_model_the_text_the_clip_and_the_pack_version(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base = keys.pack_key(keys.CLONE_MODEL, "Hello there.", AUDIO)
    assert keys.pack_key("mlx-community/other-model", "Hello there.", AUDIO) != base
    assert keys.pack_key(keys.CLONE_MODEL, "Hello there!", AUDIO) != base
    assert keys.pack_key(keys.CLONE_MODEL, "Hello there.", AUDIO + b"\0") != base
    monkeypatch.setattr(keys, "PACK_VERSION", keys.PACK_VERSION + 1)
    assert keys.pack_key(keys.CLONE_MODEL, "Hello there.", AUDIO) != base


@given(st.text(), st.text(), st.binary())
def test_every_key_is_sixteen_lower_case_hex_digits(text: str, cue: str, audio: bytes) -> None:
    for key in (keys.design_key(text, cue), keys.pack_key(keys.CLONE_MODEL, text, audio)):
        assert len(key) == 16 and set(key) <= set("0123456789abcdef")


def test_the_pack_manifest_records_what_built_the_pack() -> None:
    manifest = keys.pack_manifest(keys.CLONE_MODEL, "/voices/gravel", "Hello there.", "0.5.8")
    assert manifest == {
        "version": keys.PACK_VERSION,
        "model": keys.CLONE_MODEL,
        "source": "/voices/gravel",
        "embed_bits": 8,
        "reference_text": "Hello there.",
        "mlx_audio": "0.5.8",
    }


def test_there_is_one_instruction_for_each_tone_and_no_other() -> None:
    assert tuple(INSTRUCTIONS) == TONES
    assert len(set(INSTRUCTIONS.values())) == len(TONES)


def test_a_style_comes_before_the_tone_instruction_after_a_space() -> None:
    assert instruction("warm", "Speak with a Scottish accent.") == (
        "Speak with a Scottish accent. " + INSTRUCTIONS["warm"]
    )
    assert instruction("warm", None) == INSTRUCTIONS["warm"]
    assert instruction("warm", "  ") == INSTRUCTIONS["warm"]


@given(st.text().filter(lambda tone: tone not in TONES))
def test_an_unknown_tone_gets_the_neutral_instruction(tone: str) -> None:
    assert instruction(tone, None) == INSTRUCTIONS["neutral"]


def test_the_design_instruction_adds_the_cue_after_a_space() -> None:
    assert design_instruction("A gravelly baritone.", "Dry humour.") == (
        "A gravelly baritone. Dry humour."
    )
    assert design_instruction("A gravelly baritone.", None) == "A gravelly baritone."
