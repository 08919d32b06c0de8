"""The device catalog: device profiles (table `device_models`), their vendors and ISM bands.

The catalog belongs to the platform, not to a subscription: the subscriber lists read it
whole (with their filters), and an operator's catalog view can read the same rows."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ...schema.device_profiles import ISM_BAND_NAMES, DeviceProfileFilter, DeviceVendorFilter
from . import catalogs

LOGO = "/resources/files/logo/deviceVendor/{}"


@dataclass(frozen=True)
class VendorSeed:
    ref: str
    name: str
    description: str


@dataclass(frozen=True)
class ProfileSeed:
    ref: str
    name: str
    vendor: str
    connectivity: str
    type_mac: str | None  # None for cellular
    mac_minor: int | None  # LoRaWAN 1.0.x: 3..6, 1.1: 10
    bands: tuple[str, ...]
    motion: str | None = None


def _marks(values: Sequence[object]) -> str:
    return ", ".join("?" * len(values))


def _profile_where(f: DeviceProfileFilter) -> tuple[str, list[object]]:
    clauses: list[str] = ["1"]
    params: list[object] = []
    if f.typeMAC:
        clauses.append("m.type_mac = ?")
        params.append(f.typeMAC)
    if f.vendorID:
        clauses.append("v.ref = ?")
        params.append(f.vendorID)
    if f.connectivity:
        clauses.append("m.connectivity = ?")
        params.append(f.connectivity)
    if f.ID:
        clauses.append(f"m.ref IN ({_marks(f.ID)})")
        params.extend(f.ID)
    if f.ismBandID:
        clauses.append(
            f"m.id IN (SELECT model_id FROM device_model_bands WHERE band IN ({_marks(f.ismBandID)}))"
        )
        params.extend(f.ismBandID)
    return " AND ".join(clauses), params


def _bands(conn: sqlite3.Connection, ids: list[int], wanted: Iterable[str]) -> dict[int, list[str]]:
    """The ISM bands of these profiles; only the `wanted` ones when the list was filtered by
    band (the reference: the intersection)."""
    if not ids:
        return {}
    sql = f"SELECT model_id, band FROM device_model_bands WHERE model_id IN ({_marks(ids)})"
    params: list[object] = list(ids)
    wanted = list(wanted)
    if wanted:
        sql += f" AND band IN ({_marks(wanted)})"
        params.extend(wanted)
    out: dict[int, list[str]] = {}
    for model_id, band in conn.execute(sql + " ORDER BY band", params):
        out.setdefault(model_id, []).append(band)
    return out


def _profile(row: sqlite3.Row, bands: list[str]) -> dict[str, Any]:
    item: dict[str, Any] = {
        "ID": row["ref"],
        "commercialName": row["commercial_name"],
        "connectivity": row["connectivity"],
        "vendor": {
            "ID": row["vendor_ref"] or "generic",
            "commercialName": row["vendor_name"] or "Generic",
            "commercialDescription": row["vendor_description"],
        },
        "defaultIsmBands": [{"ID": b, "name": ISM_BAND_NAMES.get(b, b)} for b in bands],
    }
    if row["connectivity"] == "LORAWAN":
        item["typeMAC"] = row["type_mac"] or "LoRaMAC"
        item["macMajorVersion"] = row["mac_major"] if row["mac_major"] is not None else 0
        if row["mac_minor"] is not None:
            item["macMinorVersion"] = row["mac_minor"]
    if row["motion"]:
        item["motionModelIndicator"] = row["motion"]
    return item


_SELECT = (
    "SELECT m.*, v.ref AS vendor_ref, v.name AS vendor_name, v.description AS vendor_description"
    " FROM device_models m LEFT JOIN device_vendors v ON v.id = m.vendor_id"
)


def profiles(
    conn: sqlite3.Connection,
    f: DeviceProfileFilter,
    offset: int,
    limit: int,
    *,
    language: str | None = None,
) -> tuple[list[dict[str, Any]], bool]:
    """One page of profiles, by vendor then name, and whether more follow; with `language`
    (a language-tag), names and descriptions in it where the operator's catalog has them."""
    where, params = _profile_where(f)
    rows = conn.execute(
        f"{_SELECT} WHERE {where} ORDER BY coalesce(v.name, 'Generic'), m.commercial_name, m.ref"
        " LIMIT ? OFFSET ?",
        [*params, limit + 1, offset],
    ).fetchall()
    bands = _bands(conn, [r["id"] for r in rows[:limit]], f.ismBandID)
    items = [_profile(r, bands.get(r["id"], [])) for r in rows[:limit]]
    if language:
        _localise(conn, items, [r["id"] for r in rows[:limit]],
                  [r["vendor_id"] for r in rows[:limit]], language)  # fmt: skip
    return items, len(rows) > limit


def _localise(
    conn: sqlite3.Connection,
    items: list[dict[str, Any]],
    ids: list[int],
    vendor_ids: list[int | None],
    language: str,
) -> None:
    """The operator's texts in this language (store/catalogs.py) over the default ones."""
    lang, default = catalogs.language(conn, language)
    profile_texts = catalogs.texts(conn, catalogs.DEVICE_PROFILE, lang, default, ids)
    known = sorted({v for v in vendor_ids if v is not None})
    vendor_texts = catalogs.texts(conn, catalogs.DEVICE_VENDOR, lang, default, known)
    for item, uid, vendor in zip(items, ids, vendor_ids, strict=True):
        name, _description = profile_texts.get(uid, (None, None))
        if name:
            item["commercialName"] = name
        v_name, v_description = vendor_texts.get(vendor, (None, None)) if vendor else (None, None)
        if v_name:
            item["vendor"]["commercialName"] = v_name
        if v_description:
            item["vendor"]["commercialDescription"] = v_description


def profile(conn: sqlite3.Connection, ref: str) -> dict[str, Any] | None:
    row = conn.execute(f"{_SELECT} WHERE m.ref = ?", (ref,)).fetchone()
    return None if row is None else _profile(row, _bands(conn, [row["id"]], ()).get(row["id"], []))


def device_profile(conn: sqlite3.Connection, uid: int) -> dict[str, Any] | None:
    """The profile a device has now (None when it has none)."""
    row = conn.execute(
        f"{_SELECT} WHERE m.id = (SELECT model_id FROM devices WHERE uid = ?)", (uid,)
    ).fetchone()
    return None if row is None else _profile(row, _bands(conn, [row["id"]], ()).get(row["id"], []))


def vendors(
    conn: sqlite3.Connection,
    sub: int,
    f: DeviceVendorFilter,
    offset: int,
    limit: int,
    *,
    name_prefix: str | None = None,
) -> tuple[list[dict[str, Any]], bool]:
    """One page of vendors with at least one profile matching the filters; by name, or
    with BY_LAST_CREATED the vendors of the subscription's newest devices first."""
    clauses: list[str] = ["1"]
    params: list[object] = []
    if f.ID:
        clauses.append(f"v.ref IN ({_marks(f.ID)})")
        params.extend(f.ID)
    if name_prefix:
        clauses.append("substr(lower(v.name), 1, length(?)) = lower(?)")
        params.extend([name_prefix, name_prefix])
    if f.connectivity or f.ismBandID:
        inner = "SELECT m.vendor_id FROM device_models m WHERE 1"
        if f.connectivity:
            inner += " AND m.connectivity = ?"
            params.append(f.connectivity)
        if f.ismBandID:
            inner += (
                " AND m.id IN (SELECT model_id FROM device_model_bands"
                f" WHERE band IN ({_marks(f.ismBandID)}))"
            )
            params.extend(f.ismBandID)
        clauses.append(f"v.id IN ({inner})")
    order = "v.name, v.ref"
    if f.sort == "BY_LAST_CREATED":
        order = (
            "(SELECT max(d.creation_date) FROM devices d JOIN device_models m"
            " ON m.id = d.model_id WHERE m.vendor_id = v.id AND d.subscription_id = ?)"
            " DESC NULLS LAST, " + order
        )
    sql = f"SELECT v.* FROM device_vendors v WHERE {' AND '.join(clauses)} ORDER BY {order}"
    args = [*params, *([sub] if f.sort == "BY_LAST_CREATED" else []), limit + 1, offset]
    rows = conn.execute(sql + " LIMIT ? OFFSET ?", args).fetchall()
    out = [
        {
            "ID": r["ref"],
            "logo": r["logo"] or LOGO.format(r["ref"]),
            # The reference spells it `commecialName`; both are sent (see the schema).
            "commercialName": r["name"],
            "commecialName": r["name"],
            "commercialDescription": r["description"],
        }
        for r in rows[:limit]
    ]
    return out, len(rows) > limit


def seed(
    conn: sqlite3.Connection, vendors: Iterable[VendorSeed], profiles: Iterable[ProfileSeed]
) -> None:
    """Add the vendors and profiles that are missing; fill in the catalog data of profiles
    that exist without it (made before the catalog had vendors)."""
    conn.executemany(
        "INSERT OR IGNORE INTO device_vendors (ref, name, description) VALUES (?, ?, ?)",
        [(v.ref, v.name, v.description) for v in vendors],
    )
    for p in profiles:
        conn.execute(
            "INSERT OR IGNORE INTO device_models (ref, commercial_name, connectivity)"
            " VALUES (?, ?, ?)",
            (p.ref, p.name, p.connectivity),
        )
        conn.execute(
            "UPDATE device_models SET vendor_id = (SELECT id FROM device_vendors WHERE ref = ?),"
            " type_mac = ?, mac_major = ?, mac_minor = ?, motion = ?"
            " WHERE ref = ? AND vendor_id IS NULL",
            (
                p.vendor,
                p.type_mac,
                0 if p.type_mac else None,
                p.mac_minor,
                p.motion,
                p.ref,
            ),
        )
        conn.executemany(
            "INSERT OR IGNORE INTO device_model_bands SELECT id, ? FROM device_models"
            " WHERE ref = ?",
            [(band, p.ref) for band in p.bands],
        )
