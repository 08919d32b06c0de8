"""The fleet index's SQL: one SQLite file per profile and account, an `items` table of what
the account may see (devices, base stations, multicast groups, application servers) and an
FTS5 trigram index over the words a user searches by (name, DevEUI/lrrID, IMEI, tags).

Every call runs off the UI thread: the console's on `worker.QueryThread`, the sync's in its
process (`child`) or thread (`sync.SyncThread`).
Nothing secret is stored: no key, no token, no client secret (only list fields).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Kind = Literal["device", "station", "multicast", "app_server"]
KINDS: tuple[Kind, ...] = ("device", "station", "multicast", "app_server")

SCHEMA_VERSION = 1
SCHEMA = """
CREATE TABLE IF NOT EXISTS items (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    key TEXT NOT NULL,          -- DevEUI, lrrID, group or server ID: how the API names it
    name TEXT NOT NULL DEFAULT '',
    ident TEXT NOT NULL DEFAULT '',   -- DevEUI or lrrID as shown
    imei TEXT NOT NULL DEFAULT '',
    tags TEXT NOT NULL DEFAULT '',    -- tag names, space separated
    model TEXT NOT NULL DEFAULT '',
    health TEXT NOT NULL DEFAULT '',  -- a device's health, a station's state
    lat REAL, lon REAL,
    last_up INTEGER,
    created INTEGER,
    pass INTEGER NOT NULL DEFAULT 0,  -- the full pass that saw it last (deletions sweep)
    name_key TEXT NOT NULL DEFAULT '',   -- lower(name), for "starts with" by B-tree
    ident_key TEXT NOT NULL DEFAULT '',  -- lower(ident)
    tail_key TEXT NOT NULL DEFAULT '',   -- lower(ident) reversed: "ends with" by B-tree
    imei_tail TEXT NOT NULL DEFAULT '',  -- the IMEI reversed
    UNIQUE (kind, key)
);
CREATE VIRTUAL TABLE IF NOT EXISTS items_fts USING fts5(
    name, ident, imei, tags, content='items', content_rowid='id', tokenize='trigram'
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
# What searches read by: left out while the first fill loads (`IndexStore.begin_bulk`), then
# built in one go (`end_bulk`): sorting a million keys once, and the FTS index by 'rebuild',
# costs a fraction of keeping five B-trees and the trigram index up to date row by row.
SEARCH_INDEXES = (
    "CREATE INDEX IF NOT EXISTS items_name_key ON items (name_key)",
    "CREATE INDEX IF NOT EXISTS items_ident_key ON items (ident_key)",
    "CREATE INDEX IF NOT EXISTS items_imei ON items (imei) WHERE imei != ''",
    "CREATE INDEX IF NOT EXISTS items_tail_key ON items (tail_key)",
    "CREATE INDEX IF NOT EXISTS items_imei_tail ON items (imei_tail) WHERE imei != ''",
)
# The FTS index follows the rows (external content): its triggers. `{when}` is empty once
# built; while `end_bulk` copies the rows into it a chunk at a time, the triggers follow only
# the rows already copied (id <= fts.upto): a later one is copied as it is then.
TRIGGERS = """
CREATE TRIGGER IF NOT EXISTS items_ai{suffix} AFTER INSERT ON items {new_when} BEGIN
    INSERT INTO items_fts (rowid, name, ident, imei, tags)
    VALUES (new.id, new.name, new.ident, new.imei, new.tags);
END;
CREATE TRIGGER IF NOT EXISTS items_ad{suffix} AFTER DELETE ON items {old_when} BEGIN
    INSERT INTO items_fts (items_fts, rowid, name, ident, imei, tags)
    VALUES ('delete', old.id, old.name, old.ident, old.imei, old.tags);
END;
CREATE TRIGGER IF NOT EXISTS items_au{suffix} AFTER UPDATE OF name, ident, imei, tags ON items
{old_when} BEGIN
    INSERT INTO items_fts (items_fts, rowid, name, ident, imei, tags)
    VALUES ('delete', old.id, old.name, old.ident, old.imei, old.tags);
    INSERT INTO items_fts (rowid, name, ident, imei, tags)
    VALUES (new.id, new.name, new.ident, new.imei, new.tags);
END;
"""
_UPTO = "(SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'fts.upto')"
SEARCH_TRIGGERS = TRIGGERS.format(suffix="", new_when="", old_when="")
COPYING_TRIGGERS = TRIGGERS.format(
    suffix="_copied", new_when=f"WHEN new.id <= {_UPTO}", old_when=f"WHEN old.id <= {_UPTO}"
)
SEARCH_SCHEMA = ";\n".join(SEARCH_INDEXES) + ";\n" + SEARCH_TRIGGERS
FTS_CHUNK = 10_000  # rows copied into the FTS index a transaction (~0.06 s at 1M)
MERGE_PAGES = 500  # FTS pages merged a transaction (~0.1 s)
SWEEP_CHUNK = 5_000  # rows deleted a transaction at the end of a pass
SEARCH_OBJECTS = (
    ("index", "items_name_key"), ("index", "items_ident_key"), ("index", "items_imei"),
    ("index", "items_tail_key"), ("index", "items_imei_tail"),
    ("trigger", "items_ai"), ("trigger", "items_ad"), ("trigger", "items_au"),
    ("trigger", "items_ai_copied"), ("trigger", "items_ad_copied"),
    ("trigger", "items_au_copied"),
)  # fmt: skip

COLUMNS = (
    "kind, key, name, ident, imei, tags, model, health, lat, lon, last_up, created, pass,"
    " name_key, ident_key, tail_key, imei_tail"
)
# A row that did not change is not written again: the FTS index is not churned by a refresh.
UPSERT = f"""
INSERT INTO items ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (kind, key) DO UPDATE SET
    name = excluded.name, ident = excluded.ident, imei = excluded.imei, tags = excluded.tags,
    model = excluded.model, health = excluded.health, lat = excluded.lat, lon = excluded.lon,
    last_up = excluded.last_up, created = excluded.created,
    pass = max(items.pass, excluded.pass),
    name_key = excluded.name_key, ident_key = excluded.ident_key,
    tail_key = excluded.tail_key, imei_tail = excluded.imei_tail
WHERE items.name IS NOT excluded.name OR items.ident IS NOT excluded.ident
    OR items.imei IS NOT excluded.imei OR items.tags IS NOT excluded.tags
    OR items.model IS NOT excluded.model OR items.health IS NOT excluded.health
    OR items.lat IS NOT excluded.lat OR items.lon IS NOT excluded.lon
    OR items.last_up IS NOT excluded.last_up OR items.pass < excluded.pass
"""
COPY_TO_FTS = (
    "INSERT INTO items_fts (rowid, name, ident, imei, tags)"
    " SELECT id, name, ident, imei, tags FROM items WHERE id > ? AND id <= ?"
)
SELECT = (
    "SELECT id, kind, key, name, ident, imei, tags, model, health, lat, lon, last_up FROM items"
)
PREFIX_END = "\U0010ffff"
_OPENING = threading.Lock()
OPEN_ATTEMPTS = 50  # x 0.1 s


@dataclass(frozen=True)
class IndexItem:
    """One item as the index keeps it (what a search result shows)."""

    kind: Kind
    key: str
    name: str
    ident: str = ""
    imei: str = ""
    tags: str = ""
    model: str = ""
    health: str = ""
    lat: float | None = None
    lon: float | None = None
    last_up: int | None = None
    created: int | None = None

    def row(self, full_pass: int = 0) -> tuple[object, ...]:
        return (
            self.kind, self.key, self.name, self.ident, self.imei, self.tags, self.model,
            self.health, self.lat, self.lon, self.last_up, self.created, full_pass,
            self.name.casefold(), self.ident.casefold(), self.ident.casefold()[::-1],
            self.imei[::-1],
        )  # fmt: skip


def fts_config(name: str, value: int) -> str:
    """A statement setting one of FTS5's options (kept in the index)."""
    return f"INSERT INTO items_fts (items_fts, rank) VALUES ('{name}', {int(value)});"


def trigram_supported() -> bool:
    """FTS5's trigram tokenizer came with SQLite 3.34 (Python 3.11/3.12 ship 3.40+ here)."""
    try:
        with sqlite3.connect(":memory:") as conn:
            conn.execute("CREATE VIRTUAL TABLE t USING fts5(a, tokenize='trigram')")
        return True
    except sqlite3.OperationalError:
        return False


def open_index(path: Path) -> sqlite3.Connection:
    """Open (and create) an index file: private to the user, WAL so searches read while a
    fill writes."""
    # The sync's and the query thread's connections may be opened at once (the sync in a
    # process of its own, or a thread): a new file's switch to WAL by one while the other
    # creates the tables fails at once with "database is locked" (SQLite skips the busy
    # handler there). One at a time in this process, and tried again across processes.
    with _OPENING:
        for attempt in range(OPEN_ATTEMPTS):
            try:
                return _open(path)
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or attempt == OPEN_ATTEMPTS - 1:
                    raise
                time.sleep(0.1)
    raise AssertionError("unreachable")


def _open(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    new = not path.exists()
    conn = sqlite3.connect(path, timeout=10, isolation_level=None, check_same_thread=False)
    try:
        if new:
            path.chmod(0o600)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        # 32 MB of page cache (2 MB by default): a fill inserts into six B-trees of a million
        # rows and the FTS segments; fewer pages read again from the OS per page written.
        conn.execute("PRAGMA cache_size=-32768")
        conn.executescript(SCHEMA)
        conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        bulk = conn.execute("SELECT value FROM meta WHERE key = 'bulk'").fetchone()
        if not bulk or bulk[0] != "1":  # (a first fill going on: built at its end)
            conn.executescript(SEARCH_SCHEMA)
    except BaseException:
        conn.close()
        raise
    return conn


class IndexStore:
    """The SQL of one index file (a connection of its own; one thread uses it)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.conn = open_index(path)

    def close(self) -> None:
        self.conn.close()

    # --- state --------------------------------------------------------------------------

    def get(self, key: str, default: str = "") -> str:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return str(row[0]) if row else default

    def set_many(self, values: dict[str, str]) -> None:
        self.conn.executemany(
            "INSERT INTO meta VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            list(values.items()),
        )

    def counts(self) -> dict[str, int]:
        rows = self.conn.execute("SELECT kind, count(*) FROM items GROUP BY kind").fetchall()
        return {str(kind): int(n) for kind, n in rows}

    # --- writing ------------------------------------------------------------------------

    def write_page(
        self,
        items: Sequence[IndexItem],
        *,
        full_pass: int = 0,
        state: dict[str, str] | None = None,
    ) -> None:
        """Upsert a page and the sync state that goes with it in one transaction: a crash
        resumes after the last page written, never after one half written."""
        with self.transaction():
            self.conn.executemany(UPSERT, [item.row(full_pass) for item in items])
            if state:
                self.set_many(state)

    def follow(self, items: Sequence[IndexItem]) -> None:
        """The console's own edits: marked seen by the pass going on (a sweep at its end
        must not delete an item the console created behind the walk)."""
        with self.transaction():
            number = int(self.get("pass", "0") or 0)
            self.conn.executemany(UPSERT, [item.row(number) for item in items])

    def delete(self, kind: Kind, keys: Iterable[str]) -> None:
        with self.transaction():
            self.conn.executemany(
                "DELETE FROM items WHERE kind = ? AND key = ?", [(kind, k) for k in keys]
            )

    def sweep(self, kind: Kind, full_pass: int, chunk: int = SWEEP_CHUNK) -> int:
        """Delete the items of `kind` a finished full pass did not see (gone on the platform):
        found by a read (no lock: a million rows are scanned), deleted a chunk per short
        transaction, so the console's own edits get in between."""
        found = self.conn.execute(
            "SELECT id FROM items WHERE kind = ? AND pass < ?", (kind, full_pass)
        ).fetchall()
        gone = 0
        for start in range(0, len(found), chunk):
            with self.transaction():
                cursor = self.conn.executemany(
                    "DELETE FROM items WHERE id = ? AND pass < ?",
                    [(row[0], full_pass) for row in found[start : start + chunk]],
                )
            gone += max(0, int(cursor.rowcount))
        return gone

    # --- the first fill -----------------------------------------------------------------

    @property
    def bulk(self) -> bool:
        return self.get("bulk") == "1"

    def begin_bulk(self) -> None:
        """The first fill loads rows without the search indexes (searches do not use the
        index until it is built); remembered in the file, so a resumed fill goes on so."""
        with self.transaction():
            for what, name in SEARCH_OBJECTS:
                self.conn.execute(f"DROP {what.upper()} IF EXISTS {name}")
            self.conn.execute("INSERT INTO items_fts (items_fts) VALUES ('delete-all')")
            self.conn.execute("DELETE FROM meta WHERE key = 'fts.upto'")
            self.set_many({"bulk": "1"})

    def end_bulk(self, between: Callable[[], object] = lambda: None) -> None:
        """Build the search indexes over what the fill loaded, in short transactions (the
        console's edits get in between; `between()` runs there, e.g. to stop): each B-tree
        index in one (about a second at a million rows), then the FTS index a chunk of rows
        at a time, its triggers following the rows already copied meanwhile, its segments
        merged a bounded step at a time. Stopped (a crash, a pause), it goes on where it
        was at the next call."""
        for statement in SEARCH_INDEXES:
            self._script(statement + ";")
            between()
        # FTS5 merges its segments by itself after a write (automerge), and all at once
        # when 16 wait at a level (crisismerge): one chunk then took 0.85-6 s at 1M. Off
        # while copying; merged instead by 'merge' steps of MERGE_PAGES between chunks.
        self._script(
            f"{COPYING_TRIGGERS}{fts_config('automerge', 0)}{fts_config('crisismerge', 1999)}"
            "INSERT OR IGNORE INTO meta VALUES ('fts.upto', '0');"
        )
        while True:
            upto = int(self.get("fts.upto", "0") or 0)
            top = self.conn.execute("SELECT max(id) FROM items").fetchone()[0] or 0
            if upto >= top:
                break
            with self.transaction():
                self.conn.execute(COPY_TO_FTS, (upto, upto + FTS_CHUNK))
                self.set_many({"fts.upto": str(upto + FTS_CHUNK)})
            self._merge_step()
            between()
        while self._merge_step():
            between()
        drop = "".join(
            f"DROP TRIGGER IF EXISTS {name};" for what, name in SEARCH_OBJECTS if "_copied" in name
        )
        # Rows added since the last look (the console's) copied, the triggers for all, and
        # FTS5's own merging back for the edits to come.
        self._script(
            "INSERT INTO items_fts (rowid, name, ident, imei, tags)"
            " SELECT id, name, ident, imei, tags FROM items"
            f" WHERE id > {_UPTO};"
            f"{drop}{SEARCH_TRIGGERS}"
            f"{fts_config('automerge', 4)}{fts_config('crisismerge', 16)}"
            "DELETE FROM meta WHERE key IN ('bulk', 'fts.upto');"
        )

    def _merge_step(self) -> bool:
        """One bounded step of merging the FTS index's segments; False when none was left
        (FTS5 says so by changing fewer than 2 rows)."""
        before = self.conn.total_changes
        with self.transaction():
            self.conn.execute(
                "INSERT INTO items_fts (items_fts, rank) VALUES ('merge', ?)", (MERGE_PAGES,)
            )
        return self.conn.total_changes - before >= 2

    def _script(self, sql: str) -> None:
        """Statements in one write transaction (rolled back if one fails)."""
        try:
            self.conn.executescript(f"BEGIN IMMEDIATE;{sql}COMMIT;")
        except sqlite3.Error:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise

    def transaction(self) -> _Transaction:
        return _Transaction(self.conn)

    # --- reading ------------------------------------------------------------------------

    def item(self, kind: Kind, key: str) -> IndexItem | None:
        row = self.conn.execute(f"{SELECT} WHERE kind = ? AND key = ?", (kind, key)).fetchone()
        return _item(row) if row else None

    def max_of(self, kind: Kind, column: Literal["created", "last_up"]) -> int | None:
        row = self.conn.execute(
            f"SELECT max({column}) FROM items WHERE kind = ?", (kind,)
        ).fetchone()
        return int(row[0]) if row and row[0] is not None else None

    def candidates(self, words: list[str], kinds: Sequence[Kind], limit: int) -> list[IndexItem]:
        """Items that may match every word: those whose name, DevEUI/lrrID or IMEI starts
        or (identifiers) ends with the text first (B-tree), then any fragment (FTS5 trigram;
        a word of one or two letters is looked for by LIKE). `search.rank` orders them."""
        if not words:
            return []
        marks = ",".join("?" * len(kinds))
        # `+kind`: the kind is a filter, never the index to search by (SQLite would walk
        # every device by the (kind, key) index rather than the range asked for).
        found: dict[int, IndexItem] = {}
        whole = " ".join(words)
        lookups = (
            ("name_key", "", whole),
            ("ident_key", "", whole),
            ("tail_key", "", whole[::-1]),  # a DevEUI's or lrrID's last digits
            ("imei", " AND imei != ''", whole),  # (lets SQLite use the partial index)
            ("imei_tail", " AND imei != ''", whole[::-1]),
        )
        for column, also, start in lookups:
            rows = self.conn.execute(
                f"{SELECT} WHERE {column} >= ? AND {column} < ?{also} AND +kind IN ({marks})"
                " LIMIT ?",
                (start, start + PREFIX_END, *kinds, limit),
            ).fetchall()
            for row in rows:
                found.setdefault(int(row[0]), _item(row))
        long = [w for w in words if len(w) >= 3]
        short = [w for w in words if len(w) < 3]
        if long:
            match = " AND ".join('"' + w.replace('"', '""') + '"' for w in long)
            sql = (
                f"{SELECT} WHERE id IN (SELECT rowid FROM items_fts WHERE items_fts MATCH ?"
                f" LIMIT ?) AND +kind IN ({marks})"
            )
            rows = self.conn.execute(sql, (match, limit * 2, *kinds)).fetchall()
        else:
            like = [f"%{_escape(w)}%" for w in short]
            where = " AND ".join(
                "(name_key LIKE ? ESCAPE '\\' OR ident_key LIKE ? ESCAPE '\\'"
                " OR imei LIKE ? ESCAPE '\\' OR tags LIKE ? ESCAPE '\\')"
                for _ in like
            )
            args = [a for pattern in like for a in (pattern,) * 4]
            rows = self.conn.execute(
                f"{SELECT} WHERE {where} AND +kind IN ({marks}) LIMIT ?", (*args, *kinds, limit)
            ).fetchall()
        for row in rows:
            found.setdefault(int(row[0]), _item(row))
        return list(found.values())


class _Transaction:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, *_: object) -> None:
        self.conn.execute("COMMIT" if kind is None else "ROLLBACK")


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _item(row: Sequence[object]) -> IndexItem:
    _id, kind, key, name, ident, imei, tags, model, health, lat, lon, last_up = row
    return IndexItem(
        kind,  # type: ignore[arg-type]
        str(key), str(name), str(ident), str(imei), str(tags), str(model), str(health),
        lat if isinstance(lat, float) else None, lon if isinstance(lon, float) else None,
        last_up if isinstance(last_up, int) else None,
    )  # fmt: skip


def now_ms() -> int:
    return int(time.time() * 1000)
