"""Application server list benchmark (issue 7): the first page of `/appServers` (both scopes,
with their `deviceCount` and `multicastGroupCount`) on a sandbox of N devices (1,000,000 by
default), for each subscriber role.

Prints, one line per role: p50 and p99 of the first page (default sort) and of the first page
sorted by deviceCount, in ms.

Usage: ./dev bench app_servers_list [--devices N] [--db PATH] [--samples K]
The database is kept in bench/out/ (the one bench/devices_list.py makes) so later runs skip
the seeding.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _measure import bearer_headers, timed_get
from _sandbox import OUT, Server, ensure_seeded, percentile

ROLES = ("subscriber", "subscriber-restricted", "subscriber-viewer")


def figures(server: Server, role: str, samples: int) -> dict[str, float]:
    with httpx.Client(timeout=60) as http:
        headers = bearer_headers(http, server, role)
        url = f"{server.base_url}/subscriptions/mine/appServers"
        out: dict[str, float] = {}
        for label, extra in (("first", {}), ("by_count", {"sort": "deviceCount,desc"})):
            params = {"pageIndex": 1, "pageSize": 100, "scope": ["SUBSCRIPTION", "OPERATOR"]}
            params |= extra
            timed_get(http, url, params, headers)  # warm the caches once
            times = [timed_get(http, url, params, headers)[0] for _ in range(samples)]
            out[f"{label}_p50"] = percentile(times, 50)
            out[f"{label}_p99"] = percentile(times, 99)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--devices", type=int, default=1_000_000)
    parser.add_argument("--db", type=Path, default=None)
    parser.add_argument("--samples", type=int, default=20)
    args = parser.parse_args()
    db = args.db or OUT / f"devices-{args.devices}.db"
    seeded = ensure_seeded(db, args.devices)
    if seeded is not None:
        print(f"seed: {seeded:.1f} s")
    server = Server(db)
    try:
        for role in ROLES:
            f = figures(server, role, args.samples)
            print(
                f"{role}: first page p50 {f['first_p50']:.1f} ms p99 {f['first_p99']:.1f} ms;"
                f" sorted by deviceCount p50 {f['by_count_p50']:.1f} ms"
                f" p99 {f['by_count_p99']:.1f} ms"
            )
    finally:
        server.stop()


if __name__ == "__main__":
    main()
