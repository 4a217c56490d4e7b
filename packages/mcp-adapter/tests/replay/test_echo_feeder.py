"""The echo feeder hands back what was spoken, once, a delay after it ended.

The log is written with assist.core's own event builders, as the server writes it; WAVs are
real files. The recogniser is a stand-in function run in a thread here; the replay tests and
the demo test run the real one in its worker process.
"""

from __future__ import annotations

import os
import time
import wave
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from assist.core import meeting_log
from assist.mcp.replay.echo_feeder import ECHO_DELAY_S, EchoFeeder

NOTICE = "Hello, this is Claude, an AI assistant listening to this meeting. I may speak up."
REMARK = "It's six hundred requests a minute for each key."
UTTERANCES = ("a" * 32, "b" * 32)


class Log:
    def __init__(self, folder: Path) -> None:
        self.path = folder / "assistant.jsonl"
        self.start = datetime.now().astimezone()

    def at(self, seconds: float) -> datetime:
        return self.start + timedelta(seconds=seconds)

    def write(self, event: dict[str, object]) -> None:
        with open(self.path, "a", encoding="utf-8") as file:
            file.write(meeting_log.encode_event(event))

    def remark(self, said_at: float, ended_at: float, text: str = REMARK, n: int = 0) -> None:
        self.write(meeting_log.speaking(self.at(said_at), 7, UTTERANCES[n], text, "neutral"))
        self.write(
            meeting_log.spoke(
                self.at(ended_at),
                7,
                UTTERANCES[n],
                text,
                "neutral",
                first_audio_ms=200,
                audio_s=2.5,
                took_ms=900,
            )
        )


def wav(folder: Path, name: str, seconds: float, mtime: float) -> Path:
    path = folder / name
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(8000)
        out.writeframes(bytes(int(seconds * 8000) * 2))
    os.utime(path, (mtime, mtime))
    return path


def heard_by_stand_in(path: Path) -> str:
    return f"heard {path.name}"


def test_a_remark_comes_back_in_the_exact_words_once_the_delay_has_passed(
    tmp_path: Path,
) -> None:
    log = Log(tmp_path)
    log.remark(1.0, 4.0)
    feeder = EchoFeeder(tmp_path, "exact")
    ended = log.at(4.0).timestamp()
    assert feeder.poll(ended + ECHO_DELAY_S - 0.1) == []
    [echo] = feeder.poll(ended + ECHO_DELAY_S)
    assert (echo.text, echo.said, echo.kind, echo.mode) == (REMARK, REMARK, "remark", "exact")
    assert echo.ended == pytest.approx(ended) and echo.audio_s == 2.5
    assert feeder.poll(ended + 60) == [], "a line never comes back twice"


def test_the_notice_ends_when_its_wav_appears_and_comes_back_after_it(tmp_path: Path) -> None:
    audio = tmp_path / "audio"
    audio.mkdir()
    log = Log(tmp_path)
    log.write(meeting_log.joined(log.at(0), 7, NOTICE))
    feeder = EchoFeeder(tmp_path, "exact", audio_dir=audio, delay_s=0.5)
    assert feeder.poll(log.at(30).timestamp()) == [], "no WAV yet: the notice is still being said"
    wav(audio, "reply-1.wav", 4.0, log.at(2.0).timestamp())
    [echo] = feeder.poll(log.at(30).timestamp())
    assert (echo.text, echo.kind, echo.audio_s) == (NOTICE, "notice", 4.0)
    assert echo.ended == pytest.approx(log.at(2.0).timestamp())


def test_without_a_save_folder_the_notice_length_is_estimated_from_its_words(
    tmp_path: Path,
) -> None:
    log = Log(tmp_path)
    log.write(meeting_log.joined(log.at(0), 7, NOTICE))
    feeder = EchoFeeder(tmp_path, "exact", delay_s=0)
    words = len(NOTICE.split())
    assert feeder.poll(log.at(words / 2.5 - 0.5).timestamp()) == []
    assert [echo.kind for echo in feeder.poll(log.at(words / 2.5).timestamp())] == ["notice"]


def test_a_notice_that_failed_and_a_line_the_voice_dropped_never_come_back(
    tmp_path: Path,
) -> None:
    log = Log(tmp_path)
    log.write(meeting_log.joined(log.at(0), 7, NOTICE))
    log.write(meeting_log.notice_error(log.at(1), 7, "the voice would not start"))
    log.write(meeting_log.speaking(log.at(2), 7, UTTERANCES[0], REMARK, "neutral"))
    log.write(meeting_log.voice_error(log.at(3), 7, UTTERANCES[0], REMARK, "engine crashed"))
    feeder = EchoFeeder(tmp_path, "exact", delay_s=0)
    assert feeder.poll(log.at(100).timestamp()) == []
    assert feeder.waiting() == 0


def test_a_line_still_being_written_is_read_once_it_is_complete(tmp_path: Path) -> None:
    log = Log(tmp_path)
    log.remark(0.0, 1.0)
    text = log.path.read_text()
    log.path.write_text(text[:-10])
    feeder = EchoFeeder(tmp_path, "exact", delay_s=0)
    assert feeder.poll(log.at(50).timestamp()) == []
    log.path.write_text(text)
    assert [echo.said for echo in feeder.poll(log.at(50).timestamp())] == [REMARK]


def test_asr_echoes_carry_what_the_recogniser_heard_in_each_lines_own_wav(
    tmp_path: Path,
) -> None:
    audio = tmp_path / "audio"
    audio.mkdir()
    wav(audio, "reply-0.wav", 1.0, time.time() - 500)  # from an earlier run: not ours
    log = Log(tmp_path)
    with ThreadPoolExecutor(1) as worker:
        feeder = EchoFeeder(
            tmp_path, "asr", audio_dir=audio, transcribe=heard_by_stand_in, worker=worker
        )
        log.write(meeting_log.joined(log.at(0), 7, NOTICE))
        log.remark(10.0, 12.0, n=0)
        log.remark(30.0, 33.0, text="Five oh three means the service is down.", n=1)
        wav(audio, "reply-1.wav", 4.0, log.at(3).timestamp())
        wav(audio, "reply-2.wav", 2.0, log.at(12).timestamp())
        wav(audio, "reply-10.wav", 3.0, log.at(33).timestamp())  # ids sort as numbers
        echoes = []
        deadline = time.monotonic() + 5
        while len(echoes) < 3 and time.monotonic() < deadline:
            echoes += feeder.poll(log.at(100).timestamp())
            time.sleep(0.01)
    assert [(echo.kind, echo.text) for echo in echoes] == [
        ("notice", "heard reply-1.wav"),
        ("remark", "heard reply-2.wav"),
        ("remark", "heard reply-10.wav"),
    ]
    assert [echo.said for echo in echoes][1:] == [
        REMARK,
        "Five oh three means the service is down.",
    ]


def test_asr_gives_a_line_up_when_its_wav_never_comes(tmp_path: Path) -> None:
    log = Log(tmp_path)
    log.remark(0.0, 1.0)
    audio = tmp_path / "audio"
    audio.mkdir()
    with ThreadPoolExecutor(1) as worker:
        feeder = EchoFeeder(
            tmp_path,
            "asr",
            audio_dir=audio,
            transcribe=heard_by_stand_in,
            worker=worker,
            delay_s=0,
        )
        assert feeder.poll(log.at(5).timestamp()) == []
        assert feeder.waiting() == 1
        assert feeder.poll(log.at(60).timestamp()) == []
    assert feeder.waiting() == 0
    assert feeder.given_up == [f"{REMARK} (its WAV never came)"]


def test_asr_needs_the_save_folder_and_a_recogniser(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="save folder and a recogniser"):
        EchoFeeder(tmp_path, "asr")
