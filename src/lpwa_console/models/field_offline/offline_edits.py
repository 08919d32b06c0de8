"""What an edit made offline may change, and how it is queued.

Offline, a device's name, tags and position (adminLat/adminLon: where an installer finds
it) may change: they are queued (`EditQueue`) and shown at once in the snapshot. Anything
else needs the platform, and is refused with the reason. A request that sends other fields
with their current values (an edit form sends what it shows) is accepted: only what it
changes counts.

A base station's position is not in the platform's PUT of a station (lat and lon are
read-only there); it changes by the admin command updateLocation (Document 2: an
administrative location, adminLat/adminLon/adminAlt). Offline that command is queued as the
station's new position as its detail reads it (`lastGeoLat`/`lastGeoLon`/`lastGeoAlt`),
shown at once, and sent back as the same command."""

from __future__ import annotations

import json
from typing import Any

from .edit_queue import Edit, EditQueue
from .store import DEVICES, STATIONS, SnapshotStore, response_key

DEVICES_PATH = "/subscriptions/mine/devices"
STATIONS_PATH = "/partners/mine/bss"
LOCATION_COMMAND = "admins/updateLocation"
# The software that takes updateLocation (the reference: LRR_LINUX or BASIC_STATION_LINUX).
LOCATION_SOFTWARE = frozenset({"LRR_LINUX", "BASIC_STATION_LINUX"})
DEVICE_FIELDS = ("name", "tags", "adminLat", "adminLon")
# A station's position as its detail reads it (its list item: lat, lon, alt).
STATION_FIELDS = ("lastGeoLat", "lastGeoLon", "lastGeoAlt")
FIELD_WORDS = {
    "name": "name", "tags": "tags", "adminLat": "position", "adminLon": "position",
    "lastGeoLat": "position", "lastGeoLon": "position", "lastGeoAlt": "altitude",
}  # fmt: skip
POSITIONS = frozenset({"adminLat", "adminLon", "lastGeoLat", "lastGeoLon"})  # to 1e-7°
# Said in the answer of a command queued offline (never sent to the platform): the command
# run shows it instead of following a command the station has not had yet.
OFFLINE_QUEUED = "offlineQueued"
QUEUED_WORDS = "Queued offline: sent when the connection is back"


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
    if field in POSITIONS and isinstance(value, (int, float)):
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


def station_label(detail: dict[str, Any]) -> str:
    name, lrr = detail.get("name") or "", detail.get("lrrID") or ""
    return f"{name} ({lrr})" if name and lrr and name != lrr else str(name or lrr)


def location_command(changes: dict[str, Any]) -> dict[str, Any]:
    """A station's queued position as the updateLocation command sends it."""
    body: dict[str, Any] = {
        "locationType": 1, "adminLat": changes["lastGeoLat"], "adminLon": changes["lastGeoLon"],
    }  # fmt: skip
    if changes.get("lastGeoAlt") is not None:
        body["adminAlt"] = changes["lastGeoAlt"]
    return body


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

    def update_station_location(self, ref: str, body: dict[str, Any]) -> dict[str, Any]:
        """POST …/bss/{ref}/admins/updateLocation offline: an administrative position is
        queued (the GPS's needs the station itself); the answer echoes the command."""
        if body.get("locationType") != 1:
            raise OfflineRefused(
                "Offline, a base station's position can be typed (an administrative"
                " location), not taken from its GPS: that needs the station"
            )
        path = f"{STATIONS_PATH}/{ref}"
        body_path = response_key(path)
        if self.store.response(body_path) is None:
            raise OfflineRefused("Offline: this base station is not in the snapshot")
        current = self.detail(path)
        software = (current.get("model") or {}).get("softwareType")
        if software and software not in LOCATION_SOFTWARE:
            raise OfflineRefused(
                "The platform takes a base station's location from the LRR software or a"
                f" Basic Station; this one runs {software}: nothing was queued"
            )
        new = {"lastGeoLat": body.get("adminLat"), "lastGeoLon": body.get("adminLon")}
        if body.get("adminAlt") is not None:
            new["lastGeoAlt"] = body["adminAlt"]
        changes = {f: v for f, v in new.items() if normal(f, v) != normal(f, current.get(f))}
        if changes:  # a position is both coordinates
            changes |= {"lastGeoLat": new["lastGeoLat"], "lastGeoLon": new["lastGeoLon"]}
            base = {field: current.get(field) for field in changes}
            self.queue.add(STATIONS, path, station_label(current), changes, base)
            self.store.apply_edit(STATIONS, ref, body_path, changes)
        return {**body, OFFLINE_QUEUED: QUEUED_WORDS}

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
