"""A station's antennas (`/partners/{partnerUid}/bss/{bsUid}/ants`, `ants/{antUid}`) and RF
probe (`rfProbe`, and the traffic it heard, `rfProbe/frames`). A station has the antennas its
profile's RF hardware configuration says (S1_A2_B1: 2)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import Query

from ...schema import station_radio as wire
from ...schema.frames import DEFAULT_STEP
from ..auth import AppServices, ClientBodies
from ..errors import not_found
from ..store import station_monitoring as monitoring_store
from ..store import station_ops as store
from ..store import stations as station_store
from ._partners import PartnerReader, PartnerScope, PartnerWriter, visible_station_uid
from ._router import RecordedRouter
from ._windows import aggregation_window

router = RecordedRouter(prefix="/partners/{partnerUid}/bss/{bsUid}", tags=["base station radio"],
                   dependencies=[ClientBodies])  # fmt: skip
Force = Annotated[bool | None, Query(deprecated=True, description="Deprecated, ignored")]


def _antenna_count(conn: Any, uid: int) -> int:
    model = store.station(conn, uid)["model"]
    found = station_store.station_model(conn, model)
    config = found[4] if found else "S1_A1_B1"
    try:
        return max(1, int(config.split("_")[1][1:]))
    except (IndexError, ValueError):
        return 1


def _antennas(conn: Any, scope: PartnerScope, bs_uid: str) -> tuple[int, list[dict[str, Any]]]:
    uid = visible_station_uid(conn, scope, bs_uid)
    items = store.antennas(conn, uid, _antenna_count(conn, uid))
    prefix = f"/partners/mine/bss/{uid}/ants"
    return uid, [a | {"href": f"{prefix}/{a['index']}"} for a in items]


@router.get("/ants", response_model=wire.Antennas, response_model_exclude_none=True)
def antennas(bsUid: str, scope: PartnerReader, svc: AppServices) -> dict[str, Any]:
    _uid, items = _antennas(svc.db.conn(), scope, bsUid)
    keys = ("index", "name", "used", "href", "type", "azimuth", "gain", "cableLoss", "cableDelay")
    return {"briefs": [{k: a[k] for k in keys if k in a} for a in items]}


def _one(items: list[dict[str, Any]], ant_uid: int) -> dict[str, Any]:
    found = next((a for a in items if a["index"] == ant_uid), None)
    if found is None:
        raise not_found(f"antenna {ant_uid} not found")
    return {k: v for k, v in found.items() if k not in ("used", "href")}


@router.get("/ants/{antUid}", response_model=wire.Antenna, response_model_exclude_none=True)
def antenna(bsUid: str, antUid: int, scope: PartnerReader, svc: AppServices) -> dict[str, Any]:
    conn = svc.db.conn()
    uid, items = _antennas(conn, scope, bsUid)
    return _one(items, antUid) | {"occContext": store.occ_context(conn, uid)}


@router.put("/ants/{antUid}", response_model=wire.Antenna, response_model_exclude_none=True)
def update_antenna(
    bsUid: str, antUid: int, body: wire.AntennaUpdate, scope: PartnerWriter, svc: AppServices,
    force: Force = None,
) -> dict[str, Any]:  # fmt: skip
    with svc.db.write() as conn:
        uid, items = _antennas(conn, scope, bsUid)
        _one(items, antUid)
        store.save_antenna(conn, uid, antUid, body.model_dump(mode="json", exclude_unset=True))
        _uid, items = _antennas(conn, scope, bsUid)
        return _one(items, antUid) | {"occContext": store.occ_context(conn, uid)}


@router.get("/rfProbe", response_model=wire.RfProbe)
def rf_probe(bsUid: str, scope: PartnerReader, svc: AppServices) -> dict[str, Any]:
    conn = svc.db.conn()
    uid = visible_station_uid(conn, scope, bsUid)
    return {"enabled": bool(store.station(conn, uid)["rf_probe"])}


@router.put("/rfProbe", response_model=wire.RfProbe)
def update_rf_probe(
    bsUid: str, body: wire.RfProbeUpdate, scope: PartnerWriter, svc: AppServices
) -> dict[str, Any]:
    with svc.db.write() as conn:
        uid = visible_station_uid(conn, scope, bsUid)
        store.set_rf_probe(conn, uid, body.enabled)
    return {"enabled": body.enabled}


@router.get("/rfProbe/frames", response_model=wire.StationFrames)
def rf_probe_frames(
    bsUid: str, scope: PartnerReader, svc: AppServices, begin: datetime | None = None,
    duration: str | None = None, step: str = DEFAULT_STEP, timezone: str = "UTC",
) -> dict[str, Any]:  # fmt: skip
    """Radio traffic the station heard and sent, per step (24 steps by default)."""
    conn = svc.db.conn()
    uid = visible_station_uid(conn, scope, bsUid)
    window = aggregation_window(conn, begin, duration, step)
    buckets = monitoring_store.traffic(conn, uid, window.start, window.end, window.step)
    return {"briefs": buckets, "now": window.now}
