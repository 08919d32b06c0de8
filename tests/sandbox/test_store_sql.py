"""store.sql: the shared prefix test (literal, index range) and the page reader."""

from __future__ import annotations

import sqlite3

import pytest

from lpwa_console.sandbox.store.sql import Where, any_prefix, count, prefix, select_page

NAMES = ["50% off", "50_50", "500 kW", "abc", "ABD", "a%c", "", "zeta"]


@pytest.fixture
def conn() -> sqlite3.Connection:
    db = sqlite3.connect(":memory:")
    db.row_factory = sqlite3.Row
    db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
    db.execute("CREATE TABLE n (id INTEGER PRIMARY KEY, name TEXT NOT NULL COLLATE NOCASE)")
    for table in ("t", "n"):
        db.executemany(f"INSERT INTO {table} (name) VALUES (?)", [(x,) for x in NAMES])
    return db


def _names(conn: sqlite3.Connection, table: str, column: str, value: str) -> list[str]:
    sql, params = prefix(column, value)
    return sorted(r[0] for r in conn.execute(f"SELECT name FROM {table} WHERE {sql}", params))


def test_prefixes_are_literal(conn: sqlite3.Connection) -> None:
    assert _names(conn, "t", "name", "%") == []
    assert _names(conn, "t", "name", "50%") == ["50% off"]
    assert _names(conn, "t", "name", "50_") == ["50_50"]
    assert _names(conn, "t", "name", "a%") == ["a%c"]
    assert _names(conn, "t", "name", "_") == []
    assert _names(conn, "t", "name", "") == sorted(NAMES)


def test_prefixes_follow_the_collation(conn: sqlite3.Connection) -> None:
    assert _names(conn, "t", "name", "ab") == ["abc"]  # BINARY: exact case
    assert _names(conn, "t", "name COLLATE NOCASE", "ab") == ["ABD", "abc"]
    assert _names(conn, "n", "name", "AB") == ["ABD", "abc"]  # a NOCASE column


def test_any_prefix(conn: sqlite3.Connection) -> None:
    sql, params = any_prefix("name", ["ze", "50_"])
    found = sorted(r[0] for r in conn.execute(f"SELECT name FROM t WHERE {sql}", params))
    assert found == ["50_50", "zeta"]


def test_select_page_reads_one_more_row_to_know_what_follows(conn: sqlite3.Connection) -> None:
    w = Where()
    w.add("t.name <> ?", "")
    pages = [
        select_page(conn, "SELECT t.name FROM t", w, "t.name", offset=o, limit=3) for o in (0, 3, 6)
    ]
    assert [p.more for p in pages] == [True, True, False]
    assert [r[0] for p in pages for r in p.rows] == sorted(n for n in NAMES if n)
    assert count(conn, "t", w) == len(NAMES) - 1
    assert count(conn, "t", Where()) == len(NAMES)
