"""`assist config` (behaviour 2.4): the config file in use and the effective settings, or one
key set. Reading and writing the file, and what refuses a write, are
`assist.app.store.config`'s."""

from __future__ import annotations

import os
import sys
import time

from assist.app.store.config import SESSIONS_DIR_KEY, ConfigFile, NotWritten
from assist.app.store.paths import config_path, sessions_root
from assist.app.store.sessions import SessionStore
from assist.core.settings import SettingError, describe

USAGE = "usage: assist config [KEY VALUE]"
USAGE_ERROR = 2
"""Exit status for a key or value that cannot be set, as for any usage error of `assist`."""
FAILED = 1
"""Exit status when the key and value are usable but the file, or the moment, refuses them."""
HELP = f"""{USAGE}

Without arguments, show the config file in use and the effective settings.
With KEY VALUE, set one key (for example: assist config assistant on).

options:
  -h, --help  show this help and exit"""


def config_command(argv: list[str]) -> int:
    """`assist config` shows the file in use and the effective settings; `KEY VALUE` sets one."""
    if argv in (["-h"], ["--help"]):
        print(HELP)
        return 0
    location = config_path(os.environ)
    config = ConfigFile.at(location, os.environ)
    if not argv:
        settings = config.load()
        owner = " (Ambient's, shared)" if location.ambient else ""
        print(f"config file: {location.path}{owner}")
        print(f"sessions folder: {sessions_root(os.environ, settings, location)}")
        for key, shown in describe(settings):
            print(f"{key} = {shown}")
        return 0
    if len(argv) != 2:
        print(USAGE, file=sys.stderr)
        return USAGE_ERROR
    key, value = argv
    live = None
    if key == SESSIONS_DIR_KEY:
        store = SessionStore(sessions_root(os.environ, config.load(), location))
        live = store.live_session(time.time())
    try:
        config.set(key, value, live_session=live)
    except NotWritten as refusal:
        print(f"assist config: {refusal}", file=sys.stderr)
        return FAILED
    except SettingError as refusal:
        print(f"assist config: {refusal}", file=sys.stderr)
        return USAGE_ERROR
    except OSError as error:
        print(
            f"assist config: could not write {location.path} ({error}); "
            "check that its folder is writable",
            file=sys.stderr,
        )
        return FAILED
    print(f"{key} saved in {location.path}")
    return 0
