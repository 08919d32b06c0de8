"""Multicast groups: lookup, list, create and update (SQL only), and their downlink history.

A group's downlinks are not stored one by one: its history is one downlink an hour, back from
its last downlink (`last_dw`, FCnt `last_fcnt_dn`) to its first (`first_dw`). Each goes to
BS_PER_GROUP base stations; most downlinks are sent by all of them, a fixed pattern of FCnts by
fewer (`sent_by`), so the raw frames and their aggregation by success ratio agree.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from typing import Any

from ...schema.app_servers import app_server_href
from ...schema.domains import DomainRestrictions
from ...schema.frames import MULTICAST_RATIO_RANGES, ratio_index
from ...schema.multicast import (
    ANY_NETWORK_SUBSCRIPTION,
    UNSET_NETWORK_SUBSCRIPTION,
    MulticastGroupCreate,
    MulticastGroupFilter,
    MulticastGroupUpdate,
)
from ..db.sealing import seal
from . import domains as domain_store
from .domains import GROUP_DOMAINS
from .sql import Page, Where, prefix, select_page
from .sql import count as count_rows

BASE_HREF = "/subscriptions/mine/multicastGroups"
SORT_COLUMNS = {
    "name": "g.name",
    "EUI": "g.eui",
    "creationDate": "g.creation_date",
    "lastDwTimestamp": "g.last_dw",
    "alarmLevel": "g.alarm_level",
}


def find_uid(
    conn: sqlite3.Connection, sub: int, *, uid: int | None = None, eui: str | None = None
) -> int | None:
    if uid is not None:
        row = conn.execute(
            "SELECT uid FROM multicast_groups WHERE uid = ? AND subscription_id = ?",
            (int(uid), sub),
        ).fetchone()
    else:
        row = conn.execute(
            "SELECT uid FROM multicast_groups WHERE eui = ? AND subscription_id = ?",
            ((eui or "").upper(), sub),
        ).fetchone()
    return None if row is None else int(row[0])


def domains_of(conn: sqlite3.Connection, uid: int) -> list[tuple[str, str]]:
    return domain_store.domains_of(conn, GROUP_DOMAINS, uid)


def restriction_sql(restrictions: DomainRestrictions | None) -> tuple[str, list[object]]:
    """The groups (`g.uid`) a user with `restrictions` may see (§2.2.1)."""
    return domain_store.restriction(restrictions, GROUP_DOMAINS, "g.uid")


def where(sub: int, f: MulticastGroupFilter, restrictions: DomainRestrictions | None) -> Where:
    """The list filters. Prefixes are literal (`%` and `_` are plain characters) and, as the
    device list's, case-insensitive (ASCII)."""
    w = Where()
    w.add("g.subscription_id = ?", sub)
    name = "g.name COLLATE NOCASE"
    eui = "g.eui COLLATE NOCASE"
    if f.query:
        name_sql, name_params = prefix(name, f.query)
        eui_sql, eui_params = prefix(eui, f.query.upper())
        w.add(f"({name_sql} OR {eui_sql})", *name_params, *eui_params)
    if f.name:
        w.add_test(prefix(name, f.name))
    if f.devEUI:
        w.add_test(prefix(eui, f.devEUI.upper()))
    if f.devAddr:
        w.add_test(prefix("g.nw_address COLLATE NOCASE", f.devAddr.upper()))
    if f.alarmLevel is not None:
        w.add("g.alarm_level >= ?", f.alarmLevel)
    if f.networkSubscriptionID == UNSET_NETWORK_SUBSCRIPTION:
        w.add("g.network_subscription IS NULL")
    elif f.networkSubscriptionID == ANY_NETWORK_SUBSCRIPTION:
        w.add("g.network_subscription IS NOT NULL")
    elif f.networkSubscriptionID:
        w.add("g.network_subscription = ?", f.networkSubscriptionID)
    for server in f.appServerID:  # all must match
        w.add(
            "g.uid IN (SELECT group_uid FROM multicast_group_app_servers WHERE app_server_id IN"
            " (SELECT id FROM app_servers WHERE subscription_id = ? AND ref = ?))",
            sub,
            server,
        )
    for tag in f.bsTag:
        w.add("g.uid IN (SELECT group_uid FROM multicast_group_bs_tags WHERE name = ?)", tag)
    for domain in f.domain:
        domain_store.add_domain_filter(w, sub, domain, GROUP_DOMAINS, "g.uid")
    domain_store.add_restriction(w, restrictions, GROUP_DOMAINS, "g.uid")
    return w


def page(
    conn: sqlite3.Connection, w: Where, sort: str, descending: bool, offset: int, limit: int
) -> tuple[list[int], bool]:
    order = "DESC" if descending else "ASC"
    found: Page = select_page(
        conn,
        "SELECT g.uid FROM multicast_groups g",
        w,
        f"{SORT_COLUMNS[sort]} {order}, g.uid {order}",
        offset=offset,
        limit=limit,
    )
    return [r[0] for r in found.rows], found.more


def all_uids(conn: sqlite3.Connection, w: Where) -> list[int]:
    """Every group matching `w` (no paging: for whole-subscription histories)."""
    rows = conn.execute(f"SELECT g.uid FROM multicast_groups g WHERE {w.sql()}", w.params)
    return [r[0] for r in rows]


def count(conn: sqlite3.Connection, w: Where) -> int:
    return count_rows(conn, "multicast_groups g", w)


def briefs(
    conn: sqlite3.Connection, uids: list[int], *, full: bool = False
) -> list[dict[str, Any]]:
    if not uids:
        return []
    marks = ", ".join("?" * len(uids))
    rows = {
        r["uid"]: r
        for r in conn.execute(f"SELECT * FROM multicast_groups WHERE uid IN ({marks})", uids)
    }
    domains = domain_store.domains_by_owner(conn, GROUP_DOMAINS, uids)
    servers: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for uid, row_id, ref, name, scope in conn.execute(
        "SELECT l.group_uid, a.id, a.ref, a.name, a.scope FROM multicast_group_app_servers l"
        f" JOIN app_servers a ON a.id = l.app_server_id WHERE l.group_uid IN ({marks}) ORDER BY a.ref",
        uids,
    ):
        servers[uid].append({"ID": ref, "name": name, "href": app_server_href(row_id, ref, scope)})
    subscriptions = _network_subscriptions(
        conn, {(r["subscription_id"], r["network_subscription"]) for r in rows.values()}
    )
    tags: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for uid, name, namespace in conn.execute(
        f"SELECT group_uid, name, namespace FROM multicast_group_bs_tags WHERE group_uid IN ({marks})"
        " ORDER BY name",
        uids,
    ):
        tags[uid].append({"name": name, "namespace": namespace})
    out = []
    for uid in uids:
        r = rows.get(uid)
        if r is None:
            continue
        alarms = [r[f"alarm{i}"] for i in range(1, 7)]
        item: dict[str, Any] = {
            "EUI": r["eui"],
            "name": r["name"],
            "nwAddress": r["nw_address"],
            "href": f"{BASE_HREF}/{uid}",
            "creationDate": r["creation_date"],
            "alarmLevel": r["alarm_level"],
            "alarmCount": sum(alarms),
            **{f"alarm{i}": n for i, n in enumerate(alarms, start=1)},
            "appServers": servers[uid],
            "domains": domains[uid],
            "bss": {"tags": tags[uid]},
            "lastDwTimestamp": r["last_dw"],
        }
        if r["history_dw"]:
            item["historyDwDaily"] = {"val": [int(v) for v in r["history_dw"].split(",")]}
        found = subscriptions.get((r["subscription_id"], r["network_subscription"]))
        if found is not None:
            item["networkSubscription"] = found
        if full:
            item |= {
                "class": r["class"],
                "customerAdminData": r["customer_admin_data"],
                "downlinkDataRate": r["downlink_data_rate"],
                "downlinkFrequency": r["downlink_frequency"],
                "pingSlotPeriod": r["ping_slot_period"],
                "firstDwTimestamp": r["first_dw"],
                "lastFCntDn": r["last_fcnt_dn"],
                "occContext": {
                    "version": r["version"],
                    "lastUpdate": r["last_update"],
                    "who": r["who"],
                },
            }
        out.append(item)
    return out


def _network_subscriptions(
    conn: sqlite3.Connection, refs: set[tuple[int, str | None]]
) -> dict[tuple[int, str], dict[str, Any]]:
    """The `networkSubscription` object of groups associated with these (subscription, ID)."""
    out: dict[tuple[int, str], dict[str, Any]] = {}
    for sub, ref in refs:
        if ref is None:
            continue
        row = conn.execute(
            "SELECT id, body FROM network_subscriptions WHERE subscription_id = ? AND ref = ?",
            (sub, ref),
        ).fetchone()
        body = json.loads(row[1]) if row else {}
        item = {"ID": ref, "commercialName": body.get("commercialName"),
                "href": f"/subscriptions/mine/networkSubscriptions/{row[0]}" if row else None,
                "multicastMaxLrrCells": body.get("multicastMaxLrrCells"),
                "supplier": body.get("supplier")}  # fmt: skip
        out[sub, ref] = {k: v for k, v in item.items() if v is not None}
    return out


def set_links(
    conn: sqlite3.Connection,
    sub: int,
    uid: int,
    *,
    domains: list[tuple[str, str]] | None = None,
    servers: list[int] | None = None,
) -> None:
    if domains is not None:
        domain_store.set_domains(conn, GROUP_DOMAINS, sub, uid, domains)
    if servers is not None:
        conn.execute("DELETE FROM multicast_group_app_servers WHERE group_uid = ?", (uid,))
        conn.executemany(
            "INSERT OR IGNORE INTO multicast_group_app_servers VALUES (?, ?)",
            [(uid, s) for s in servers],
        )


def create(
    conn: sqlite3.Connection,
    sub: int,
    body: MulticastGroupCreate,
    *,
    now: int,
    who: str,
    domains: list[tuple[str, str]],
    servers: list[int],
) -> int:
    """Insert the group `body` describes with its links; returns its UID. The caller has
    checked the EUI is new, the domains allowed and resolved the servers."""
    cur = conn.execute(
        "INSERT INTO multicast_groups (subscription_id, eui, name, nw_address, app_skey,"
        " nw_key, class, customer_admin_data, downlink_data_rate, downlink_frequency,"
        " ping_slot_period, creation_date, last_update, who)"
        " VALUES (?, ?, ?, ?, seal(?), seal(?), ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            sub, body.EUI, body.name or body.EUI, body.nwAddress, body.effective_app_skey(),
            body.nwKey, body.class_, body.customerAdminData, body.downlinkDataRate,
            body.downlinkFrequency, body.pingSlotPeriod, now, now, who,
        ),
    )  # fmt: skip
    uid = int(cur.lastrowid or 0)
    set_links(conn, sub, uid, domains=domains, servers=servers)
    return uid


_UPDATED_COLUMNS = {
    "name": "name",
    "customerAdminData": "customer_admin_data",
    "downlinkDataRate": "downlink_data_rate",
    "downlinkFrequency": "downlink_frequency",
    "pingSlotPeriod": "ping_slot_period",
}


def update(
    conn: sqlite3.Connection,
    sub: int,
    uid: int,
    body: MulticastGroupUpdate,
    *,
    now: int,
    who: str,
    domains: list[tuple[str, str]] | None,
    servers: list[int] | None,
) -> None:
    """Change the fields given in `body` (an empty name becomes the EUI), a new version;
    `domains` and `servers` replace the links when not None."""
    given = body.model_fields_set
    values = {col: getattr(body, f) for f, col in _UPDATED_COLUMNS.items() if f in given}
    if "name" in values and not values["name"]:
        values["name"] = conn.execute(
            "SELECT eui FROM multicast_groups WHERE uid = ?", (uid,)
        ).fetchone()[0]
    if "appSKey" in given or "appKeys" in given:
        values["app_skey"] = seal(conn, body.effective_app_skey())
    values |= {"last_update": now, "who": who}
    sets = ", ".join(f"{c} = ?" for c in values)
    conn.execute(
        f"UPDATE multicast_groups SET {sets}, version = version + 1 WHERE uid = ?",
        [*values.values(), uid],
    )
    set_links(conn, sub, uid, domains=domains, servers=servers)


def delete(conn: sqlite3.Connection, uid: int) -> None:
    conn.execute("DELETE FROM multicast_groups WHERE uid = ?", (uid,))


def bs_tag_suggestions(
    conn: sqlite3.Connection, sub: int, query: str, *, groups_only: bool
) -> list[dict[str, Any]]:
    """Base station tags starting with `query` (literally, ASCII case-insensitive), at most
    20."""
    name_sql, name_params = prefix("t.name COLLATE NOCASE", query)
    sql = (
        "SELECT t.name, min(t.namespace) FROM multicast_group_bs_tags t"
        " JOIN multicast_groups g ON g.uid = t.group_uid WHERE g.subscription_id = ?"
        f" AND {name_sql}"
    )
    if groups_only:
        sql += " AND t.namespace = 'SUBSCRIBER'"
    rows = conn.execute(sql + " GROUP BY t.name ORDER BY t.name LIMIT 20", (sub, *name_params))
    return [{"name": n, "namespace": ns} for n, ns in rows]


# --- downlink history --------------------------------------------------------------------------

HOUR_MS = 3_600_000
BS_PER_GROUP = 5
DOWNLINK_SIZE = 16
DOWNLINK_PORT = 10


def sent_by(fcnt: int) -> int:
    """How many of the group's BS_PER_GROUP base stations sent downlink `fcnt`."""
    if fcnt % 50 == 29:
        return 1
    if fcnt % 20 == 13:
        return 2
    if fcnt % 10 == 7:
        return 4
    return BS_PER_GROUP


def downlinks(
    conn: sqlite3.Connection, uids: list[int], start: int, end: int, limit: int | None = None
) -> list[dict[str, Any]]:
    """The groups' downlinks in [start, end), newest first, as the raw frames show them."""
    out: list[dict[str, Any]] = []
    for first, last, fcnt in conn.execute(
        "SELECT first_dw, last_dw, coalesce(last_fcnt_dn, 0) FROM multicast_groups"
        f" WHERE uid IN ({', '.join('?' * len(uids)) or 'NULL'}) AND last_dw IS NOT NULL",
        uids,
    ):
        oldest = max(first if first is not None else last, start)
        # Downlink k (k = 0 is the last) is at last - k hours, FCnt fcnt - k.
        k_first = max(0, -(-(last - end + 1) // HOUR_MS))
        k_last = (last - oldest) // HOUR_MS if last >= oldest else -1
        for k in range(k_first, k_last + 1):
            count = max(0, fcnt - k)
            sent = sent_by(count)
            out.append(
                {"timestamp": last - k * HOUR_MS, "size": DOWNLINK_SIZE, "fPort": DOWNLINK_PORT,
                 "fCnt": count, "status": "SUCCESS" if sent == BS_PER_GROUP else "ABORTED",
                 "bsCount": BS_PER_GROUP, "bsSuccessCount": sent,
                 "bsFailedCount": BS_PER_GROUP - sent, "overflow": False}
            )  # fmt: skip
            if limit is not None and k - k_first + 1 >= limit:
                break
    out.sort(key=lambda f: -f["timestamp"])
    return out if limit is None else out[:limit]


def aggregated_downlinks(
    conn: sqlite3.Connection, uids: list[int], start: int, end: int, step: int
) -> list[dict[str, Any]]:
    """One bucket per `step` ms from `start` to `end`, oldest first: the downlinks and their
    bytes by success ratio range (MULTICAST_RATIO_RANGES order)."""
    count = max(0, -(-(end - start) // step))
    ranges = len(MULTICAST_RATIO_RANGES)
    out: list[dict[str, Any]] = [
        {"timestamp": start + i * step,
         "successfulTransmissionValues": [{"count": 0, "size": 0} for _ in range(ranges)]}
        for i in range(count)
    ]  # fmt: skip
    for frame in downlinks(conn, uids, start, end):
        index = (frame["timestamp"] - start) // step
        if 0 <= index < count:
            value = out[index]["successfulTransmissionValues"][
                ratio_index(frame["bsSuccessCount"] / frame["bsCount"])
            ]
            value["count"] += 1
            value["size"] += frame["size"]
    return out


def ratio_range_definitions() -> list[dict[str, Any]]:
    return [r.model_dump() for r in MULTICAST_RATIO_RANGES]
