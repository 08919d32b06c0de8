from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from lpwa_console.sandbox.db import Database
from lpwa_console.sandbox.store.filters import restriction_sql
from lpwa_console.schema.domains import DomainRestrictions, domain_matches

from .conftest import DEVICES, Sandbox

ROLE = "subscriber-restricted"


def _in_france(device: dict[str, object]) -> bool:
    domains = [(d["group"]["name"], d["name"]) for d in device["domains"]]  # type: ignore[attr-defined, index]
    sites = [name for group, name in domains if group == "Site"]
    return not domains or any(name.startswith("France/") for name in sites)


def test_restricted_list_shows_only_matching_and_cross_domain_devices(sb: Sandbox) -> None:
    everything = sb.all_devices()
    visible = sb.all_devices(ROLE)
    assert 0 < len(visible) < len(everything)
    assert {d["EUI"] for d in visible} == {d["EUI"] for d in everything if _in_france(d)}
    assert any(not d["domains"] for d in visible)  # cross-domain devices are included
    first = sb.get(DEVICES, ROLE).json()
    assert first["count"] == len(visible)


def test_restricted_get_of_an_outside_device_is_404(sb: Sandbox) -> None:
    outside = next(d for d in sb.all_devices() if not _in_france(d))
    inside = next(d for d in sb.all_devices() if d["domains"] and _in_france(d))
    assert sb.get(f"{DEVICES}/{outside['ref']}", ROLE).status_code == 404
    assert sb.get(f"{DEVICES}/e{outside['EUI']}", ROLE).status_code == 404
    assert sb.put(f"{DEVICES}/{outside['ref']}", ROLE, json={"name": "x"}).status_code == 404
    assert sb.get(f"{DEVICES}/{inside['ref']}", ROLE).status_code == 200
    tagged = sb.post(
        f"{DEVICES}/tags",
        ROLE,
        json={"name": "mine-only", "devEUIs": [outside["EUI"], inside["EUI"]]},
    )
    assert tagged.json() == {"count": 1}


def test_restricted_create_and_move_outside_the_domains_is_403(sb: Sandbox) -> None:
    berlin = [{"name": "Germany/Berlin", "group": {"name": "Site"}}]
    refused = sb.post(DEVICES, ROLE, json={"EUI": "0018B20000000001", "domains": berlin})
    assert refused.status_code == 403
    assert refused.json()["code"] == 40302
    lyon = [{"name": "France/Lyon", "group": {"name": "Site"}}]
    created = sb.post(DEVICES, ROLE, json={"EUI": "0018B20000000002", "domains": lyon})
    assert created.status_code == 201
    moved = sb.put(f"{DEVICES}/{created.json()['ref']}", ROLE, json={"domains": berlin})
    assert moved.status_code == 403
    # Cross-domain devices (no domain) are allowed to everyone.
    assert sb.post(DEVICES, ROLE, json={"EUI": "0018B20000000003"}).status_code == 201


GROUPS = ["Site", "Vertical", "Owner"]
NAMES = ["France/Paris", "France/Lyon", "France", "Fr", "Germany/Berlin", "Metering", "Meter", ""]


def _random_restrictions(rng: random.Random) -> DomainRestrictions | None:
    if rng.random() < 0.1:
        return None
    items = [
        {
            "type": rng.choice(["FULL", "PREFIX"]),
            "name": rng.choice(NAMES),
            "group": {"name": rng.choice(GROUPS)},
        }
        for _ in range(rng.randint(0, 3))
    ]
    return DomainRestrictions.model_validate({"and": items})


@pytest.mark.parametrize("seed", range(8))
def test_sql_restrictions_agree_with_the_pure_function(tmp_path: Path, seed: int) -> None:
    """Random devices and random restrictions: the SQL and domain_matches give one answer."""
    rng = random.Random(seed)
    db = Database(tmp_path / "x.db")
    conn = db.conn()
    conn.execute("INSERT INTO subscriptions (id, ref, name, creation_ts) VALUES (1, 's', 's', 0)")
    pairs = sorted({(g, n) for g in GROUPS for n in NAMES if n})
    for i, (group, name) in enumerate(pairs, start=1):
        conn.execute("INSERT INTO domains VALUES (?, 1, ?, ?)", (i, group, name))
    devices: dict[int, list[tuple[str, str]]] = {}
    for uid in range(1, 121):
        conn.execute(
            "INSERT INTO devices (uid, subscription_id, eui, name, connectivity, creation_date)"
            " VALUES (?, 1, ?, ?, 'LORAWAN', 0)",
            (uid, f"{uid:016X}", f"d{uid}"),
        )
        chosen = rng.sample(range(len(pairs)), rng.choice([0, 0, 1, 2, 3]))
        devices[uid] = [pairs[i] for i in chosen]
        conn.executemany("INSERT INTO device_domains VALUES (?, ?)", [(uid, i + 1) for i in chosen])
    for _ in range(25):
        restrictions = _random_restrictions(rng)
        sql, params = restriction_sql(restrictions)
        got = {r[0] for r in conn.execute(f"SELECT d.uid FROM devices d WHERE {sql}", params)}
        want = {uid for uid, doms in devices.items() if domain_matches(doms, restrictions)}
        assert got == want, restrictions
    db.close()


def test_database_settings(tmp_path: Path) -> None:
    db = Database(tmp_path / "x.db")
    conn = db.conn()
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("INSERT INTO device_tags VALUES (12345, 67890)")
    db.close()
