"""The home folder, settled once before anything reads it: settings, memory, skills, agents,
transcripts and caches live there. An empty or relative HOME (`HOME=""` would make `/` the home
folder) is one warning, and the password database's home is used instead; a home that is not a
writable folder is one warning, and nothing is saved there (as with --no-session-persistence)."""

from __future__ import annotations

import logging
import os
import pwd
from typing import MutableMapping

log = logging.getLogger("agent")


def settle_home(environ: MutableMapping[str, str] = os.environ) -> bool:
    """Make `environ`'s HOME one the whole run can use (Path.home() reads it); returns whether
    the agent may write there."""
    home = environ.get("HOME")
    if home is not None and not os.path.isabs(home):
        passwd = _passwd_home()
        said = "empty" if not home else f"{home!r}, not an absolute path"
        if passwd is None:
            log.warning(f"HOME is {said} and the password database names no home folder: nothing is saved "
                        "(sessions, caches)")
            return False
        log.warning(f"HOME is {said}: using {passwd}, the home folder of the password database")
        environ["HOME"] = home = passwd
    home = home or _passwd_home()  # what Path.home() falls back to when HOME is not set
    if home is None or not os.path.isdir(home) or not os.access(home, os.W_OK | os.X_OK):
        log.warning(f"the home folder {home} is not a writable folder: nothing is saved there (sessions, caches)")
        return False
    return True


def _passwd_home() -> str | None:
    try:
        home = pwd.getpwuid(os.getuid()).pw_dir
    except (KeyError, OSError):
        return None
    return home if home and os.path.isabs(home) else None
