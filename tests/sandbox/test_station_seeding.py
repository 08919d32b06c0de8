"""Seeding stations (the `seed` command), in bulk (indexes and triggers dropped, the derived
tables rebuilt once) or row by row (the triggers), leaves the derived tables exact: counts per
domain set, map tiles, the alarms' domain sets, the stations' alarm counters."""

from __future__ import annotations

import itertools
import time
from pathlib import Path

import pytest

from lpwa_console.sandbox import SandboxSettings, demo, station_sim
from lpwa_console.sandbox.demo_stations import BULK_THRESHOLD, seed_more_stations


def _derived(conn) -> dict[str, object]:  # type: ignore[no-untyped-def]
    return {
        "counts": sorted(tuple(r) for r in conn.execute("SELECT partner_uid, domain_set, n FROM station_counts"
                                      " WHERE n > 0").fetchall()),
        "tiles": sorted(tuple(r) for r in conn.execute("SELECT partner_uid, tile_y, tile_x, domain_set, n, uid_min"
                                     " FROM station_tiles").fetchall()),
        "alarm_sets": conn.execute("SELECT count(*) FROM station_alarms a JOIN stations s"
                                   " ON s.uid = a.bs_uid WHERE a.domain_set <> s.domain_set")
        .fetchone()[0],
        "counters": conn.execute(
            "SELECT count(*) FROM stations s WHERE alarm_level <> coalesce((SELECT max(state)"
            " FROM station_alarms WHERE bs_uid = s.uid AND acked = 0), 0)").fetchone()[0],
    }  # fmt: skip


def _recounted(conn) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """The counts and tiles computed from the stations themselves."""
    return {
        "counts": sorted(tuple(r) for r in conn.execute(
            "SELECT partner_uid, domain_set, count(*) FROM stations GROUP BY 1, 2")),
        "tiles": sorted(tuple(r) for r in conn.execute(
            "SELECT partner_uid, tile_y, tile_x, domain_set, count(*), min(uid) FROM stations"
            " WHERE tile_y IS NOT NULL GROUP BY 1, 2, 3, 4")),
    }  # fmt: skip


def test_bulk_seeding_rebuilds_what_the_triggers_keep(tmp_path: Path) -> None:
    db = demo.prepare(SandboxSettings(db_path=tmp_path / "s.db", demo_devices=0))
    added = seed_more_stations(db, BULK_THRESHOLD, seed=3, now=1_800_000_000_000)
    assert added == BULK_THRESHOLD
    conn = db.conn()
    after_bulk = _derived(conn)
    assert after_bulk["alarm_sets"] == 0 and after_bulk["counters"] == 0
    assert conn.execute("SELECT count(*) FROM station_alarms").fetchone()[0] > 0
    # Every subscriber partner's station has its Site domain (a supplier partner's none).
    unset = conn.execute(
        "SELECT count(*) FROM stations WHERE domain_set = 0 AND partner_uid IN"
        " (SELECT uid FROM partners WHERE type = 'SUBSCRIBER')"
    ).fetchone()[0]
    assert unset == 0
    assert after_bulk == _recounted(conn) | {"alarm_sets": 0, "counters": 0}
    db.close()


def test_a_few_stations_get_alarms_through_the_store(tmp_path: Path) -> None:
    db = demo.prepare(SandboxSettings(db_path=tmp_path / "s.db", demo_devices=0))
    before = db.conn().execute("SELECT count(*) FROM stations").fetchone()[0]
    assert seed_more_stations(db, 200, seed=5, now=1_800_000_000_000) == 200
    conn = db.conn()
    assert conn.execute("SELECT count(*) FROM stations").fetchone()[0] == before + 200
    assert _derived(conn) == _recounted(conn) | {"alarm_sets": 0, "counters": 0}
    db.close()


def test_seeded_stations_get_their_runtime_a_few_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The simulator's step gives new stations their first report: a seeded network's
    # 100,000 must not all come in one step (one write transaction).
    monkeypatch.setattr(station_sim, "NEW_STATIONS_AT_ONCE", 40)
    db = demo.prepare(SandboxSettings(db_path=tmp_path / "s.db", demo_devices=0))
    seed_more_stations(db, 100, seed=1, now=int(time.time() * 1000))
    conn = db.conn()

    def without() -> int:
        return int(
            conn.execute(
                "SELECT count(*) FROM stations WHERE uid NOT IN (SELECT bs_uid FROM"
                " station_runtime)"
            ).fetchone()[0]
        )

    waiting = [without()]
    sim = station_sim.StationSimulator(1)
    while waiting[-1]:
        with db.write() as wconn:
            sim._new_stations(wconn, int(time.time() * 1000))
        waiting.append(without())
        assert len(waiting) < 20
    assert waiting[0] >= 100
    assert all(0 < a - b <= 40 for a, b in itertools.pairwise(waiting))
    db.close()
