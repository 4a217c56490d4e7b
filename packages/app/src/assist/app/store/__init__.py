"""Files on disk shared with other processes: sessions, the growing native WAV, the meeting log,
the lock, the heartbeat, the config file and where all of them live. The recorder and the
server both use them, so they are here, below both."""
