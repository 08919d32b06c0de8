"""Supplier product list benchmark: the first page (100, with its count) of
`/suppliers/mine/devices` under each §4.2 filter, on a supplier with N products (20,000 by
default; one in five with 1-3 versions, whose stock and status the filters then read).

Prints one line per filter: p50 and p99 in ms, and the count it matched.

Usage: ./dev bench supplier_products [--products N] [--samples K]
The database is kept in bench/out/ so later runs skip the seeding.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _measure import bearer_headers, timed_get
from _sandbox import OUT, Server, percentile

FILTERS: list[tuple[str, dict[str, object]]] = [
    ("none", {}),
    ("SKU exact", {"SKU": "BX-00777"}),
    ("price range", {"minUpfrontPrice": 50, "maxUpfrontPrice": 80}),
    ("IN_STOCK", {"status": "IN_STOCK"}),
    ("OUT_STOCK", {"status": "OUT_STOCK"}),
    ("stock range", {"minStock": 100, "maxStock": 500}),
    ("IN_STOCK + stock >= 1000", {"status": "IN_STOCK", "minStock": 1000}),
    ("customFieldSetID", {"customFieldSetID": "radio"}),
    ("validationState", {"validationState": "SUSPENDED"}),
]
STATUSES = ("IN_STOCK", "IN_STOCK", "P7D", "P15D", "P1M", "RESTOCKING", "SOLD_OUT")


def seed(db: Path, products: int) -> float | None:
    from lpwa_console.sandbox import SandboxSettings, demo
    from lpwa_console.sandbox.store import suppliers as store

    database = demo.prepare(SandboxSettings(db_path=db, demo_devices=100))
    conn = database.conn()
    have = conn.execute("SELECT count(*) FROM supplier_products").fetchone()[0]
    if have >= products:
        database.close()
        return None
    started = time.perf_counter()
    rnd = random.Random(7)
    sup = conn.execute("SELECT uid FROM suppliers WHERE id = 'demo-supplier'").fetchone()[0]
    now = int(time.time() * 1000)
    with database.write() as w:
        for i in range(have, products):
            versions = i % 5 == 0
            values: dict[str, object] = {
                "name": f"Box {i:05d}", "SKU": f"BX-{i:05d}",
                "upfrontPrice": float(rnd.randrange(20, 200)),
                "validationState": rnd.choice(("VALIDATED", "VALIDATED", "SUSPENDED")),
                "customFieldSet": rnd.choice(("radio", "metering")),
            }  # fmt: skip
            if not versions:
                values |= {"stock": rnd.randrange(0, 3000), "status": rnd.choice(STATUSES)}
            uid = store.create_product(w, sup, values, {}, now=now)
            for v in range(rnd.randrange(1, 4) if versions else 0):
                store.create_version(
                    w, uid,
                    {"name": f"v{v}", "stock": rnd.randrange(0, 3000),
                     "status": rnd.choice(STATUSES)},
                    now=now,
                )  # fmt: skip
    database.close()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--products", type=int, default=20_000)
    parser.add_argument("--samples", type=int, default=20)
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    db = OUT / f"supplier-{args.products}.db"
    seeded = seed(db, args.products)
    if seeded is not None:
        print(f"seed: {seeded:.1f} s")
    server = Server(db)
    try:
        with httpx.Client(timeout=60) as http:
            headers = bearer_headers(http, server, "supplier")
            url = f"{server.base_url}/suppliers/mine/devices"
            for label, extra in FILTERS:
                params = {"pageIndex": 1, "pageSize": 100, **extra}
                _ms, body = timed_get(http, url, params, headers)  # warm once
                times = [timed_get(http, url, params, headers)[0] for _ in range(args.samples)]
                print(
                    f"{label}: p50 {percentile(times, 50):.1f} ms p99 {percentile(times, 99):.1f}"
                    f" ms ({body.get('count')} products)"
                )
    finally:
        server.stop()


if __name__ == "__main__":
    main()
