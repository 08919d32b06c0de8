"""The demo's traffic history: made with the demo by default, or later (`fill_history`) when
the server starts listening first."""

from __future__ import annotations

from pathlib import Path

from lpwa_console.sandbox import demo
from lpwa_console.sandbox.settings import SandboxSettings


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
