"""Application servers of a subscription (both scopes; OPERATOR ones are seeded).

`deviceCount` and `multicastGroupCount` count direct associations (not through AS routing
profiles) and, for a user with domain restrictions, only the devices and groups those let
them see (the reference's rule). `baseStationCount` and `rfProbeCount` (base stations and RF
probes directly associated with the server) are not returned: the sandbox keeps no base
station or RF probe inventory (the partner interface of Document 2), so it has nothing to
count, and a constant would be a claim it cannot back.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ...schema.app_servers import AppServerCreate, AppServerUpdate, DownlinkSecurityRequest
from ...schema.domains import DomainRestrictions, domain_matches
from . import domains as domain_store
from . import multicast as group_store
from .domains import APP_SERVER_DOMAINS
from .filters import device_restriction_sql
from .sql import Where, marks, prefix, select_page
from .sql import count as count_rows

BASE_HREF = "/subscriptions/mine/appServers"


@dataclass(frozen=True)
class AppServerQuery:
    """The list filters: scopes and types (exact; a type selects SUBSCRIPTION servers only),
    `query` (a prefix of the name or the ID), `name` (a prefix) and `ID` (a prefix, case
    sensitive). Name and query prefixes ignore ASCII case. All prefixes are literal."""

    scopes: Sequence[str] = ("SUBSCRIPTION",)
    types: Sequence[str] = field(default_factory=tuple)
    query: str | None = None
    name: str | None = None
    ID: str | None = None


# Sort criteria -> ORDER BY (ties by ID, in the same direction); None: creation order.
_SORT_KEYS: dict[str | None, str] = {
    None: "a.id",
    "name": "lower(a.name)",
    "ID": "lower(a.ref)",
    "type": "CASE WHEN a.scope = 'OPERATOR' THEN '' ELSE lower(a.type) END",
}


def where(sub: int, q: AppServerQuery, restrictions: DomainRestrictions | None) -> Where:
    w = Where()
    w.add("a.subscription_id = ?", sub)
    w.add(f"a.scope IN ({marks(q.scopes)})", *q.scopes)
    if q.types:
        w.add(f"a.type IN ({marks(q.types)}) AND a.scope = 'SUBSCRIPTION'", *q.types)
    if q.query:
        name_sql, name_params = prefix("a.name COLLATE NOCASE", q.query)
        ref_sql, ref_params = prefix("a.ref COLLATE NOCASE", q.query)
        w.add(f"({name_sql} OR {ref_sql})", *name_params, *ref_params)
    if q.name:
        w.add_test(prefix("a.name COLLATE NOCASE", q.name))
    if q.ID:
        w.add_test(prefix("a.ref", q.ID))
    domain_store.add_restriction(w, restrictions, APP_SERVER_DOMAINS, "a.id")
    return w


def page(
    conn: sqlite3.Connection,
    sub: int,
    w: Where,
    *,
    sort: str | None,
    descending: bool,
    offset: int,
    limit: int,
    restrictions: DomainRestrictions | None,
) -> tuple[list[sqlite3.Row], bool]:
    """One page of servers. Sorted by deviceCount, the counts of every server matching `w`
    are read (a few rows each in app_server_device_counts); otherwise none are."""
    order = "DESC" if descending else "ASC"
    params: list[Any] = []
    if sort == "deviceCount":
        key, params = _device_count_sql(visible_keys(conn, sub, restrictions))
    else:
        key = _SORT_KEYS[sort]
    order_by = f"{key} {order}" + ("" if sort is None else f", a.ref {order}")
    found = select_page(
        conn, "SELECT a.* FROM app_servers a", w, order_by, offset=offset, limit=limit,
        order_params=params,
    )  # fmt: skip
    return found.rows, found.more


def count(conn: sqlite3.Connection, w: Where) -> int:
    return count_rows(conn, "app_servers a", w)


def find(
    conn: sqlite3.Connection, sub: int, *, uid: int | None = None, ref: str | None = None
) -> sqlite3.Row | None:
    """A server by UID (SUBSCRIPTION scope only: OPERATOR servers have no UID form) or by
    ID (any scope)."""
    sql, value = ("id = ? AND scope = 'SUBSCRIPTION'", uid) if uid is not None else ("ref = ?", ref)
    row: sqlite3.Row | None = conn.execute(
        f"SELECT * FROM app_servers WHERE subscription_id = ? AND {sql}", (sub, value)
    ).fetchone()
    return row


def rows(conn: sqlite3.Connection, sub: int, ids: list[int] | None = None) -> list[sqlite3.Row]:
    sql = "SELECT * FROM app_servers WHERE subscription_id = ?"
    params: list[Any] = [sub]
    if ids is not None:
        sql += f" AND id IN ({marks(ids)})"
        params += ids
    return conn.execute(sql + " ORDER BY id", params).fetchall()


def domains(conn: sqlite3.Connection, ids: list[int]) -> dict[int, list[tuple[str, str]]]:
    out: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for sid, grp, name in conn.execute(
        "SELECT l.app_server_id, dm.grp, dm.name FROM app_server_domains l"
        f" JOIN domains dm ON dm.id = l.domain_id WHERE l.app_server_id IN ({marks(ids)})"
        " ORDER BY dm.grp",
        ids,
    ):
        out[sid].append((grp, name))
    return out


# --- counts ---------------------------------------------------------------------------------


def _domain_names(conn: sqlite3.Connection, keys: set[str]) -> dict[int, tuple[str, str]]:
    ids = sorted({int(i) for k in keys for i in k.split(",") if i})
    return {
        i: (g, n)
        for i, g, n in conn.execute(
            f"SELECT id, grp, name FROM domains WHERE id IN ({marks(ids)})", ids
        )
    }


def _visible(
    conn: sqlite3.Connection, keys: set[str], restrictions: DomainRestrictions | None
) -> set[str]:
    """The domain keys (sets of domain ids) whose devices `restrictions` let one see."""
    names = _domain_names(conn, keys)
    return {
        k for k in keys if domain_matches([names[int(i)] for i in k.split(",") if i], restrictions)
    }


def visible_keys(
    conn: sqlite3.Connection, sub: int, restrictions: DomainRestrictions | None
) -> list[str] | None:
    """The domain keys of the subscription's counts the caller may see; None: all."""
    if restrictions is None or not restrictions.and_:
        return None
    keys = {
        r[0]
        for r in conn.execute(
            "SELECT DISTINCT c.domain_key FROM app_server_device_counts c"
            " JOIN app_servers a ON a.id = c.app_server_id WHERE a.subscription_id = ?",
            (sub,),
        )
    }
    return sorted(_visible(conn, keys, restrictions))


def _device_count_sql(visible: list[str] | None) -> tuple[str, list[Any]]:
    """An expression: how many devices of server `a` the caller may see."""
    sql = (
        "SELECT coalesce(sum(c.n), 0) FROM app_server_device_counts c WHERE c.app_server_id = a.id"
    )
    if visible is None:
        return f"({sql})", []
    return f"({sql} AND c.domain_key IN (SELECT value FROM json_each(?)))", [json.dumps(visible)]


def device_counts(
    conn: sqlite3.Connection, ids: list[int], restrictions: DomainRestrictions | None = None
) -> dict[int, int]:
    """Devices directly associated with each server, of those `restrictions` let one see."""
    found = conn.execute(
        "SELECT app_server_id, domain_key, n FROM app_server_device_counts"
        f" WHERE app_server_id IN ({marks(ids)})",
        ids,
    ).fetchall()
    restricted = restrictions is not None and bool(restrictions.and_)
    visible = _visible(conn, {r[1] for r in found}, restrictions) if restricted else None
    out: dict[int, int] = defaultdict(int)
    for sid, key, n in found:
        if visible is None or key in visible:
            out[sid] += n
    return dict(out)


def group_counts(
    conn: sqlite3.Connection, ids: list[int], restrictions: DomainRestrictions | None = None
) -> dict[int, int]:
    """Multicast groups directly associated with each server, of those one may see."""
    group_sql, group_params = group_store.restriction_sql(restrictions)
    return dict(
        conn.execute(
            "SELECT l.app_server_id, count(*) FROM multicast_group_app_servers l"
            " JOIN multicast_groups g ON g.uid = l.group_uid"
            f" WHERE l.app_server_id IN ({marks(ids)}) AND {group_sql} GROUP BY l.app_server_id",
            [*ids, *group_params],
        ).fetchall()
    )


def briefs(
    conn: sqlite3.Connection,
    rows: list[sqlite3.Row],
    restrictions: DomainRestrictions | None,
    *,
    full: bool = False,
) -> list[dict[str, Any]]:
    """The servers `rows` in the wire shape, counts as `restrictions` see them."""
    ids = [r["id"] for r in rows]
    devices = device_counts(conn, ids, restrictions)
    groups = group_counts(conn, ids, restrictions)
    doms = domains(conn, ids)
    return [
        brief(r, doms[r["id"]], devices.get(r["id"], 0), groups.get(r["id"], 0), full=full)
        for r in rows
    ]


def brief(
    row: sqlite3.Row,
    doms: list[tuple[str, str]],
    device_count: int,
    group_count: int,
    *,
    full: bool = False,
) -> dict[str, Any]:
    operator = row["scope"] == "OPERATOR"
    item: dict[str, Any] = {
        "ID": row["ref"],
        "name": row["name"],
        "scope": row["scope"],
        "href": f"{BASE_HREF}/{row['id']}" if not operator else None,
        "healthState": row["health_state"],
        "deviceCount": device_count,
        "multicastGroupCount": group_count,
        "domains": [{"name": n, "group": {"name": g}} for g, n in doms],
    }
    if not operator:
        item |= {
            "type": row["type"],
            "state": row["state"],
            "validationState": row["validation_state"],
        }
    if full:
        item["destinations"] = json.loads(row["destinations"])
        item["customHttpHeaders"] = json.loads(row["custom_headers"])
        item["flowMatcherTags"] = json.loads(row["flow_matcher_tags"])
        if not operator:
            item["contentType"] = row["content_type"]
            item["downlinkSecurity"] = security(row)
            item["occContext"] = occ(row)
    return item


def security(row: sqlite3.Row) -> dict[str, Any]:
    out: dict[str, Any] = {"status": row["security_status"]}
    if row["security_status"] != "NONE":
        out |= {
            "asID": row["security_as_id"],
            "maxTimestampDeviation": row["security_max_deviation"],
        }
    return out


def occ(row: sqlite3.Row) -> dict[str, Any]:
    return {"version": row["version"], "lastUpdate": row["last_update"], "who": row["who"]}


def set_domains(conn: sqlite3.Connection, sub: int, sid: int, pairs: list[tuple[str, str]]) -> None:
    domain_store.set_domains(conn, APP_SERVER_DOMAINS, sub, sid, pairs)


def create(
    conn: sqlite3.Connection,
    sub: int,
    body: AppServerCreate,
    *,
    domains: list[tuple[str, str]],
    now: int,
    who: str,
) -> int:
    """A SUBSCRIPTION server with ID `TWA_<subscription>.<n>.AS`; returns its UID."""
    sub_ref = conn.execute("SELECT ref FROM subscriptions WHERE id = ?", (sub,)).fetchone()[0]
    number = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM app_servers").fetchone()[0]
    sec = body.downlinkSecurity
    cur = conn.execute(
        "INSERT INTO app_servers (subscription_id, ref, name, type, content_type,"
        " destinations, custom_headers, flow_matcher_tags, security_status, security_as_id,"
        " security_key, security_max_deviation, last_update, who, health_state)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'INIT')",
        (
            sub, f"TWA_{sub_ref}.{number}.AS", body.name, body.type or "HTTP",
            body.contentType or "json",
            json.dumps([d.model_dump(exclude_none=True) for d in body.destinations or []]),
            json.dumps([h.model_dump() for h in body.customHttpHeaders or []]),
            json.dumps(body.flowMatcherTags or []),
            # Security on without an asID: the server's generated ID (the reference).
            sec.status if sec else "NONE",
            (sec.asID or f"TWA_{sub_ref}.{number}.AS") if sec and sec.status != "NONE" else None,
            sec.downlinkAsKey if sec else None, sec.maxTimestampDeviation if sec else None,
            now, who,
        ),
    )  # fmt: skip
    sid = int(cur.lastrowid or 0)
    set_domains(conn, sub, sid, domains)
    return sid


def kept_key(security: DownlinkSecurityRequest, row: sqlite3.Row) -> str | None:
    """The AS key to store: the one given, else the stored one while security stays on
    (only what is given changes; a key is never read back, so a form cannot resend it)."""
    if security.downlinkAsKey is not None or security.status == "NONE":
        return security.downlinkAsKey
    return row["security_key"]  # type: ignore[no-any-return]


def _security_columns(security: DownlinkSecurityRequest, row: sqlite3.Row) -> dict[str, Any]:
    return {
        "security_status": security.status,
        "security_as_id": security.asID,
        "security_key": kept_key(security, row),
        "security_max_deviation": security.maxTimestampDeviation,
    }


def _write(conn: sqlite3.Connection, sid: int, values: dict[str, Any], now: int, who: str) -> None:
    values = values | {"last_update": now, "who": who}
    sets = ", ".join(f"{c} = ?" for c in values)
    conn.execute(
        f"UPDATE app_servers SET {sets}, version = version + 1 WHERE id = ?",
        [*values.values(), sid],
    )


def set_security(
    conn: sqlite3.Connection,
    row: sqlite3.Row,
    security: DownlinkSecurityRequest,
    *,
    now: int,
    who: str,
) -> None:
    _write(conn, row["id"], _security_columns(security, row), now, who)


def update(
    conn: sqlite3.Connection,
    row: sqlite3.Row,
    body: AppServerUpdate,
    *,
    domains: list[tuple[str, str]] | None,
    now: int,
    who: str,
) -> None:
    """Change the fields given in `body` (an empty name or content type keeps the stored
    one), a new version; `domains` replace the server's when not None."""
    given = body.model_fields_set
    values: dict[str, Any] = {}
    if "name" in given and body.name:
        values["name"] = body.name
    if "contentType" in given and body.contentType:
        values["content_type"] = body.contentType
    if "destinations" in given:
        values["destinations"] = json.dumps(
            [d.model_dump(exclude_none=True) for d in body.destinations or []]
        )
    if "customHttpHeaders" in given:
        values["custom_headers"] = json.dumps(
            [h.model_dump() for h in body.customHttpHeaders or []]
        )
    if "flowMatcherTags" in given:
        values["flow_matcher_tags"] = json.dumps(body.flowMatcherTags or [])
    if "downlinkSecurity" in given and body.downlinkSecurity is not None:
        values |= _security_columns(body.downlinkSecurity, row)
    _write(conn, row["id"], values, now, who)
    if domains is not None:
        set_domains(conn, row["subscription_id"], row["id"], domains)


def devices_outside(
    conn: sqlite3.Connection, sid: int, restrictions: DomainRestrictions | None
) -> int:
    """How many devices linked to server `sid` the restrictions do not admit."""
    if restrictions is None or not restrictions.and_:
        return 0
    visible_sql, params = device_restriction_sql(restrictions)
    return int(
        conn.execute(
            "SELECT count(*) FROM device_app_servers l JOIN devices d ON d.uid = l.device_uid"
            f" WHERE l.app_server_id = ? AND NOT ({visible_sql})",
            [sid, *params],
        ).fetchone()[0]
    )


def delete(conn: sqlite3.Connection, sid: int) -> None:
    conn.execute("DELETE FROM app_servers WHERE id = ?", (sid,))


def metrics(conn: sqlite3.Connection, sid: int, now: int) -> dict[str, int]:
    """Traffic of the devices routed to this server over the last hour and day."""
    out: dict[str, int] = {}
    for label, span in (("1h", 3_600_000), ("24h", 86_400_000)):
        active, up, dw = conn.execute(
            "SELECT count(DISTINCT f.device_uid), coalesce(sum(f.up), 0), coalesce(sum(f.dw), 0)"
            " FROM frame_buckets f JOIN device_app_servers l ON l.device_uid = f.device_uid"
            " WHERE l.app_server_id = ? AND f.ts >= ? AND f.ts < ? AND f.up > 0",
            (sid, now - span - now % 3_600_000, now),
        ).fetchone()
        out |= {
            f"activeThingsLast{label}": active,
            f"uplinksLast{label}": up,
            f"uplinksLast{label}Failed": up // 200,
            f"downlinksLast{label}": dw,
            f"downlinksLast{label}Failed": dw // 50,
        }
    return out
