"""What the fleet index's sync says (from its thread or process), what a refresh cost, and
the sync's settings: plain data,
light to import (the status bar and the index's handle use it at start)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from .store import Kind

PAGE_SIZE = 1000
REFRESH_EVERY_S = 120.0
FULL_EVERY_S = 6 * 3600.0
MAX_REFRESH_PAGES = 50  # uplinks since the last refresh: more than 50,000 -> a full pass

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


@dataclass(frozen=True)
class SyncSettings:
    """How the sync pages and how often it refreshes (a full pass: `full_every_s`)."""

    page_size: int = PAGE_SIZE
    refresh_every_s: float = REFRESH_EVERY_S
    full_every_s: float = FULL_EVERY_S


DEFAULT_SETTINGS = SyncSettings()
