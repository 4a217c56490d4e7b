"""A helper whose first event is not `ready`."""

import time

import fake

args = fake.arguments()
fake.send({"event": "speaking", "id": 1, "first_audio_ms": 3})
fake.ready(args)
time.sleep(600)
