"""The structures kept beside the devices (migration 10): domain sets, device counts and map
tiles. Whatever changes the devices (create, update, delete, bulk seeding), restricted lists,
counts and clusters give what the devices themselves say."""

from __future__ import annotations

import random
import sqlite3
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lpwa_console.sandbox import accounts, demo
from lpwa_console.sandbox.db import Database
from lpwa_console.sandbox.store import devices as store
from lpwa_console.sandbox.store.clusters import cluster_level, tile_index
from lpwa_console.sandbox.store.filters import device_restriction_sql
from lpwa_console.schema.devices import DeviceFilter
from lpwa_console.schema.domains import DomainRestrictions, domain_matches

from .conftest import DEVICES, Sandbox

GROUPS = ["Site", "Vertical", "Owner"]
NAMES = ["France/Paris", "France/Lyon", "France", "Fr", "Germany/Berlin", "Metering", "Meter"]
TAGS = ["water", "gas", "pilot"]
FRANCE = DomainRestrictions.model_validate(accounts.FRANCE_ONLY)


def _random_restrictions(rng: random.Random) -> DomainRestrictions | None:
    if rng.random() < 0.1:
        return None
    items = [
        {
            "type": rng.choice(["FULL", "PREFIX"]),
            "name": rng.choice([*NAMES, ""]),
            "group": {"name": rng.choice(GROUPS)},
        }
        for _ in range(rng.randint(0, 3))
    ]
    return DomainRestrictions.model_validate({"and": items})


def _domains(conn: sqlite3.Connection) -> dict[int, list[tuple[str, str]]]:
    """Every device's domains, from the links (the truth the derived columns follow)."""
    out: dict[int, list[tuple[str, str]]] = {
        r[0]: [] for r in conn.execute("SELECT uid FROM devices")
    }
    for uid, group, name in conn.execute(
        "SELECT l.device_uid, dm.grp, dm.name FROM device_domains l"
        " JOIN domains dm ON dm.id = l.domain_id"
    ):
        out[uid].append((group, name))
    return out


def _check(conn: sqlite3.Connection, rng: random.Random) -> None:
    """Restrictions on the domain sets (devices and their alarms) agree with domain_matches,
    and the counts and tiles equal a fresh computation from the devices."""
    domains = _domains(conn)
    for _ in range(20):
        restrictions = _random_restrictions(rng)
        want = {uid for uid, pairs in domains.items() if domain_matches(pairs, restrictions)}
        sql, params = device_restriction_sql(restrictions)
        got = {r[0] for r in conn.execute(f"SELECT d.uid FROM devices d WHERE {sql}", params)}
        assert got == want, restrictions
        sql, params = device_restriction_sql(restrictions, "a.domain_set")
        alarms = {
            r[0]
            for r in conn.execute(
                f"SELECT a.device_uid FROM alarms a WHERE a.kind = 'D' AND {sql}", params
            )
        }
        owners = {r[0] for r in conn.execute("SELECT device_uid FROM alarms WHERE kind = 'D'")}
        assert alarms == owners & want, restrictions
        total = store.total(conn, 1, restrictions)
        assert total == len(
            want & {r[0] for r in conn.execute("SELECT uid FROM devices WHERE subscription_id = 1")}
        )
        for tag in TAGS:
            tagged = {
                r[0]
                for r in conn.execute(
                    "SELECT l.device_uid FROM device_tags l JOIN tags t ON t.id = l.tag_id"
                    " WHERE t.name = ? AND t.subscription_id = 1",  # Acme's: the demo has two
                    (tag,),
                )
            }
            assert store.tag_total(conn, 1, tag, restrictions) == len(tagged & want), tag
    tag_counts = conn.execute(
        "SELECT tag_id, domain_set, n FROM tag_counts WHERE n > 0 ORDER BY 1, 2"
    ).fetchall()
    fresh = conn.execute(
        "SELECT l.tag_id, d.domain_set, count(*) FROM device_tags l"
        " JOIN devices d ON d.uid = l.device_uid GROUP BY 1, 2 ORDER BY 1, 2"
    ).fetchall()
    assert [tuple(r) for r in tag_counts] == [tuple(r) for r in fresh]
    counts = conn.execute(
        "SELECT subscription_id, domain_set, n FROM device_counts WHERE n > 0 ORDER BY 1, 2"
    ).fetchall()
    fresh = conn.execute(
        "SELECT subscription_id, domain_set, count(*) FROM devices GROUP BY 1, 2 ORDER BY 1, 2"
    ).fetchall()
    assert [tuple(r) for r in counts] == [tuple(r) for r in fresh]
    tiles = conn.execute(
        "SELECT subscription_id, tile_y, tile_x, domain_set, n, round(lat_sum, 6),"
        " round(lon_sum, 6), lat_min, lat_max, lon_min, lon_max, uid_min FROM device_tiles"
        " ORDER BY 1, 2, 3, 4"
    ).fetchall()
    fresh = conn.execute(
        "SELECT subscription_id, tile_y, tile_x, domain_set, count(*), round(sum(lat), 6),"
        " round(sum(lon), 6), min(lat), max(lat), min(lon), max(lon), min(uid) FROM devices"
        " WHERE tile_y IS NOT NULL AND tile_x IS NOT NULL GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4"
    ).fetchall()
    assert [tuple(r) for r in tiles] == [tuple(r) for r in fresh]


def _add_device(conn: sqlite3.Connection, rng: random.Random, uid: int, pairs: list[int]) -> None:
    located = rng.random() < 0.9
    conn.execute(
        "INSERT INTO devices (uid, subscription_id, eui, name, connectivity, creation_date,"
        " lat, lon) VALUES (?, 1, ?, ?, 'LORAWAN', 0, ?, ?)",
        (
            uid,
            f"{uid:016X}",
            f"d{uid}",
            round(48.8 + rng.random() * 0.1, 6) if located else None,
            round(2.3 + rng.random() * 0.1, 6) if located else None,
        ),
    )
    conn.executemany("INSERT INTO device_domains VALUES (?, ?)", [(uid, d) for d in pairs])
    tag_ids = [r[0] for r in conn.execute("SELECT id FROM tags WHERE subscription_id = 1")]
    conn.executemany(
        "INSERT INTO device_tags VALUES (?, ?)",
        [(uid, t) for t in rng.sample(tag_ids, rng.randint(0, len(tag_ids)))],
    )
    if rng.random() < 0.5:
        conn.execute(
            "INSERT INTO alarms (subscription_id, kind, device_uid, alarm_id, state, created,"
            " updated) VALUES (1, 'D', ?, 4, 3, 0, 0)",
            (uid,),
        )


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    db = Database(tmp_path / "x.db")
    c = db.conn()
    c.execute("INSERT INTO subscriptions (id, ref, name, creation_ts) VALUES (1, 's', 's', 0)")
    pairs = [(g, n) for g in GROUPS for n in NAMES]
    c.executemany(
        "INSERT INTO domains VALUES (?, 1, ?, ?)",
        [(i, g, n) for i, (g, n) in enumerate(pairs, start=1)],
    )
    c.executemany("INSERT INTO tags (subscription_id, name) VALUES (1, ?)", [(t,) for t in TAGS])
    yield c
    db.close()


@pytest.mark.parametrize("seed", range(4))
def test_derived_structures_follow_every_change(conn: sqlite3.Connection, seed: int) -> None:
    rng = random.Random(seed)
    domain_ids = [r[0] for r in conn.execute("SELECT id FROM domains")]

    def some_domains() -> list[int]:
        return rng.sample(domain_ids, rng.choice([0, 0, 1, 2, 3]))

    for uid in range(1, 151):
        _add_device(conn, rng, uid, some_domains())
    _check(conn, rng)
    # Domains changed as the routes and the import change them, devices moved and deleted.
    names = {r[0]: (r[1], r[2]) for r in conn.execute("SELECT id, grp, name FROM domains")}
    for uid in rng.sample(range(1, 151), 60):
        store.set_domains(conn, 1, uid, [names[d] for d in some_domains()])
    for uid in rng.sample(range(1, 151), 30):
        store.update_columns(conn, uid, {"lat": 48.85 + rng.random() * 0.01, "lon": None})
    for uid in rng.sample(range(1, 151), 20):
        store.update_columns(conn, uid, {"lat": 45.7, "lon": 4.8})
    tag_ids = [r[0] for r in conn.execute("SELECT id FROM tags")]
    for uid in rng.sample(range(1, 151), 40):  # tagged and untagged
        tag = rng.choice(tag_ids)
        conn.execute("DELETE FROM device_tags WHERE device_uid = ? AND tag_id = ?", (uid, tag))
        if rng.random() < 0.5:
            conn.execute("INSERT INTO device_tags VALUES (?, ?)", (uid, tag))
    conn.executemany(
        "DELETE FROM devices WHERE uid = ?", [(u,) for u in rng.sample(range(1, 151), 40)]
    )
    for uid in range(151, 181):  # new devices, some reusing deleted UIDs' places
        _add_device(conn, rng, uid, some_domains())
    _check(conn, rng)
    # A domain deleted: its links go, and the devices' sets with them.
    conn.execute("DELETE FROM domains WHERE id = ?", (rng.choice(domain_ids),))
    _check(conn, rng)
    # A tag deleted: its links go, and its counts with them.
    conn.execute("DELETE FROM tags WHERE name = ?", (rng.choice(TAGS),))
    _check(conn, rng)


def test_bulk_seeding_rebuilds_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(demo, "BULK_THRESHOLD", 100)
    from lpwa_console.sandbox.settings import SandboxSettings

    db = demo.prepare(SandboxSettings(db_path=tmp_path / "x.db", demo_devices=50))
    assert demo.seed_devices(db, 400) == 400  # bulk: triggers dropped, then rebuilt
    conn = db.conn()
    rng = random.Random(7)
    _check(conn, rng)
    store.set_domains(conn, 1, 60, [("Site", "Germany/Berlin")])  # the triggers are back
    conn.execute("DELETE FROM devices WHERE uid = 61")
    _check(conn, rng)
    db.close()


# --- clusters ------------------------------------------------------------------------------

BOXES = [
    (-90.0, -180.0, 90.0, 180.0),
    (35.0, -12.0, 60.0, 25.0),
    (42.0, -5.0, 51.5, 8.5),
    (48.77, 2.23, 48.94, 2.48),
    (48.80, 2.20, 48.90, 2.36),
    (48.84, 2.32, 48.87, 2.37),
    (45.70, 4.79, 45.80, 4.90),
    (48.8566, 2.3522, 48.8566, 2.3522),
]


def _expected(
    conn: sqlite3.Connection,
    box: tuple[float, float, float, float],
    restrictions: DomainRestrictions | None,
    connectivity: str | None = None,
) -> dict[tuple[int, int], dict[str, Any]]:
    """The clusters computed in Python from every device: tiles of the box's level."""
    min_lat, min_lon, max_lat, max_lon = box
    level = cluster_level(box)
    domains = _domains(conn)
    groups: dict[tuple[int, int], list[tuple[float, float, int]]] = defaultdict(list)
    for uid, lat, lon, conn_type in conn.execute(
        "SELECT uid, lat, lon, connectivity FROM devices WHERE lat IS NOT NULL AND lon IS NOT NULL"
        " AND subscription_id = 1"  # Acme's (the demo's second tenant is subscription 2)
    ):
        if not (min_lat <= lat <= max_lat and min_lon <= lon <= max_lon):
            continue
        if not domain_matches(domains[uid], restrictions):
            continue
        if connectivity and conn_type != connectivity:
            continue
        key = (tile_index(lat, -90, 180, level), tile_index(lon, -180, 360, level))
        groups[key].append((lat, lon, uid))
    return {
        key: {
            "count": len(members),
            "lat": sum(m[0] for m in members) / len(members),
            "lon": sum(m[1] for m in members) / len(members),
            "ne": (max(m[0] for m in members), max(m[1] for m in members)),
            "sw": (min(m[0] for m in members), min(m[1] for m in members)),
            "single": str(members[0][2]) if len(members) == 1 else None,
        }
        for key, members in groups.items()
    }


def _assert_clusters(
    conn: sqlite3.Connection,
    box: tuple[float, float, float, float],
    restrictions: DomainRestrictions | None,
    f: DeviceFilter,
) -> None:
    want = _expected(conn, box, restrictions, f.connectivity)
    total, got = store.clusters(conn, 1, f, restrictions, box)
    assert total == sum(c["count"] for c in want.values())
    assert len(got) == len(want) <= 64
    by_place = sorted(want.values(), key=lambda c: (c["sw"], c["count"]))
    for cluster, expected in zip(
        sorted(
            got,
            key=lambda c: (
                (c["bbox"]["southwest"]["lat"], c["bbox"]["southwest"]["lng"]),
                c["count"],
            ),
        ),
        by_place,
        strict=True,
    ):
        assert cluster["count"] == expected["count"]
        assert cluster["location"]["lat"] == pytest.approx(expected["lat"], abs=1e-9)
        assert cluster["location"]["lng"] == pytest.approx(expected["lon"], abs=1e-9)
        ne, sw = cluster["bbox"]["northeast"], cluster["bbox"]["southwest"]
        assert (ne["lat"], ne["lng"]) == expected["ne"]
        assert (sw["lat"], sw["lng"]) == expected["sw"]
        assert (cluster.get("item") or {}).get("ref") == expected["single"]


@pytest.mark.parametrize("box", BOXES)
def test_clusters_agree_with_the_devices(
    sb: Sandbox, box: tuple[float, float, float, float]
) -> None:
    db = sb.client.app.state.services.db  # type: ignore[attr-defined]
    conn = db.conn()
    for restrictions in (None, FRANCE):
        _assert_clusters(conn, box, restrictions, DeviceFilter())
        _assert_clusters(conn, box, restrictions, DeviceFilter(connectivity="CELLULAR"))
    # Devices moved, re-domained and deleted: the tiles follow.
    uids = [r[0] for r in conn.execute("SELECT uid FROM devices ORDER BY uid LIMIT 40")]
    with db.write() as w:
        for uid in uids[:10]:
            store.update_columns(w, uid, {"lat": 48.8601, "lon": 2.3401})
        for uid in uids[10:20]:
            store.set_domains(w, 1, uid, [("Site", "Germany/Berlin")])
        w.executemany("DELETE FROM devices WHERE uid = ?", [(u,) for u in uids[20:30]])
    for restrictions in (None, FRANCE):
        _assert_clusters(conn, box, restrictions, DeviceFilter())


def test_cluster_route_counts_every_device_in_the_world(sb: Sandbox) -> None:
    world = {"minLat": -90, "minLon": -180, "maxLat": 90, "maxLon": 180}
    for role in ("subscriber", "subscriber-restricted"):
        body = sb.get(f"{DEVICES}/clusters", role, params=world).json()
        located = [d for d in sb.all_devices(role) if d.get("lat") is not None]
        assert body["count"] == len(located) == sum(c["count"] for c in body["clusters"])
        assert sb.get(DEVICES, role).json()["count"] == len(sb.all_devices(role))
