"""Owner-only folders and files, on every system (stdlib only: any layer may use it).

POSIX: a folder we make is 0700 and a file we write 0600, whatever the umask. Windows has no mode bits (os.chmod sets only the read-only flag): a file there is
private through its folder's ACL, and the user's profile folders (%LOCALAPPDATA%,
%APPDATA%, where platformdirs puts the data folder) are readable by the user, SYSTEM and
the administrators only; a new file inherits that ACL. So on Windows these helpers create
and write, and leave the permissions to the profile folder. docs/portability.md.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

PRIVATE_FILE = 0o600
PRIVATE_DIR = 0o700
POSIX = os.name == "posix"


def private_dir(folder: Path) -> Path:
    """`folder`, made owner-only with its missing parents if it is not there (one the user
    chose and made stays as it is: the files in it are private themselves)."""
    folder.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
    return folder


def write_private(path: Path, data: bytes) -> None:
    """Write `data` to `path` whole or not at all (a temporary file beside it, then a
    rename), owner-only from its first byte."""
    private_dir(path.parent)
    temporary = path.with_name(path.name + ".new")
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0)
    fd = os.open(temporary, flags, PRIVATE_FILE)
    try:
        with os.fdopen(fd, "wb") as out:
            if POSIX:
                os.fchmod(out.fileno(), PRIVATE_FILE)  # an older .new of another mode
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise


def is_private(path: Path) -> bool:
    """True when nobody but the owner may read or write `path` (always on Windows, where the
    profile folder's ACL decides)."""
    if not POSIX:
        return True
    return not stat.S_IMODE(path.stat().st_mode) & 0o077
