"""What the index keeps of each listed item: the list fields a user searches and browses by,
never a key or a secret (a device's AppKey, an AS transport key are not in list briefs, and
only the fields named here are copied)."""

from __future__ import annotations

from typing import Any

from .store import IndexItem


def _tags(item: Any) -> str:
    return " ".join(tag.name for tag in getattr(item, "tags", None) or [])


def _model(item: Any) -> str:
    model = getattr(item, "model", None)
    return str(model.commercialName or model.ID) if model is not None else ""


def device_item(device: Any) -> IndexItem:
    """A DeviceBrief (or a Device, after an edit)."""
    return IndexItem(
        "device",
        device.EUI,
        device.name or "",
        ident=device.EUI,
        imei=device.lastIMEI or "",
        tags=_tags(device),
        model=_model(device),
        health=device.healthState or "",
        lat=device.lat,
        lon=device.lon,
        last_up=device.lastUpTimestamp,
        created=device.creationDate or None,
    )


def station_item(station: Any) -> IndexItem:
    """A BaseStationBrief (or a BaseStation)."""
    return IndexItem(
        "station",
        station.lrrID,
        station.name or "",
        ident=station.lrrID,
        tags=_tags(station),
        model=_model(station),
        health=station.state or "",
        lat=getattr(station, "lat", None),
        lon=getattr(station, "lon", None),
        last_up=getattr(station, "lastUpFrameDate", None),
        created=station.creationDate or None,
    )


def multicast_item(group: Any) -> IndexItem:
    return IndexItem("multicast", group.EUI, group.name or "", ident=group.EUI)


def app_server_item(server: Any) -> IndexItem:
    return IndexItem("app_server", str(server.ID), server.name or "", ident=str(server.ID))


# --- from the wire (the sync reads pages as JSON, wire.read_page) ---------------------------


def _wire_tags(data: dict[str, Any]) -> str:
    return " ".join(str(t.get("name", "")) for t in data.get("tags") or [])


def _wire_model(data: dict[str, Any]) -> str:
    model = data.get("model") or {}
    return str(model.get("commercialName") or model.get("ID") or "")


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) else None


def _integer(value: Any) -> int | None:
    return value if isinstance(value, int) else None


def wire_device(data: dict[str, Any]) -> IndexItem:
    eui = str(data["EUI"])
    return IndexItem(
        "device",
        eui,
        str(data.get("name") or ""),
        ident=eui,
        imei=str(data.get("lastIMEI") or ""),
        tags=_wire_tags(data),
        model=_wire_model(data),
        health=str(data.get("healthState") or ""),
        lat=_number(data.get("lat")),
        lon=_number(data.get("lon")),
        last_up=_integer(data.get("lastUpTimestamp")),
        created=_integer(data.get("creationDate")) or None,
    )


def wire_station(data: dict[str, Any]) -> IndexItem:
    lrr = str(data["lrrID"])
    return IndexItem(
        "station",
        lrr,
        str(data.get("name") or ""),
        ident=lrr,
        tags=_wire_tags(data),
        model=_wire_model(data),
        health=str(data.get("state") or ""),
        lat=_number(data.get("lat")),
        lon=_number(data.get("lon")),
        last_up=_integer(data.get("lastUpFrameDate")),
        created=_integer(data.get("creationDate")) or None,
    )


def wire_multicast(data: dict[str, Any]) -> IndexItem:
    return IndexItem(
        "multicast", str(data["EUI"]), str(data.get("name") or ""), ident=str(data["EUI"])
    )


def wire_app_server(data: dict[str, Any]) -> IndexItem:
    key = str(data["ID"])
    return IndexItem("app_server", key, str(data.get("name") or ""), ident=key)
