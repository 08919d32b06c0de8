from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from lpwa_console.sandbox import demo
from lpwa_console.sandbox.accounts import create_demo_accounts
from lpwa_console.sandbox.db import DEVICE_INDEXES, MIGRATIONS, Database, migrate
from lpwa_console.sandbox.settings import SandboxSettings

from .conftest import make_sandbox

NOW = 1_750_000_000_000


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
    conn = sqlite3.connect(path, isolation_level=None)
    for number, step in enumerate(MIGRATIONS[:4], start=1):
        conn.executescript(f"BEGIN;{step}\nPRAGMA user_version={number};COMMIT;")
    create_demo_accounts(conn, now_ms=NOW)
    conn.close()
    assert migrate(sqlite3.connect(path)) == len(MIGRATIONS) - 4
    settings = SandboxSettings(db_path=path, demo_devices=0)
    for _ in range(2):
        db = demo.prepare(settings)
        counts = [
            db.conn().execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in ("subscriptions", "multicast_groups", "network_contexts")
        ]
        db.close()
        assert counts == [1, len(demo.MULTICAST_GROUPS), len(demo.NETWORK_CONTEXT_DETAILS)]


def test_step_7_links_existing_demo_groups_to_the_multicast_network_subscription(
    tmp_path: Path,
) -> None:
    """A file made at step 6 with its demo network keeps it; step 7 adds the alarm sort
    indexes, the platform key table and the groups' network subscription (the multicast one
    of their subscription)."""
    path = tmp_path / "six.db"
    conn = sqlite3.connect(path, isolation_level=None)
    for number, step in enumerate(MIGRATIONS[:6], start=1):
        conn.executescript(f"BEGIN;{step}\nPRAGMA user_version={number};COMMIT;")
    sub = create_demo_accounts(conn, now_ms=NOW)
    demo.seed_multicast(conn, sub, seed=1, now=NOW)
    conn.execute(  # the step-6 seed_network, without the link it makes since
        "INSERT INTO network_subscriptions (subscription_id, ref, body) VALUES"
        ' (?, \'ns-uni\', \'{"ID": "ns-uni", "communicationType": "UNICAST"}\'),'
        ' (?, \'ns-multi\', \'{"ID": "ns-multi", "communicationType": "MULTICAST"}\')',
        (sub, sub),
    )
    conn.close()
    assert migrate(sqlite3.connect(path)) == len(MIGRATIONS) - 6
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


def _snapshot(path: Path, n: int, seed: int) -> list[tuple[object, ...]]:
    db = Database(path)
    with db.write() as conn:
        create_demo_accounts(conn, now_ms=NOW)
    demo.seed_devices(db, n, seed=seed, now=NOW)
    rows = [tuple(r) for r in db.conn().execute("SELECT * FROM devices ORDER BY uid")]
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
