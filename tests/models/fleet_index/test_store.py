"""The end of a first fill in short transactions (issue 23 §1, "the index follows edits made
in the console at once"): while the search indexes are built and unseen items are swept,
another connection (the console's) writes between the steps without waiting, and what it
wrote is searched right once they are built."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from lpwa_console.models.fleet_index import store as store_module
from lpwa_console.models.fleet_index.search import rank
from lpwa_console.models.fleet_index.store import IndexItem, IndexStore


def _device(n: int, name: str) -> IndexItem:
    eui = f"70B3D5E75E{n:06X}"
    return IndexItem("device", eui, name, eui)


def _word(n: int) -> str:
    """A word of this number that no DevEUI (hex digits) contains: 3 -> "kkn"."""
    return "".join("klmnopqrst"[int(d)] for d in f"{n:03d}")


def _find(store: IndexStore, text: str) -> list[str]:
    words = text.casefold().split()
    return [i.key for i in rank(text, store.candidates(words, ("device",), 200))]


def test_edits_get_in_between_the_steps_that_build_the_search_indexes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_module, "FTS_CHUNK", 7)
    path = tmp_path / "index.sqlite"
    fill = IndexStore(path)
    fill.begin_bulk()
    fill.write_page([_device(n, f"Meter {_word(n)}") for n in range(1, 51)], full_pass=1)
    console = IndexStore(path)
    console.conn.execute("PRAGMA busy_timeout = 0")  # a lock held now fails at once
    steps: list[int] = []

    def edit() -> None:
        """The console's edits between two steps: each would fail if a step held the lock."""
        step = len(steps)
        steps.append(step)
        if step == 5:  # after the B-tree indexes and the first FTS chunk (rows 1-7)
            console.follow([_device(3, "Kiosk Quillebeuf")])  # copied already: renamed
            console.follow([_device(40, "Kiosk Zanzibarre")])  # not yet: copied as it is then
            console.follow([_device(77, "Parking Bastille")])  # new
            console.delete("device", [_device(5, "").key, _device(45, "").key])
        if step == 8:
            console.follow([_device(90, "Parking Opéra")])  # added late in the copy

    fill.end_bulk(edit)
    assert len(steps) > 8 and not fill.bulk
    assert _find(fill, _word(4)) == [_device(4, "").key]
    assert _find(fill, "uillebeu") == [_device(3, "").key]
    assert _find(fill, _word(3)) == []  # its old name left the FTS index
    assert _find(fill, "zanzibar") == [_device(40, "").key]
    assert _find(fill, "bastille") == [_device(77, "").key]
    assert _find(fill, "opéra") == [_device(90, "").key]
    assert _find(fill, _word(45)) == [] and _find(fill, _word(5)) == []
    # The FTS index matches the rows exactly, and follows edits by its triggers again (FTS5
    # merging its segments by itself again, off while the rows were copied).
    fill.conn.execute("INSERT INTO items_fts (items_fts) VALUES ('integrity-check')")
    config = dict(fill.conn.execute("SELECT k, v FROM items_fts_config").fetchall())
    assert config.get("automerge") == 4 and config.get("crisismerge") == 16
    console.follow([_device(40, "Renamed again")])
    assert _find(fill, "zanzibar") == [] and _find(fill, "named aga") == [_device(40, "").key]
    fill.conn.execute("INSERT INTO items_fts (items_fts) VALUES ('integrity-check')")
    console.close()
    fill.close()


def test_a_stopped_indexing_goes_on_where_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_module, "FTS_CHUNK", 10)
    path = tmp_path / "index.sqlite"
    fill = IndexStore(path)
    fill.begin_bulk()
    fill.write_page([_device(n, f"Meter {_word(n)}") for n in range(1, 41)], full_pass=1)
    calls: list[int] = []

    class Stop(Exception):
        pass

    def stop_soon() -> None:
        calls.append(1)
        if len(calls) == 7:  # the B-tree indexes, then two chunks
            raise Stop

    with pytest.raises(Stop):
        fill.end_bulk(stop_soon)
    fill.close()
    again = IndexStore(path)  # (the console started again)
    assert again.bulk and again.get("fts.upto") == "20"
    again.end_bulk()
    again.conn.execute("INSERT INTO items_fts (items_fts) VALUES ('integrity-check')")
    assert _find(again, _word(33)) == [_device(33, "").key]
    assert _find(again, _word(1)) == [_device(1, "").key]
    again.close()


def test_a_sweep_deletes_what_the_pass_did_not_see_in_chunks(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    store = IndexStore(path)
    store.set_many({"pass": "1"})
    store.write_page([_device(n, f"Old {n}") for n in range(1, 11)], full_pass=1)
    store.set_many({"pass": "2"})  # a new pass sees only the even ones...
    store.write_page([_device(n, f"Old {n}") for n in range(2, 11, 2)], full_pass=2)
    store.follow([_device(11, "Made in the console")])  # ...and the console adds one
    assert store.sweep("device", 2, chunk=2) == 5
    with sqlite3.connect(path) as conn:
        keys = {k for (k,) in conn.execute("SELECT key FROM items")}
    assert keys == {_device(n, "").key for n in (2, 4, 6, 8, 10, 11)}
    store.close()
