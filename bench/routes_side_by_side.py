"""Side-by-side bench of the sandbox routes issue 19 moved (parents by chained dependencies,
one declaration per verb, shared query models): the same GETs against a sandbox running this
tree and one running another tree (the old code), alternated request by request in one run,
so both see the same machine load.

    ./dev bench routes_side_by_side --old-src /work/main/src --old-python /work/main/.venv/bin/python \\
        --old-dir /tmp/replay-main [--devices 2000] [--samples 200]

Each sandbox makes its own demo database (the same seed) in its folder (the old one's in
`--old-dir`, which is all it writes). Prints one JSON line per route: p50 and p99 in ms, old
and new, and new/old of the p50.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _measure import bearer_headers, timed_get
from _sandbox import Server, percentile

# (label, role, path under the API prefix, query)
ROUTES: list[tuple[str, str, str, dict[str, str | int]]] = [
    ("supplier", "supplier", "/suppliers/mine", {}),
    ("supplier products", "supplier", "/suppliers/mine/devices", {"pageSize": 100}),
    ("supplier products filtered", "supplier", "/suppliers/mine/devices",
     {"minUpfrontPrice": 10, "status": "IN_STOCK"}),
    ("supplier applications", "supplier", "/suppliers/mine/applications", {}),
    ("supplier service accounts", "supplier", "/suppliers/mine/serviceAccounts", {}),
    ("network contexts", "subscriber", "/subscriptions/mine/cellularNetworkContexts", {}),
    ("AS transport keys", "subscriber", "/subscriptions/mine/asTransportKeys", {}),
    ("HSM groups", "subscriber", "/subscriptions/mine/hsmGroups", {}),
    ("provisioning queue", "operator", "/admins/operators/mine/provqueues", {"pageSize": 100}),
    ("command queue", "operator", "/admins/operators/mine/cmdqueues", {"pageSize": 100}),
    ("operator HSM groups", "operator", "/admins/operators/mine/hsmGroups", {}),
    ("multicast groups", "subscriber", "/subscriptions/mine/multicastGroups", {}),
    ("multicast history", "subscriber", "/subscriptions/mine/multicastGroups/frames/aggregated",
     {"duration": "P1D", "step": "PT1H"}),
    ("devices list", "subscriber", "/subscriptions/mine/devices", {"pageSize": 100}),
    ("device profiles", "operator", "/admins/operators/mine/deviceProfiles", {"pageSize": 100}),
    ("base station profiles", "operator", "/admins/operators/mine/baseStationProfiles", {}),
    ("RF regions", "operator", "/admins/operators/mine/rfRegions", {}),
]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old-src", type=Path, required=True, help="the old tree's src/")
    parser.add_argument("--old-python", default=sys.executable)
    parser.add_argument("--old-dir", type=Path, required=True, help="where the old one writes")
    parser.add_argument("--devices", type=int, default=2000)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument(
        "--settle",
        type=float,
        default=15.0,
        help="seconds to wait first: a new demo fills its history once it listens",
    )
    parser.add_argument("--only", nargs="*", default=None, help="these routes (labels) only")
    args = parser.parse_args()
    args.old_dir.mkdir(parents=True, exist_ok=True)
    old_env = os.environ | {"PYTHONPATH": str(args.old_src), "PYTHONDONTWRITEBYTECODE": "1"}
    seed = ("--seed", str(args.devices))
    with tempfile.TemporaryDirectory(prefix="side-by-side-") as tmp:
        old_db = Path(tempfile.mkdtemp(prefix="side-by-side-", dir=args.old_dir)) / "old.db"
        servers = {
            "old": Server(old_db, *seed, python=args.old_python, env=old_env),
            "new": Server(Path(tmp) / "new.db", *seed),
        }
        try:
            time.sleep(args.settle)
            with httpx.Client(timeout=60) as http:
                api = {k: s.base_url for k, s in servers.items()}
                headers = {
                    (k, role): bearer_headers(http, s, role)
                    for k, s in servers.items()
                    for role in ("subscriber", "supplier", "operator")
                }
                for label, role, path, query in ROUTES:
                    if args.only and label not in args.only:
                        continue
                    times: dict[str, list[float]] = {"old": [], "new": []}
                    for k in servers:  # warm once each
                        timed_get(http, api[k] + path, query, headers[k, role])
                    for i in range(args.samples):
                        for k in ("old", "new") if i % 2 else ("new", "old"):  # either first
                            ms, _body = timed_get(http, api[k] + path, query, headers[k, role])
                            times[k].append(ms)
                    p50 = {k: percentile(v, 50) for k, v in times.items()}
                    print(json.dumps({
                        "bench": "routes_side_by_side", "route": label,
                        "old_p50_ms": round(p50["old"], 2), "new_p50_ms": round(p50["new"], 2),
                        "old_p99_ms": round(percentile(times["old"], 99), 2),
                        "new_p99_ms": round(percentile(times["new"], 99), 2),
                        "new_over_old_p50": round(p50["new"] / p50["old"], 3),
                    }), flush=True)  # fmt: skip
        finally:
            for server in servers.values():
                server.stop()


if __name__ == "__main__":
    main()
