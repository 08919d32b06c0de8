"""What the index keeps of each listed item: the list fields a user searches and browses by,
never a key or a secret (a device's AppKey, an AS transport key are not in list briefs, and
only the fields named here are copied).

One reading for both sources: the sync's pages (JSON objects, `wire.read_page`) and the
console's edits (the client's models, dumped to the same wire names first)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .store import IndexItem, Kind


@dataclass(frozen=True)
class FleetShape:
    """Where a device or a base station keeps what the index copies."""

    kind: Kind
    key: str  # its ID on the wire
    health: str
    last_up: str
    imei: str | None = None


DEVICE = FleetShape("device", "EUI", "healthState", "lastUpTimestamp", imei="lastIMEI")
STATION = FleetShape("station", "lrrID", "state", "lastUpFrameDate")


def _tags(data: dict[str, Any]) -> str:
    return " ".join(str(t.get("name", "")) for t in data.get("tags") or [])


def _model(data: dict[str, Any]) -> str:
    model = data.get("model") or {}
    return str(model.get("commercialName") or model.get("ID") or "")


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) else None


def _integer(value: Any) -> int | None:
    return value if isinstance(value, int) else None


def wire_fleet_item(shape: FleetShape, data: dict[str, Any]) -> IndexItem:
    key = str(data[shape.key])
    return IndexItem(
        shape.kind,
        key,
        str(data.get("name") or ""),
        ident=key,
        imei=str(data.get(shape.imei) or "") if shape.imei else "",
        tags=_tags(data),
        model=_model(data),
        health=str(data.get(shape.health) or ""),
        lat=_number(data.get("lat")),
        lon=_number(data.get("lon")),
        last_up=_integer(data.get(shape.last_up)),
        created=_integer(data.get("creationDate")) or None,
    )


def wire_device(data: dict[str, Any]) -> IndexItem:
    return wire_fleet_item(DEVICE, data)


def wire_station(data: dict[str, Any]) -> IndexItem:
    return wire_fleet_item(STATION, data)


def wire_multicast(data: dict[str, Any]) -> IndexItem:
    return IndexItem(
        "multicast", str(data["EUI"]), str(data.get("name") or ""), ident=str(data["EUI"])
    )


def wire_app_server(data: dict[str, Any]) -> IndexItem:
    key = str(data["ID"])
    return IndexItem("app_server", key, str(data.get("name") or ""), ident=key)


# --- the console's edits (the client's pydantic models) -------------------------------------


def _wire(model: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = model.model_dump(mode="json", by_alias=True)
    return dumped


def device_item(device: Any) -> IndexItem:
    """A DeviceBrief (or a Device, after an edit)."""
    return wire_device(_wire(device))


def station_item(station: Any) -> IndexItem:
    """A BaseStationBrief (or a BaseStation)."""
    return wire_station(_wire(station))
