"""Where a profile's field files live: one folder per profile and account in the data
folder (the account is its client ID, never its secret)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from ...private_files import private_dir

SNAPSHOT_FILE = "snapshot.sqlite"
TILES_FILE = "tiles.mbtiles"
QUEUE_FILE = "edits.sqlite"


def field_dir(data_dir: Path, profile: str, account: str) -> Path:
    """The folder of this profile and account (made owner-only). A digest names it: a
    profile's name may hold any character."""
    digest = hashlib.sha256(f"{profile}\0{account}".encode()).hexdigest()[:20]
    return private_dir(Path(data_dir) / "field" / digest)
