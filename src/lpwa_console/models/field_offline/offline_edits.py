"""What an edit made offline may change, and how it is queued.

Offline, a device's name, tags and position (adminLat/adminLon: where an installer finds
it) may change: they are queued (`EditQueue`) and shown at once in the snapshot. Anything
else needs the platform, and is refused with the reason. A request that sends other fields
with their current values (an edit form sends what it shows) is accepted: only what it
changes counts.

Base stations' positions are not in the platform's PUT of a station (lat and lon are
read-only there: docs/architecture.md), so a station has nothing to edit offline."""

from __future__ import annotations

import json
from typing import Any

from .edit_queue import Edit, EditQueue
from .store import DEVICES, SnapshotStore, response_key

DEVICES_PATH = "/subscriptions/mine/devices"
DEVICE_FIELDS = ("name", "tags", "adminLat", "adminLon")
FIELD_WORDS = {"name": "name", "tags": "tags", "adminLat": "position", "adminLon": "position"}


class OfflineRefused(Exception):
    """Said to the user as it is (the transport answers it as a refusal)."""


def tag_names(value: Any) -> list[str]:
    """Tags as sorted names, from `[{"name": …, "href": …}]` or `["…"]`."""
    names = []
    for tag in value or []:
        names.append(str(tag.get("name")) if isinstance(tag, dict) else str(tag))
    return sorted(names)


def normal(field: str, value: Any) -> Any:
    """A field's value as compared: tags by name, positions to the centimetre."""
    if field == "tags":
        return tag_names(value)
    if field in ("adminLat", "adminLon") and isinstance(value, (int, float)):
        return round(float(value), 7)
    return value


def same(sent: Any, current: Any) -> bool:
    """Whether a value sent back leaves the current one as it is (a reference sent as
    {"ID": …} matches the answer's {"ID": …, "name": …})."""
    if sent in (None, "", []) and current in (None, "", []):
        return True
    if isinstance(sent, dict) and isinstance(current, dict):
        return all(same(v, current.get(k)) for k, v in sent.items())
    if isinstance(sent, list) and isinstance(current, list):
        return len(sent) == len(current) and all(
            same(a, b) for a, b in zip(sent, current, strict=True)
        )
    return bool(sent == current)


def device_label(detail: dict[str, Any]) -> str:
    name, eui = detail.get("name") or "", detail.get("EUI") or ""
    return f"{name} ({eui})" if name and eui and name != eui else str(name or eui)


class OfflineEditor:
    """Turns the writes the console sends offline into queued edits."""

    def __init__(self, store: SnapshotStore, queue: EditQueue) -> None:
        self.store = store
        self.queue = queue

    def detail(self, path: str) -> dict[str, Any]:
        body = self.store.response(response_key(path))
        if body is None:
            raise OfflineRefused("Offline: this device is not in the snapshot")
        value = json.loads(body)
        assert isinstance(value, dict)
        return value

    def update_device(self, ref: str, body: dict[str, Any]) -> dict[str, Any]:
        """PUT …/devices/{ref} offline: the detail as it now reads."""
        path = f"{DEVICES_PATH}/{ref}"
        current = self.detail(path)
        changes: dict[str, Any] = {}
        others: list[str] = []
        for field, value in body.items():
            if field in DEVICE_FIELDS:
                if normal(field, value) != normal(field, current.get(field)):
                    changes[field] = value
            elif not same(value, current.get(field)):
                others.append(field)
        if others:
            raise OfflineRefused(
                "Offline, only a device's name, tags and position can be changed (they are"
                f" sent when the connection is back); this also changes: {', '.join(others)}"
            )
        if "adminLat" in changes or "adminLon" in changes:
            changes["adminLat"] = body.get("adminLat", current.get("adminLat"))
            changes["adminLon"] = body.get("adminLon", current.get("adminLon"))
        if "tags" in changes:
            changes["tags"] = [{"name": n} for n in tag_names(changes["tags"])]
        if not changes:
            return current
        self.queue_edit(ref, current, changes)
        detail = self.store.apply_edit(DEVICES, ref, response_key(path), changes)
        return detail if detail is not None else current

    def tag_devices(self, name: str, euis: list[str], untag: bool) -> int:
        """POST …/devices/tags offline: one tags edit per device of the snapshot."""
        by_eui = {str(d.get("EUI", "")).upper(): d for d in self.store.items(DEVICES)}
        missing = [e for e in euis if e.upper() not in by_eui]
        if missing:
            raise OfflineRefused(
                f"Offline: {len(missing)} of these devices are not in the snapshot"
            )
        for eui in euis:
            brief = by_eui[eui.upper()]
            ref = str(brief.get("ref") or f"e{brief['EUI']}")
            current = self.detail(f"{DEVICES_PATH}/{ref}")
            names = set(tag_names(current.get("tags")))
            names = names - {name} if untag else names | {name}
            self.update_device(ref, {"tags": [{"name": n} for n in sorted(names)]})
        return len(euis)

    def queue_edit(self, ref: str, current: dict[str, Any], changes: dict[str, Any]) -> Edit:
        base = {field: current.get(field) for field in changes}
        if "tags" in base:
            base["tags"] = [{"name": n} for n in tag_names(base["tags"])]
        path = f"{DEVICES_PATH}/{ref}"
        return self.queue.add(DEVICES, path, device_label(current), changes, base)


def changed_words(changes: dict[str, Any]) -> str:
    """ "name and position", for a queue's row."""
    words: list[str] = []
    for field in changes:
        word = FIELD_WORDS.get(field, field)
        if word not in words:
            words.append(word)
    return " and ".join(words)
