"""Files on disk shared with other processes: sessions, the meeting log, the lock, the heartbeat,
the config file and where all of them live."""
