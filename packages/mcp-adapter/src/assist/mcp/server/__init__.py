"""The MCP server `assist mcp`: the wire, the transport, the session tools and the watch."""
