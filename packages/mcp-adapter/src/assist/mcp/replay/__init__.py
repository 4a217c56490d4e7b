"""`assist replay`: scripted meetings played into a session folder, with the echo feeder and the
growing room recording that keeps the session live."""
