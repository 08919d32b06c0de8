"""Sandbox settings: passed to `create_app`, never read from a global."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

API_PREFIX = "/thingpark/wireless/rest"
TOKEN_PATH = "/users-auth/protocol/openid-connect/token"


@dataclass(frozen=True)
class SandboxSettings:
    db_path: Path
    token_lifetime_s: int = 3600
    # A new database is seeded with a demo network of this many devices (0: accounts only).
    demo_devices: int = 2000
    seed: int = 1
    api_prefix: str = API_PREFIX
    token_path: str = TOKEN_PATH
