"""Supervising the voice helper from the server and the CLI: choosing the engine, building the
helper's command line, running the process and deciding what a failure leads to."""
