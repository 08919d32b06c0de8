"""What the fleet index's sync says (from its thread) and what a refresh cost: plain data,
light to import (the status bar and the index's handle use it at start)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from .store import Kind

SyncState = Literal["filling", "paused", "ready", "refreshing", "failed", "stopped"]


@dataclass(frozen=True)
class SyncProgress:
    """What the sync says to the console (from its thread)."""

    state: SyncState
    kind: Kind | None = None  # walked now
    done: int = 0  # devices and stations in the index
    total: int = 0  # devices and stations on the platform (0: not known yet)
    built: bool = False  # a full pass finished once: searches may use the index
    refreshed_at: int = 0  # ms: when the index last matched the platform
    message: str = ""


@dataclass
class RefreshCost:
    """What a refresh asked (written to the index's meta as `refresh.cost`)."""

    requests: int = 0
    items: int = 0
    seconds: float = 0.0
    full_pass: bool = False
    reasons: list[str] = field(default_factory=list)
