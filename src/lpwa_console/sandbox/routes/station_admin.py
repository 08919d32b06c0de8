"""Remote administration of base stations: `/partners/{partnerUid}/bss/{bsUid}/admins/...`.

A command is validated (its parameters by the schema's model, the station's software by the
reference's rule, an upgrade's target against the repository), queued in `station_commands`
and answered 201 with its parameters; the simulator then moves it to its outcome, which
`lastCmdStatus` and the status readings show. `force` (deprecated) and `occContext` are
accepted and ignored. The support password is checked, hashed (scrypt) and never stored,
echoed or logged in clear.
"""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Any

from fastapi import Body, Query
from pydantic import ValidationError

from ...schema.station_admin import (
    COMMANDS,
    STATUS_NAMES,
    AdminSettings,
    AdminSettingsState,
    CommandAccepted,
    CommandHistory,
    LastCmdStatus,
    SupportPasswordChange,
    UpdateLocationCommand,
    command_type,
    parse_command,
    version_key,
)
from .. import radio
from ..auth import AppServices, ClientBodies
from ..errors import UNKNOWN_REFERENCE, bad_request, not_found, validation_message
from ..store import catalogs as catalog_store
from ..store import station_ops as store
from ..store import stations as station_store
from ..store.clock import network_now
from ._partners import PartnerReader, PartnerWriter, visible_station_uid
from ._router import RecordedRouter

router = RecordedRouter(prefix="/partners/{partnerUid}/bss", tags=["base station admin"],
                   dependencies=[ClientBodies])  # fmt: skip
ADMINS = "/{bsUid}/admins"

CommandName = Enum("CommandName", {name: name for name in COMMANDS}, type=str)  # type: ignore[misc]
StatusName = Enum("StatusName", {name: name for name in STATUS_NAMES}, type=str)  # type: ignore[misc]

LRR_LINUX, BASIC_STATION = "LRR_LINUX", "BASIC_STATION_LINUX"
# What a Basic Station also takes (the reference's "OR BASIC_STATION_LINUX" rules).
BASIC_STATION_OK = frozenset({"updateLocation", "updateRfRegion", "lastCmdStatus",
                              "locationStatus", "rfRegionStatus"})  # fmt: skip
Force = Annotated[bool | None, Query(deprecated=True, description="Deprecated, ignored")]


def _software(conn: Any, uid: int) -> str | None:
    return station_store.software_type(conn, store.station(conn, uid)["model"])


def _check_software(conn: Any, uid: int, what: str) -> str | None:
    software = _software(conn, uid)
    if software == LRR_LINUX or (software == BASIC_STATION and what in BASIC_STATION_OK):
        return software
    raise bad_request(
        f"model.softwareType: {what} needs a base station running the LRR software"
        f" ({LRR_LINUX}); this one runs {software or 'an unknown software'}"
    )


def _clock(conn: Any) -> int:
    return network_now(conn)


@router.post(
    f"{ADMINS}/changeSupportPassword", status_code=201, response_model=dict[str, Any],
    summary="Change the support account's password (LRR_LINUX only)",
)  # fmt: skip
def change_support_password(
    bsUid: str, scope: PartnerWriter, svc: AppServices, body: SupportPasswordChange
) -> dict[str, Any]:
    digest = store.password_hash(body.password.get_secret_value())
    with svc.db.write() as conn:
        uid = visible_station_uid(conn, scope, bsUid)
        _check_software(conn, uid, "changeSupportPassword")
        now = _clock(conn)
        store.set_runtime(conn, uid, now, support_pw_hash=digest)
        store.create_command(
            conn, uid, command="changeSupportPassword", cmd_type="CHANGE_SUPPORT_PASSWORD",
            params={}, data=None, now_ms=now,
            start_ms=radio.TIMINGS["changeSupportPassword"].start_ms, run_ms=None, who=scope.who,
        )  # fmt: skip
    return {}


@router.put(f"{ADMINS}/settings", response_model=AdminSettingsState)
def put_settings(
    bsUid: str, scope: PartnerWriter, svc: AppServices, body: AdminSettings
) -> dict[str, Any]:
    with svc.db.write() as conn:
        uid = visible_station_uid(conn, scope, bsUid)
        values = {
            "activateBeaconTransmission": body.activateBeaconTransmission,
            "activateRX2Optimization": body.activateRX2Optimization,
            "activateSupportFor802_15_4": body.activateSupportFor802_15_4,
        }
        store.save_settings(
            conn, uid, _clock(conn), {k: v for k, v in values.items() if v is not None}
        )
        return store.settings_answer(conn, uid)


@router.get(
    f"{ADMINS}/lastCmdStatus", response_model=LastCmdStatus, response_model_exclude_none=True
)
def last_command_status(bsUid: str, scope: PartnerWriter, svc: AppServices) -> dict[str, Any]:
    conn = svc.db.conn()
    uid = visible_station_uid(conn, scope, bsUid)
    _check_software(conn, uid, "lastCmdStatus")
    return store.last_cmd_status(store.last_command(conn, uid), _clock(conn))


@router.get(
    f"{ADMINS}/commandHistory", response_model=CommandHistory, response_model_exclude_none=True
)
def command_history(
    bsUid: str,
    scope: PartnerReader,
    svc: AppServices,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
) -> dict[str, Any]:
    """The sandbox's own: the station's latest commands, newest first (lastCmdStatus keeps
    only the last; docs/architecture.md)."""
    conn = svc.db.conn()
    uid = visible_station_uid(conn, scope, bsUid)
    now = _clock(conn)
    rows = store.commands(conn, uid, limit)
    return {"now": now, "commands": [store.last_cmd_status(row, now) for row in rows]}


@router.get(f"{ADMINS}/availableLrrVersions", response_model=dict[str, Any])
def available_versions(bsUid: str, scope: PartnerReader, svc: AppServices) -> dict[str, Any]:
    conn = svc.db.conn()
    uid = visible_station_uid(conn, scope, bsUid)
    _check_software(conn, uid, "availableLrrVersions")
    return store.status_answer(conn, uid, "availableLrrVersions")


@router.get(f"{ADMINS}/{{status}}", response_model=dict[str, Any])
def status_reading(
    bsUid: str, status: StatusName, scope: PartnerWriter, svc: AppServices
) -> dict[str, Any]:
    """antennasGainAndLossStatus, backupSwVersion, ... (availableLrrVersions above)."""
    conn = svc.db.conn()
    uid = visible_station_uid(conn, scope, bsUid)
    _check_software(conn, uid, status.value)
    answer = store.status_answer(conn, uid, status.value)
    if status.value == "backupSwVersion" and "backup" not in answer:
        # The reference's answer always describes a backup: without one there is nothing.
        raise not_found(
            "no backup of this station's software is known (the backup command makes one)"
        )
    return answer


@router.post(f"{ADMINS}/{{command}}", status_code=201, response_model=CommandAccepted)
def run_command(
    bsUid: str,
    command: CommandName,
    scope: PartnerWriter,
    svc: AppServices,
    body: Annotated[dict[str, Any] | None, Body()] = None,
    force: Force = None,
) -> dict[str, Any]:
    name = command.value
    try:
        params = parse_command(name, body)
    except ValidationError as exc:
        raise bad_request(validation_message(exc.errors())) from None  # type: ignore[arg-type]
    with svc.db.write() as conn:
        uid = visible_station_uid(conn, scope, bsUid)
        software = _check_software(conn, uid, name)
        if (
            software == BASIC_STATION
            and isinstance(params, UpdateLocationCommand)
            and params.locationType != 1
        ):
            raise bad_request("locationType: a Basic Station takes an administrative location (1)")
        wire = params.to_wire()
        if name == "updateRfRegion":
            _check_rf_region(conn, uid, str(wire["rfRegionID"]))
        data = _check_version(conn, uid, name, wire)
        run_ms = None
        if name == "scanRadio":
            frequency: dict[str, Any] = wire.get("frequency") or {}  # type: ignore[assignment]
            run_ms = radio.scan_run_ms(frequency.get("start"), frequency.get("stop"),
                                       frequency.get("step"))  # fmt: skip
        store.create_command(
            conn, uid, command=name, cmd_type=command_type(name, params), params=wire,
            data=data, now_ms=_clock(conn), start_ms=radio.TIMINGS[name].start_ms,
            run_ms=run_ms, who=scope.who,
        )  # fmt: skip
    return wire


def _check_rf_region(conn: Any, uid: int, region: str) -> None:
    """updateRfRegion: an RF region of the operator's catalog, of the station's ISM band."""
    band = catalog_store.rf_region_band(conn, region)
    if band is None:
        raise bad_request(
            f"rfRegionID: the operator's catalog has no RF region {region}", UNKNOWN_REFERENCE
        )
    station_band = station_store.ism_band_of(conn, uid)
    if station_band and band.lower() != station_band.lower():
        raise bad_request(
            f"rfRegionID: {region} is for the {band} ISM band; this base station uses {station_band}"
        )


def _check_version(conn: Any, uid: int, name: str, wire: dict[str, Any]) -> str | None:
    """upgrade: a newer version the repository offers; downloadLrrVersion: one it has."""
    if name not in ("upgrade", "downloadLrrVersion"):
        return None
    version = str(wire["version"])
    if version not in store.LRR_VERSIONS:
        offered = ", ".join(store.LRR_VERSIONS)
        raise bad_request(f"version: {version} is not in the repository (it has {offered})")
    current = store.station(conn, uid)["sw_version"]
    if name == "upgrade" and current and version_key(version) <= version_key(current):
        raise bad_request(f"version: {version} is not newer than the installed {current}")
    return version
