"""The fleet index (issue 23 §1-2) below the UI: its SQL and ranking on a file of its own,
and its sync over HTTP against the live sandbox (fill, pause, resume where it stopped)."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import uuid
from pathlib import Path
from typing import Any

from lpwa_console.api import Credentials, LpwaClient
from lpwa_console.models.fleet_index.progress import SyncProgress, SyncSettings
from lpwa_console.models.fleet_index.protocol import SignIn
from lpwa_console.models.fleet_index.search import rank
from lpwa_console.models.fleet_index.store import IndexItem, IndexStore, trigram_supported
from lpwa_console.models.fleet_index.sync import SyncThread
from lpwa_console.models.fleet_index.wire import read_page


def random_eui() -> str:
    return uuid.uuid4().hex[:16].upper()


def _items() -> list[IndexItem]:
    return [
        IndexItem(
            "device", "70B3D5E75E000001", "Parking sensor Paris Bastille", "70B3D5E75E000001"
        ),
        IndexItem("device", "70B3D5E75E000002", "Bastilleview meter", "70B3D5E75E000002"),
        IndexItem("device", "70B3D5E75E000003", "Meter Lyon", "70B3D5E75E000003", tags="bastille"),
        IndexItem("device", "70B3D5E75E00BA57", "Water meter 12", "70B3D5E75E00BA57"),
        IndexItem("device", "35000000000077", "Tracker", "35000000000077", imei="35000000000077"),
        IndexItem("station", "0A1B2C3D", "Rooftop Bastille", "0A1B2C3D"),
    ]


def test_python_sqlite_has_the_trigram_tokenizer() -> None:
    assert trigram_supported()


def test_any_fragment_is_found_and_ranked(tmp_path: Path) -> None:
    store = IndexStore(tmp_path / "index.sqlite")
    store.write_page(_items())

    def find(text: str, kinds: tuple[Any, ...] = ("device", "station")) -> list[str]:
        words = text.casefold().split()
        return [i.key for i in rank(text, store.candidates(words, kinds, 200))]

    # A fragment in the middle of a name; the name whose word starts with it comes before
    # the ones that have it in a tag only; a word wholly typed first.
    assert find("Bastille", ("device",)) == [
        "70B3D5E75E000001",
        "70B3D5E75E000002",
        "70B3D5E75E000003",
    ]
    assert find("astil", ("station",)) == ["0A1B2C3D"]
    assert find("00ba57") == ["70B3D5E75E00BA57"]  # a DevEUI's last digits
    assert find("0000077") == ["35000000000077"]  # an IMEI's
    assert find("2c3d") == ["0A1B2C3D"]  # an lrrID's
    assert find("57") == ["70B3D5E75E00BA57"]  # two characters: no trigram, still found
    assert find("paris bast") == ["70B3D5E75E000001"]  # every word must match
    assert find("nothing-like-it") == []
    # An edit replaces the row and its words (the trigram index follows).
    store.write_page([IndexItem("device", "70B3D5E75E00BA57", "Renamed", "70B3D5E75E00BA57")])
    assert find("water") == [] and find("renamed") == ["70B3D5E75E00BA57"]
    store.delete("device", ["70B3D5E75E00BA57"])
    assert find("renamed") == []
    store.close()


def _search_objects(path: Path) -> set[str]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT name FROM sqlite_master WHERE type IN ('index', 'trigger')")
        return {str(name) for (name,) in rows if not str(name).startswith("sqlite_")}


def test_a_first_fill_loads_without_search_indexes_then_builds_them(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    store = IndexStore(path)
    store.begin_bulk()
    store.write_page(_items()[:3])
    # Another connection (the query thread's, a restart's) does not put them back meanwhile.
    IndexStore(path).close()
    assert store.bulk and _search_objects(path) == set()
    store.write_page(_items()[3:])
    store.end_bulk()
    assert not store.bulk
    assert {"items_name_key", "items_tail_key", "items_ai", "items_au"} <= _search_objects(path)

    def find(text: str) -> list[str]:
        return [i.key for i in rank(text, store.candidates(text.split(), ("device",), 200))]

    assert find("bastille") == ["70B3D5E75E000001", "70B3D5E75E000002", "70B3D5E75E000003"]
    assert find("00ba57") == ["70B3D5E75E00BA57"]
    # Edits follow by the triggers again.
    store.write_page([IndexItem("device", "70B3D5E75E00BA57", "Renamed", "70B3D5E75E00BA57")])
    assert find("water") == [] and find("enamed") == ["70B3D5E75E00BA57"]
    store.close()


def test_pages_are_read_item_by_item_as_json_reads_them() -> None:
    text = b'{"count": 2, "briefs": [{"EUI": "A", "tags": [{"name": "x"}]}, {"EUI": "B"}],'
    text += b' "more": true, "cursors": {"last": "Qg=="}}'
    assert read_page(text) == {
        "count": 2,
        "briefs": [{"EUI": "A", "tags": [{"name": "x"}]}, {"EUI": "B"}],
        "more": True,
        "cursors": {"last": "Qg=="},
    }
    assert read_page(b'{"briefs": []}') == {"briefs": []}


def _client_of(sandbox: Any) -> Any:
    account = sandbox.account("subscriber")

    def make() -> LpwaClient:
        credentials = Credentials(sandbox.token_url, account["client_id"], account["client_secret"])
        return LpwaClient(sandbox.base_url, credentials)

    return make


def sign_in_of(sandbox: Any) -> SignIn:
    """How the console signs in its sync process (Session.sync_source)."""
    account = sandbox.account("subscriber")
    credentials = Credentials(sandbox.token_url, account["client_id"], account["client_secret"])
    return SignIn(sandbox.base_url, credentials)


def _wait(event: threading.Event) -> None:
    assert event.wait(60), "the sync did not get there"


def test_a_fill_paused_goes_on_where_it_stopped(sandbox: Any, tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    reports: list[SyncProgress] = []
    paused, walking = threading.Event(), threading.Event()

    def report(progress: SyncProgress) -> None:
        reports.append(progress)
        started = [p.done for p in reports if p.kind == "device"]
        if started and progress.done > started[0]:  # a page of devices written
            walking.set()
        if progress.state == "paused" and walking.is_set():
            paused.set()

    sync = SyncThread(path, _client_of(sandbox), report, SyncSettings(page_size=10))
    sync.start()
    _wait(walking)
    sync.pause()
    _wait(paused)
    sync.stop()
    sync.join()
    with sqlite3.connect(path) as conn:
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        devices_then = conn.execute("SELECT count(*) FROM items WHERE kind='device'").fetchone()[0]
    assert meta["pass.kind"] == "device" and meta["pass.cursor"], "stopped mid-walk"
    assert meta["paused"] == "1" and meta.get("built") != "1"
    assert meta["bulk"] == "1" and "items_name_key" not in _search_objects(path)
    total = int(meta["total.device"])
    assert 0 < devices_then < total

    # The console starts again: still paused (the user's choice), then resumed by the user.
    ready = threading.Event()
    second: list[SyncProgress] = []

    def report_again(progress: SyncProgress) -> None:
        second.append(progress)
        if progress.state == "ready" and progress.built:
            ready.set()

    sync = SyncThread(path, _client_of(sandbox), report_again, SyncSettings(page_size=200))
    sync.start()
    try:
        assert not ready.wait(0.5) and sync.paused
        assert second and second[0].state == "paused"
        sync.resume()
        _wait(ready)
    finally:
        sync.stop()
        sync.join()
    # It went on from its cursor: the first report of the walk counts what was written.
    walked = [p for p in second if p.state == "filling" and p.kind == "device"]
    assert walked and walked[0].done >= devices_then
    with sqlite3.connect(path) as conn:
        devices = conn.execute("SELECT count(*) FROM items WHERE kind='device'").fetchone()[0]
        stations = conn.execute("SELECT count(*) FROM items WHERE kind='station'").fetchone()[0]
    assert devices == total and stations > 0
    # The search indexes built at the end of the first fill, said in the status bar.
    assert any(p.message == "Indexing the fleet for search" for p in second)
    assert {"items_name_key", "items_ai"} <= _search_objects(path)
    store = IndexStore(path)
    try:
        assert not store.bulk
        eui = store.conn.execute("SELECT key FROM items WHERE kind='device'").fetchone()[0]
        middle = eui[4:12].casefold()  # neither its start nor its end: found by trigram
        assert eui in [i.key for i in store.candidates([middle], ("device",), 50)]
    finally:
        store.close()


def test_a_refresh_asks_little_and_sees_a_new_device(sandbox: Any, tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    states: list[SyncProgress] = []
    ready = threading.Event()

    def report(progress: SyncProgress) -> None:
        states.append(progress)
        if progress.state == "ready" and progress.built:
            ready.set()

    sync = SyncThread(path, _client_of(sandbox), report)
    sync.start()
    try:
        _wait(ready)
        eui = random_eui()

        async def create() -> None:
            from lpwa_console.schema.devices import DeviceCreate

            client = _client_of(sandbox)()
            try:
                await client.devices.create(
                    DeviceCreate(
                        EUI=eui,
                        activation="OTAA",
                        model={"ID": "LORA/GenericA.1.0.2a_ETSI"},
                        appEUI="70B3D5E75E000000",
                        appKey="2B7E151628AED2A6ABF7158809CF4F3C",
                        name="Refresh probe Quai Bastille",
                    )
                )
            finally:
                await client.aclose()

        asyncio.run(create())
        before = sync.last_cost
        sync.refresh_now()
        for _ in range(600):
            if sync.last_cost is not before:
                break
            threading.Event().wait(0.1)
        cost = sync.last_cost
        assert cost is not before
        assert cost.requests <= 10 and cost.items >= 1
        store = IndexStore(path)
        item = store.item("device", eui)
        store.close()
        assert item is not None and item.name == "Refresh probe Quai Bastille"
    finally:
        sync.stop()
        sync.join()


def test_no_secret_is_kept(sandbox: Any, tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    ready = threading.Event()
    sync = SyncThread(
        path,
        _client_of(sandbox),
        lambda p: ready.set() if p.state == "ready" and p.built else None,
    )
    sync.start()
    _wait(ready)
    sync.stop()
    sync.join()
    account = sandbox.account("subscriber")
    data = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("index"))
    assert account["client_secret"].encode() not in data
    assert b"Bearer" not in data and b"access_token" not in data
    with sqlite3.connect(path) as conn:
        columns = [r[1] for r in conn.execute("PRAGMA table_info(items)")]
    assert not [
        c for c in columns if "key" in c and c not in ("key", "name_key", "ident_key", "tail_key")
    ]
    assert path.stat().st_mode & 0o077 == 0  # the user's alone


def test_results_say_when_the_index_is_old(
    sandbox: Any, tmp_path: Path, qtbot: Any, qloop: Any
) -> None:
    from lpwa_console.models.fleet_index.index import FleetIndex, clock_text
    from lpwa_console.models.fleet_index.query import with_note
    from lpwa_console.models.fleet_index.store import now_ms

    index = FleetIndex(tmp_path)
    index.open("Field laptop", "subscriber", sign_in_of(sandbox))
    qtbot.waitUntil(lambda: index.ready and index.progress.state == "ready", timeout=60_000)
    assert index.note() == "" and with_note("3 devices", index, "bast") == "3 devices"
    path = index.path
    assert path is not None
    index.pause()
    qtbot.waitUntil(lambda: index.progress.state == "paused", timeout=10_000)
    # Last matched the platform 10 minutes ago (paused since: no refresh comes).
    with qtbot.waitSignal(index.progress_changed, timeout=10_000):
        index.close()
    store = IndexStore(path)
    old = now_ms() - 10 * 60_000
    store.set_many({"refreshed_at": str(old), "paused": "1"})
    store.close()
    index.open("Field laptop", "subscriber", sign_in_of(sandbox))
    qtbot.waitUntil(lambda: index.ready, timeout=10_000)
    assert index.note() == f"Fleet index as of {clock_text(old)}"
    assert (
        with_note("3 devices", index, "bast") == f"3 devices · fleet index as of {clock_text(old)}"
    )
    done = asyncio.ensure_future(index.aclose())
    qtbot.waitUntil(done.done, timeout=20_000)


def test_more_matches_than_one_request_names_are_not_counted_as_all(
    sandbox: Any, tmp_path: Path, qtbot: Any, qloop: Any
) -> None:
    """A fragment most of the fleet matches ("0" of every DevEUI): the list names the best
    100 to the platform, and its count is not the platform's 100 ("100+", not "100")."""
    from lpwa_console.models.fleet_index.index import FleetIndex
    from lpwa_console.models.fleet_index.query import MAX_KEYS, fragment_query
    from lpwa_console.schema.devices import DeviceFilter

    index = FleetIndex(tmp_path)
    index.open("Field laptop", "subscriber", sign_in_of(sandbox))
    qtbot.waitUntil(lambda: index.ready and index.progress.state == "ready", timeout=60_000)
    client = _client_of(sandbox)()

    async def ask(keys: list[str] | None) -> Any:
        filters = DeviceFilter(query="70b3") if keys is None else DeviceFilter(devEUI=keys)
        return await client.devices.list(1, MAX_KEYS, filters=filters)

    async def both() -> tuple[Any, Any]:
        many = await fragment_query(index, "0", "device", ask, keep_rank=True)
        # A whole DevEUI: one device (whatever other tests made on the shared sandbox).
        one = await fragment_query(index, many.briefs[0].EUI, "device", ask, keep_rank=True)
        await client.aclose()
        return many, one

    task = asyncio.ensure_future(both())
    qtbot.waitUntil(task.done, timeout=30_000)
    many, one = task.result()
    assert len(many.briefs) == MAX_KEYS and many.count is None and not many.more
    assert len(one.briefs) == 1 and one.count == 1
    done = asyncio.ensure_future(index.aclose())
    qtbot.waitUntil(done.done, timeout=20_000)


def test_a_refresh_or_a_stop_asked_for_during_a_refresh_is_not_lost(
    sandbox: Any, tmp_path: Path
) -> None:
    """Asked for while a refresh runs (before the sync waits again): the next refresh comes
    at once, and a stop ends it, rather than waiting for the next hour's refresh."""
    path = tmp_path / "index.sqlite"
    ready = threading.Event()
    costs: list[Any] = []
    two_refreshes = threading.Event()

    def report(progress: SyncProgress) -> None:
        if progress.state == "ready" and progress.built:
            ready.set()

    settings = SyncSettings(refresh_every_s=3600)

    def on_cost(cost: Any) -> None:
        costs.append(cost)
        if len(costs) == 1:
            sync.refresh_now()  # during the first refresh
        else:
            two_refreshes.set()
            sync.stop()  # during the second

    sync = SyncThread(path, _client_of(sandbox), report, settings, on_cost=on_cost)
    sync.start()
    try:
        _wait(ready)
        sync.refresh_now()
        _wait(two_refreshes)
        sync.join(60)
        assert not sync.alive
    finally:
        sync.stop()
        sync.join()
