"""The operator's catalogs (Document 2 §4.1): every SQL statement of device and base-station
profiles, their vendors, RF regions, texts per language, catalog versions and the repository
of versions offered for `selfUpdate`. Nothing about HTTP.

Device profiles are `device_models`, the rows the subscriber's picker reads
(store/device_profiles.py). An item's own columns hold its texts in the operator's default
language; `catalog_texts` holds the other languages (kind, lang, item id)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ...schema.catalogs import (
    LORAWAN_FIELDS,
    CatalogFile,
    FileBaseStationProfile,
    FileDeviceProfile,
    FileRfRegion,
    FileVendor,
    apply_forced,
    version_key,
)
from ...schema.device_profiles import ISM_BAND_NAMES
from .operations import enqueue

BASE = "/admins/operators/1"
# catalog_texts kinds
DEVICE_PROFILE, BS_PROFILE, DEVICE_VENDOR, BS_VENDOR, RF_REGION = "dp", "bp", "dv", "bv", "rf"
# The LoRaWAN fields kept in device_models.details (the others have columns of their own).
_COLUMNS = {"typeMAC", "macMinorVersion", "motionModelIndicator", "loraProfileIDs"}
DETAIL_FIELDS = tuple(n for n in (*LORAWAN_FIELDS, "mtcLteCategory") if n not in _COLUMNS)
Progress = Callable[[int, int], None]
# Provisioning queue types (Document 2 §2.2): what the LRC is told of a catalog change.
# Base-station profiles have no type of their own; texts in other languages and logos are
# the catalog's presentation, not the network's, and are not provisioned.
PROV_DEVICE_PROFILE, PROV_RF_REGION = "DEVICE_PROFILE", "RF_REGION"


def _device_profile_state(conn: sqlite3.Connection, uid: int) -> tuple[object, ...]:
    """What a device profile is (its row, bands, alliance IDs): equal before and after a
    write that changed nothing."""
    row = conn.execute("SELECT * FROM device_models WHERE id = ?", (uid,)).fetchone()
    bands = conn.execute(
        "SELECT band FROM device_model_bands WHERE model_id = ? ORDER BY 1", (uid,)
    ).fetchall()
    ids = conn.execute(
        "SELECT lora_id FROM device_model_lora_ids WHERE model_id = ? ORDER BY 1", (uid,)
    ).fetchall()
    return (tuple(row) if row else None, *(tuple(r) for r in bands), None,
            *(tuple(r) for r in ids))  # fmt: skip


def _marks(values: Sequence[object]) -> str:
    return ", ".join("?" * len(values))


# --- operator and languages -----------------------------------------------------------------


def operator(conn: sqlite3.Connection) -> dict[str, Any]:
    row = conn.execute("SELECT * FROM operator_settings WHERE id = 1").fetchone()
    return {
        "ID": row["ref"],
        "name": row["name"],
        "catalogUpdateMethod": row["catalog_update_method"],
        "defaultLanguage": row["default_language"],
        "languages": json.loads(row["languages"]),
    }


def language(conn: sqlite3.Connection, tag: str | None) -> tuple[str, bool]:
    """(the language the answer is in, whether it is the default one): the tag asked when the
    operator has it (its primary subtag matches: "fr-FR" -> "fr"), else the default."""
    op = operator(conn)
    default = str(op["defaultLanguage"])
    wanted = (tag or "").split("-", 1)[0].lower()
    if wanted and wanted in op["languages"] and wanted != default:
        return wanted, False
    return default, True


def texts(
    conn: sqlite3.Connection, kind: str, lang: str, default: bool, ids: list[int]
) -> dict[int, tuple[str | None, str | None]]:
    if default or not ids:
        return {}
    rows = conn.execute(
        "SELECT item_id, name, description FROM catalog_texts WHERE kind = ? AND lang = ?"
        f" AND item_id IN ({_marks(ids)})",
        [kind, lang, *ids],
    )
    return {r[0]: (r[1], r[2]) for r in rows}


def local(conn: sqlite3.Connection, kind: str, item_id: int, lang: str) -> tuple[str, str] | None:
    """An item's texts in one language as stored (None when it has none there)."""
    row = conn.execute(
        "SELECT name, description FROM catalog_texts WHERE kind = ? AND lang = ? AND item_id = ?",
        (kind, lang, item_id),
    ).fetchone()
    return None if row is None else (row[0], row[1])


def set_local(
    conn: sqlite3.Connection,
    kind: str,
    item_id: int,
    lang: str,
    name: str | None,
    description: str | None,
) -> None:
    conn.execute(
        "INSERT INTO catalog_texts (kind, lang, item_id, name, description) VALUES (?, ?, ?, ?, ?)"
        " ON CONFLICT (kind, lang, item_id) DO UPDATE SET"
        " name = coalesce(excluded.name, name), description = coalesce(excluded.description,"
        " description)",
        (kind, lang, item_id, name, description),
    )


def _drop_texts(conn: sqlite3.Connection, kind: str, item_id: int) -> None:
    conn.execute("DELETE FROM catalog_texts WHERE kind = ? AND item_id = ?", (kind, item_id))


# --- catalog versions -----------------------------------------------------------------------


def installed(conn: sqlite3.Connection, catalog: str) -> tuple[str | None, int | None]:
    row = conn.execute(
        "SELECT version, installed_at FROM catalog_versions WHERE catalog = ?", (catalog,)
    ).fetchone()
    return (row[0], row[1]) if row else (None, None)


def offered(conn: sqlite3.Connection, catalog: str) -> tuple[str, bytes] | None:
    """The newest version the repository holds for this catalog, with its file."""
    rows = conn.execute(
        "SELECT version, content FROM catalog_repository WHERE catalog = ?", (catalog,)
    ).fetchall()
    if not rows:
        return None
    best = max(rows, key=lambda r: version_key(r[0]))
    return str(best[0]), bytes(best[1])


def offer(conn: sqlite3.Connection, catalog: str, version: str, content: bytes) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO catalog_repository (catalog, version, content) VALUES (?, ?, ?)",
        (catalog, version, content),
    )


def item_count(conn: sqlite3.Connection, catalog: str) -> int:
    table = {"deviceProfiles": "device_models", "baseStationProfiles": "bs_profiles"}.get(
        catalog, "rf_regions"
    )
    return int(conn.execute(f"SELECT count(*) FROM {table} WHERE source = 'CATALOG'").fetchone()[0])


def missing_ids(conn: sqlite3.Connection, file: CatalogFile) -> list[str]:
    """The IDs of the file's items not in the database yet."""
    ids = [p.ID for p in file.profiles or file.baseStationProfiles or file.rfRegions]
    table = {"deviceProfiles": "device_models", "baseStationProfiles": "bs_profiles"}.get(
        file.catalog, "rf_regions"
    )
    have: set[str] = set()
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        have.update(
            r[0]
            for r in conn.execute(f"SELECT ref FROM {table} WHERE ref IN ({_marks(chunk)})", chunk)
        )
    return [i for i in ids if i not in have]


# --- vendors --------------------------------------------------------------------------------

Texts = tuple[str | None, str | None]  # an entry's name and description in one language
_NO_TEXTS: Texts = (None, None)


@dataclass(frozen=True)
class Entries:
    """How one catalog's rows are answered. `select` reads them (its WHERE ends with
    `IN ({ids})`); an entry is its `ref` as ID, its name (`name`: field, column) and its
    description in the language asked when it has them there, its source, its `columns` as
    they are (field: column), its language tag and its href under `path`. `vendor_kind`:
    the rows name a vendor (`v_id`), whose texts are read too."""

    kind: str  # of catalog_texts
    path: str
    select: str
    columns: dict[str, str]
    name: tuple[str, str] = ("commercialName", "commercial_name")
    vendor_kind: str | None = None

    def items(
        self,
        conn: sqlite3.Connection,
        ids: list[int],
        lang: str,
        default: bool,
        more: Callable[[sqlite3.Row, Texts], dict[str, Any]] | None = None,
    ) -> list[dict[str, Any]]:
        """The entries `ids`, in that order; `more(row, its vendor's texts)`: the fields
        this catalog computes."""
        if not ids:
            return []
        rows = {r["id"]: r for r in conn.execute(self.select.format(ids=_marks(ids)), ids)}
        found = texts(conn, self.kind, lang, default, ids)
        vendors: dict[int, Texts] = {}
        if self.vendor_kind is not None:
            vendor_ids = sorted({int(r["v_id"]) for r in rows.values() if r["v_id"] is not None})
            vendors = texts(conn, self.vendor_kind, lang, default, vendor_ids)
        name_field, name_column = self.name
        out = []
        for uid in ids:
            r = rows[uid]
            name, description = found.get(uid, _NO_TEXTS)
            entry: dict[str, Any] = {
                "ID": r["ref"],
                name_field: name or r[name_column],
                "commercialDescription": description or r["description"],
                "source": r["source"],
            }
            entry |= {field: r[column] for field, column in self.columns.items()}
            if more is not None:
                vendor = (
                    _NO_TEXTS if self.vendor_kind is None else vendors.get(r["v_id"], _NO_TEXTS)
                )
                entry |= more(r, vendor)
            entry["languageTag"] = lang if uid in found else None
            entry["href"] = f"{BASE}/{self.path}/{uid}"
            out.append(entry)
        return out


def _vendor(r: sqlite3.Row, vendor_texts: Texts, unknown: str) -> dict[str, Any]:
    """A profile's vendor as its profile answers it (`unknown`: the ID of none)."""
    name, description = vendor_texts
    return {
        "ID": r["v_ref"] or unknown,
        "commercialName": name or r["v_name"],
        "commercialDescription": description or r["v_description"],
    }


_VENDOR_TABLE = {DEVICE_VENDOR: "device_vendors", BS_VENDOR: "bs_vendors"}
_PROFILE_TABLE = {DEVICE_VENDOR: "device_models", BS_VENDOR: "bs_profiles"}
_VENDOR_PATH = {DEVICE_VENDOR: "deviceVendors", BS_VENDOR: "baseStationVendors"}


def _vendor_entries(kind: str) -> Entries:
    columns = {"profileCount": "n"}
    if kind == DEVICE_VENDOR:
        columns["loraVendorID"] = "lora_vendor_id"
    count = f"SELECT count(*) FROM {_PROFILE_TABLE[kind]} p WHERE p.vendor_id = v.id"
    select = f"SELECT v.*, ({count}) AS n FROM {_VENDOR_TABLE[kind]} v WHERE v.id IN ({{ids}})"
    return Entries(kind, _VENDOR_PATH[kind], select, columns, name=("commercialName", "name"))


_VENDOR_ENTRIES = {kind: _vendor_entries(kind) for kind in _VENDOR_TABLE}


def find_vendor(conn: sqlite3.Connection, kind: str, *, uid: int | None = None,
                ref: str | None = None) -> int | None:  # fmt: skip
    return find_entry(conn, _VENDOR_TABLE[kind], uid=uid, ref=ref)


def vendors(
    conn: sqlite3.Connection,
    kind: str,
    lang: str,
    default: bool,
    offset: int,
    limit: int,
    *,
    lora_vendor_id: str | None = None,
) -> tuple[list[dict[str, Any]], bool]:
    table = _VENDOR_TABLE[kind]
    clauses, params = ["1"], []
    if lora_vendor_id and kind == DEVICE_VENDOR:
        clauses.append("lora_vendor_id = ?")
        params.append(lora_vendor_id)
    rows = conn.execute(
        f"SELECT id FROM {table} WHERE {' AND '.join(clauses)} ORDER BY name, ref LIMIT ? OFFSET ?",
        [*params, limit + 1, offset],
    ).fetchall()
    ids = [int(r[0]) for r in rows[:limit]]
    return vendor_items(conn, kind, ids, lang, default), len(rows) > limit


def vendor_count(conn: sqlite3.Connection, kind: str, lora_vendor_id: str | None = None) -> int:
    sql = f"SELECT count(*) FROM {_VENDOR_TABLE[kind]}"
    if lora_vendor_id and kind == DEVICE_VENDOR:
        return int(conn.execute(sql + " WHERE lora_vendor_id = ?", (lora_vendor_id,)).fetchone()[0])
    return int(conn.execute(sql).fetchone()[0])


def vendor_items(
    conn: sqlite3.Connection, kind: str, ids: list[int], lang: str, default: bool
) -> list[dict[str, Any]]:
    return _VENDOR_ENTRIES[kind].items(conn, ids, lang, default)


def create_vendor(conn: sqlite3.Connection, kind: str, values: dict[str, Any]) -> int:
    columns = ["ref", "name", "description", "source"]
    args = [values["ID"], values["commercialName"], values.get("commercialDescription"), "CUSTOM"]
    if kind == DEVICE_VENDOR:
        columns.append("lora_vendor_id")
        args.append(values.get("loraVendorID"))
    cur = conn.execute(
        f"INSERT INTO {_VENDOR_TABLE[kind]} ({', '.join(columns)}) VALUES ({_marks(args)})", args
    )
    return int(cur.lastrowid or 0)


def update_vendor(conn: sqlite3.Connection, kind: str, uid: int, values: dict[str, Any]) -> None:
    names = {"commercialName": "name", "commercialDescription": "description"}
    if kind == DEVICE_VENDOR:
        names["loraVendorID"] = "lora_vendor_id"
    sets = {names[k]: v for k, v in values.items() if k in names}
    if sets:
        conn.execute(
            f"UPDATE {_VENDOR_TABLE[kind]} SET {', '.join(f'{c} = ?' for c in sets)} WHERE id = ?",
            [*sets.values(), uid],
        )


# --- device profiles ------------------------------------------------------------------------


def find_entry(conn: sqlite3.Connection, table: str, *, uid: int | None = None,
               ref: str | None = None) -> int | None:  # fmt: skip
    """The ID of a catalog's entry (a vendor, a profile, a region) by ID or by its `ref`."""
    if uid is not None:
        row = conn.execute(f"SELECT id FROM {table} WHERE id = ?", (uid,)).fetchone()
    else:
        row = conn.execute(f"SELECT id FROM {table} WHERE ref = ?", (ref,)).fetchone()
    return None if row is None else int(row[0])


def _entry_page(
    conn: sqlite3.Connection, table: str, where: str, params: list[object], offset: int,
    limit: int,
) -> tuple[list[int], bool]:  # fmt: skip
    """One page of the IDs of a catalog's entries (`table`: name and alias) by their ID,
    and whether there are more."""
    alias = table.split()[1]
    rows = conn.execute(
        f"SELECT {alias}.id FROM {table} WHERE {where} ORDER BY {alias}.ref LIMIT ? OFFSET ?",
        [*params, limit + 1, offset],
    ).fetchall()
    return [int(r[0]) for r in rows[:limit]], len(rows) > limit


def _entry_count(conn: sqlite3.Connection, table: str, where: str, params: list[object]) -> int:
    return int(conn.execute(f"SELECT count(*) FROM {table} WHERE {where}", params).fetchone()[0])


def _source_clause(source: str | None, alias: str) -> tuple[str, list[object]]:
    if source in ("CATALOG", "CUSTOM"):
        return f"{alias}.source = ?", [source]
    return "1", []


def _profile_where(
    source: str | None, lora_id: str | None, vendor: str | None, connectivity: str | None
) -> tuple[str, list[object]]:
    clause, params = _source_clause(source, "m")
    clauses = [clause]
    if lora_id:
        clauses.append("m.id IN (SELECT model_id FROM device_model_lora_ids WHERE lora_id = ?)")
        params.append(lora_id)
    if vendor:
        clauses.append("m.vendor_id = (SELECT id FROM device_vendors WHERE ref = ?)")
        params.append(vendor)
    if connectivity:
        clauses.append("m.connectivity = ?")
        params.append(connectivity)
    return " AND ".join(clauses), params


def device_profiles(
    conn: sqlite3.Connection,
    lang: str,
    default: bool,
    offset: int,
    limit: int,
    *,
    source: str | None = None,
    lora_id: str | None = None,
    vendor: str | None = None,
    connectivity: str | None = None,
) -> tuple[list[dict[str, Any]], bool]:
    """One page of profiles by ID, in `lang` where they have texts in it."""
    where, params = _profile_where(source, lora_id, vendor, connectivity)
    ids, more = _entry_page(conn, "device_models m", where, params, offset, limit)
    return device_profile_items(conn, ids, lang, default), more


def device_profile_count(
    conn: sqlite3.Connection,
    *,
    source: str | None = None,
    lora_id: str | None = None,
    vendor: str | None = None,
    connectivity: str | None = None,
) -> int:
    where, params = _profile_where(source, lora_id, vendor, connectivity)
    return _entry_count(conn, "device_models m", where, params)


_DEVICE_PROFILES = Entries(
    DEVICE_PROFILE, "deviceProfiles",
    "SELECT m.*, v.ref AS v_ref, v.name AS v_name, v.description AS v_description,"
    " v.lora_vendor_id AS v_lora, v.id AS v_id FROM device_models m"
    " LEFT JOIN device_vendors v ON v.id = m.vendor_id WHERE m.id IN ({ids})",
    {"connectivity": "connectivity"}, vendor_kind=DEVICE_VENDOR,
)  # fmt: skip


def device_profile_items(
    conn: sqlite3.Connection, ids: list[int], lang: str, default: bool
) -> list[dict[str, Any]]:
    if not ids:
        return []
    marks = _marks(ids)
    bands: dict[int, list[str]] = {}
    for model_id, band in conn.execute(
        f"SELECT model_id, band FROM device_model_bands WHERE model_id IN ({marks}) ORDER BY band",
        ids,
    ):
        bands.setdefault(model_id, []).append(band)
    lora: dict[int, list[str]] = {}
    for model_id, lora_id in conn.execute(
        f"SELECT model_id, lora_id FROM device_model_lora_ids WHERE model_id IN ({marks})"
        " ORDER BY lora_id",
        ids,
    ):
        lora.setdefault(model_id, []).append(lora_id)

    def more(r: sqlite3.Row, vendor_texts: Texts) -> dict[str, Any]:
        vendor = _vendor(r, vendor_texts, "generic")
        vendor["commercialName"] = vendor["commercialName"] or "Generic"
        found: dict[str, Any] = {
            "vendor": vendor | {"loraVendorID": r["v_lora"]},
            "defaultIsmBands": [
                {"ID": b, "name": ISM_BAND_NAMES.get(b, b)} for b in bands.get(r["id"], [])
            ],
            "loraProfileIDs": lora.get(r["id"], []),
        }
        if r["connectivity"] == "LORAWAN":
            found["typeMAC"] = r["type_mac"] or "LoRaMAC"
            found["macMajorVersion"] = r["mac_major"] if r["mac_major"] is not None else 0
            found["macMinorVersion"] = r["mac_minor"]
        if r["motion"]:
            found["motionModelIndicator"] = r["motion"]
        found.update(json.loads(r["details"] or "{}"))
        return found

    return _DEVICE_PROFILES.items(conn, ids, lang, default, more)


def _profile_values(values: dict[str, Any]) -> dict[str, Any]:
    """The values to store: the forced ones applied, the not applicable ones dropped."""
    return apply_forced({k: v for k, v in values.items() if v is not None})


def write_device_profile(
    conn: sqlite3.Connection, values: dict[str, Any], *, source: str, uid: int | None = None
) -> int:
    """Create (uid None) or replace a device profile from its wire values (`vendor` the
    vendor's ID, `defaultIsmBands` band IDs)."""
    values = _profile_values(values)
    vendor_id = (
        find_vendor(conn, DEVICE_VENDOR, ref=values["vendor"]) if values.get("vendor") else None
    )
    lorawan = values.get("connectivity", "LORAWAN") == "LORAWAN"
    details = {k: values[k] for k in DETAIL_FIELDS if k in values}
    row = (
        values["commercialName"],
        values["connectivity"],
        values.get("commercialDescription"),
        vendor_id,
        values.get("typeMAC") or ("LoRaMAC" if lorawan else None),
        0 if lorawan else None,
        values.get("macMinorVersion"),
        values.get("motionModelIndicator"),
        json.dumps(details, separators=(",", ":")) if details else None,
    )
    before = None if uid is None else _device_profile_state(conn, uid)
    if uid is None:
        cur = conn.execute(
            "INSERT INTO device_models (commercial_name, connectivity, description, vendor_id,"
            " type_mac, mac_major, mac_minor, motion, details, ref, source)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (*row, values["ID"], source),
        )
        uid = int(cur.lastrowid or 0)
    else:
        conn.execute(
            "UPDATE device_models SET commercial_name = ?, connectivity = ?, description = ?,"
            " vendor_id = ?, type_mac = ?, mac_major = ?, mac_minor = ?, motion = ?, details = ?"
            " WHERE id = ?",
            (*row, uid),
        )
        conn.execute("DELETE FROM device_model_bands WHERE model_id = ?", (uid,))
        conn.execute("DELETE FROM device_model_lora_ids WHERE model_id = ?", (uid,))
    conn.executemany(
        "INSERT OR IGNORE INTO device_model_bands VALUES (?, ?)",
        [(uid, b) for b in values.get("defaultIsmBands") or ()],
    )
    conn.executemany(
        "INSERT OR IGNORE INTO device_model_lora_ids (lora_id, model_id) VALUES (?, ?)",
        [(lid, uid) for lid in values.get("loraProfileIDs") or ()],
    )
    # One queue item per creation, and per update that changed the profile.
    if before is None:
        _provision(conn, PROV_DEVICE_PROFILE, "CREATION", uid)
    elif _device_profile_state(conn, uid) != before:
        _provision(conn, PROV_DEVICE_PROFILE, "UPDATE", uid)
    return uid


def _provision(conn: sqlite3.Connection, type_: str, action: str, uid: int) -> None:
    table = "device_models" if type_ == PROV_DEVICE_PROFILE else "rf_regions"
    ref = conn.execute(f"SELECT ref FROM {table} WHERE id = ?", (uid,)).fetchone()[0]
    enqueue(conn, type_, action, str(ref), entity_uid=uid)


def device_profile_values(conn: sqlite3.Connection, uid: int) -> dict[str, Any]:
    """A profile as the values `write_device_profile` takes (default-language texts)."""
    lang = operator(conn)["defaultLanguage"]
    item = device_profile_items(conn, [uid], lang, True)[0]
    item["vendor"] = item["vendor"]["ID"]
    item["defaultIsmBands"] = [b["ID"] for b in item["defaultIsmBands"]]
    for name in ("href", "languageTag", "source", "macMajorVersion"):
        item.pop(name, None)
    return {k: v for k, v in item.items() if v is not None}


# --- base-station profiles ------------------------------------------------------------------


def _bs_where(source: str | None, vendor: str | None = None) -> tuple[str, list[object]]:
    clause, params = _source_clause(source, "p")
    if vendor:
        clause += " AND p.vendor_id = (SELECT id FROM bs_vendors WHERE ref = ?)"
        params.append(vendor)
    return clause, params


def bs_profiles(
    conn: sqlite3.Connection, lang: str, default: bool, offset: int, limit: int,
    *, source: str | None = None, vendor: str | None = None,
) -> tuple[list[dict[str, Any]], bool]:  # fmt: skip
    where, params = _bs_where(source, vendor)
    ids, more = _entry_page(conn, "bs_profiles p", where, params, offset, limit)
    return bs_profile_items(conn, ids, lang, default), more


def bs_profile_count(
    conn: sqlite3.Connection, *, source: str | None = None, vendor: str | None = None
) -> int:
    where, params = _bs_where(source, vendor)
    return _entry_count(conn, "bs_profiles p", where, params)


def lrr_versions(conn: sqlite3.Connection, uid: int) -> list[dict[str, Any]]:
    return [
        {
            "ID": version,
            "compatibilities": json.loads(compat),
            "href": f"{BASE}/baseStationProfiles/{uid}/lrrSwVersions/{version}",
        }
        for version, compat in conn.execute(
            "SELECT version, compatibilities FROM lrr_sw_versions WHERE profile_id = ?"
            " ORDER BY version",
            (uid,),
        )
    ]


_BS_PROFILES = Entries(
    BS_PROFILE, "baseStationProfiles",
    "SELECT p.*, v.ref AS v_ref, v.name AS v_name, v.description AS v_description,"
    " v.id AS v_id FROM bs_profiles p LEFT JOIN bs_vendors v ON v.id = p.vendor_id"
    " WHERE p.id IN ({ids})",
    {"softwareType": "software_type", "rfHardwareConfig": "rf_hw_config"}, vendor_kind=BS_VENDOR,
)  # fmt: skip


def bs_profile_items(
    conn: sqlite3.Connection, ids: list[int], lang: str, default: bool
) -> list[dict[str, Any]]:
    def more(r: sqlite3.Row, vendor_texts: Texts) -> dict[str, Any]:
        vendor = _vendor(r, vendor_texts, "unknown")
        return {"vendor": vendor, "lrrSwVersions": lrr_versions(conn, r["id"])}

    return _BS_PROFILES.items(conn, ids, lang, default, more)


def write_bs_profile(
    conn: sqlite3.Connection, values: dict[str, Any], *, source: str, uid: int | None = None
) -> int:
    vendor_id = find_vendor(conn, BS_VENDOR, ref=values["vendor"]) if values.get("vendor") else None
    row = (
        values["commercialName"],
        values.get("commercialDescription"),
        vendor_id,
        values["softwareType"],
        values.get("rfHardwareConfig"),
    )
    if uid is None:
        cur = conn.execute(
            "INSERT INTO bs_profiles (commercial_name, description, vendor_id, software_type,"
            " rf_hw_config, ref, source) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (*row, values["ID"], source),
        )
        return int(cur.lastrowid or 0)
    conn.execute(
        "UPDATE bs_profiles SET commercial_name = ?, description = ?, vendor_id = ?,"
        " software_type = ?, rf_hw_config = ? WHERE id = ?",
        (*row, uid),
    )
    return uid


def bs_profile_values(conn: sqlite3.Connection, uid: int) -> dict[str, Any]:
    r = conn.execute(
        "SELECT p.*, v.ref AS v_ref FROM bs_profiles p LEFT JOIN bs_vendors v"
        " ON v.id = p.vendor_id WHERE p.id = ?",
        (uid,),
    ).fetchone()
    return {
        "ID": r["ref"],
        "commercialName": r["commercial_name"],
        "commercialDescription": r["description"],
        "vendor": r["v_ref"],
        "softwareType": r["software_type"],
        "rfHardwareConfig": r["rf_hw_config"],
    }


def put_lrr_version(
    conn: sqlite3.Connection, uid: int, version: str, compatibilities: list[dict[str, str]]
) -> None:
    conn.execute(
        "INSERT INTO lrr_sw_versions (profile_id, version, compatibilities) VALUES (?, ?, ?)"
        " ON CONFLICT (profile_id, version) DO UPDATE SET compatibilities = excluded.compatibilities",
        (uid, version, json.dumps(compatibilities)),
    )


# --- RF regions -----------------------------------------------------------------------------


def rf_regions(
    conn: sqlite3.Connection, lang: str, default: bool, offset: int, limit: int,
    *, source: str | None = None,
) -> tuple[list[dict[str, Any]], bool]:  # fmt: skip
    where, params = _source_clause(source, "r")
    ids, more = _entry_page(conn, "rf_regions r", where, params, offset, limit)
    return rf_region_items(conn, ids, lang, default), more


def rf_region_count(conn: sqlite3.Connection, *, source: str | None = None) -> int:
    where, params = _source_clause(source, "r")
    return _entry_count(conn, "rf_regions r", where, params)


_RF_REGIONS = Entries(
    RF_REGION, "rfRegions",
    "SELECT id, ref, name, description, ism_band, source, logo IS NOT NULL AS has_logo"
    " FROM rf_regions WHERE id IN ({ids})",
    {"ismBand": "ism_band"}, name=("name", "name"),
)  # fmt: skip


def rf_region_items(
    conn: sqlite3.Connection, ids: list[int], lang: str, default: bool
) -> list[dict[str, Any]]:
    def more(r: sqlite3.Row, _: Texts) -> dict[str, Any]:
        return {"logo": f"{BASE}/rfRegions/{r['id']}/logo" if r["has_logo"] else None}

    return _RF_REGIONS.items(conn, ids, lang, default, more)


def write_rf_region(
    conn: sqlite3.Connection, values: dict[str, Any], *, source: str, uid: int | None = None
) -> int:
    if uid is None:
        cur = conn.execute(
            "INSERT INTO rf_regions (ref, name, description, ism_band, source) VALUES (?, ?, ?, ?, ?)",
            (values["ID"], values["name"], values.get("commercialDescription"), values["ismBand"],
             source),
        )  # fmt: skip
        uid = int(cur.lastrowid or 0)
        _provision(conn, PROV_RF_REGION, "CREATION", uid)
        return uid
    sets = {"name": values.get("name"), "description": values.get("commercialDescription"),
            "ism_band": values.get("ismBand")}  # fmt: skip
    sets = {k: v for k, v in sets.items() if v is not None}
    if sets:
        changed = conn.execute(
            f"UPDATE rf_regions SET {', '.join(f'{c} = ?' for c in sets)} WHERE id = ?"
            f" AND ({' OR '.join(f'{c} IS NOT ?' for c in sets)})",
            [*sets.values(), uid, *sets.values()],
        ).rowcount
        if changed:
            _provision(conn, PROV_RF_REGION, "UPDATE", uid)
    return uid


def rf_region_source(conn: sqlite3.Connection, uid: int) -> str:
    """CATALOG (installed from a catalog) or CUSTOM (created by the operator)."""
    return str(conn.execute("SELECT source FROM rf_regions WHERE id = ?", (uid,)).fetchone()[0])


def rf_region_users(conn: sqlite3.Connection, uid: int) -> int:
    """How many base stations use the RF region."""
    return int(
        conn.execute(
            "SELECT count(*) FROM stations WHERE rf_region_id = (SELECT ref FROM rf_regions"
            " WHERE id = ?)",
            (uid,),
        ).fetchone()[0]
    )


def rf_region_band(conn: sqlite3.Connection, ref: str) -> str | None:
    """The ISM band of the catalog's RF region `ref`, None when the catalog has none."""
    row = conn.execute("SELECT ism_band FROM rf_regions WHERE ref = ?", (ref,)).fetchone()
    return None if row is None else str(row[0])


def delete_rf_region(conn: sqlite3.Connection, uid: int) -> None:
    _provision(conn, PROV_RF_REGION, "DELETION", uid)
    conn.execute("DELETE FROM rf_regions WHERE id = ?", (uid,))
    _drop_texts(conn, RF_REGION, uid)


def logo(conn: sqlite3.Connection, uid: int) -> tuple[bytes, str] | None:
    row = conn.execute("SELECT logo, logo_type FROM rf_regions WHERE id = ?", (uid,)).fetchone()
    return None if row is None or row[0] is None else (bytes(row[0]), str(row[1]))


def set_logo(conn: sqlite3.Connection, uid: int, data: bytes, content_type: str) -> None:
    conn.execute(
        "UPDATE rf_regions SET logo = ?, logo_type = ? WHERE id = ?", (data, content_type, uid)
    )


# --- import of a catalog file ---------------------------------------------------------------


def _import_vendors(conn: sqlite3.Connection, kind: str, vendors: Iterable[FileVendor]) -> None:
    table = _VENDOR_TABLE[kind]
    for v in vendors:
        extra = ", lora_vendor_id" if kind == DEVICE_VENDOR else ""
        args: list[object] = [v.ID, v.commercialName, v.commercialDescription]
        if kind == DEVICE_VENDOR:
            args.append(v.loraVendorID)
        conn.execute(
            f"INSERT INTO {table} (ref, name, description{extra}) VALUES ({_marks(args)})"
            " ON CONFLICT (ref) DO UPDATE SET name = excluded.name,"
            " description = excluded.description"
            + (", lora_vendor_id = excluded.lora_vendor_id" if extra else ""),
            args,
        )
        uid = find_vendor(conn, kind, ref=v.ID)
        assert uid is not None
        for lang, t in v.locals.items():
            set_local(conn, kind, uid, lang, t.commercialName, t.commercialDescription)


def import_file(
    conn: sqlite3.Connection, file: CatalogFile, now: int, progress: Progress | None = None
) -> int:
    """Write the file's items (created or replaced, source CATALOG; custom items of the
    same ID are left alone) and record its version as installed. Returns the items written."""
    kind = file.catalog
    vendor_kind = BS_VENDOR if kind == "baseStationProfiles" else DEVICE_VENDOR
    _import_vendors(conn, vendor_kind, file.vendors)
    total = file.item_count
    written = 0
    items: list[FileDeviceProfile | FileBaseStationProfile | FileRfRegion] = []
    if kind == "deviceProfiles":
        items.extend(file.profiles)
    elif kind == "baseStationProfiles":
        items.extend(file.baseStationProfiles)
    else:
        items.extend(file.rfRegions)
    table = {"deviceProfiles": "device_models", "baseStationProfiles": "bs_profiles"}.get(
        kind, "rf_regions"
    )
    text_kind = {"deviceProfiles": DEVICE_PROFILE, "baseStationProfiles": BS_PROFILE}.get(
        kind, RF_REGION
    )
    existing = {
        r[0]: (int(r[1]), r[2]) for r in conn.execute(f"SELECT ref, id, source FROM {table}")
    }
    new_texts: list[tuple[object, ...]] = []
    for index, item in enumerate(items):
        found = existing.get(item.ID)
        if found is not None and found[1] == "CUSTOM":
            continue
        uid = found[0] if found else None
        if isinstance(item, FileDeviceProfile):
            values = item.model_dump(exclude_none=True, exclude={"locals"})
            values["vendor"] = values.pop("vendorID")
            uid = write_device_profile(conn, values, source="CATALOG", uid=uid)
        elif isinstance(item, FileBaseStationProfile):
            values = item.model_dump(exclude_none=True, exclude={"locals", "lrrSwVersions"})
            values["vendor"] = values.pop("vendorID")
            uid = write_bs_profile(conn, values, source="CATALOG", uid=uid)
            for version in item.lrrSwVersions:
                put_lrr_version(
                    conn, uid, version.ID, [c.model_dump() for c in version.compatibilities]
                )
        else:
            values = item.model_dump(exclude_none=True, exclude={"locals"})
            uid = write_rf_region(conn, values, source="CATALOG", uid=uid)
            if found is not None and item.commercialDescription is None:
                conn.execute("UPDATE rf_regions SET description = NULL WHERE id = ?", (uid,))
        for lang, t in item.locals.items():
            new_texts.append(
                (text_kind, lang, uid, t.commercialName or t.name, t.commercialDescription)
            )
        written += 1
        if progress is not None and index % 250 == 0:
            progress(index, total)
    conn.executemany(
        "INSERT OR REPLACE INTO catalog_texts (kind, lang, item_id, name, description)"
        " VALUES (?, ?, ?, ?, ?)",
        new_texts,
    )
    conn.execute(
        "INSERT OR REPLACE INTO catalog_versions (catalog, version, installed_at) VALUES (?, ?, ?)",
        (kind, file.version, now),
    )
    if progress is not None:
        progress(total, total)
    return written


def find_rf_region(conn: sqlite3.Connection, *, uid: int | None = None,
                   ref: str | None = None) -> int | None:  # fmt: skip
    return find_entry(conn, "rf_regions", uid=uid, ref=ref)


def rf_region_fixed(conn: sqlite3.Connection, uid: int) -> tuple[str, str]:
    """(ID, ISM band) of an RF region: what cannot change."""
    row = conn.execute("SELECT ref, ism_band FROM rf_regions WHERE id = ?", (uid,)).fetchone()
    return str(row[0]), str(row[1])
