"""A helper that never becomes ready: it loads for ten minutes."""

import time

import fake

fake.arguments()
time.sleep(600)
