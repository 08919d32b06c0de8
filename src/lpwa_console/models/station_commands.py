"""Base stations as the targets of admin commands."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class StationRef:
    """One station a command goes to: its UID (paths), LRR ID and name (what people read);
    `software_type` (model.softwareType) when known."""

    uid: str
    lrr_id: str
    name: str
    software_type: str | None = field(default=None, compare=False)
