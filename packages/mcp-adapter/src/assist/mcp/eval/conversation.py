"""A real `assist mcp` in conversation mode, driven over its pipes as an agent would.

`Client` speaks JSON-RPC on a child server's stdin and stdout, stamping when each reply
arrives (a reader thread, so every read has a bound and a server that hangs fails the caller
instead of holding it). `Conversation` writes a config of its own into a folder, starts the
server with the environment it is given (where the listener hears and the voice plays) and
starts a conversation; its tools are plain calls, JSON in and out, and its log is read back
from the session folder. `assist eval --echo-set` runs one per set; the benchmarks run theirs.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

from assist.core import environment

ASSIST = Path(sys.executable).parent / "assist"
"""The `assist` of the running interpreter's environment."""
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "assist-eval", "version": "1"},
    },
}
REPLY_TIMEOUT_S = 300.0
"""Longest a reply may take: a `speak` of a long line on two busy cores, or a wait's own
timeout, stays well under it; a server that says nothing for this long has hung."""
CLOSE_TIMEOUT_S = 30.0


class ServerGone(RuntimeError):
    """The server ended, or said nothing within the bound."""


class Client:
    """A JSON-RPC client on a server's pipes, timing when each reply arrives."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, **env},
        )
        self.started = time.monotonic()
        self._ids = 0
        self._replies: queue.Queue[tuple[bytes, float]] = queue.Queue()
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()

    def _read(self, stdout: IO[bytes]) -> None:
        for line in stdout:
            self._replies.put((line, time.monotonic()))
        self._replies.put((b"", time.monotonic()))

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write((json.dumps(message) + "\n").encode())
        self.process.stdin.flush()

    def receive(self, timeout_s: float = REPLY_TIMEOUT_S) -> tuple[dict[str, Any], float]:
        """The next message and the monotonic time it arrived; ServerGone past the bound."""
        try:
            line, at = self._replies.get(timeout=timeout_s)
        except queue.Empty:
            raise ServerGone(f"assist mcp said nothing for {timeout_s:.0f} s") from None
        if not line:
            self._replies.put((line, at))  # every later read learns it too
            raise ServerGone(f"assist mcp ended (exit {self.process.poll()})")
        message: dict[str, Any] = json.loads(line)
        return message, at

    def call(self, method: str, params: dict[str, Any] | None = None, request_id: int = 1) -> Any:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        reply, _ = self.receive()
        return reply

    def tool(self, name: str, arguments: dict[str, Any]) -> Any:
        """Call tool `name`; its JSON result, RuntimeError with its text when it is an error."""
        self._ids += 1
        params = {"name": name, "arguments": arguments}
        reply = self.call("tools/call", params, request_id=self._ids)
        text = reply["result"]["content"][0]["text"]
        if reply["result"]["isError"]:
            raise RuntimeError(f"{name}: {text}")
        return json.loads(text)

    def initialize(self) -> float:
        self.send(INITIALIZE)
        _, at = self.receive()
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return at - self.started

    def rss_kib(self) -> int:
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        return int(
            next(line for line in status.splitlines() if line.startswith("VmRSS")).split()[1]
        )

    def cpu_s(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks = os.sysconf("SC_CLK_TCK")
        return (int(fields[11]) + int(fields[12])) / ticks

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=15)


class Conversation:
    """A server in `root` with `settings` as its whole config, in a conversation."""

    def __init__(
        self,
        root: Path,
        settings: dict[str, Any],
        env: dict[str, str],
        command: tuple[str, ...] = ("mcp", "--no-play"),
    ) -> None:
        self.root = root
        config = root / "config" / "config.json"
        config.parent.mkdir(parents=True)
        config.write_text(json.dumps(settings))
        (root / "sessions").mkdir()
        self.client = Client(
            [str(ASSIST), *command],
            {
                environment.CONFIG.name: str(config),
                environment.HOME.name: str(root / "sessions"),
                environment.VOICE_CACHE.name: str(root / "cache"),
                **env,
            },
        )
        try:
            self.client.initialize()
            self.started = self.tool("start_conversation", {})
        except BaseException:
            self.client.process.kill()
            self.client.process.wait(timeout=CLOSE_TIMEOUT_S)
            raise
        self.folder = root / "sessions" / self.started["conversation"]

    def tool(self, name: str, arguments: dict[str, Any]) -> Any:
        return self.client.tool(name, arguments)

    def wait_lines(self, within: float = 60) -> tuple[dict[str, Any], float]:
        """The first wait that brings lines (or ends the conversation), and when it came."""
        deadline = time.monotonic() + within
        while True:
            waited = self.tool("wait_for_transcript", {"timeout_s": 5})
            at = time.monotonic()
            if waited["lines"] or waited["status"] != "live" or at > deadline:
                return waited, at

    def events(self) -> list[dict[str, Any]]:
        log = self.folder / "assistant.jsonl"
        return [json.loads(line) for line in log.read_text().splitlines()]

    def close(self) -> None:
        """End the conversation and the server; a server that will not end is killed."""
        try:
            self.tool("stop_watching", {})
        finally:
            assert self.client.process.stdin is not None
            self.client.process.stdin.close()
            try:
                self.client.process.wait(timeout=CLOSE_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.client.process.kill()
                self.client.process.wait(timeout=CLOSE_TIMEOUT_S)
