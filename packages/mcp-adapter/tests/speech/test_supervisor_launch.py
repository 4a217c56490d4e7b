"""What the voice helper is started as (behaviour 9.1, 9.2): the program, the engine and its
fallback, the arguments in order, and where a relative designed voice is found."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from assist.app.engines import choose_here, load_plugins, total_memory
from assist.core.engines import (
    VOICES,
    EngineSpec,
    VoiceOptions,
    auto_order,
    choose_fallback,
    hookimpl,
)
from assist.core.plugins import Registry
from assist.core.settings import VoiceSettings
from assist.mcp.speech.engine_choice import describe_engines
from assist.mcp.speech.helper_command import (
    engine_packages,
    helper_arguments,
    helper_program,
    plan_engines,
    resolve_reference,
)
from supervisor_fakes import registry

GIB = 2**30


def designed(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "voice.json").write_text("{}")
    return folder


def test_the_helper_is_the_console_script_beside_the_interpreter(tmp_path: Path) -> None:
    python = tmp_path / "bin" / "python"
    python.parent.mkdir()
    assert helper_program(str(python)) == [str(python), "-m", "assist.mcp.voice.helper"]
    (tmp_path / "bin" / "assist-voice").write_text("#!/bin/sh\n")
    assert helper_program(str(python)) == [str(tmp_path / "bin" / "assist-voice")]


def test_this_environment_has_the_assist_voice_script() -> None:
    assert helper_program() == [str(Path(sys.executable).parent / "assist-voice")]


def test_a_chosen_engine_gets_voice_and_style_then_the_server_flags() -> None:
    settings = VoiceSettings(speaker="af_heart", style="calm", description="deep", cue="slow")
    arguments = helper_arguments("kokoro", settings, no_play=True, save_dir="/tmp/wavs")
    chosen = ["--engine", "kokoro", "--voice", "af_heart", "--style", "calm"]
    assert arguments == [*chosen, "--no-play", "--save-dir", "/tmp/wavs"]


def test_only_qwen3_tts_gets_a_description_and_its_cue() -> None:
    settings = VoiceSettings(description="a calm low voice", cue="unhurried")
    assert helper_arguments("qwen3-tts", settings, designs_voices=True) == [
        "--engine",
        "qwen3-tts",
        "--description",
        "a calm low voice",
        "--cue",
        "unhurried",
    ]
    assert helper_arguments("supertonic3", settings) == ["--engine", "supertonic3"]


def test_a_cue_without_a_description_is_not_passed() -> None:
    assert helper_arguments("qwen3-tts", VoiceSettings(cue="unhurried"), designs_voices=True) == [
        "--engine",
        "qwen3-tts",
    ]


def test_a_reference_wins_over_a_description_and_is_resolved(tmp_path: Path) -> None:
    voice = designed(tmp_path / "config" / "voices" / "gravel")
    settings = VoiceSettings(reference="voices/gravel", description="ignored", cue="ignored")
    arguments = helper_arguments(
        "qwen3-tts", settings, designs_voices=True, config_dir=tmp_path / "config"
    )
    assert arguments == ["--engine", "qwen3-tts", "--reference", str(voice)]


def test_a_fallback_gets_neither_the_speaker_nor_the_style_unless_it_is_qwen3_tts(
    tmp_path: Path,
) -> None:
    settings = VoiceSettings(speaker="af_heart", style="calm", reference=str(tmp_path))
    assert helper_arguments("espeak", settings, fallback=True, no_play=True) == [
        "--engine",
        "espeak",
        "--no-play",
    ]
    assert helper_arguments("qwen3-tts", settings, designs_voices=True, fallback=True) == [
        "--engine",
        "qwen3-tts",
        "--style",
        "calm",
        "--reference",
        str(tmp_path),
    ]


def test_a_relative_reference_is_looked_for_in_helper_dir_then_shipped_then_config(
    tmp_path: Path,
) -> None:
    helper_dir, shipped, config = tmp_path / "ambient", tmp_path / "shipped", tmp_path / "config"

    def resolve() -> str:
        return resolve_reference(
            "voices/v1", helper_dir=str(helper_dir), config_dir=config, shipped=shipped
        )

    assert resolve() == str(config / "voices" / "v1")  # none holds voice.json: the last
    designed(config / "voices" / "v1")
    assert resolve() == str(config / "voices" / "v1")
    designed(shipped / "voices" / "v1")
    assert resolve() == str(shipped / "voices" / "v1")
    designed(helper_dir / "voices" / "v1")
    assert resolve() == str(helper_dir / "voices" / "v1")


def test_a_relative_helper_dir_is_taken_from_the_config_folder_as_the_core_takes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config"
    designed(config / "helper" / "v1")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # the shell once took `helper` from here and gave config/v1
    found = resolve_reference("v1", helper_dir="helper", config_dir=config, shipped=None)
    assert found == str(config / "helper" / "v1")
    settings = VoiceSettings(engine="qwen3-tts", reference="v1", helper_dir="helper")
    arguments = helper_arguments("qwen3-tts", settings, designs_voices=True, config_dir=config)
    assert arguments[arguments.index("--reference") + 1] == str(config / "helper" / "v1")


def test_an_absolute_reference_stays_as_it_is(tmp_path: Path) -> None:
    assert resolve_reference(str(tmp_path), helper_dir="/x", config_dir=None) == str(tmp_path)


def test_a_configured_engine_always_wins_and_gets_the_automatic_fallback() -> None:
    plan = plan_engines(VoiceSettings(engine="kokoro"), registry(), memory=64 * GIB)
    assert (plan.engine, plan.fallback) == ("kokoro", "piper")


def test_auto_walks_the_ladder_from_the_memory_tier_to_an_installed_engine() -> None:
    engines = registry(("piper", "espeak"))
    plan = plan_engines(VoiceSettings(), engines, memory=8 * GIB, platform="darwin")
    assert (plan.engine, plan.fallback) == ("piper", "espeak")


@pytest.mark.parametrize(
    ("setting", "expected"), [(None, "piper"), ("none", None), ("espeak", "espeak")]
)
def test_the_fallback_setting_picks_the_fallback(setting: str | None, expected: str | None) -> None:
    plan = plan_engines(VoiceSettings(engine="kokoro", fallback=setting), registry(), memory=0)
    assert plan.fallback == expected


def test_with_nothing_installed_there_is_no_engine_and_the_packages_are_named() -> None:
    assert plan_engines(VoiceSettings(), registry(()), memory=0).engine is None
    assert "assist-voice-espeak" in engine_packages("linux")
    assert "assist-voice-qwen3" not in engine_packages("linux")
    assert "assist-voice-qwen3" in engine_packages("darwin")


def test_the_installed_engines_are_found_and_the_block_list_is_honoured() -> None:
    assert "espeak" in load_plugins(VOICES, {}).specs
    assert "espeak" not in load_plugins(VOICES, {"ASSIST_VOICES_BLOCK": "espeak"}).specs


def test_the_engines_we_ship_declare_the_memory_table_the_ladder_and_the_fallbacks() -> None:
    ours = load_plugins(VOICES, {}).specs
    ladder = ("qwen3-tts", "supertonic3", "kokoro", "piper", "espeak")
    assert auto_order(32 * GIB, ours.values()) == ladder
    assert auto_order(32 * GIB - 1, ours.values()) == (*ladder[1:], "qwen3-tts")
    assert auto_order(16 * GIB - 1, ours.values()) == (*ladder[2:], "supertonic3", "qwen3-tts")
    assert auto_order(0, ours.values()) == (*ladder[2:], "supertonic3", "qwen3-tts")
    assert choose_fallback(None, "kokoro", ours) == "piper"
    assert choose_fallback(None, "piper", ours) == "espeak"
    assert choose_fallback(None, "espeak", ours) == "piper"


def test_total_memory_is_known_on_this_machine() -> None:
    assert total_memory() > 256 * 2**20


def never_built(_options: VoiceOptions) -> object:
    raise AssertionError("choosing an engine never builds one")


class DownloadingKokoro:
    """A plugin whose kokoro needs a download first while piper is ready offline."""

    @hookimpl
    def assist_voice_engines(self, register: Callable[[EngineSpec], None]) -> None:
        def offline(ready: bool) -> Callable[[VoiceOptions], bool]:
            return lambda _options: ready

        for name, ready, rank in (("kokoro", False, 30), ("piper", True, 20)):
            register(
                EngineSpec(name, "fake", build=never_built, ready_offline=offline(ready), rank=rank)
            )


def test_auto_prefers_an_engine_ready_offline_except_on_macos() -> None:
    engines = Registry(VOICES)
    engines.add_plugin("fake", DownloadingKokoro())
    options = VoiceOptions()
    assert choose_here(None, engines, options, memory=8 * GIB, platform="linux") == "piper"
    assert choose_here(None, engines, options, memory=8 * GIB, platform="darwin") == "kokoro"
    assert choose_here("kokoro", engines, options, platform="linux") == "kokoro"


def test_assist_engines_says_which_installed_engines_can_load_here() -> None:
    assist = Path(sys.executable).parent / "assist"
    done = subprocess.run([str(assist), "engines"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    [espeak] = [line for line in done.stdout.splitlines() if line.startswith("  espeak ")]
    assert "assist-voice-espeak" in espeak and espeak.endswith(": can load here")
    nothing = describe_engines(load_plugins(VOICES, {"ASSIST_VOICES": "none-such"}), VoiceOptions())
    assert nothing == [
        "no voice engines are installed; install one, for example assist-voice-espeak"
    ]


def test_a_third_partys_engine_that_designs_voices_gets_the_reference_as_qwen3_does(
    tmp_path: Path,
) -> None:
    """What an engine takes follows what its spec declares, not its name."""
    voice = tmp_path / "voice.wav"
    voice.write_bytes(b"RIFF")
    settings = VoiceSettings(engine="designer", reference=str(voice), style="calm")
    assert helper_arguments("designer", settings, designs_voices=True) == [
        "--engine", "designer", "--style", "calm", "--reference", str(voice),
    ]  # fmt: skip
    assert helper_arguments("designer", settings) == ["--engine", "designer", "--style", "calm"]


def test_a_conversations_voice_is_asked_to_render_its_own_lines_ahead() -> None:
    arguments = helper_arguments("piper", VoiceSettings(), own_lines="Claude")
    assert arguments == ["--engine", "piper", "--own-lines", "Claude"]
