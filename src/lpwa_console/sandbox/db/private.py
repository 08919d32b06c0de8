"""Owner-only files: the database, its sidecars and the token file beside it."""

from __future__ import annotations

import os
import stat
from pathlib import Path

PRIVATE_FILE = 0o600
PRIVATE_DIR = 0o700
# What SQLite keeps beside the database; it gives them the database file's mode.
SIDECARS = ("-wal", "-shm", "-journal")


def make_private(path: Path) -> None:
    """Owner-only permissions (POSIX): create the file 0600 before SQLite does, and narrow
    an existing one (and its sidecars) made by an older version."""
    if os.name != "posix":
        return  # Windows: the user's profile folder is private already
    if not path.exists():
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, PRIVATE_FILE))
    for file in (path, *(path.with_name(path.name + s) for s in SIDECARS)):
        try:
            info = file.stat()
        except FileNotFoundError:
            continue
        if info.st_mode & 0o077 and info.st_uid == os.geteuid():
            os.chmod(file, stat.S_IMODE(info.st_mode) & ~0o077)
