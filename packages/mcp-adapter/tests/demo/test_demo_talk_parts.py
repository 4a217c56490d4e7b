"""The talk demo's parts on their own: the stand-in's pure policy, and the room's mix of the
assistant's voice back into the microphone (real FIFOs, the room's real thread)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import anyio
import numpy as np
import pytest
from assist.mcp.demo import command, talk_policy, talk_story
from assist.mcp.demo.talk_room import ECHO_GAIN, TalkRoom

RATE_HZ = 16_000


def words(text: str) -> set[str]:
    return {w.strip(".,?!'").lower() for w in text.split()} - {""}


def test_the_request_gets_an_ack_and_a_question_sharing_no_word_with_any_answer() -> None:
    turn = talk_policy.decide([f"[00:06] someone in the room: {talk_story.REQUEST}"])
    assert turn.kind == "request" and turn.ack == talk_policy.ACK
    assert "file called notes" in turn.question
    for answer in talk_story.ANSWERS.values():
        if answer is not None:
            assert not words(turn.question) & words(answer), answer


def test_the_stand_ins_own_lines_have_three_words_or_more_so_their_echo_can_be_told() -> None:
    for line in (talk_policy.ACK, talk_policy.DECLINED, talk_policy.ANSWER):
        assert len(line.split()) >= 3, line


@pytest.mark.parametrize(
    ("lines", "kind"),
    [
        (["Thanks. Goodbye."], "goodbye"),
        (["I created the file called nodes with today's wait stop that's enough"], "stop"),
        (["Please create a file called notes."], "request"),
        (["Hmm."], "other"),
        ([], "other"),
    ],
)
def test_the_stand_in_tells_a_goodbye_a_stop_a_request_and_a_stray_word_apart(
    lines: list[str], kind: str
) -> None:
    assert talk_policy.decide(lines).kind == kind


def test_the_goodbye_wins_over_a_stop_heard_in_the_same_wait() -> None:
    assert talk_policy.decide(["wait stop that's enough", "Thanks, goodbye."]).kind == "goodbye"


class Microphone:
    """What the listener would read: the room's FIFO, drained from here."""

    def __init__(self, path: Path) -> None:
        self._fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        self.data = bytearray()

    def drain(self) -> np.ndarray:
        try:
            while chunk := os.read(self._fd, 65536):
                self.data += chunk
        except BlockingIOError:
            pass
        return np.frombuffer(bytes(self.data), "<i2").astype(np.float32) / 32768

    def close(self) -> None:
        os.close(self._fd)


def tone(seconds: float, level: float = 0.5) -> np.ndarray:
    t = np.arange(round(seconds * RATE_HZ)) / RATE_HZ
    return (level * np.sin(2 * np.pi * 440 * t)).astype(np.float32)


def write_speaker(room: TalkRoom, samples: np.ndarray) -> None:
    fd = os.open(room.speaker, os.O_WRONLY)
    os.write(fd, (samples * 32767).astype("<i2").tobytes())
    os.close(fd)


def test_what_the_voice_played_comes_back_into_the_microphone_at_the_echo_gain(
    tmp_path: Path,
) -> None:
    room = TalkRoom(tmp_path)
    microphone = Microphone(room.microphone)
    try:
        before = time.monotonic()
        write_speaker(room, tone(0.5))
        assert anyio.run(room.assistant_speaks, before, 10)
        time.sleep(1.0)
        heard = microphone.drain()
    finally:
        room.close()
        microphone.close()
    loudest = max(
        float(np.sqrt(np.mean(heard[i : i + 1600] ** 2))) for i in range(0, len(heard), 1600)
    )
    expected = 0.5 / np.sqrt(2) * ECHO_GAIN
    assert expected * 0.8 < loudest < expected * 1.2, (loudest, expected)


def test_the_echo_keeps_one_delay_across_the_silence_the_voice_plays_between_lines(
    tmp_path: Path,
) -> None:
    """A loudspeaker's delay does not move between lines: the silence the voice's stream
    plays between them (the reference's timeline runs on through it) is echoed too, so the
    canceller need not learn the room again at every line."""
    room = TalkRoom(tmp_path)
    microphone = Microphone(room.microphone)
    speaker = os.open(room.speaker, os.O_WRONLY)
    try:
        for part in (tone(0.5), np.zeros(round(0.3 * RATE_HZ), np.float32), tone(0.5)):
            os.write(speaker, (part * 32767).astype("<i2").tobytes())
            time.sleep(0.2)  # each part before the one written before it has sounded
        time.sleep(1.5)
        heard = microphone.drain()
    finally:
        os.close(speaker)
        room.close()
        microphone.close()
    loud = np.abs(heard) > 0.4 * 0.5 * ECHO_GAIN
    first = int(np.argmax(loud))
    second = first + round(0.6 * RATE_HZ) + int(np.argmax(loud[first + round(0.6 * RATE_HZ) :]))
    assert abs((second - first) - round(0.8 * RATE_HZ)) <= 20, (second - first) / RATE_HZ


def test_the_rooms_clock_is_the_listeners_a_sound_lands_at_its_reading(tmp_path: Path) -> None:
    """The echo set places trials on the listener's capture clock by `room_s`: the sample a
    sound played at a moment starts at in what the listener reads is that moment's reading."""
    room = TalkRoom(tmp_path)
    microphone = Microphone(room.microphone)
    try:
        time.sleep(0.5)
        microphone.drain()
        before = time.monotonic()
        playing = room.play(tone(0.3))
        after = time.monotonic()
        time.sleep(1.0)
        heard = microphone.drain()
    finally:
        room.close()
        microphone.close()
    # the tone's sample 0 is 0 and its sample 1 is 0.086: the first above 0.05 is its second
    onset = int(np.argmax(np.abs(heard) > 0.05)) - 1
    assert abs(onset - playing.start_s * RATE_HZ) < 0.5, (onset, playing.start_s * RATE_HZ)
    # no earlier than the reading before the call, at most the two blocks (64 ms) the room
    # writes ahead after the one after
    assert room.room_s(before) - 1e-6 <= playing.start_s <= room.room_s(after) + 2 * 512 / RATE_HZ
    assert abs(room.room_s(room.monotonic(7.0)) - 7.0) < 1e-6


def test_silence_out_of_the_speaker_is_not_the_assistant_speaking(tmp_path: Path) -> None:
    room = TalkRoom(tmp_path)
    try:
        before = time.monotonic()
        write_speaker(room, np.zeros(RATE_HZ // 2, np.float32))
        assert not anyio.run(room.assistant_speaks, before, 1.0)
        assert room.quiet_for(0.0)
    finally:
        room.close()


def test_the_polite_user_waits_for_the_room_to_fall_quiet(tmp_path: Path) -> None:
    room = TalkRoom(tmp_path)
    try:
        write_speaker(room, tone(1.0))
        time.sleep(0.3)
        assert not room.quiet_for(0.0), "the assistant is still sounding"
        started = time.monotonic()
        anyio.run(room.say_in_turn, tone(0.1), 0.5)
        assert time.monotonic() - started >= 1.0 - 0.3 + 0.5 - 0.1
    finally:
        room.close()


def test_a_room_whose_listener_died_closes_within_a_second(tmp_path: Path) -> None:
    """Nobody reads the microphone FIFO, as when the listener exited: once the FIFO is full
    (64 KiB, two seconds of audio) the room's writes wait, and `close` must not wait with them."""
    room = TalkRoom(tmp_path)
    time.sleep(3.0)
    closing = time.monotonic()
    room.close()
    assert time.monotonic() - closing < 1.5  # CLOSE_S, and a little for a busy machine


def test_the_talk_demo_gives_one_length_in_its_help_its_banner_and_the_readme() -> None:
    readme = (Path(__file__).parents[4] / "README.md").read_text(encoding="utf-8")
    told = " ".join(line for line in readme.splitlines() if "demo --talk" in line)
    assert command.TALK_LENGTH == "about 45 s"
    assert command.TALK_LENGTH in told
    assert command.TALK_LENGTH in " ".join(command.parser().format_help().split())
