"""An external agent for `assist demo --agent`: reads the MCP config the demo wrote, starts
the `assist` server from it through the SDK's stdio client, watches the meeting without ever
speaking, and prints how many batches it received."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client


async def main(config_path: str) -> None:
    config = json.loads(Path(config_path).read_text(encoding="utf-8"))
    server = config["mcpServers"]["assist"]
    parameters = StdioServerParameters(
        command=server["command"], args=server["args"], env=server["env"]
    )
    async with (
        stdio_client(parameters) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        joined = await session.call_tool("watch_meeting", {})
        assert not joined.is_error, joined
        batches = 0
        while True:
            reply = await session.call_tool("wait_for_transcript", {"timeout_s": 30})
            status = json.loads(reply.content[0].text)["status"]  # type: ignore[union-attr]
            if status != "live":
                break
            batches += 1
    print(f"watched quietly through {batches} batches; the meeting is {status}", flush=True)


anyio.run(main, sys.argv[1])
