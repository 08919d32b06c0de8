"""store.network: the lists are paged and filtered in SQL, in ID order."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lpwa_console.sandbox.db import Database
from lpwa_console.sandbox.store import network as store
from lpwa_console.schema.network import AsTransportKeyCreate

from .conftest import make_sandbox


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    for sandbox in make_sandbox(tmp_path / "network.db", demo_devices=0):
        yield sandbox.client.app.state.services.db  # type: ignore[attr-defined]


def test_keys_are_paged_in_id_order(db: Database) -> None:
    with db.write() as conn:
        for i in range(23):
            store.create_key(conn, 1, AsTransportKeyCreate(ID=f"k-{i:02d}", name=f"Key {i}"))
    conn = db.conn()
    total = store.keys_count(conn, 1)
    pages = [store.keys_page(conn, 1, offset, 10) for offset in range(0, total, 10)]
    assert [more for _, more in pages] == [True] * (len(pages) - 1) + [False]
    ids = [k["ID"] for items, _ in pages for k in items]
    assert len(ids) == total == 25 and ids == sorted(ids)  # with the demo's two keys
    assert store.keys_page(conn, 1, total, 10) == ([], False)


def test_network_subscription_filters(db: Database) -> None:
    conn = db.conn()
    every, _ = store.network_subscriptions_page(conn, store.network_subscription_where(1), 0, 100)
    assert every
    for item in every:
        w = store.network_subscription_where(
            1, connectivity=item.get("connectivity"),
            communication_type=item.get("communicationType"),
            supplier=(item.get("supplier") or {}).get("ID"), ref=item["ID"],
        )  # fmt: skip
        assert store.network_subscriptions_page(conn, w, 0, 100) == ([item], False)
        assert store.network_subscriptions_count(conn, w) == 1
        assert store.find_network_subscription(conn, 1, ref=item["ID"]) == item
    multicast = store.network_subscription_where(1, communication_type="MULTICAST")
    found, _ = store.network_subscriptions_page(conn, multicast, 0, 100)
    assert found and all(s["communicationType"] == "MULTICAST" for s in found)
    assert len(found) < len(every)
