"""A device's receptions in its row and the stations' `station_devices` entries: the packed
list, the migration from `device_receptions`, deletes, and the served-device lists read
through them."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import numpy as np

from lpwa_console.sandbox import receptions
from lpwa_console.sandbox.accounts import create_demo_accounts
from lpwa_console.sandbox.db import MIGRATIONS, Database, migrate
from lpwa_console.sandbox.db.steps_stations import V_RECEPTIONS_INLINE
from lpwa_console.sandbox.simulator import Simulator

from .conftest import API, Sandbox
from .test_store import _at_step

NOW = 1_790_000_000_000
BSS = f"{API}/partners/mine/bss"
INLINE = MIGRATIONS.index(V_RECEPTIONS_INLINE)  # the steps before it


def test_a_packed_list_reads_back_best_first() -> None:
    heard = [(7, -87.3, 5.5, -88.1), (3, -101.0, -2.25, -104.5), (12, -119.9, -12.0, -131.2)]
    text = receptions.pack(NOW, heard)
    assert receptions.unpack(text) == (NOW, heard)
    assert receptions.stations_of(text) == {7, 3, 12}
    as_numpy = [(np.int64(b), np.float64(r), np.float64(s), np.float64(e)) for b, r, s, e in heard]
    assert receptions.pack(np.int64(NOW), as_numpy) == text  # (numpy's repr names its type)
    assert receptions.unpack(None) == (None, [])
    assert receptions.stations_of("") == set()


def test_the_migration_moves_each_devices_receptions_into_its_row(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = _at_step(path, INLINE)  # a database made before the step
    sub = create_demo_accounts(conn, now_ms=NOW)
    conn.executemany(
        "INSERT INTO devices (uid, subscription_id, eui, name, connectivity, creation_date)"
        " VALUES (?, ?, ?, ?, 'LORAWAN', ?)",
        [(uid, sub, f"{uid:016X}", f"device {uid}", NOW) for uid in (1, 2, 3)],
    )
    conn.executemany(
        "INSERT INTO device_receptions VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (1, 2, 40, NOW, -110.5, -6.0, -117.5),  # (ranks out of order on purpose)
            (1, 1, 41, NOW, -95.0, 4.5, -96.5),
            (2, 1, 40, NOW - 5, -99.25, 1.0, -101.75),
        ],
    )
    conn.close()
    assert migrate(sqlite3.connect(path)) == len(MIGRATIONS) - INLINE
    db = Database(path)
    c = db.conn()
    rows = dict(c.execute("SELECT uid, receptions FROM devices").fetchall())
    assert receptions.unpack(rows[1]) == (
        NOW,
        [(41, -95.0, 4.5, -96.5), (40, -110.5, -6.0, -117.5)],
    )
    assert receptions.unpack(rows[2]) == (NOW - 5, [(40, -99.25, 1.0, -101.75)])
    assert rows[3] is None
    assert [tuple(r) for r in c.execute("SELECT * FROM station_devices ORDER BY 1, 2")] == [
        (40, 1), (40, 2), (41, 1),
    ]  # fmt: skip
    assert not c.execute("SELECT 1 FROM sqlite_master WHERE name = 'device_receptions'").fetchall()
    # A device deleted takes its entries with it, and only its own.
    with db.write() as w:
        w.execute("DELETE FROM devices WHERE uid = 1")
    assert [tuple(r) for r in c.execute("SELECT * FROM station_devices")] == [(40, 2)]
    db.close()


def _db(sb: Sandbox) -> Any:
    return sb.client.app.state.services.db  # type: ignore[attr-defined]


def test_served_devices_follow_the_receptions_in_the_device_rows(sb: Sandbox) -> None:
    sim = Simulator(_db(sb), seed=7)
    for _ in range(12):
        sim.step(300)  # an hour: most devices send at least once
    conn = _db(sb).conn()
    # Every entry of a station is in its device's list, and every list entry has its entry.
    entries = {tuple(r) for r in conn.execute("SELECT bs_uid, device_uid FROM station_devices")}
    listed = {
        (bs, uid)
        for uid, text in conn.execute("SELECT uid, receptions FROM devices")
        for bs in receptions.stations_of(text)
    }
    assert entries and entries == listed
    # The busiest station this account sees: the other tenant's partner's stations hear the
    # same devices over the air, and which one is busiest depends on the hour the demo ran.
    busiest = conn.execute(
        "SELECT bs_uid FROM station_devices GROUP BY bs_uid ORDER BY count(*) DESC, bs_uid"
    ).fetchall()
    bs = next(uid for (uid,) in busiest if sb.get(f"{BSS}/{uid}").status_code == 200)
    expected = []  # (ts, device uid, rank) of the devices whose last uplink of the week it heard
    week_ago = sim.now_ms - 7 * 86_400_000  # (the demo's silent devices were heard long ago)
    for uid, text in conn.execute("SELECT uid, receptions FROM devices"):
        ts, heard = receptions.unpack(text)
        for rank, h in enumerate(heard, 1):
            if h[0] == bs and ts is not None and ts >= week_ago:
                expected.append((ts, uid, rank))
    url = f"{BSS}/{bs}/rfcell/servedDevices"
    everything = sb.get(url, params={"duration": "P7D", "pageSize": 500}).json()
    assert everything["count"] == len(expected) and not everything["more"]
    newest_first = sorted(expected, key=lambda e: e[1])
    newest_first.sort(key=lambda e: e[0], reverse=True)
    assert [d["lastUpTimestamp"] for d in everything["devices"]] == [e[0] for e in newest_first]
    oldest = sb.get(url, params={"duration": "P7D", "sort": "lastUpTimestamp,asc"}).json()
    assert oldest["devices"][0]["lastUpTimestamp"] == min(e[0] for e in expected)
    best_only = sb.get(url, params={"duration": "P7D", "bsRank": 1}).json()
    assert best_only["count"] == sum(1 for e in expected if e[2] == 1)
    # Pages join up to the whole list.
    pages: list[Any] = []
    for index in range(0, len(expected), 3):
        page = sb.get(
            url, params={"duration": "P7D", "pageSize": 3, "pageIndex": index // 3 + 1}
        ).json()
        pages += page["devices"]
    assert [d["devEUI"] for d in pages] == [d["devEUI"] for d in everything["devices"]]
