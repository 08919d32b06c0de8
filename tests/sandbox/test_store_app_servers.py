"""store.app_servers: the device counts kept per domain set stay exact through every change of
the links, and the list is filtered, sorted and paged in SQL."""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from lpwa_console.sandbox import demo
from lpwa_console.sandbox.accounts import create_demo_accounts
from lpwa_console.sandbox.db import Database
from lpwa_console.sandbox.store import app_servers as store
from lpwa_console.sandbox.store import devices as device_store
from lpwa_console.sandbox.store.filters import restriction_sql
from lpwa_console.schema.domains import DomainRestrictions

from .conftest import make_sandbox

NOW = 1_750_000_000_000
FRANCE = DomainRestrictions.model_validate(
    {"and": [{"type": "PREFIX", "name": "France/", "group": {"name": "Site"}}]}
)
PARIS_METERING = DomainRestrictions.model_validate(
    {
        "and": [
            {"type": "FULL", "name": "France/Paris", "group": {"name": "Site"}},
            {"type": "PREFIX", "name": "Meter", "group": {"name": "Vertical"}},
        ]
    }
)


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    for sandbox in make_sandbox(tmp_path / "servers.db", demo_devices=200):
        yield sandbox.client.app.state.services.db  # type: ignore[attr-defined]


def _kept(conn: sqlite3.Connection) -> dict[tuple[int, str], int]:
    rows = conn.execute("SELECT app_server_id, domain_key, n FROM app_server_device_counts")
    return {(s, k): n for s, k, n in rows}


def _recounted(conn: sqlite3.Connection) -> dict[tuple[int, str], int]:
    """The same counts made from the links, in Python."""
    domains: dict[int, list[int]] = {}
    for uid, domain in conn.execute("SELECT device_uid, domain_id FROM device_domains"):
        domains.setdefault(uid, []).append(domain)
    found: Counter[tuple[int, str]] = Counter()
    for uid, server in conn.execute("SELECT device_uid, app_server_id FROM device_app_servers"):
        found[server, ",".join(str(d) for d in sorted(domains.get(uid, [])))] += 1
    return dict(found)


def _direct(conn: sqlite3.Connection, restrictions: DomainRestrictions | None) -> dict[int, int]:
    """Device counts as the route counted them before: every link, restrictions in SQL."""
    sql, params = restriction_sql(restrictions)
    return dict(
        conn.execute(
            "SELECT l.app_server_id, count(*) FROM device_app_servers l"
            f" JOIN devices d ON d.uid = l.device_uid WHERE {sql} GROUP BY l.app_server_id",
            params,
        ).fetchall()
    )


def _server_ids(conn: sqlite3.Connection) -> list[int]:
    return [r[0] for r in conn.execute("SELECT id FROM app_servers ORDER BY id")]


def test_counts_follow_every_change_of_the_links(db: Database) -> None:
    conn = db.conn()
    assert _kept(conn) == _recounted(conn) and _kept(conn)
    uids = [r[0] for r in conn.execute("SELECT uid FROM devices ORDER BY uid LIMIT 40")]
    servers = _server_ids(conn)
    with db.write() as w:
        for i, uid in enumerate(uids[:10]):  # new domain sets, with servers already linked
            device_store.set_domains(w, 1, uid, [("Site", f"Lab/{i % 3}"), ("Team", "ops")])
        for uid in uids[10:20]:  # servers changed, domains kept
            device_store.set_app_servers(w, uid, servers[:2])
        for uid in uids[20:25]:  # no domain at all
            device_store.set_domains(w, 1, uid, [])
        w.execute("DELETE FROM devices WHERE uid IN (?, ?, ?)", uids[25:28])
        w.execute("DELETE FROM domains WHERE grp = 'Team'")  # cascades to device_domains
        w.execute("DELETE FROM app_servers WHERE id = ?", (servers[-1],))
    assert _kept(conn) == _recounted(conn)
    assert all(n > 0 for n in _kept(conn).values())


def test_counts_with_restrictions_match_counting_every_link(db: Database) -> None:
    conn = db.conn()
    ids = _server_ids(conn)
    for restrictions in (None, FRANCE, PARIS_METERING):
        counted = store.device_counts(conn, ids, restrictions)
        assert counted == _direct(conn, restrictions)
    assert sum(store.device_counts(conn, ids, FRANCE).values()) < sum(
        store.device_counts(conn, ids).values()
    )


def test_bulk_seed_rebuilds_the_counts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(demo, "BULK_THRESHOLD", 100)
    db = Database(tmp_path / "bulk.db")
    with db.write() as conn:
        create_demo_accounts(conn)
    demo.seed_devices(db, 150, seed=3, now=NOW)  # bulk: triggers dropped, counts rebuilt
    demo.seed_devices(db, 50, seed=4, now=NOW)  # not bulk: the triggers count
    conn = db.conn()
    triggers = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    assert {"tr_as_counts_link_add", "tr_as_counts_domain_remove"} <= triggers
    assert _kept(conn) == _recounted(conn)
    assert (
        sum(_kept(conn).values())
        == conn.execute("SELECT count(*) FROM device_app_servers").fetchone()[0]
    )
    db.close()


def _page_refs(
    conn: sqlite3.Connection,
    q: store.AppServerQuery,
    *,
    sort: str | None = None,
    descending: bool = False,
    restrictions: DomainRestrictions | None = None,
    offset: int = 0,
    limit: int = 100,
) -> tuple[list[str], bool]:
    w = store.where(1, q, restrictions)
    rows, more = store.page(
        conn, 1, w, sort=sort, descending=descending, offset=offset, limit=limit,
        restrictions=restrictions,
    )  # fmt: skip
    return [r["ref"] for r in rows], more


def test_list_filters_sorts_and_pages_in_sql(db: Database) -> None:
    conn = db.conn()
    both = store.AppServerQuery(scopes=("SUBSCRIPTION", "OPERATOR"))
    everything, more = _page_refs(conn, both)
    assert not more and len(everything) == 8
    first, more = _page_refs(conn, both, limit=3)
    second, _ = _page_refs(conn, both, offset=3, limit=3)
    assert more and first + second == everything[:6]
    assert store.count(conn, store.where(1, both, None)) == 8
    by_name, _ = _page_refs(conn, both, sort="name")
    names = {r["ref"]: r["name"] for r in conn.execute("SELECT ref, name FROM app_servers")}
    assert by_name == sorted(everything, key=lambda ref: (names[ref].lower(), ref))
    france, _ = _page_refs(conn, both, restrictions=FRANCE)
    assert "as-tracking" in everything and "as-tracking" not in france  # a Berlin server
    counts = store.device_counts(conn, [_id(conn, r) for r in france], FRANCE)
    by_count, _ = _page_refs(conn, both, sort="deviceCount", descending=True, restrictions=FRANCE)
    assert by_count == sorted(
        france, key=lambda ref: (counts.get(_id(conn, ref), 0), ref), reverse=True
    )
    # Prefixes are literal: `%` and `_` are characters, not wildcards.
    assert _page_refs(conn, store.AppServerQuery(scopes=both.scopes, query="%"))[0] == []
    assert _page_refs(conn, store.AppServerQuery(scopes=both.scopes, ID="as_"))[0] == []
    assert _page_refs(conn, store.AppServerQuery(name="SMART"))[0] == ["as-parking"]
    assert _page_refs(conn, store.AppServerQuery(query="AS-T"))[0] == ["as-tracking"]
    assert _page_refs(conn, store.AppServerQuery(ID="AS-T"))[0] == []  # the ID is exact case
    assert _page_refs(conn, store.AppServerQuery(types=("KAFKA",)))[0] == ["as-analytics"]


def _id(conn: sqlite3.Connection, ref: str) -> int:
    return int(conn.execute("SELECT id FROM app_servers WHERE ref = ?", (ref,)).fetchone()[0])
