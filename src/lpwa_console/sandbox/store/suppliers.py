"""Every SQL statement of the supplier interface (Document 2 §4.2), nothing about HTTP.

Items are answered wire-shaped (dicts without null members). A resource's `ID` is its UID as
text (the path addresses it by UID), but a service account's, which is its client ID.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
from collections.abc import Iterable, Mapping
from typing import Any

from ...schema.suppliers import statuses_of
from ..db.sealing import scrypt_hash, scrypt_matches
from . import sql
from .sql import Where

# --- small helpers ----------------------------------------------------------------------------


def _clean(item: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in item.items() if v is not None}


def _json(text: str | None) -> Any:
    return json.loads(text) if text else None


def _dump(value: Any) -> str | None:
    return json.dumps(value, separators=(",", ":")) if value not in (None, {}) else None


def _named(ref: str | None, name: str | None) -> dict[str, Any] | None:
    return _clean({"ID": ref, "name": name}) if ref else None


# --- the supplier -----------------------------------------------------------------------------


def of_account(conn: sqlite3.Connection, account_id: int) -> int | None:
    row = conn.execute(
        "SELECT supplier_uid FROM supplier_accounts WHERE account_id = ?", (account_id,)
    ).fetchone()
    return int(row[0]) if row else None


def find(conn: sqlite3.Connection, *, uid: int | None = None, ref: str | None = None) -> int | None:
    if uid is not None:
        row = conn.execute("SELECT uid FROM suppliers WHERE uid = ?", (uid,)).fetchone()
    else:
        row = conn.execute("SELECT uid FROM suppliers WHERE id = ?", (ref,)).fetchone()
    return int(row[0]) if row else None


def create_supplier(
    conn: sqlite3.Connection, ref: str, name: str, *, now: int, **values: Any
) -> int:
    cur = conn.execute(
        "INSERT INTO suppliers (id, name, email, description, validation_state, currency,"
        " cfs_id, exclusive_vendor, custom_fields, creation_ts) VALUES (?,?,?,?,?,?,?,?,?,?)",
        (
            ref, name, values.get("email"), values.get("description"),
            values.get("validation_state"), values.get("currency"), values.get("cfs_id"),
            values.get("exclusive_vendor"), _dump(values.get("custom_fields")), now,
        ),
    )  # fmt: skip
    return int(cur.lastrowid or 0)


def link_account(conn: sqlite3.Connection, account_id: int, supplier_uid: int) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO supplier_accounts (account_id, supplier_uid) VALUES (?, ?)",
        (account_id, supplier_uid),
    )


def _cfs_name(conn: sqlite3.Connection, sup: int, target: str, ref: str | None) -> str | None:
    if not ref:
        return None
    row = conn.execute(
        "SELECT name FROM supplier_cfs WHERE supplier_uid = ? AND target = ? AND id = ?",
        (sup, target, ref),
    ).fetchone()
    return row[0] if row else None


def cfs_exists(conn: sqlite3.Connection, sup: int, target: str, ref: str) -> bool:
    return (
        conn.execute(
            "SELECT 1 FROM supplier_cfs WHERE supplier_uid = ? AND target = ? AND id = ?",
            (sup, target, ref),
        ).fetchone()
        is not None
    )


def vendor_name(conn: sqlite3.Connection, ref: str | None) -> str | None:
    if not ref:
        return None
    row = conn.execute("SELECT name FROM device_vendors WHERE ref = ?", (ref,)).fetchone()
    return row[0] if row else None


def vendor_exists(conn: sqlite3.Connection, ref: str) -> bool:
    return conn.execute("SELECT 1 FROM device_vendors WHERE ref = ?", (ref,)).fetchone() is not None


def supplier(conn: sqlite3.Connection, uid: int, *, custom_fields: bool) -> dict[str, Any]:
    row = conn.execute("SELECT * FROM suppliers WHERE uid = ?", (uid,)).fetchone()
    vendor = row["exclusive_vendor"]
    return _clean(
        {
            "ID": row["id"],
            "name": row["name"],
            "href": f"/suppliers/{uid}",
            "email": row["email"],
            "description": row["description"],
            "validationState": row["validation_state"],
            "currency": row["currency"],
            "customFieldSet": _named(
                row["cfs_id"], _cfs_name(conn, uid, "suppliers", row["cfs_id"])
            ),
            "exclusiveVendor": _named(vendor, vendor_name(conn, vendor)),
            "customFields": (_json(row["custom_fields"]) or {}) if custom_fields else None,
            "creationDate": row["creation_ts"],
        }
    )


_SUPPLIER_COLUMNS = {
    "name": "name", "email": "email", "description": "description", "currency": "currency",
    "customFields": "custom_fields", "validationState": "validation_state",
    "exclusiveVendor": "exclusive_vendor",
}  # fmt: skip


def update_supplier(conn: sqlite3.Connection, uid: int, values: Mapping[str, Any]) -> None:
    """`values` by wire name (customFields a dict, exclusiveVendor a vendor ref or None)."""
    _update(conn, "suppliers", uid, _SUPPLIER_COLUMNS, values)


def _update(
    conn: sqlite3.Connection,
    table: str,
    uid: int,
    columns: Mapping[str, str],
    values: Mapping[str, Any],
) -> None:
    sets, params = [], []
    for name, value in values.items():
        column = columns[name]
        sets.append(f"{column} = ?")
        params.append(_dump(value) if isinstance(value, dict | list) else value)
    if sets:
        conn.execute(f"UPDATE {table} SET {', '.join(sets)} WHERE uid = ?", [*params, uid])


# --- admins -----------------------------------------------------------------------------------


def admin_exists(conn: sqlite3.Connection, sup: int, email: str) -> bool:
    return (
        conn.execute(
            "SELECT 1 FROM supplier_admins WHERE supplier_uid = ? AND email = ?", (sup, email)
        ).fetchone()
        is not None
    )


def create_admin(
    conn: sqlite3.Connection, sup: int, email: str, name: str | None, api_only: bool | None,
    *, now: int,
) -> dict[str, Any]:  # fmt: skip
    cur = conn.execute(
        "INSERT INTO supplier_admins (supplier_uid, email, name, api_only, creation_ts)"
        " VALUES (?, ?, ?, ?, ?)",
        (sup, email, name, None if api_only is None else int(api_only), now),
    )
    return _clean(
        {
            "ID": str(cur.lastrowid),
            "email": email,
            "name": name,
            "apiOnly": api_only,
            "creationDate": now,
        }
    )


# --- service accounts and groups --------------------------------------------------------------


def secret_hash(secret: str) -> str:
    """What is kept of a service account's secret."""
    return scrypt_hash(secret)


def secret_matches(stored: str, secret: str) -> bool:
    return scrypt_matches(stored, secret)


def group_uid(conn: sqlite3.Connection, sup: int, ref: str) -> int | None:
    row = conn.execute(
        "SELECT uid FROM supplier_sa_groups WHERE supplier_uid = ? AND id = ?", (sup, ref)
    ).fetchone()
    return int(row[0]) if row else None


def create_group(
    conn: sqlite3.Connection, sup: int, ref: str, name: str, description: str | None = None
) -> int:
    cur = conn.execute(
        "INSERT INTO supplier_sa_groups (supplier_uid, id, name, description) VALUES (?,?,?,?)",
        (sup, ref, name, description),
    )
    return int(cur.lastrowid or 0)


def groups(conn: sqlite3.Connection, sup: int, offset: int, size: int) -> tuple[list[Any], bool]:
    page = sql.select_page(
        conn, "SELECT id, name, description FROM supplier_sa_groups", _of(sup),
        "name, uid", offset=offset, limit=size,
    )  # fmt: skip
    items = [_clean({"ID": r[0], "name": r[1], "description": r[2]}) for r in page.rows]
    return items, page.more


def group_count(conn: sqlite3.Connection, sup: int) -> int:
    return sql.count(conn, "supplier_sa_groups", _of(sup))


def _of(sup: int, column: str = "supplier_uid") -> Where:
    where = Where()
    where.add(f"{column} = ?", sup)
    return where


def _child_uid(conn: sqlite3.Connection, table: str, parent: str, of: int, uid: int) -> int | None:
    """`uid` if a row of `table` has it under `of` (its `parent` column)."""
    row = conn.execute(
        f"SELECT uid FROM {table} WHERE {parent} = ? AND uid = ?", (of, uid)
    ).fetchone()
    return int(row[0]) if row else None


def _insert(conn: sqlite3.Connection, table: str, row: Mapping[str, Any]) -> int:
    """A new row whose ID is its UID (as text); the UID."""
    columns = ", ".join(row)
    cur = conn.execute(
        f"INSERT INTO {table} (id, {columns}) VALUES ('', {sql.marks(list(row))})",
        tuple(row.values()),
    )
    uid = int(cur.lastrowid or 0)
    conn.execute(f"UPDATE {table} SET id = ? WHERE uid = ?", (str(uid), uid))
    return uid


def _change(
    conn: sqlite3.Connection, table: str, uid: int, columns: Mapping[str, str],
    values: Mapping[str, Any], deprecated: Mapping[str, Any],
) -> None:  # fmt: skip
    """The fields set, and the deprecated ones merged into those kept."""
    _update(conn, table, uid, columns, values)
    if deprecated:
        _merge_deprecated(conn, table, uid, deprecated)


def service_account_uid(conn: sqlite3.Connection, sup: int, client_id: str) -> int | None:
    row = conn.execute(
        "SELECT uid FROM supplier_service_accounts WHERE supplier_uid = ? AND client_id = ?",
        (sup, client_id),
    ).fetchone()
    return int(row[0]) if row else None


def _service_accounts(conn: sqlite3.Connection, uids: Iterable[int]) -> list[dict[str, Any]]:
    uids = list(uids)
    rows = conn.execute(
        "SELECT s.uid, s.supplier_uid, s.client_id, s.name, s.description, s.secret_ts,"
        " s.creation_ts, g.id AS gid, g.name AS gname FROM supplier_service_accounts s"
        f" LEFT JOIN supplier_sa_groups g ON g.uid = s.group_uid WHERE s.uid IN ({sql.marks(uids)})",
        uids,
    ).fetchall()
    by_uid = {r["uid"]: r for r in rows}
    out = []
    for uid in uids:
        r = by_uid[uid]
        out.append(
            _clean(
                {
                    "ID": r["client_id"],
                    "name": r["name"],
                    "description": r["description"],
                    "group": _named(r["gid"], r["gname"]),
                    "href": f"/suppliers/{r['supplier_uid']}/serviceAccounts/{r['client_id']}",
                    "creationDate": r["creation_ts"],
                    "secretDate": r["secret_ts"],
                }
            )
        )
    return out


def service_account(conn: sqlite3.Connection, uid: int) -> dict[str, Any]:
    return _service_accounts(conn, [uid])[0]


def service_accounts(
    conn: sqlite3.Connection, sup: int, offset: int, size: int
) -> tuple[list[dict[str, Any]], bool]:
    page = sql.select_page(
        conn, "SELECT uid FROM supplier_service_accounts", _of(sup), "name, uid",
        offset=offset, limit=size,
    )  # fmt: skip
    return _service_accounts(conn, [r[0] for r in page.rows]), page.more


def service_account_count(conn: sqlite3.Connection, sup: int) -> int:
    return sql.count(conn, "supplier_service_accounts", _of(sup))


def create_service_account(
    conn: sqlite3.Connection, sup: int, supplier_ref: str, name: str, description: str | None,
    group: int | None, *, now: int,
) -> int:  # fmt: skip
    client_id = f"sup-{supplier_ref}-{secrets.token_hex(4)}"
    cur = conn.execute(
        "INSERT INTO supplier_service_accounts (supplier_uid, client_id, name, description,"
        " group_uid, creation_ts) VALUES (?, ?, ?, ?, ?, ?)",
        (sup, client_id, name, description, group, now),
    )
    # The account it signs in as (accounts.SERVICE_ACCOUNT): a supplier's rights, acting for
    # this supplier; no secret in that row (sign-in checks the hash above).
    login = conn.execute(
        "INSERT INTO accounts (role, client_id, client_secret, name, subscription_id,"
        " permissions, rights) VALUES ('service-account', ?, ?, ?, NULL, '[]', ?)",
        (client_id, "!" + secrets.token_hex(16), name, json.dumps(["SUPPLIER::ADMIN"])),
    )
    link_account(conn, int(login.lastrowid or 0), sup)
    return int(cur.lastrowid or 0)


def update_service_account(conn: sqlite3.Connection, uid: int, values: Mapping[str, Any]) -> None:
    columns = {"name": "name", "description": "description", "group": "group_uid"}
    _update(conn, "supplier_service_accounts", uid, columns, values)


def delete_service_account(conn: sqlite3.Connection, uid: int) -> None:
    """The service account and the account it signs in as (its tokens go with it)."""
    conn.execute(
        "DELETE FROM accounts WHERE role = 'service-account' AND client_id ="
        " (SELECT client_id FROM supplier_service_accounts WHERE uid = ?)",
        (uid,),
    )
    conn.execute("DELETE FROM supplier_service_accounts WHERE uid = ?", (uid,))


def new_secret(conn: sqlite3.Connection, uid: int, *, now: int) -> str:
    """A new secret for the service account: only its hash is stored; the former secret
    stops matching."""
    secret = secrets.token_urlsafe(32)
    conn.execute(
        "UPDATE supplier_service_accounts SET secret_hash = ?, secret_ts = ? WHERE uid = ?",
        (secret_hash(secret), now, uid),
    )
    return secret


def stored_secret_hash(conn: sqlite3.Connection, uid: int) -> str | None:
    row = conn.execute(
        "SELECT secret_hash FROM supplier_service_accounts WHERE uid = ?", (uid,)
    ).fetchone()
    return row[0] if row else None


# --- modules, helpers --------------------------------------------------------------------------


def modules(conn: sqlite3.Connection, sup: int, offset: int, size: int) -> tuple[list[Any], bool]:
    page = sql.select_page(
        conn, "SELECT id, name, authentication, url FROM supplier_modules", _of(sup), "uid",
        offset=offset, limit=size,
    )  # fmt: skip
    items = [
        _clean({"ID": r[0], "name": r[1], "authentication": r[2], "url": r[3]}) for r in page.rows
    ]
    return items, page.more


def module_count(conn: sqlite3.Connection, sup: int) -> int:
    return sql.count(conn, "supplier_modules", _of(sup))


def create_module(
    conn: sqlite3.Connection, sup: int, ref: str, name: str, authentication: str, url: str
) -> None:
    conn.execute(
        "INSERT INTO supplier_modules (supplier_uid, id, name, authentication, url)"
        " VALUES (?, ?, ?, ?, ?)",
        (sup, ref, name, authentication, url),
    )


def _category_where(kind: str | None) -> Where:
    where = Where()
    where.add("type = ?", kind or "SELLING")
    return where


def categories(
    conn: sqlite3.Connection, kind: str | None, offset: int, size: int
) -> tuple[list[Any], bool]:
    """`kind` exact; None: SELLING categories only (§2.3)."""
    page = sql.select_page(
        conn, "SELECT id, name, type FROM supplier_categories", _category_where(kind),
        "name, uid", offset=offset, limit=size,
    )  # fmt: skip
    return [_clean({"ID": r[0], "name": r[1], "type": r[2]}) for r in page.rows], page.more


def category_count(conn: sqlite3.Connection, kind: str | None) -> int:
    return sql.count(conn, "supplier_categories", _category_where(kind))


def create_category(conn: sqlite3.Connection, ref: str, name: str, kind: str) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO supplier_categories (id, name, type) VALUES (?, ?, ?)",
        (ref, name, kind),
    )


def _cfs_where(sup: int, target: str) -> Where:
    where = _of(sup)
    where.add("target = ?", target)
    return where


def custom_field_sets(
    conn: sqlite3.Connection, sup: int, target: str, offset: int, size: int
) -> tuple[list[Any], bool]:
    page = sql.select_page(
        conn, "SELECT id, name, fields FROM supplier_cfs", _cfs_where(sup, target), "id",
        offset=offset, limit=size,
    )  # fmt: skip
    items = [_clean({"ID": r[0], "name": r[1], "fields": _json(r[2]) or []}) for r in page.rows]
    return items, page.more


def custom_field_set_count(conn: sqlite3.Connection, sup: int, target: str) -> int:
    return sql.count(conn, "supplier_cfs", _cfs_where(sup, target))


def create_custom_field_set(
    conn: sqlite3.Connection, sup: int, target: str, ref: str, name: str, fields: list[Any]
) -> None:
    conn.execute(
        "INSERT INTO supplier_cfs (supplier_uid, target, id, name, fields) VALUES (?,?,?,?,?)",
        (sup, target, ref, name, json.dumps(fields)),
    )


def vendors(conn: sqlite3.Connection, offset: int, size: int) -> tuple[list[Any], bool]:
    page = sql.select_page(
        conn, "SELECT ref, name FROM device_vendors", Where(), "name, id",
        offset=offset, limit=size,
    )  # fmt: skip
    return [{"ID": r[0], "name": r[1]} for r in page.rows], page.more


def vendor_count(conn: sqlite3.Connection) -> int:
    return sql.count(conn, "device_vendors", Where())


# --- applications and their options ------------------------------------------------------------


def application_uid(conn: sqlite3.Connection, sup: int, uid: int) -> int | None:
    return _child_uid(conn, "supplier_applications", "supplier_uid", sup, uid)


def _app_where(sup: int, sku: str | None) -> Where:
    where = _of(sup)
    if sku is not None:
        where.add("sku = ?", sku)
    return where


def application(
    conn: sqlite3.Connection, uid: int, *, full: bool, custom_fields: bool = False
) -> dict[str, Any]:
    r = conn.execute("SELECT * FROM supplier_applications WHERE uid = ?", (uid,)).fetchone()
    sup = r["supplier_uid"]
    item = {
        "ID": str(uid),
        "name": r["name"],
        "SKU": r["sku"],
        "description": r["description"],
        "href": f"/suppliers/{sup}/applications/{uid}",
        "creationDate": r["creation_ts"],
        "state": r["state"],
        "validationState": r["validation_state"],
        "customFieldSet": _named(r["cfs_id"], _cfs_name(conn, sup, "applications", r["cfs_id"])),
    }
    if full:
        item.update(_json(r["deprecated"]) or {})
        if custom_fields:
            item["customFields"] = _json(r["custom_fields"]) or {}
    return _clean(item)


def applications(
    conn: sqlite3.Connection, sup: int, sku: str | None, offset: int, size: int
) -> tuple[list[dict[str, Any]], bool]:
    page = sql.select_page(
        conn, "SELECT uid FROM supplier_applications", _app_where(sup, sku), "name, uid",
        offset=offset, limit=size,
    )  # fmt: skip
    return [application(conn, r[0], full=False) for r in page.rows], page.more


def application_count(conn: sqlite3.Connection, sup: int, sku: str | None) -> int:
    return sql.count(conn, "supplier_applications", _app_where(sup, sku))


_APP_COLUMNS = {
    "name": "name", "SKU": "sku", "description": "description", "customFieldSet": "cfs_id",
    "customFields": "custom_fields", "validationState": "validation_state",
}  # fmt: skip


def create_application(
    conn: sqlite3.Connection, sup: int, values: Mapping[str, Any], deprecated: Mapping[str, Any],
    *, now: int, manifest: Mapping[str, Any] | None = None,
) -> int:  # fmt: skip
    return _insert(conn, "supplier_applications", {
        "supplier_uid": sup, "name": values["name"], "sku": values.get("SKU"),
        "description": values.get("description"), "state": "ACTIVE",
        "validation_state": values.get("validationState"),
        "cfs_id": values.get("customFieldSet"),
        "custom_fields": _dump(values.get("customFields")), "deprecated": _dump(dict(deprecated)),
        "manifest": json.dumps(manifest or {}), "creation_ts": now,
    })  # fmt: skip


def update_application(
    conn: sqlite3.Connection, uid: int, values: Mapping[str, Any], deprecated: Mapping[str, Any]
) -> None:
    _change(conn, "supplier_applications", uid, _APP_COLUMNS, values, deprecated)


def _merge_deprecated(
    conn: sqlite3.Connection, table: str, uid: int, deprecated: Mapping[str, Any]
) -> None:
    row = conn.execute(f"SELECT deprecated FROM {table} WHERE uid = ?", (uid,)).fetchone()
    merged = (_json(row[0]) or {}) | dict(deprecated)
    conn.execute(
        f"UPDATE {table} SET deprecated = ? WHERE uid = ?",
        (_dump({k: v for k, v in merged.items() if v is not None}), uid),
    )


def manifest(conn: sqlite3.Connection, uid: int) -> dict[str, Any]:
    row = conn.execute(
        "SELECT manifest FROM supplier_applications WHERE uid = ?", (uid,)
    ).fetchone()
    out = _json(row[0]) or {}
    out.setdefault("permissions", [])
    return dict(out)


def set_manifest(conn: sqlite3.Connection, uid: int, value: Mapping[str, Any]) -> None:
    conn.execute(
        "UPDATE supplier_applications SET manifest = ? WHERE uid = ?", (json.dumps(value), uid)
    )


def option_uid(conn: sqlite3.Connection, app: int, uid: int) -> int | None:
    return _child_uid(conn, "supplier_app_options", "app_uid", app, uid)


def option(conn: sqlite3.Connection, uid: int) -> dict[str, Any]:
    r = conn.execute(
        "SELECT o.*, a.supplier_uid FROM supplier_app_options o"
        " JOIN supplier_applications a ON a.uid = o.app_uid WHERE o.uid = ?",
        (uid,),
    ).fetchone()
    return _clean(
        {
            "ID": str(uid),
            "name": r["name"],
            "SKU": r["sku"],
            "description": r["description"],
            "href": f"/suppliers/{r['supplier_uid']}/applications/{r['app_uid']}/options/{uid}",
            "creationDate": r["creation_ts"],
        }
        | (_json(r["deprecated"]) or {})
    )


def options(
    conn: sqlite3.Connection, app: int, offset: int, size: int
) -> tuple[list[dict[str, Any]], bool]:
    page = sql.select_page(
        conn, "SELECT uid FROM supplier_app_options", _of(app, "app_uid"), "name, uid",
        offset=offset, limit=size,
    )  # fmt: skip
    return [option(conn, r[0]) for r in page.rows], page.more


def option_count(conn: sqlite3.Connection, app: int) -> int:
    return sql.count(conn, "supplier_app_options", _of(app, "app_uid"))


def create_option(
    conn: sqlite3.Connection, app: int, values: Mapping[str, Any], deprecated: Mapping[str, Any],
    *, now: int,
) -> int:  # fmt: skip
    return _insert(conn, "supplier_app_options", {
        "app_uid": app, "name": values["name"], "sku": values.get("SKU"),
        "description": values.get("description"), "deprecated": _dump(dict(deprecated)),
        "creation_ts": now,
    })  # fmt: skip


def update_option(
    conn: sqlite3.Connection, uid: int, values: Mapping[str, Any], deprecated: Mapping[str, Any]
) -> None:
    columns = {"name": "name", "SKU": "sku", "description": "description"}
    _change(conn, "supplier_app_options", uid, columns, values, deprecated)


# --- products (devices sold) and their versions ------------------------------------------------

_HAS_VERSIONS = "EXISTS (SELECT 1 FROM supplier_product_versions v WHERE v.product_uid = p.uid)"


def product_uid(conn: sqlite3.Connection, sup: int, uid: int) -> int | None:
    return _child_uid(conn, "supplier_products", "supplier_uid", sup, uid)


def product_where(sup: int, f: Mapping[str, Any]) -> Where:
    """The device list's filters (§4.2). Stock and status: a device without versions by its
    own, a device with versions when one of its versions matches."""
    where = _of(sup, "p.supplier_uid")
    if f.get("SKU") is not None:
        where.add("p.sku = ?", f["SKU"])
    if f.get("minUpfrontPrice") is not None:
        where.add("p.upfront_price >= ?", f["minUpfrontPrice"])
    if f.get("maxUpfrontPrice") is not None:
        where.add("p.upfront_price <= ?", f["maxUpfrontPrice"])
    if f.get("customFieldSetID") is not None:
        where.add("p.cfs_id = ?", f["customFieldSetID"])
    if f.get("validationState") is not None:
        where.add("p.validation_state = ?", f["validationState"])
    tests: list[str] = []
    params: list[object] = []
    if f.get("status") is not None:
        wanted = statuses_of(f["status"])
        tests.append(f"{{}}status IN ({sql.marks(wanted)})")
        params.extend(wanted)
    if f.get("minStock") is not None:
        tests.append("{}stock >= ?")
        params.append(f["minStock"])
    if f.get("maxStock") is not None:
        tests.append("{}stock <= ?")
        params.append(f["maxStock"])
    if tests:
        own = " AND ".join(t.format("p.") for t in tests)
        versions = " AND ".join(t.format("v.") for t in tests)
        where.add(
            f"((NOT {_HAS_VERSIONS} AND {own}) OR EXISTS (SELECT 1 FROM"
            f" supplier_product_versions v WHERE v.product_uid = p.uid AND {versions}))",
            *params,
            *params,
        )
    return where


_PRODUCT_SELECT = (
    "SELECT p.*, (SELECT count(*) FROM supplier_product_versions v"
    " WHERE v.product_uid = p.uid) AS versions, c.name AS cfs_name, dv.name AS vendor_name"
    " FROM supplier_products p"
    " LEFT JOIN supplier_cfs c ON c.supplier_uid = p.supplier_uid AND c.target = 'devices'"
    " AND c.id = p.cfs_id LEFT JOIN device_vendors dv ON dv.ref = p.vendor"
)


def _product_item(r: sqlite3.Row, *, full: bool, custom_fields: bool) -> dict[str, Any]:
    uid, sup, versions = r["uid"], r["supplier_uid"], r["versions"]
    item: dict[str, Any] = {
        "ID": str(uid),
        "name": r["name"],
        "SKU": r["sku"],
        "description": r["description"],
        "href": f"/suppliers/{sup}/devices/{uid}",
        "creationDate": r["creation_ts"],
        "validationState": r["validation_state"],
        "customFieldSet": _named(r["cfs_id"], r["cfs_name"]),
        "upfrontPrice": r["upfront_price"],
        # §2.3: stock and status only for a device without versions
        "stock": r["stock"] if not versions else None,
        "status": r["status"] if not versions else None,
        "versionCount": versions,
        "vendor": _named(r["vendor"], r["vendor_name"]),
    }
    if full:
        item["pricePlan"] = _json(r["price_plan"])
        item.update(_json(r["deprecated"]) or {})
        if custom_fields:
            item["customFields"] = _json(r["custom_fields"]) or {}
    return _clean(item)


def product(
    conn: sqlite3.Connection, uid: int, *, full: bool, custom_fields: bool = False
) -> dict[str, Any]:
    r = conn.execute(f"{_PRODUCT_SELECT} WHERE p.uid = ?", (uid,)).fetchone()
    return _product_item(r, full=full, custom_fields=custom_fields)


def products(
    conn: sqlite3.Connection, where: Where, offset: int, size: int
) -> tuple[list[dict[str, Any]], bool]:
    """One page of briefs, read in one statement, by name. With an exact SKU the few rows
    are found by its index and then sorted (`+p.name`): the name index would walk them all."""
    by_sku = any(clause.startswith("p.sku =") for clause in where.clauses)
    order = "+p.name, p.uid" if by_sku else "p.name, p.uid"
    page = sql.select_page(conn, _PRODUCT_SELECT, where, order, offset=offset, limit=size)
    return [_product_item(r, full=False, custom_fields=False) for r in page.rows], page.more


def product_count(conn: sqlite3.Connection, where: Where) -> int:
    return sql.count(conn, "supplier_products p", where)


_PRODUCT_COLUMNS = {
    "name": "name", "SKU": "sku", "description": "description", "customFieldSet": "cfs_id",
    "customFields": "custom_fields", "pricePlan": "price_plan", "upfrontPrice": "upfront_price",
    "stock": "stock", "status": "status", "validationState": "validation_state",
}  # fmt: skip


def create_product(
    conn: sqlite3.Connection, sup: int, values: Mapping[str, Any], deprecated: Mapping[str, Any],
    *, now: int, vendor: str | None = None,
) -> int:  # fmt: skip
    return _insert(conn, "supplier_products", {
        "supplier_uid": sup, "name": values["name"], "sku": values.get("SKU"),
        "description": values.get("description"),
        "validation_state": values.get("validationState"),
        "cfs_id": values.get("customFieldSet"),
        "custom_fields": _dump(values.get("customFields")),
        "price_plan": _dump(values.get("pricePlan")), "upfront_price": values.get("upfrontPrice"),
        "stock": values.get("stock"), "status": values.get("status"), "vendor": vendor,
        "deprecated": _dump(dict(deprecated)), "creation_ts": now,
    })  # fmt: skip


def update_product(
    conn: sqlite3.Connection, uid: int, values: Mapping[str, Any], deprecated: Mapping[str, Any]
) -> None:
    _change(conn, "supplier_products", uid, _PRODUCT_COLUMNS, values, deprecated)


def version_uid(conn: sqlite3.Connection, product: int, uid: int) -> int | None:
    return _child_uid(conn, "supplier_product_versions", "product_uid", product, uid)


def version(conn: sqlite3.Connection, uid: int) -> dict[str, Any]:
    r = conn.execute(
        "SELECT v.*, p.supplier_uid FROM supplier_product_versions v"
        " JOIN supplier_products p ON p.uid = v.product_uid WHERE v.uid = ?",
        (uid,),
    ).fetchone()
    return _clean(
        {
            "ID": str(uid),
            "name": r["name"],
            "description": r["description"],
            "stock": r["stock"],
            "status": r["status"],
            "href": f"/suppliers/{r['supplier_uid']}/devices/{r['product_uid']}/versions/{uid}",
            "creationDate": r["creation_ts"],
        }
    )


def versions(
    conn: sqlite3.Connection, product: int, offset: int, size: int
) -> tuple[list[dict[str, Any]], bool]:
    page = sql.select_page(
        conn, "SELECT uid FROM supplier_product_versions", _of(product, "product_uid"),
        "creation_ts, uid", offset=offset, limit=size,
    )  # fmt: skip
    return [version(conn, r[0]) for r in page.rows], page.more


def version_count(conn: sqlite3.Connection, product: int) -> int:
    return sql.count(conn, "supplier_product_versions", _of(product, "product_uid"))


def create_version(
    conn: sqlite3.Connection, product: int, values: Mapping[str, Any], *, now: int
) -> int:
    return _insert(conn, "supplier_product_versions", {
        "product_uid": product, "name": values["name"], "description": values.get("description"),
        "stock": values.get("stock"), "status": values.get("status"), "creation_ts": now,
    })  # fmt: skip


def update_version(conn: sqlite3.Connection, uid: int, values: Mapping[str, Any]) -> None:
    columns = {"name": "name", "description": "description", "stock": "stock", "status": "status"}
    _update(conn, "supplier_product_versions", uid, columns, values)


# --- orders -----------------------------------------------------------------------------------


def order(conn: sqlite3.Connection, sup: int, uid: int) -> dict[str, Any] | None:
    r = conn.execute(
        "SELECT * FROM supplier_orders WHERE supplier_uid = ? AND uid = ?", (sup, uid)
    ).fetchone()
    if r is None:
        return None
    return _clean(
        {
            "ID": r["id"],
            "state": r["state"],
            "subscriber": _named(r["subscriber_id"], r["subscriber_name"]),
            "creationDate": r["creation_ts"],
            "orderContext": _json(r["context"]),
        }
    )


def create_orders(conn: sqlite3.Connection, rows: list[tuple[Any, ...]]) -> None:
    """(supplier_uid, state, subscriber_id, subscriber_name, context dict, creation_ts);
    an order's ID is its UID."""
    conn.executemany(
        "INSERT INTO supplier_orders (supplier_uid, id, state, subscriber_id, subscriber_name,"
        " context, creation_ts) VALUES (?, '', ?, ?, ?, ?, ?)",
        [(*r[:4], json.dumps(r[4]), r[5]) for r in rows],
    )
    conn.execute("UPDATE supplier_orders SET id = CAST(uid AS TEXT) WHERE id = ''")
