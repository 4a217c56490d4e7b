"""The voice helper process, `assist-voice`: one engine, NDJSON on stdin and stdout, a player."""
