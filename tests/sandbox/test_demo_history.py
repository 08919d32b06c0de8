"""The demo's traffic history: made with the demo by default, or later (`fill_history`) when
the server starts listening first."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from lpwa_console.sandbox import create_app, demo
from lpwa_console.sandbox.accounts import listing
from lpwa_console.sandbox.settings import SandboxSettings

from .conftest import TOKEN


def _buckets(db: demo.Database) -> int:
    return int(db.conn().execute("SELECT count(*) FROM frame_buckets").fetchone()[0])


def test_a_new_demo_has_its_history_by_default(tmp_path: Path) -> None:
    db = demo.prepare(SandboxSettings(db_path=tmp_path / "s.db", demo_devices=60))
    try:
        assert _buckets(db) > 0
        assert not demo.history_pending(db)
    finally:
        db.close()


def test_a_later_history_is_the_same_as_one_made_at_once(tmp_path: Path) -> None:
    settings = SandboxSettings(db_path=tmp_path / "later.db", demo_devices=60)
    db = demo.prepare(settings, history=False)
    try:
        assert _buckets(db) == 0 and demo.history_pending(db)
        demo.fill_history(db, settings)
        later = {r[0] for r in db.conn().execute("SELECT device_uid FROM frame_buckets")}
        assert later and not demo.history_pending(db)
        assert {r[0] for r in db.conn().execute("SELECT device_uid FROM frame_buckets")} == later
        made = _buckets(db)
        demo.fill_history(db, settings)
        assert _buckets(db) == made
    finally:
        db.close()
    at_once = demo.prepare(SandboxSettings(db_path=tmp_path / "once.db", demo_devices=60))
    try:
        heard = {r[0] for r in at_once.conn().execute("SELECT device_uid FROM frame_buckets")}
        assert heard == later  # the same devices have a history, made by the same seed
    finally:
        at_once.close()


def test_a_database_older_than_the_part_keeps_its_history(tmp_path: Path) -> None:
    settings = SandboxSettings(db_path=tmp_path / "old.db", demo_devices=60)
    db = demo.prepare(settings)
    made = _buckets(db)
    with db.write() as conn:  # as a database made before the part existed
        conn.execute("DELETE FROM demo_parts WHERE name = ?", (demo.HISTORY_PART,))
    db.close()
    db = demo.prepare(settings, history=False)
    try:
        assert not demo.history_pending(db)
        assert _buckets(db) == made
    finally:
        db.close()


def test_opening_again_before_the_history_leaves_it_owed(tmp_path: Path) -> None:
    # `lpwa-sandbox accounts` opens the database while the server has not made it yet.
    settings = SandboxSettings(db_path=tmp_path / "s.db", demo_devices=60)
    demo.prepare(settings, history=False).close()
    db = demo.prepare(settings, history=False)
    try:
        assert demo.history_pending(db) and _buckets(db) == 0
        demo.fill_history(db, settings)
        assert _buckets(db) > 0 and not demo.history_pending(db)
    finally:
        db.close()


def test_the_history_is_written_in_short_transactions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Sign-in writes a token: the background history must leave the write lock often.
    monkeypatch.setattr(demo, "HISTORY_BATCH", 40)
    settings = SandboxSettings(db_path=tmp_path / "s.db", demo_devices=400)
    db = demo.prepare(settings, history=False)
    written: list[int] = []
    db.write_observer = lambda _held, changes: written.append(changes)
    try:
        demo.fill_history(db, settings)
        assert _buckets(db) > 0 and not demo.history_pending(db)
        devices = demo.history_devices(db)
        # (the last three: the station and KPI parts, bounded by HISTORY_MAX_DEVICES)
        frames = written[:-3]
        assert len(frames) >= devices // 40
        assert max(frames) <= 40 * demo.FRAME_HISTORY_HOURS + 2
        assert sum(frames) >= _buckets(db)
    finally:
        db.close()


def test_whether_to_make_the_history_is_decided_by_the_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A small demo setting, then a bulk seed (as `seed --devices 1000000` then `serve`).
    monkeypatch.setattr(demo, "HISTORY_MAX_DEVICES", 100)
    settings = SandboxSettings(db_path=tmp_path / "s.db", demo_devices=60)
    db = demo.prepare(settings, history=False)
    try:
        demo.seed_devices(db, 100, history=False)
        assert demo.history_devices(db) > 100
        demo.fill_history(db, settings)
        assert _buckets(db) == 0 and not demo.history_pending(db)
    finally:
        db.close()


def test_seed_frames_writes_as_it_goes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Its memory is FRAME_ROWS tuples, whatever the number of devices.
    monkeypatch.setattr(demo, "FRAME_ROWS", 100)
    settings = SandboxSettings(db_path=tmp_path / "s.db", demo_devices=60)
    db = demo.prepare(settings, history=False)
    batches: list[int] = []
    real = sqlite3.Connection.executemany

    class Spy(sqlite3.Connection):
        def executemany(self, sql: str, rows: object) -> sqlite3.Cursor:  # type: ignore[override]
            listed = list(rows)  # type: ignore[call-overload]
            batches.append(len(listed))
            return real(self, sql, listed)

    try:
        sub = db.conn().execute("SELECT id FROM subscriptions").fetchone()[0]
        spy = sqlite3.connect(db.path, factory=Spy, isolation_level=None)
        made = demo.seed_frames(spy, sub, 1, seed=1, now=int(time.time() * 1000))
        spy.close()
        assert made > 300 and len(batches) > 3
        assert max(batches) < 100 + demo.FRAME_HISTORY_HOURS
    finally:
        db.close()


def test_sign_in_works_while_the_history_is_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(demo, "HISTORY_BATCH", 20)
    settings = SandboxSettings(db_path=tmp_path / "s.db", demo_devices=400)
    db = demo.prepare(settings, history=False)
    app = create_app(settings, db=db)
    account = listing(db.conn())[0]
    form = {
        "grant_type": "client_credentials",
        "client_id": account["client_id"],
        "client_secret": account["client_secret"],
    }
    statuses: list[int] = []
    with TestClient(app) as client:
        worker = threading.Thread(target=demo.fill_history, args=(db, settings))
        worker.start()
        while worker.is_alive() or not statuses:
            statuses.append(client.post(TOKEN, data=form).status_code)
        worker.join()
    assert not demo.history_pending(db) and _buckets(db) > 0
    assert set(statuses) == {200}, statuses
