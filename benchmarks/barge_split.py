"""Where the time of a real-room interruption goes (issue 20 item 4, behaviour 16.3).

A real `assist mcp` holds a conversation in the PulseAudio room of `.ci/audio-room` (its Piper
voice into the null sink, its listener capturing the sink's monitor, AEC3 on, the echo at
0 dB); 2.5 s into a long line the user (Piper, `paplay --device=room`) says "Wait, stop, what
about the weather?". Every process of the path stamps what it does on the one monotonic clock
of the machine (`barge_stamps/sitecustomize.py`, put on PYTHONPATH: the code measured is the
real code), and the listener's own recording of the room (`room.native.wav`, the raw capture)
is where the user's first sound and the line's last are read. Each interruption's time, from
the user's first sound to the line silent, splits into:

- (a) **capture**: the sound in the room → the capture block holding it reaches the
  listener's callback (PulseAudio's monitor and source, PortAudio's block of 32 ms);
- (b1) **onset late**: the user's first sound → the frame the onset rule marks as the onset
  (Silero's probability or the level rising slowly on the first sound, or the first word
  missed and the onset on a later one);
- (b2) **rule's frames**: the block holding the first sound arrived → the block holding the
  last of the frames the rule needs arrived, less (b1) (two 32 ms frames under AEC3);
- (b3) **listener**: that block arrived → the `loud` signal written (resampling, AEC3, the
  canceller's wait for its reference, Silero); the waits for the reference in it are summed;
- (c) **server**: `loud` written → the server read it → `pause` written to the helper;
- (d) **helper**: `pause` written → the helper read it → its player held (the block being
  written finishes first);
- (e) **output**: the player held → the line's last sound in the room (the blocking write's
  buffer, the stream's latency, PulseAudio's sink).

Times in the room are the listener's capture clock (`CaptureClock`: sample count plus the
earliest callback offset of its first 2 s), which puts each sample at most a fixed `d0` after
it was really in the room (PulseAudio's part that no callback shows). So (a) is a lower bound
and (e) an upper bound, each by that same `d0`; their sum, and the total, are exact; the total
is read in the one recording with no clock at all. The pause (the figure behaviour 16.3 times:
the user's first sound to the player held) is the total less (e), so a lower bound by `d0`.

    uv run python benchmarks/barge_split.py --trials 12 \
        [--variant new:BARGE_PLAYER_BLOCK_S=0.02] [--sessions 2]

Each variant is a conversation of its own (the server, helper and listener started afresh),
the variants taking turns `--sessions` times, so they share the machine's load. Prints a
Markdown table and writes `barge_split.json` beside this file.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from echo import LONG_LINE, PAUSE_S, USER, AudioRoom, learn_room, talk, write_wav  # noqa: E402
from mcp_server import percentile  # noqa: E402

RATE = 16_000
FRAME_S = 0.032
RULE_FRAMES = 2
"""The onset rule's run of loud frames while AEC3's output is used (`Aec3Filter.onset_frames`),
unless a variant's BARGE_ONSET_FRAMES says otherwise."""
PARTS = ("a", "b1", "b2", "b3", "c", "d", "e")
NAMES = {
    "a": "(a) sound in the room → its capture block at the listener (≥, by d0)",
    "b1": "(b1) first sound → the frame marked as the onset (VAD/level late)",
    "b2": "(b2) the rule's frames: more capture blocks to come",
    "b3": "(b3) the listener: block in → `loud` written",
    "ref_wait": "  of which waiting for the reference",
    "c": "(c) the server: `loud` written → `pause` sent",
    "c1": "  of which `loud` written → read by the server",
    "d": "(d) the helper: `pause` sent → its player held",
    "d1": "  of which `pause` sent → read by the helper",
    "e": "(e) output: player held → the line's last sound (≤, by d0)",
    "pause": "first sound → the player held, the pause 16.3 names (≥, by d0)",
    "total": "**first sound → the line silent** (one recording, no clock)",
}


def with_stamps(env: dict[str, str], stamps: Path) -> dict[str, str | None]:
    """Set the variant's environment and the stamps' for the processes started next; what
    it replaced, for `restore`."""
    saved = {key: os.environ.get(key) for key in (*env, "BARGE_STAMPS", "PYTHONPATH")}
    os.environ.update(env)
    os.environ["BARGE_STAMPS"] = str(stamps)
    os.environ["PYTHONPATH"] = os.pathsep.join(
        filter(None, (str(HERE / "barge_stamps"), saved["PYTHONPATH"]))
    )
    return saved


def restore(saved: dict[str, str | None]) -> None:
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


def own_voice(room: AudioRoom, replies: int, env: dict[str, str], folder: Path) -> dict[str, Any]:
    """`echo.py`'s false barge-ins (replies at 0 dB, nobody speaking) in this variant, with
    the times its player's output ran dry (each a new timeline for the canceller)."""
    from echo import false_barge_ins

    stamps = folder / "stamps.jsonl"
    saved = with_stamps(env, stamps)
    try:
        counted = false_barge_ins(room, replies, cancel=True)
    finally:
        restore(saved)
    kinds = read_stamps(stamps) if stamps.exists() else {}
    return counted | {"ran_dry": len(kinds.get("dry", []))}


def conversation(
    room: AudioRoom, wav: Path, trials: int, env: dict[str, str], folder: Path
) -> tuple[list[float], Path, Path]:
    """One conversation of `trials` interruptions; the paplay launches, the stamps file and
    a copy of the listener's raw capture (removed with its session at the end)."""
    stamps = folder / "stamps.jsonl"
    launched: list[float] = []
    saved = with_stamps(env, stamps)
    try:
        talking = talk(folder, room, cancel=True)
    finally:
        restore(saved)
    try:
        learn_room(talking)
        for _ in range(trials):
            time.sleep(PAUSE_S)
            speaking = threading.Thread(target=talking.tool, args=("speak", {"text": LONG_LINE}))
            speaking.start()
            time.sleep(2.5)
            launched.append(time.monotonic())
            player = room.play(wav)
            speaking.join(timeout=60)
            player.wait(timeout=30)
            time.sleep(2.0)  # the interruption's turn ends before the next line
            talking.tool("wait_for_transcript", {"timeout_s": 1})
        time.sleep(0.5)  # the native WAV grows every tick
        shutil.copy(next(talking.folder.rglob("room.native.wav")), folder / "room.native.wav")
    finally:
        talking.close()
    return launched, stamps, folder / "room.native.wav"


def read_stamps(path: Path) -> dict[str, list[dict[str, Any]]]:
    kinds: dict[str, list[dict[str, Any]]] = {}
    for line in path.read_text().splitlines():
        stamp = json.loads(line)
        kinds.setdefault(stamp["k"], []).append(stamp)
    return kinds


def first(stamps: list[dict[str, Any]], after: float, until: float, **match: Any) -> Any:
    for stamp in stamps:
        if after <= stamp["t"] < until and all(stamp.get(k) == v for k, v in match.items()):
            return stamp
    return None


def split(
    launched: list[float], stamps_path: Path, capture: Path, user: np.ndarray, frames: int
) -> list[Any]:
    """Each interruption's parts, in seconds (None where the path never got that far)."""
    import soundfile
    import soxr

    stamps = read_stamps(stamps_path)
    blocks = stamps["block"]
    rate = blocks[0]["rate"]
    ends = np.array([b["frames"] / rate for b in blocks])  # capture seconds at each callback
    times = np.array([b["t"] for b in blocks])
    offset = float(np.min((times - ends)[ends <= 2.0]))  # CaptureClock's

    def at(captured_s: float) -> float:
        return captured_s + offset

    def arrived(captured_s: float) -> float:
        """When the block holding the sample `captured_s` reached the listener."""
        return float(times[int(np.searchsorted(ends, captured_s, side="right"))])

    native, native_rate = soundfile.read(str(capture), dtype="float32")
    audio = soxr.resample(native, native_rate, RATE) if native_rate != RATE else native
    trials = []
    for launch in launched:
        lo = max(0, round((launch - offset - 0.5) * RATE))
        window = audio[lo : lo + 5 * RATE]
        found = user_and_voice(window, user)
        if found is None:
            trials.append(None)
            continue
        onset_i, voice = found
        u = (lo + onset_i) / RATE
        t_a = arrived(u)
        loud = first(stamps.get("loud", []), t_a - FRAME_S, t_a + 3.0)
        row: dict[str, Any] = {"u_s": u, "a": t_a - at(u)}
        resumed = None
        if loud is not None:
            onset_s = loud["ms"] / 1000
            t_conf = arrived(onset_s + frames * FRAME_S - 1 / RATE)
            row |= {"b1": onset_s - u, "b2": t_conf - t_a - (onset_s - u)}
            row["b3"] = loud["t"] - t_conf
            row["ref_wait"] = sum(
                w["s"] for w in stamps.get("ref_wait", []) if t_a < w["t"] <= loud["t"]
            )
            read = first(stamps.get("srv_loud", []), loud["t"], loud["t"] + 3.0)
            sent = first(stamps.get("srv_ask", []), loud["t"], loud["t"] + 3.0, what="Pause")
            if read is not None and sent is not None:
                row |= {"c1": read["t"] - loud["t"], "c": sent["t"] - loud["t"]}
                took = first(stamps["hlp_hold"], sent["t"], sent["t"] + 3.0, pause=True)
                held = first(stamps["hlp_held"], sent["t"], sent["t"] + 3.0, pause=True)
                if took is not None and held is not None:
                    row |= {"d1": took["t"] - sent["t"], "d": held["t"] - sent["t"]}
                    resumed = first(stamps["hlp_hold"], held["t"], held["t"] + 5.0, pause=False)
        until = len(voice) if resumed is None else round((resumed["t"] - offset) * RATE) - lo
        sounding = last_sound(voice[: max(0, until)])
        if sounding is None or sounding < onset_i:
            trials.append(None)
            continue
        s = (lo + sounding) / RATE
        row["total"] = s - u
        if "d" in row:
            row["e"] = at(s) - (sent["t"] + row["d"])
            row["pause"] = row["total"] - row["e"]
        row["resumed"] = resumed is not None
        trials.append(row)
    return trials


def user_and_voice(recording: np.ndarray, user: np.ndarray) -> tuple[int, np.ndarray] | None:
    """The user's first sound in `recording` and the recording without the user (found by
    cross-correlation and taken out: the null sink mixes linearly)."""
    size = 1 << int(np.ceil(np.log2(len(recording) + len(user))))
    scores = np.fft.irfft(np.fft.rfft(recording, size) * np.conj(np.fft.rfft(user, size)), size)
    place = int(np.argmax(scores[: len(recording)]))
    gain = scores[place] / float(np.sum(np.square(user)))
    if gain < 0.5:
        return None
    voice = recording.copy()
    voice[place : place + len(user)] -= gain * user[: len(voice) - place]
    return place + int(np.argmax(np.abs(user) > 0.01)), voice


def last_sound(voice: np.ndarray) -> int | None:
    """The end of the last 10 ms of the assistant's voice over -40 dBFS."""
    frames = np.sqrt(np.mean(np.square(voice[: len(voice) // 160 * 160].reshape(-1, 160)), 1))
    sounding = np.flatnonzero(frames > 0.01)
    return None if not len(sounding) else int((sounding[-1] + 1) * 160)


def summary(rows: list[Any]) -> dict[str, Any]:
    done = [r for r in rows if r is not None]
    parts: dict[str, Any] = {}
    for key in (*PARTS, "ref_wait", "c1", "d1", "pause", "total"):
        ms = [r[key] * 1000 for r in done if key in r]
        if ms:
            parts[key] = {
                "n": len(ms),
                "p50": percentile(ms, 0.5),
                "p95": percentile(ms, 0.95),
                "mean": float(np.mean(ms)),
            }
    return {"trials": len(rows), "measured": len(done), "parts": parts}


def table(results: dict[str, Any]) -> str:
    names = list(results["variants"])
    head = " | ".join(f"{n}: p50 / p95 / mean ms" for n in names)
    rows = [f"| Part | {head} |", "| --- |" + " --- |" * len(names)]
    for key, name in NAMES.items():
        cells = []
        for variant in names:
            part = results["variants"][variant]["summary"]["parts"].get(key)
            shown = f"{part['p50']:.0f} / {part['p95']:.0f} / {part['mean']:.0f}" if part else ""
            cells.append(shown)
        rows.append(f"| {name} | {' | '.join(cells)} |")
    counts = [
        f"{results['variants'][n]['summary']['measured']} of "
        f"{results['variants'][n]['summary']['trials']}"
        for n in names
    ]
    rows.append(f"| interruptions measured | {' | '.join(counts)} |")
    own = [results["variants"][n]["own_voice"] for n in names]
    if any(own):
        rows.append(
            "| its own voice at 0 dB, nobody speaking: replies cut / paused / output ran dry | "
            + " | ".join(
                " + ".join(
                    f"{r['cut']} / {r['paused']} / {r['ran_dry']} of {r['replies']}" for r in runs
                )
                for runs in own
            )
            + " |"
        )
    before, after = results["load_before"][0], results["load_after"][0]
    loads = " | ".join(
        "/".join(f"{load:.1f}" for load in results["variants"][n]["loads"]) for n in names
    )
    rows.append(
        f"| load at each conversation's end (before {before:.1f}, after {after:.1f}) | {loads} |"
    )
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=12, help="interruptions per variant")
    parser.add_argument("--sessions", type=int, default=1, help="conversations per variant")
    parser.add_argument("--keep", type=Path, help="a folder to keep each conversation's stamps in")
    parser.add_argument(
        "--own-voice", type=int, default=0, help="replies per variant for false barge-ins"
    )
    parser.add_argument(
        "--variant", action="append", default=[], help="NAME:KEY=VALUE,KEY=VALUE (env)"
    )
    args = parser.parse_args()
    variants: dict[str, dict[str, str]] = {"as is": {}}
    for spec in args.variant:
        name, _, settings = spec.partition(":")
        variants[name] = dict(item.split("=", 1) for item in settings.split(",") if item)
    from assist.mcp.demo.rooms.voiced import Voice

    voice = Voice()
    user = voice.say(USER)
    voice.close()
    results: dict[str, Any] = {
        "date": datetime.now().astimezone().isoformat(timespec="seconds"),
        "load_before": os.getloadavg(),
        "variants": {
            name: {"env": env, "trials": [], "loads": [], "own_voice": []}
            for name, env in variants.items()
        },
    }
    room = AudioRoom()
    try:
        wav = Path(room.base) / "interruption.wav"
        write_wav(wav, user)
        per = -(-args.trials // args.sessions)
        for _ in range(args.sessions):
            for name, env in variants.items():
                if args.own_voice:
                    with tempfile.TemporaryDirectory() as folder:
                        heard = own_voice(room, args.own_voice, env, Path(folder))
                        results["variants"][name]["own_voice"].append(heard)
                if not per:
                    continue
                with tempfile.TemporaryDirectory() as folder:
                    launched, stamps, capture = conversation(room, wav, per, env, Path(folder))
                    kept = results["variants"][name]
                    if args.keep:
                        args.keep.mkdir(parents=True, exist_ok=True)
                        copy = args.keep / f"{name.replace(' ', '-')}-{len(kept['loads'])}.jsonl"
                        shutil.copy(stamps, copy)
                    kept["trials"] += split(
                        launched, stamps, capture, user,
                        int(env.get("BARGE_ONSET_FRAMES", RULE_FRAMES)),
                    )  # fmt: skip
                    kept["loads"].append(os.getloadavg()[0])
    finally:
        room.close()
    for kept in results["variants"].values():
        kept["summary"] = summary(kept["trials"])
    results["load_after"] = os.getloadavg()
    (HERE / "barge_split.json").write_text(json.dumps(results, indent=2) + "\n")
    print(table(results))


if __name__ == "__main__":
    main()
