"""The rooms the demo speaks its meetings into: Piper's voices (`voiced`), a meeting laid out in
advance (`room`), rooms played into as things happen (`live`) and the meeting through the air
(`air`). They need the `demo` extra (numpy, soxr, soundfile, Piper, the listener)."""
