"""KM devices (Document 1 §2.7, §3): root keys (kept in clear here: this database plays the
HSM; never answered), states, ownership (claim), the traffic the key manager served, and the
states distribution. Raises ApiError (400 naming the field) when a request breaks a rule that
needs the stored device or keys to judge."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from typing import Any

from ...schema.domains import DomainRestrictions
from ...schema.key_manager import (
    KM_DEVICE_STATES,
    KmClaim,
    KmDeviceCreate,
    KmDeviceUpdate,
    secure_element_type,
)
from .. import km_crypto
from ..errors import UNKNOWN_REFERENCE, bad_request
from .filters import device_restriction_sql
from .key_manager import KeyOpener, km_base
from .sql import Where, select_page
from .sql import count as count_rows

ListPage = tuple[list[dict[str, Any]], bool]

_SELECT = (
    "SELECT k.*, a.ref AS as_ref FROM km_devices k LEFT JOIN km_as_keys a ON a.uid = k.as_key_id"
)


def shape(row: sqlite3.Row, *, full: bool = True) -> dict[str, Any]:
    base = km_base(row["subscription_id"])
    out: dict[str, Any] = {
        "UID": row["uid"],
        "EUI": row["eui"],
        "state": row["state"],
        "name": row["name"],
        "appEUI": row["app_eui"],
        "lorawanVersion": row["lorawan_version"],
        "ownerID": row["owner_id"],
        "creationDate": row["created"],
        "href": f"{base}/devices/{row['uid']}",
    }
    if not full:
        return out
    out |= {
        "asKey": (
            {"ID": row["as_ref"], "href": f"{base}/asKeys/{row['as_key_id']}"}
            if row["as_ref"]
            else None
        ),
        "homeNsNetID": row["home_ns_net_id"],
        "homeNsNSID": row["home_ns_nsid"],
        "ownerToken": row["owner_token_enc"] if row["state"] == "PRE_COMMISSIONED" else None,
        "secureElement": {"type": row["se_type"]} if row["se_type"] else None,
        "hsmAppKeyVersion": row["hsm_app_key_version"],
        "hsmNwkKeyVersion": row["hsm_nwk_key_version"],
    }
    return out


# --- reading -------------------------------------------------------------------------------------


def reach_sql(restrictions: DomainRestrictions | None) -> tuple[str, list[object]]:
    """The KM devices (alias `k`) a caller with `restrictions` may reach: those whose EUI is
    not a network device of the subscription outside the caller's domains. A KM device has
    no domains of its own; it holds the root keys of the network device of the same EUI, so
    it follows that device's domains (one without a network device is everyone's)."""
    inside, params = device_restriction_sql(restrictions, "d.domain_set")
    if not params:
        return "1", []
    return (
        "NOT EXISTS (SELECT 1 FROM devices d WHERE d.subscription_id = k.subscription_id"
        f" AND d.eui = k.eui AND NOT ({inside}))",
        params,
    )


def where(sub: int, state: str | None, restrictions: DomainRestrictions | None = None) -> Where:
    w = Where(["k.subscription_id = ?"], [sub])
    if state:
        w.add("k.state = ?", state)
    w.restrict(reach_sql(restrictions))
    return w


def within_reach(
    conn: sqlite3.Connection, sub: int, eui: str, restrictions: DomainRestrictions | None
) -> bool:
    """May a caller with `restrictions` reach the KM device (existing or to be) of `eui`?"""
    reach, params = reach_sql(restrictions)
    if not params:
        return True
    # The reach's placeholders come first: the SELECT list precedes FROM.
    row = conn.execute(
        f"SELECT {reach} FROM (SELECT ? AS subscription_id, ? AS eui) k",
        [*params, sub, eui.upper()],
    ).fetchone()
    return bool(row[0])


def page(conn: sqlite3.Connection, w: Where, offset: int, limit: int) -> ListPage:
    found = select_page(conn, _SELECT, w, "k.uid", offset=offset, limit=limit)
    return [shape(r, full=False) for r in found.rows], found.more


def count(conn: sqlite3.Connection, w: Where) -> int:
    return count_rows(conn, "km_devices k", w)


def find_uid(
    conn: sqlite3.Connection, sub: int, *, uid: int | None = None, eui: str | None = None
) -> int | None:
    if uid is not None:
        row = conn.execute(
            "SELECT uid FROM km_devices WHERE subscription_id = ? AND uid = ?", (sub, uid)
        ).fetchone()
    else:
        row = conn.execute(
            "SELECT uid FROM km_devices WHERE subscription_id = ? AND eui = ?",
            (sub, (eui or "").upper()),
        ).fetchone()
    return int(row[0]) if row else None


def eui_of(conn: sqlite3.Connection, uid: int) -> str:
    return str(conn.execute("SELECT eui FROM km_devices WHERE uid = ?", (uid,)).fetchone()[0])


def get(conn: sqlite3.Connection, uid: int) -> dict[str, Any]:
    row = conn.execute(f"{_SELECT} WHERE k.uid = ?", (uid,)).fetchone()
    return shape(row)


def root_keys(conn: sqlite3.Connection, uid: int) -> tuple[str | None, str | None]:
    """(AppKey, NwkKey) in clear, for tests (never served)."""
    row = conn.execute(
        "SELECT unseal(app_key), unseal(nwk_key) FROM km_devices WHERE uid = ?", (uid,)
    ).fetchone()
    return (row[0], row[1]) if row else (None, None)


def states(
    conn: sqlite3.Connection, sub: int, restrictions: DomainRestrictions | None = None
) -> dict[str, Any]:
    reach, params = reach_sql(restrictions)
    found = dict(
        conn.execute(
            f"SELECT state, count(*) FROM km_devices k WHERE subscription_id = ? AND {reach}"
            " GROUP BY state",
            (sub, *params),
        ).fetchall()
    )
    items = [{"state": s, "count": int(found.get(s, 0))} for s in KM_DEVICE_STATES]
    return {"states": items, "total": sum(i["count"] for i in items)}


# --- writing -------------------------------------------------------------------------------------


def _as_key_uid(conn: sqlite3.Connection, sub: int, ref: str) -> int:
    row = conn.execute(
        "SELECT uid FROM km_as_keys WHERE subscription_id = ? AND ref = ?", (sub, ref)
    ).fetchone()
    if row is None:
        raise bad_request(f"asKey.ID: no AS key {ref}", UNKNOWN_REFERENCE)
    return int(row[0])


# The root keys a device may carry: (field, its HSM version field, key kind, column).
ROOT_KEYS = (
    ("appKey", "hsmAppKeyVersion", "APP", "app_key"),
    ("nwkKey", "hsmNwkKeyVersion", "NWK", "nwk_key"),
)


def _open_keys(opener: KeyOpener, body: KmDeviceCreate | KmDeviceUpdate) -> dict[str, Any]:
    """The sent root keys opened (each with its HSM version), by column."""
    values: dict[str, Any] = {}
    for field, hsm_field, kind, column in ROOT_KEYS:
        sealed, hsm_version = getattr(body, field), getattr(body, hsm_field)
        if sealed:
            values[column] = opener.open_sealed(
                field, sealed, hsm_version=hsm_version,
                exchange_version=body.exchangeKeyVersion, kind=kind, hsm_field=hsm_field,
            )  # fmt: skip
            values[f"hsm_{column}_version"] = hsm_version
    return values


def create(
    conn: sqlite3.Connection, sub: int, body: KmDeviceCreate, now: int, opener: KeyOpener
) -> tuple[int, str | None]:
    """A new device; (its UID, the owner token in clear when one was made). The caller checks
    that the EUI is free."""
    values: dict[str, Any] = {
        "subscription_id": sub, "eui": body.EUI, "name": body.name, "app_eui": body.appEUI,
        "state": body.effective_state, "lorawan_version": body.version,
        "home_ns_net_id": body.homeNsNetID, "home_ns_nsid": body.homeNsNSID,
        "created": now, "updated": now,
    }  # fmt: skip
    if body.asKey is not None:
        values["as_key_id"] = _as_key_uid(conn, sub, body.asKey.ID)
    values |= _open_keys(opener, body)
    token = None
    if body.secureElement is not None:
        values["se_type"] = secure_element_type(body.secureElement.tkmInfo)
        values["tkm_info"] = body.secureElement.tkmInfo
    elif body.effective_state == "PRE_COMMISSIONED":
        assert body.rsaPublicKey is not None  # the request model requires it
        token = km_crypto.new_owner_token()
        try:
            values["owner_token_enc"] = km_crypto.rsa_encrypt(body.rsaPublicKey, token.encode())
        except (km_crypto.KeyUnreadable, ValueError) as exc:
            raise bad_request(f"rsaPublicKey: {exc}") from None
        values["owner_token_hash"] = km_crypto.token_hash(token)
    columns = ", ".join(values)
    cur = conn.execute(
        f"INSERT INTO km_devices ({columns}) VALUES ({', '.join('?' * len(values))})",
        list(values.values()),
    )
    return int(cur.lastrowid or 0), token


def update(
    conn: sqlite3.Connection, uid: int, body: KmDeviceUpdate, now: int, opener: KeyOpener
) -> None:
    row = conn.execute("SELECT * FROM km_devices WHERE uid = ?", (uid,)).fetchone()
    state = row["state"]
    try:
        body.check_state_rules(state)
    except ValueError as exc:
        raise bad_request(str(exc)) from None
    given = body.model_fields_set
    if row["se_type"] and (body.appKey or body.nwkKey):
        raise bad_request("appKey: a device with a secure element keeps its keys in the element")
    if row["lorawan_version"] != "1.1" and body.nwkKey:
        raise bad_request("nwkKey: only for a LoRaWAN 1.1 device")
    if row["lorawan_version"] == "1.1" and "nwkKey" in given and not body.nwkKey:
        raise bad_request("nwkKey: required for a LoRaWAN 1.1 device (cannot be removed)")
    if "appKey" in given and not body.appKey and not row["se_type"]:
        raise bad_request("appKey: required for a device without a secure element")
    values: dict[str, Any] = {}
    for name, column in (("name", "name"), ("appEUI", "app_eui"),
                         ("homeNsNetID", "home_ns_net_id"), ("homeNsNSID", "home_ns_nsid")):  # fmt: skip
        if name in given:
            values[column] = getattr(body, name)
    if "asKey" in given:
        values["as_key_id"] = (
            _as_key_uid(conn, row["subscription_id"], body.asKey.ID) if body.asKey else None
        )
    values |= _open_keys(opener, body)
    if state != "PRE_COMMISSIONED":
        net = values.get("home_ns_net_id", row["home_ns_net_id"])
        nsid = values.get("home_ns_nsid", row["home_ns_nsid"])
        home = bool(net or nsid)
        if home and state == "GENERIC":
            values["state"] = "COMMISSIONED"
        elif not home and state in ("COMMISSIONED", "ACTIVATED"):
            values["state"] = "GENERIC"
    _check_requested_state(body.state, values.get("state", state))
    if not values:
        return
    values["updated"] = now
    assignments = ", ".join(f"{k} = ?" for k in values)
    conn.execute(f"UPDATE km_devices SET {assignments} WHERE uid = ?", [*values.values(), uid])


def _check_requested_state(requested: str | None, result: str) -> None:
    """A state sent with an update is what it leaves (sent back as read), never replaced
    silently: the key manager sets states, so any other is refused with the reason."""
    if requested is None or requested == result:
        return
    why = {
        "PRE_COMMISSIONED": "a device is pre-commissioned only when created",
        "ACTIVATED": "a device becomes ACTIVATED when the network hears it join",
        "COMMISSIONED": "a device is COMMISSIONED by setting its home network"
        " (homeNsNetID or homeNsNSID)",
        "GENERIC": "a device is GENERIC when it has no home network"
        " (clear homeNsNetID and homeNsNSID)",
    }.get(requested, "the key manager sets the state")
    raise bad_request(f"state: {requested} cannot be requested ({why}); this update leaves"
                      f" the device {result}")  # fmt: skip


def delete(conn: sqlite3.Connection, uid: int) -> None:
    conn.execute("DELETE FROM km_devices WHERE uid = ?", (uid,))


def claim(conn: sqlite3.Connection, sub: int, body: KmClaim, now: int) -> int | None:
    """PRE_COMMISSIONED -> GENERIC with the owner; the device's UID (None: no such device);
    400 when it is not pre-commissioned or the token does not match."""
    row = conn.execute(
        "SELECT uid, state, se_type, owner_token_hash FROM km_devices"
        " WHERE subscription_id = ? AND eui = ?",
        (sub, body.EUI),
    ).fetchone()
    if row is None:
        return None
    if row["state"] != "PRE_COMMISSIONED":
        raise bad_request(
            f"EUI: the device is {row['state']}; only a PRE_COMMISSIONED one is claimed"
        )
    if not row["se_type"]:
        if not body.ownerToken:
            raise bad_request("ownerToken: required to claim a device without a secure element")
        if km_crypto.token_hash(body.ownerToken) != row["owner_token_hash"]:
            raise bad_request("ownerToken: does not match the device's owner token")
    conn.execute(
        "UPDATE km_devices SET state = 'GENERIC', owner_id = ?, owner_token_hash = NULL,"
        " owner_token_enc = NULL, updated = ? WHERE uid = ?",
        (body.ownerID, now, row["uid"]),
    )
    return int(row["uid"])


# --- traffic -------------------------------------------------------------------------------------


def activate_joined(conn: sqlite3.Connection, device_uids: Iterable[int], ts: int) -> int:
    """COMMISSIONED KM devices whose network device (same subscription and EUI) was heard:
    they joined, so they are ACTIVATED and their join is in the traffic. Returns how many."""
    if not conn.execute(
        "SELECT EXISTS (SELECT 1 FROM km_devices WHERE state = 'COMMISSIONED')"
    ).fetchone()[0]:
        return 0  # (the usual case: a step's few hundred devices are not looked up again)
    uids = json.dumps(list(device_uids))
    joined = conn.execute(
        "SELECT k.uid, k.subscription_id FROM km_devices k JOIN devices d"
        " ON d.subscription_id = k.subscription_id AND d.eui = k.eui"
        " WHERE k.state = 'COMMISSIONED' AND d.uid IN (SELECT value FROM json_each(?))",
        (uids,),
    ).fetchall()
    record_joins(conn, [(r[0], r[1]) for r in joined], ts)
    return len(joined)


def record_joins(conn: sqlite3.Connection, devices: list[tuple[int, int]], ts: int) -> None:
    """(uid, subscription) devices joined at `ts`: ACTIVATED, with the request and accept."""
    conn.executemany(
        "UPDATE km_devices SET state = 'ACTIVATED', updated = ? WHERE uid = ?",
        [(ts, uid) for uid, _ in devices],
    )
    conn.executemany(
        "INSERT INTO km_frames (device_uid, subscription_id, ts, type) VALUES (?, ?, ?, ?)",
        [(uid, sub, ts + d, kind) for uid, sub in devices
         for d, kind in ((0, "JOIN_REQUEST"), (1, "JOIN_ACCEPT"))],
    )  # fmt: skip


def _frames_where(sub: int, device: int | None, restrictions: DomainRestrictions | None) -> Where:
    w = Where(["f.subscription_id = ?"], [sub])
    if device is not None:
        w.add("f.device_uid = ?", device)
    w.restrict(reach_sql(restrictions))
    return w


def frames(
    conn: sqlite3.Connection, sub: int, device: int | None, offset: int, limit: int,
    restrictions: DomainRestrictions | None = None,
) -> ListPage:  # fmt: skip
    w = _frames_where(sub, device, restrictions)
    found = select_page(
        conn,
        "SELECT f.ts, f.type, f.device_uid, k.eui FROM km_frames f"
        " JOIN km_devices k ON k.uid = f.device_uid",
        w,
        "f.ts DESC, f.id DESC",
        offset=offset,
        limit=limit,
    )
    items = [
        {"time": r["ts"], "type": r["type"], "deviceUID": r["device_uid"], "EUI": r["eui"]}
        for r in found.rows
    ]
    return items, found.more


def frames_count(
    conn: sqlite3.Connection, sub: int, device: int | None,
    restrictions: DomainRestrictions | None = None,
) -> int:  # fmt: skip
    w = _frames_where(sub, device, restrictions)
    return count_rows(conn, "km_frames f JOIN km_devices k ON k.uid = f.device_uid", w)
