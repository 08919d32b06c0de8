"""Domains of any resource that has them (devices, multicast groups, application servers):
their link tables, the `domain` list filter and the domain restrictions as SQL.

Every resource keeps its domains in a link table `(owner, domain_id)`; `DomainLinks` names it,
and the functions here take it, so the rules of Document 1 §2.2.1 exist once, as
`filters.restriction_sql` writes them for devices.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from ...schema.domains import DomainRestrictions, domain_matches
from .filters import restriction_sql
from .sql import Where, marks


@dataclass(frozen=True)
class DomainLinks:
    """A link table from resources to their domains."""

    table: str  # e.g. multicast_group_domains
    owner: str  # its column naming the resource, e.g. group_uid


DEVICE_DOMAINS = DomainLinks("device_domains", "device_uid")
GROUP_DOMAINS = DomainLinks("multicast_group_domains", "group_uid")
APP_SERVER_DOMAINS = DomainLinks("app_server_domains", "app_server_id")


def restriction(
    restrictions: DomainRestrictions | None, links: DomainLinks, owner_column: str
) -> tuple[str, list[object]]:
    """The resources (`owner_column`, e.g. `g.uid`) a user with `restrictions` may see:
    the device rules of `filters.restriction_sql`, on `links`. ("1", []) when unrestricted."""
    sql, params = restriction_sql(restrictions)
    if not params:
        return "1", []
    if links != DEVICE_DOMAINS:
        sql = sql.replace("device_domains", links.table).replace("device_uid", links.owner)
    return sql.replace("d.uid", owner_column), params


def add_restriction(
    w: Where, restrictions: DomainRestrictions | None, links: DomainLinks, owner_column: str
) -> None:
    w.restrict(restriction(restrictions, links, owner_column))


def add_domain_filter(
    w: Where, subscription_id: int, domain: str, links: DomainLinks, owner_column: str
) -> None:
    """The `domain` list filter: `group:namePrefix`, or a name prefix in any group."""
    group, _, name = domain.rpartition(":")
    sql = (
        f"{owner_column} IN (SELECT {links.owner} FROM {links.table} WHERE domain_id IN"
        " (SELECT id FROM domains WHERE subscription_id = ? AND substr(name, 1, length(?)) = ?"
    )
    if group:
        w.add(sql + " AND grp = ?))", subscription_id, name, name, group)
    else:
        w.add(sql + "))", subscription_id, name, name)


def domains_of(conn: sqlite3.Connection, links: DomainLinks, owner: int) -> list[tuple[str, str]]:
    """(group, name) of one resource's domains."""
    return [
        (g, n)
        for g, n in conn.execute(
            f"SELECT dm.grp, dm.name FROM {links.table} l JOIN domains dm ON dm.id = l.domain_id"
            f" WHERE l.{links.owner} = ? ORDER BY dm.grp",
            (owner,),
        )
    ]


def domains_by_owner(
    conn: sqlite3.Connection, links: DomainLinks, owners: list[int]
) -> dict[int, list[dict[str, Any]]]:
    """The domains of each of `owners`, as the reference writes them (name and group)."""
    out: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for owner, grp, name in conn.execute(
        f"SELECT l.{links.owner}, dm.grp, dm.name FROM {links.table} l"
        f" JOIN domains dm ON dm.id = l.domain_id WHERE l.{links.owner} IN ({marks(owners)})"
        " ORDER BY dm.grp",
        owners,
    ):
        out[owner].append({"name": name, "group": {"name": grp}})
    return out


def within_reach(
    conn: sqlite3.Connection,
    links: DomainLinks,
    owner: int,
    restrictions: DomainRestrictions | None,
) -> bool:
    """May an account with `restrictions` see this resource, and so name it (route an
    item's traffic to an application server, say)? Cross-domain ones included."""
    if restrictions is None or not restrictions.and_:
        return True
    return domain_matches(domains_of(conn, links, owner), restrictions)


def domain_id(conn: sqlite3.Connection, subscription_id: int, group: str, name: str) -> int:
    """The id of a domain of the subscription, made on first use."""
    conn.execute(
        "INSERT OR IGNORE INTO domains (subscription_id, grp, name) VALUES (?, ?, ?)",
        (subscription_id, group, name),
    )
    row = conn.execute(
        "SELECT id FROM domains WHERE subscription_id = ? AND grp = ? AND name = ?",
        (subscription_id, group, name),
    ).fetchone()
    return int(row[0])


def set_domains(
    conn: sqlite3.Connection,
    links: DomainLinks,
    subscription_id: int,
    owner: int,
    pairs: list[tuple[str, str]],
) -> None:
    """Replace one resource's domains by `pairs` (group, name)."""
    conn.execute(f"DELETE FROM {links.table} WHERE {links.owner} = ?", (owner,))
    conn.executemany(
        f"INSERT OR IGNORE INTO {links.table} ({links.owner}, domain_id) VALUES (?, ?)",
        [(owner, domain_id(conn, subscription_id, g, n)) for g, n in pairs],
    )
