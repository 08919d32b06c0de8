from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from lpwa_console.sandbox import demo
from lpwa_console.sandbox.accounts import create_demo_accounts
from lpwa_console.sandbox.db import DEVICE_INDEXES, MIGRATIONS, Database, migrate
from lpwa_console.sandbox.db.sealing import Sealer, load_key
from lpwa_console.sandbox.settings import SandboxSettings

from .conftest import make_sandbox

NOW = 1_750_000_000_000


def _connect(path: Path, **kw: Any) -> sqlite3.Connection:
    """A plain connection with the sealing functions the last migration step and the demo
    accounts use (db/sealing.py), as the sandbox's own connections have."""
    conn = sqlite3.connect(path, **kw)
    Sealer(load_key(path)).register(conn)
    return conn


def test_migrations_run_once_and_are_idempotent_on_reopen(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    first = Database(path)
    assert first.created and first.migrations_run == len(MIGRATIONS)
    assert first.conn().execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    first.close()
    again = Database(path)
    assert not again.created and again.migrations_run == 0
    again.close()


def test_reopening_keeps_accounts_and_devices(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    for sandbox in make_sandbox(path, demo_devices=50):
        secret = sandbox.accounts["subscriber"]["client_secret"]
    for sandbox in make_sandbox(path, demo_devices=50):
        assert sandbox.accounts["subscriber"]["client_secret"] == secret
        assert len(sandbox.all_devices()) == 50


def test_an_older_database_gets_the_demo_parts_added_since(tmp_path: Path) -> None:
    """A file made before multicast groups and network resources existed (user_version 4,
    accounts and devices only) gets them once on its next start, and nothing twice."""
    path = tmp_path / "old.db"
    conn = _connect(path, isolation_level=None)
    for number, step in enumerate(MIGRATIONS[:4], start=1):
        conn.executescript(f"BEGIN;{step}\nPRAGMA user_version={number};COMMIT;")
    create_demo_accounts(conn, now_ms=NOW)
    conn.close()
    assert migrate(_connect(path)) == len(MIGRATIONS) - 4
    settings = SandboxSettings(db_path=path, demo_devices=0)
    for _ in range(2):
        db = demo.prepare(settings)
        counts = [
            db.conn().execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in ("subscriptions", "multicast_groups", "network_contexts")
        ]
        db.close()
        # Two subscriptions: Acme and the second tenant (demo part "tenants").
        assert counts == [2, len(demo.MULTICAST_GROUPS), len(demo.NETWORK_CONTEXT_DETAILS)]


def test_step_7_links_existing_demo_groups_to_the_multicast_network_subscription(
    tmp_path: Path,
) -> None:
    """A file made at step 6 with its demo network keeps it; step 7 adds the alarm sort
    indexes, the platform key table and the groups' network subscription (the multicast one
    of their subscription)."""
    path = tmp_path / "six.db"
    conn = _connect(path, isolation_level=None)
    for number, step in enumerate(MIGRATIONS[:6], start=1):
        conn.executescript(f"BEGIN;{step}\nPRAGMA user_version={number};COMMIT;")
    sub = create_demo_accounts(conn, now_ms=NOW)
    # Groups inserted by hand: today's demo code writes today's schema (step 8 and later).
    conn.executemany(
        "INSERT INTO multicast_groups (subscription_id, eui, name, nw_address, creation_date)"
        " VALUES (?, ?, ?, ?, ?)",
        [(sub, eui, name, devaddr, NOW) for eui, name, devaddr, *_ in demo.MULTICAST_GROUPS],
    )
    conn.execute(  # the step-6 seed_network, without the link it makes since
        "INSERT INTO network_subscriptions (subscription_id, ref, body) VALUES"
        ' (?, \'ns-uni\', \'{"ID": "ns-uni", "communicationType": "UNICAST"}\'),'
        ' (?, \'ns-multi\', \'{"ID": "ns-multi", "communicationType": "MULTICAST"}\')',
        (sub, sub),
    )
    conn.close()
    assert migrate(_connect(path)) == len(MIGRATIONS) - 6
    db = Database(path)
    links = {r[0] for r in db.conn().execute("SELECT network_subscription FROM multicast_groups")}
    assert links == {"ns-multi"}
    indexes = {
        r[0] for r in db.conn().execute("SELECT name FROM sqlite_master WHERE type = 'index'")
    }
    assert {"ix_alarms_state_updated", "ix_alarms_acked_updated"} <= indexes
    assert "ix_alarms_state" not in indexes
    kid, n_hex, e_hex = (
        db.conn().execute("SELECT kid, n_hex, e_hex FROM platform_exchange_keys").fetchone()
    )
    assert (kid, e_hex, len(n_hex)) == ("platform-v1", "010001", 512)
    assert int(n_hex, 16).bit_length() == 2048 and int(n_hex, 16) % 2 == 1
    db.close()


def _at_step(path: Path, step: int) -> sqlite3.Connection:
    """A database file made by an older version: migrations 1..step only."""
    conn = _connect(path, isolation_level=None)
    for number, step_sql in enumerate(MIGRATIONS[:step], start=1):
        conn.executescript(f"BEGIN;{step_sql}\nPRAGMA user_version={number};COMMIT;")
    return conn


def test_step_8_gives_existing_routing_profiles_their_connectivity(tmp_path: Path) -> None:
    """LORAWAN when the profile has an AS transport key; otherwise CELLULAR only when devices
    use it and all of them are cellular; LORAWAN for the rest (unused, LoRaWAN or mixed)."""
    path = tmp_path / "seven.db"
    conn = _at_step(path, 7)
    sub = create_demo_accounts(conn, now_ms=NOW)
    profiles = {  # ref: (AS transport key, connectivity of the devices using it)
        "rp-keyed-used-by-cells": ("atk-1", ["CELLULAR", "CELLULAR"]),
        "rp-cells": (None, ["CELLULAR", "CELLULAR"]),
        "rp-cells-empty-key": ("", ["CELLULAR"]),
        "rp-mixed": (None, ["CELLULAR", "LORAWAN"]),
        "rp-lora": (None, ["LORAWAN"]),
        "rp-unused": (None, []),
    }
    uid = 0
    for ref, (key, users) in profiles.items():
        profile = conn.execute(
            "INSERT INTO routing_profiles (subscription_id, ref, name, as_transport_key)"
            " VALUES (?, ?, ?, ?)",
            (sub, ref, ref, key),
        ).lastrowid
        for connectivity in users:
            uid += 1
            conn.execute(
                "INSERT INTO devices (uid, subscription_id, eui, name, connectivity,"
                " creation_date, routing_profile_id) VALUES (?, ?, ?, 'd', ?, 0, ?)",
                (uid, sub, f"{uid:016X}", connectivity, profile),
            )
    conn.execute("INSERT INTO devices (uid, subscription_id, eui, name, connectivity,"
                 " creation_date) VALUES (99, ?, 'AA', 'no profile', 'CELLULAR', 0)", (sub,))  # fmt: skip
    conn.close()
    assert migrate(_connect(path)) == len(MIGRATIONS) - 7
    db = Database(path)
    found = dict(db.conn().execute("SELECT ref, connectivity FROM routing_profiles"))
    assert found == {
        "rp-keyed-used-by-cells": "LORAWAN",
        "rp-cells": "CELLULAR",
        "rp-cells-empty-key": "CELLULAR",
        "rp-mixed": "LORAWAN",
        "rp-lora": "LORAWAN",
        "rp-unused": "LORAWAN",
    }
    # New profiles are LORAWAN unless told otherwise; nothing else is accepted.
    with pytest.raises(sqlite3.IntegrityError), db.write() as conn:
        conn.execute(
            "INSERT INTO routing_profiles (subscription_id, ref, name, connectivity)"
            " VALUES (?, 'rp-bad', 'bad', 'NBIOT')",
            (sub,),
        )
    db.close()


def test_an_older_demo_database_gets_the_cellular_routing_profile_once(tmp_path: Path) -> None:
    """A demo database made at step 7 (every demo part of its time recorded, the LoRaWAN
    routing profile only) gets the cellular profile on its next start, once."""
    path = tmp_path / "demo7.db"
    conn = _at_step(path, 7)
    sub = create_demo_accounts(conn, now_ms=NOW)
    conn.executemany(
        "INSERT INTO app_servers (subscription_id, ref, name) VALUES (?, ?, ?)",
        [(sub, ref, name) for ref, name in demo.APP_SERVERS],
    )
    conn.execute(  # the step-7 demo's profile, without a connectivity column
        "INSERT INTO routing_profiles (subscription_id, ref, name, as_transport_key)"
        " VALUES (?, 'rp-metering', 'Metering routing', 'atk-metering-2024')",
        (sub,),
    )
    conn.execute("INSERT INTO demo_parts VALUES ('base'), ('multicast'), ('network')")
    conn.close()
    settings = SandboxSettings(db_path=path, demo_devices=0)
    for _ in range(2):
        db = demo.prepare(settings)
        conn = db.conn()
        profiles = conn.execute(
            "SELECT ref, name, as_transport_key, connectivity FROM routing_profiles ORDER BY ref"
        ).fetchall()
        servers = conn.execute(
            "SELECT a.ref FROM routing_profile_app_servers l JOIN routing_profiles p"
            " ON p.id = l.profile_id JOIN app_servers a ON a.id = l.app_server_id"
            " WHERE p.ref = 'rp-cellular'"
        ).fetchall()
        parts = {r[0] for r in conn.execute("SELECT name FROM demo_parts")} - {"base"}
        multicast = conn.execute("SELECT count(*) FROM multicast_groups").fetchone()[0]
        db.close()
        assert [tuple(p) for p in profiles] == [
            ("rp-cellular", "Cellular routing", None, "CELLULAR"),
            ("rp-metering", "Metering routing", "atk-metering-2024", "LORAWAN"),
        ]
        assert [r[0] for r in servers] == ["as-environment"]
        assert parts == {*demo.DEMO_PARTS, demo.HISTORY_PART, demo.HEALTH_PART, demo.KPI_PART}
        assert multicast == 0  # the parts it had are not added again


def test_a_new_demo_database_has_both_routing_profiles(tmp_path: Path) -> None:
    db = demo.prepare(SandboxSettings(db_path=tmp_path / "new.db", demo_devices=0))
    found = dict(db.conn().execute("SELECT ref, connectivity FROM routing_profiles"))
    parts = {r[0] for r in db.conn().execute("SELECT name FROM demo_parts")}
    db.close()
    assert found == {"rp-metering": "LORAWAN", "rp-cellular": "CELLULAR"}
    assert parts == {*demo.DEMO_PARTS, demo.HISTORY_PART, demo.HEALTH_PART, demo.KPI_PART}


def _snapshot(path: Path, n: int, seed: int) -> list[tuple[object, ...]]:
    db = Database(path)
    with db.write() as conn:
        create_demo_accounts(conn, now_ms=NOW)
    demo.seed_devices(db, n, seed=seed, now=NOW)
    # The keys are sealed with a fresh nonce each time (issue 21): compare them opened.
    rows = [
        tuple(r)
        for r in db.conn().execute(
            "SELECT *, unseal(app_key), unseal(app_skey) FROM devices ORDER BY uid"
        )
    ]
    rows = [
        tuple(v for v in r if not (isinstance(v, str) and v.startswith("sealed:"))) for r in rows
    ]
    rows += [tuple(r) for r in db.conn().execute("SELECT * FROM device_tags ORDER BY 1, 2")]
    db.close()
    return rows


def test_demo_data_is_deterministic_for_a_seed(tmp_path: Path) -> None:
    a = _snapshot(tmp_path / "a.db", 200, seed=7)
    b = _snapshot(tmp_path / "b.db", 200, seed=7)
    c = _snapshot(tmp_path / "c.db", 200, seed=8)
    assert a == b
    assert a != c


def test_demo_network_looks_real(tmp_path: Path) -> None:
    db = Database(tmp_path / "d.db")
    with db.write() as conn:
        create_demo_accounts(conn)
    demo.seed_devices(db, 2000, seed=1, now=NOW)
    conn = db.conn()

    def share(where: str) -> float:
        return conn.execute(f"SELECT avg({where}) FROM devices").fetchone()[0]  # type: ignore[no-any-return]

    assert 0.80 <= share("connectivity = 'LORAWAN'") <= 0.90
    assert share("activation = 'ABP'") > 0.05 and share("activation = 'OTAA'") > 0.5
    assert share("health = 'RF_CNX_ERROR'") > 0.02
    assert share(f"last_up < {NOW - 2 * 86_400_000}") > 0.02
    assert share("uid NOT IN (SELECT device_uid FROM device_domains)") > 0.005
    assert share("as_transport_key IS NOT NULL") > 0.1
    assert share("hsm_group_id IS NOT NULL") > 0.05
    cities = {r[0] for r in conn.execute("SELECT DISTINCT name FROM domains WHERE grp = 'Site'")}
    assert {"France/Paris", "France/Lyon", "Germany/Berlin"} <= cities
    name = conn.execute("SELECT name FROM devices WHERE uid = 1").fetchone()[0]
    assert any(
        city in name for city in ("Paris", "Lyon", "Toulouse", "Berlin", "Madrid", "Amsterdam")
    )
    db.close()


def test_bulk_seed_rebuilds_indexes_and_skips_taken_euis(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(demo, "BULK_THRESHOLD", 100)
    db = Database(tmp_path / "b.db")
    with db.write() as conn:
        create_demo_accounts(conn)
        conn.execute(
            "INSERT INTO devices (uid, subscription_id, eui, name, connectivity, creation_date)"
            " VALUES (1, 1, ?, 'mine', 'LORAWAN', 0)",
            (demo.lora_eui(5),),
        )
    added = demo.seed_devices(db, 300, seed=3, now=NOW)
    conn = db.conn()
    total = conn.execute("SELECT count(*) FROM devices").fetchone()[0]
    assert total == added + 1 and added >= 299
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    indexes = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert set(DEVICE_INDEXES) <= indexes
    db.close()


def test_an_interrupted_first_start_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C while the demo devices are seeded: the next start finishes the job instead of
    failing on the accounts it already made."""
    settings = SandboxSettings(db_path=tmp_path / "cut.db", demo_devices=30)
    real = demo._generate

    def interrupted(*args: object, **kwargs: object) -> object:
        for i, item in enumerate(real(*args, **kwargs)):  # type: ignore[arg-type]
            if i == 10:
                raise KeyboardInterrupt
            yield item

    monkeypatch.setattr(demo, "_generate", interrupted)
    with pytest.raises(KeyboardInterrupt):
        demo.prepare(settings)
    monkeypatch.setattr(demo, "_generate", real)
    db = demo.prepare(settings)
    conn = db.conn()
    # Acme and the second tenant (demo part "tenants"), each made once.
    assert conn.execute("SELECT count(*) FROM subscriptions").fetchone()[0] == 2
    assert (
        conn.execute("SELECT count(*) FROM devices WHERE subscription_id = 1").fetchone()[0] == 30
    )
    assert conn.execute("SELECT count(*) FROM multicast_groups").fetchone()[0] > 0
    db.close()
