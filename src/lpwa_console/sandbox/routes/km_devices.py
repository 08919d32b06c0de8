"""KM devices (Document 1 §2.7, §3, §4.4): list (`state`: exactly one state, without it all),
create with the rules of §2.7, get, update, delete (a device by UID or `e` + upper-case EUI),
claim (PRE_COMMISSIONED -> GENERIC), the states distribution and the traffic history.
The CSV import is routes/km_import.py."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Query, Response

from ...schema.key_manager import (
    KmClaim,
    KmDevice,
    KmDeviceCreate,
    KmDevicePage,
    KmDeviceState,
    KmDeviceUpdate,
    KmFramePage,
    KmStatesDistribution,
)
from ..auth import ClientBodies, DeviceReader, DeviceWriter
from ..errors import DUPLICATE, ApiError, not_found, refuse_changed
from ..params import DeprecatedForce
from ..store import km_devices as store
from ..store.clock import now_ms
from ..store.key_manager import KeyOpener
from ._common import PageParams, list_answer
from ._km import OfKm, check_km_eui, km_device_uid
from ._router import RecordedRouter

router = RecordedRouter(tags=["key manager devices"], dependencies=[ClientBodies])
DEVICES = "/kmSubscriptions/{kmSubscriptionUid}/devices"


@router.reads(DEVICES, KmDevicePage)
def list_km_devices(
    km: OfKm,
    account: DeviceReader,
    paging: PageParams,
    state: Annotated[KmDeviceState | None, Query()] = None,
) -> dict[str, Any]:
    conn = km.conn()
    w = store.where(km.uid(conn, account), state, account.restrictions)
    items, more = store.page(conn, w, paging.offset, paging.size)
    return list_answer(items, more, first=paging.first, count=lambda: store.count(conn, w))


@router.creates(
    DEVICES, KmDevice, responses={409: {"description": "A device with this EUI exists"}}
)
def create_km_device(km: OfKm, body: KmDeviceCreate, account: DeviceWriter) -> dict[str, Any]:
    with km.write() as conn:
        sub = km.uid(conn, account)
        check_km_eui(conn, sub, body.EUI, account.restrictions)
        if store.find_uid(conn, sub, eui=body.EUI) is not None:
            raise ApiError(409, DUPLICATE, f"EUI: a device with EUI {body.EUI} already exists")
        uid, _token = store.create(conn, sub, body, now_ms(), KeyOpener(conn, sub))
    return store.get(km.conn(), uid)


@router.post(f"{DEVICES}/claim", response_model=KmDevice, response_model_exclude_none=True)
def claim_km_device(km: OfKm, body: KmClaim, account: DeviceWriter) -> dict[str, Any]:
    """A PRE_COMMISSIONED device becomes GENERIC, owned by `ownerID`."""
    with km.write() as conn:
        sub = km.uid(conn, account)
        check_km_eui(conn, sub, body.EUI, account.restrictions)
        uid = store.claim(conn, sub, body, now_ms())
        if uid is None:
            raise not_found(f"device e{body.EUI} not found")
    return store.get(km.conn(), uid)


@router.reads(f"{DEVICES}/states", KmStatesDistribution)
def km_device_states(km: OfKm, account: DeviceReader) -> dict[str, Any]:
    conn = km.conn()
    return store.states(conn, km.uid(conn, account), account.restrictions)


@router.reads(f"{DEVICES}/frames", KmFramePage)
def km_traffic(km: OfKm, account: DeviceReader, paging: PageParams) -> dict[str, Any]:
    """What the key manager served (join requests and accepts), newest first."""
    conn = km.conn()
    sub = km.uid(conn, account)
    limits = account.restrictions
    items, more = store.frames(conn, sub, None, paging.offset, paging.size, limits)
    return list_answer(
        items, more, first=paging.first, count=lambda: store.frames_count(conn, sub, None, limits)
    )


@router.reads(f"{DEVICES}/{{deviceUid}}", KmDevice)
def get_km_device(km: OfKm, deviceUid: str, account: DeviceReader) -> dict[str, Any]:
    conn = km.conn()
    sub = km.uid(conn, account)
    return store.get(conn, km_device_uid(conn, sub, deviceUid, account.restrictions))


@router.replaces(f"{DEVICES}/{{deviceUid}}", KmDevice)
def update_km_device(
    km: OfKm,
    deviceUid: str,
    body: KmDeviceUpdate,
    account: DeviceWriter,
    force: DeprecatedForce = None,
) -> dict[str, Any]:
    with km.write() as conn:
        sub = km.uid(conn, account)
        uid = km_device_uid(conn, sub, deviceUid, account.restrictions)
        refuse_changed(store.get(conn, uid), body.fixed_values())
        store.update(conn, uid, body, now_ms(), KeyOpener(conn, sub))
    return store.get(km.conn(), uid)


@router.delete(f"{DEVICES}/{{deviceUid}}", status_code=204)
def delete_km_device(km: OfKm, deviceUid: str, account: DeviceWriter) -> Response:
    with km.write() as conn:
        sub = km.uid(conn, account)
        store.delete(conn, km_device_uid(conn, sub, deviceUid, account.restrictions))
    return Response(status_code=204)


@router.reads(f"{DEVICES}/{{deviceUid}}/frames", KmFramePage)
def km_device_traffic(
    km: OfKm,
    deviceUid: str,
    account: DeviceReader,
    paging: PageParams,
) -> dict[str, Any]:
    conn = km.conn()
    sub = km.uid(conn, account)
    uid = km_device_uid(conn, sub, deviceUid, account.restrictions)
    items, more = store.frames(conn, sub, uid, paging.offset, paging.size)
    return list_answer(
        items, more, first=paging.first, count=lambda: store.frames_count(conn, sub, uid)
    )
