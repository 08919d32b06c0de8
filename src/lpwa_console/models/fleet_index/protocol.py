"""What the console and the fleet index's sync process say to each other: JSON lines.

The console writes to the child's stdin: first the sign-in (`SignIn`: base URL, OAuth
credentials, TLS verification), the only way a secret reaches the child (never its command
line, its environment, a file or a log); then commands, one a line: `{"do": "pause"}`,
`resume`, `refresh`, `stop`. The end of stdin (the console closed it, or died) means stop.

The child writes to stdout `{"progress": {...}}` (a `SyncProgress`) and, after each refresh,
`{"cost": {...}}` (a `RefreshCost`). Plain data, no Qt: both sides import it.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any, Literal

from ...api.auth import Credentials
from .progress import RefreshCost, SyncProgress

Command = Literal["pause", "resume", "refresh", "stop"]
COMMANDS: tuple[Command, ...] = ("pause", "resume", "refresh", "stop")


@dataclass(frozen=True)
class SignIn:
    """How the sync signs in as the account the console signed in as."""

    base_url: str
    credentials: Credentials
    verify: bool = True

    def __repr__(self) -> str:  # the credentials' own repr leaves the secret out
        return f"SignIn({self.base_url!r}, {self.credentials!r}, verify={self.verify})"

    def line(self) -> bytes:
        return _line({"sign_in": {**asdict(self), "credentials": asdict(self.credentials)}})


def read_sign_in(line: bytes) -> SignIn:
    """The first line the child reads; ValueError when it is not a sign-in."""
    try:
        data = json.loads(line)["sign_in"]
        credentials = Credentials(**data["credentials"])
        return SignIn(str(data["base_url"]), credentials, bool(data["verify"]))
    except (KeyError, TypeError) as exc:
        raise ValueError(f"not a sign-in line: {exc}") from None


def command_line(command: Command) -> bytes:
    return _line({"do": command})


def read_command(line: bytes) -> Command | None:
    """A command, or None for a line that is none (ignored, never fatal)."""
    try:
        value = json.loads(line).get("do")
    except (ValueError, AttributeError):
        return None
    return value if value in COMMANDS else None


def progress_line(progress: SyncProgress) -> bytes:
    return _line({"progress": asdict(progress)})


def cost_line(cost: RefreshCost) -> bytes:
    return _line({"cost": asdict(cost)})


def read_report(line: bytes) -> SyncProgress | RefreshCost | None:
    """What a child's stdout line says (None: not a report, e.g. a stray print)."""
    try:
        data: Any = json.loads(line)
        if "progress" in data:
            return SyncProgress(**data["progress"])
        if "cost" in data:
            return RefreshCost(**data["cost"])
    except (ValueError, TypeError):
        pass
    return None


def _line(data: dict[str, Any]) -> bytes:
    return json.dumps(data, separators=(",", ":")).encode() + b"\n"
