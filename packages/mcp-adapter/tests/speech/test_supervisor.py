"""The voice of one watch (behaviour 9.4): restarts, hangs, engine errors, the fallback switch
and giving up, against fake helpers; and one voice with the real `assist-voice` helper."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from assist.core.settings import VoiceSettings
from assist.core.supervision import MAX_FAILURES
from assist.mcp.speech.supervisor import Voice, VoiceFailure
from supervisor_fakes import fake, registry, wait_gone


def voice(*program: str, engine: str = "kokoro", fallback: str | None = "none", **options) -> Voice:
    """A voice for the fake engines, launched as `program` instead of assist-voice."""
    settings = VoiceSettings(engine=engine, fallback=fallback)
    return Voice(settings, program=list(program), registry=registry(), memory=0, **options)


def records(path: Path) -> list[list[str]]:
    """The argument lists the fake helpers were started with, one per start."""
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_voice_starts_its_helper_on_demand_and_keeps_it_for_the_next_line() -> None:
    with voice(*fake("works")) as speaker:
        assert speaker.helper_pid is None
        first = speaker.say("Hello, everyone.", "warm")
        pid = speaker.helper_pid
        second = speaker.say("One more thing.")
        assert (first.first_audio_ms, first.audio_s, first.cut_off) == (7, 0.05, False)
        assert not second.cut_off
        assert pid is not None and speaker.helper_pid == pid


def test_the_helper_gets_the_settings_as_arguments_in_order(tmp_path: Path) -> None:
    record = tmp_path / "argv.jsonl"
    settings = VoiceSettings(engine="kokoro", speaker="af_heart", style="calm", cue="softly")
    speaker = Voice(
        settings,
        program=fake("works", "--record", str(record)),
        registry=registry(),
        memory=0,
        no_play=True,
        save_dir=tmp_path / "wavs",
    )
    speaker.start()
    speaker.close()
    ours = ["--record", str(record)]
    chosen = ["--engine", "kokoro", "--voice", "af_heart", "--style", "calm"]
    server_flags = ["--no-play", "--save-dir", str(tmp_path / "wavs")]
    assert records(record) == [[*ours, *chosen, *server_flags]]


def test_a_crash_mid_line_restarts_the_helper_and_asks_once_more(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with voice(*fake("crashes", "--once", str(tmp_path / "crashed"))) as speaker:
        speaker.start()
        crashed = speaker.helper_pid
        result = speaker.say("Hello.")
        assert not result.cut_off and result.audio_s == 0.05
        assert speaker.helper_pid not in (None, crashed)
        assert speaker.failures == 0  # the retry's success reset the count
    assert "died while speaking (exit status 3)" in capsys.readouterr().err


def test_a_helper_that_crashes_again_on_the_retry_fails_the_line_counting_both() -> None:
    with voice(*fake("crashes")) as speaker, pytest.raises(VoiceFailure) as failure:
        speaker.say("Hello.")
    assert speaker.failures == 2
    assert failure.value.chain[0] == "asked once more after a crash, the voice failed again"
    assert "died while speaking (exit status 3)" in str(failure.value)
    assert not failure.value.given_up


def test_three_failures_in_a_row_give_speech_up_for_the_rest_of_the_watch() -> None:
    speaker = voice(*fake("crashes"))
    with pytest.raises(VoiceFailure):
        speaker.say("First.")
    with pytest.raises(VoiceFailure) as third:
        speaker.say("Second.")
    assert third.value.given_up and speaker.given_up
    assert f"after {MAX_FAILURES} voice helper failures" in third.value.chain[-1]
    assert "died while speaking" in str(third.value)
    began = time.monotonic()
    with pytest.raises(VoiceFailure) as at_once:
        speaker.say("Third.")
    assert time.monotonic() - began < 0.1 and speaker.helper_pid is None
    assert at_once.value.given_up
    assert at_once.value.chain == (third.value.chain[-1],)
    speaker.close()


def test_a_hang_kills_the_helper_counts_once_and_is_not_retried() -> None:
    speaker = voice(*fake("hangs"), say_within=0.5)
    speaker.start()
    hung = speaker.helper_pid
    assert hung is not None
    began = time.monotonic()
    with pytest.raises(VoiceFailure) as failure:
        speaker.say("Hello.")
    assert time.monotonic() - began < 1.5  # one wait of 0.5 s, no second attempt
    assert "did not finish the line within 0.5 s" in str(failure.value)
    assert speaker.failures == 1 and speaker.helper_pid is None
    assert wait_gone(hung)
    with pytest.raises(VoiceFailure):
        speaker.say("Again.")  # a fresh helper, which hangs too
    assert speaker.failures == 2
    speaker.close()


def test_success_resets_the_failure_count(tmp_path: Path) -> None:
    with voice(*fake("hangs", "--once", str(tmp_path / "hung")), say_within=0.5) as speaker:
        with pytest.raises(VoiceFailure):
            speaker.say("Hello.")
        assert speaker.failures == 1
        assert speaker.say("Hello again.").audio_s == 0.05
        assert speaker.failures == 0


def test_an_engine_error_is_reported_without_counting_or_restarting_the_helper() -> None:
    with voice(*fake("engine_errors")) as speaker:
        speaker.start()
        pid = speaker.helper_pid
        with pytest.raises(VoiceFailure) as failure:
            speaker.say("I cannot say this.")
        with pytest.raises(VoiceFailure) as silent:
            speaker.say("A mute line.")
        assert failure.value.chain == (
            "the kokoro voice could not say the line",
            "RuntimeError: synthesis failed",
        )
        assert "gave no reason" in str(silent.value)
        assert speaker.failures == 0 and speaker.helper_pid == pid
        assert speaker.say("This one works.").audio_s == 0.05


def test_the_chosen_engine_switches_to_the_fallback_after_three_failures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "argv.jsonl"
    settings = VoiceSettings(engine="kokoro", speaker="af_heart", style="calm")
    program = fake("picky", "--crash", "kokoro", "--record", str(record))
    with Voice(settings, program=program, registry=registry(), memory=0) as speaker:
        assert speaker.fallback == "piper"  # automatic: the first of piper, espeak
        with pytest.raises(VoiceFailure):
            speaker.say("First.")  # kokoro crashes twice
        result = speaker.say("Second.")  # a third crash, then the fallback says it
        assert result.audio_s == 0.05
        assert speaker.engine == "piper" and speaker.failures == 0
    assert "switching to the piper voice" in capsys.readouterr().err
    engines = [argv[argv.index("--engine") + 1] for argv in records(record)]
    assert engines == ["kokoro", "kokoro", "kokoro", "piper"]
    assert "--voice" not in records(record)[-1] and "--style" not in records(record)[-1]


def test_speech_is_given_up_only_when_the_fallback_fails_three_times_too() -> None:
    program = fake("picky", "--crash", "kokoro", "--crash", "piper")
    with voice(*program, fallback=None) as speaker:
        for line in ("One.", "Two."):
            with pytest.raises(VoiceFailure) as failure:
                speaker.say(line)
            assert not failure.value.given_up
        assert speaker.engine == "piper" and speaker.failures == 1
        with pytest.raises(VoiceFailure) as failure:
            speaker.say("Three.")
    assert failure.value.given_up
    assert "after 6 voice helper failures" in failure.value.chain[-1]


def test_a_failed_start_of_the_chosen_engine_switches_to_the_fallback_at_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with voice(*fake("picky", "--refuse", "kokoro"), fallback="espeak") as speaker:
        speaker.start()
        assert speaker.engine == "espeak" and speaker.failures == 0
        assert speaker.say("Hello.").audio_s == 0.05
    note = capsys.readouterr().err
    assert "quit during start-up (exit status 2)" in note and "switching to the espeak" in note


def test_when_the_fallback_cannot_start_either_both_failures_are_reported() -> None:
    program = fake("picky", "--refuse", "kokoro", "--refuse", "piper")
    with voice(*program, fallback=None) as speaker, pytest.raises(VoiceFailure) as failure:
        speaker.start()
    assert "the piper voice helper quit during start-up" in failure.value.chain[0]
    assert "the kokoro voice helper quit during start-up" in failure.value.chain[-1]
    assert speaker.failures == 1


def test_a_failed_start_with_no_fallback_counts_once_and_fails_the_line() -> None:
    with voice(*fake("exits_at_start")) as speaker, pytest.raises(VoiceFailure) as failure:
        speaker.say("Hello.")
    assert "quit during start-up (exit status 2)" in str(failure.value)
    assert speaker.failures == 1 and speaker.engine == "kokoro"


def test_a_start_that_runs_out_of_time_names_the_limit() -> None:
    with (
        voice(*fake("never_ready"), ready_within=0.3) as speaker,
        pytest.raises(VoiceFailure) as failure,
    ):
        speaker.start()
    assert "not ready within 0.3 s" in str(failure.value)


def test_a_configured_engine_that_is_not_installed_names_its_package() -> None:
    with voice(*fake("works"), engine="supertonic3") as speaker:
        with pytest.raises(VoiceFailure) as failure:
            speaker.start()
        assert "install assist-voice-supertonic" in str(failure.value)
    with voice(*fake("works"), engine="supertonic3", fallback=None) as speaker:
        assert speaker.say("Hello.").audio_s == 0.05
        assert speaker.engine == "piper"


def test_with_no_engine_installed_the_voice_names_the_packages_to_install() -> None:
    settings = VoiceSettings()
    speaker = Voice(settings, program=fake("works"), registry=registry(()), memory=0)
    assert speaker.engine is None
    with pytest.raises(VoiceFailure) as failure:
        speaker.start()
    assert "assist-voice-espeak" in str(failure.value)


def test_stop_line_from_another_thread_cuts_off_the_line() -> None:
    with voice(*fake("works", "--line-seconds", "5")) as speaker:
        assert not speaker.stop_line()  # nothing is being said
        speaker.start()
        threading.Timer(0.3, speaker.stop_line).start()
        began = time.monotonic()
        result = speaker.say("A very long line.")
        assert time.monotonic() - began < 2
        assert result.cut_off and 0.2 <= result.audio_s < 2


def test_a_stop_while_the_helper_is_still_starting_means_the_line_is_never_sent() -> None:
    with voice(*fake("works", "--ready-after", "0.6", "--line-seconds", "5")) as speaker:
        threading.Timer(0.2, speaker.stop_line).start()
        began = time.monotonic()
        result = speaker.say("Hello.")
        assert time.monotonic() - began < 2
        assert (result.first_audio_ms, result.audio_s, result.cut_off) == (None, 0.0, True)


def test_close_cuts_off_the_line_and_stops_the_helper_and_nothing_is_said_after() -> None:
    speaker = voice(*fake("works", "--line-seconds", "5"))
    speaker.start()
    pid = speaker.helper_pid
    assert pid is not None
    threading.Timer(0.3, speaker.close).start()
    began = time.monotonic()
    result = speaker.say("A very long line.")
    assert time.monotonic() - began < 2 and result.cut_off
    assert wait_gone(pid)
    with pytest.raises(VoiceFailure) as failure:
        speaker.say("Hello?")
    assert "watch ended" in str(failure.value)


def test_close_while_the_helper_is_starting_ends_it_without_a_failure_counted() -> None:
    speaker = voice(*fake("never_ready"))
    threading.Timer(0.3, speaker.close).start()
    began = time.monotonic()
    with pytest.raises(VoiceFailure) as failure:
        speaker.start()
    assert time.monotonic() - began < 2
    assert "watch ended" in failure.value.chain[0]
    assert speaker.failures == 0


def test_dropping_a_voice_kills_its_helper() -> None:
    speaker = voice(*fake("ignores_quit"))
    speaker.start()
    pid = speaker.helper_pid
    assert pid is not None
    del speaker
    gc.collect()
    assert wait_gone(pid, within=1)


def test_a_helper_that_exited_between_lines_is_replaced_without_counting() -> None:
    with voice(*fake("works")) as speaker:
        speaker.start()
        pid = speaker.helper_pid
        assert pid is not None
        os.kill(pid, 9)
        assert wait_gone(pid)
        assert speaker.say("Still here.").audio_s == 0.05
        assert speaker.failures == 0 and speaker.helper_pid != pid


HEAVY = ("numpy", "onnxruntime", "kokoro_onnx", "piper", "torch", "mlx", "mlx_audio")
HEAVY += ("supertonic", "sounddevice", "soundfile", "scipy")
"""Libraries the server process must never import: numerics, engines, audio."""


def test_the_real_helper_speaks_with_espeak_and_the_server_never_loads_numpy(
    tmp_path: Path,
) -> None:
    server = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        from assist.core.settings import VoiceSettings
        from assist.mcp.speech.supervisor import Voice
        voice = Voice(VoiceSettings(engine="espeak"), no_play=True, save_dir={str(tmp_path)!r})
        result = voice.say("Hello, this is the assistant speaking.", "warm")
        voice.close()
        print(result.audio_s, result.first_audio_ms, result.cut_off)
        heavy = {HEAVY!r}
        print(sorted(name for name in sys.modules if name.split(".")[0] in heavy))
        print(sorted(name for name in sys.modules if name.endswith(".engine")))
        maps = Path("/proc/self/maps")
        print("espeak-ng" in maps.read_text() if maps.exists() else False)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", server], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    audio, first, cut_off = done.stdout.splitlines()[0].split()
    assert float(audio) > 1.0 and int(first) >= 0 and cut_off == "False"
    assert done.stdout.splitlines()[1:] == ["[]", "[]", "False"]  # nothing heavy was loaded
    wav = tmp_path / "reply-1.wav"
    assert wav.stat().st_size > 44 + 22050  # more than half a second of 16-bit audio


def test_the_real_helper_also_runs_as_a_module_when_the_script_is_missing() -> None:
    program = [sys.executable, "-m", "assist.mcp.voice.helper"]
    with Voice(VoiceSettings(engine="espeak"), program=program, no_play=True) as speaker:
        first = speaker.say("One.")
        second = speaker.say("Two, and a little more.")
        assert speaker.engine == "espeak" and speaker.failures == 0
    assert 0 < first.audio_s < second.audio_s
