"""`assist eval`: labelled meetings replayed through `assist mcp` with an agent, and scored."""
