"""Replay check (issue 19): the same demo network, seeded and simulated with a fixed seed
and a fixed clock, must write the same data before and after a refactoring.

    ./dev bench replay_identical [--devices N] [--steps K] [--out FILE]
    ./dev bench replay_identical --compare A.json B.json [--random C.json]

A run seeds a new database (the demo network: accounts, catalog, `--devices` devices, base
stations, key manager, suppliers, tenants, traffic history), then steps the simulator `--steps`
times by `--step-s` simulated seconds, and digests every table: a SHA-256 of each table's rows
in a fixed order and of each column. It prints one JSON line (the whole digest, the tables'
digest and row counts) and writes the per-table and per-column digests to `--out`.

The clock is fixed (`time.time` answers the start, the simulator's own clock moves on) and
the operating system's randomness is a seeded stream, so two runs of the same code agree,
except where OpenSSL draws its own randomness (the key manager's RSA key pairs and what is
derived from them). `--compare` says which tables and columns of two runs differ; `--random`
names a second run of the same code as A, whose differences with A are randomness, not
change, and are listed apart.

Run on other code read-only: `PYTHONPATH=/other/src /other/.venv/bin/python
bench/replay_identical.py --out /tmp/x/a.json --db /tmp/x/a.sqlite`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

START_MS = 1_780_000_000_000  # 2026-05-28 20:26:40 UTC: the replay's "now"


def fix_clock_and_randomness(seed: int) -> None:
    """`time.time` answers START_MS; `os.urandom` (and what `secrets`, `uuid` and
    `random.SystemRandom` draw from it) is a seeded stream."""
    stream = random.Random(seed)

    def urandom(n: int) -> bytes:
        return stream.randbytes(n)

    os.urandom = urandom
    random._urandom = urandom  # type: ignore[attr-defined]  # SystemRandom's own reference
    time.time = lambda: START_MS / 1000


def digest_tables(path: Path) -> dict[str, Any]:
    """Per table: row count, a digest of its rows (in primary key or rowid order, else
    sorted) and a digest of each column in that order."""
    conn = sqlite3.connect(path)
    tables = [
        name
        for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
        )
        if not name.startswith("sqlite_")
    ]
    out: dict[str, Any] = {}
    for table in tables:
        info = conn.execute(f'PRAGMA table_info("{table}")').fetchall()
        keys = [r[1] for r in sorted(info, key=lambda r: r[5]) if r[5]]
        try:
            order = ", ".join(f'"{k}"' for k in keys) if keys else "rowid"
            cursor = conn.execute(f'SELECT * FROM "{table}" ORDER BY {order}')
            rows = cursor.fetchall()
        except sqlite3.OperationalError:  # a WITHOUT ROWID table or a virtual one
            cursor = conn.execute(f'SELECT * FROM "{table}"')
            rows = sorted(cursor.fetchall(), key=repr)
        columns = [d[0] for d in cursor.description]
        whole = hashlib.sha256()
        per_column = [hashlib.sha256() for _ in columns]
        for row in rows:
            whole.update(repr(row).encode())
            for h, value in zip(per_column, row, strict=True):
                h.update(repr(value).encode() + b"\x00")
        out[table] = {
            "rows": len(rows),
            "digest": whole.hexdigest()[:16],
            "columns": {c: h.hexdigest()[:16] for c, h in zip(columns, per_column, strict=True)},
        }
    conn.close()
    return out


def replay(db_path: Path, devices: int, steps: int, step_s: float, seed: int) -> dict[str, Any]:
    fix_clock_and_randomness(seed)
    # Imported after the clock is fixed: a module that binds `time.time` at import sees ours.
    from lpwa_console.sandbox import demo
    from lpwa_console.sandbox.settings import SandboxSettings
    from lpwa_console.sandbox.simulator import Simulator

    started = time.perf_counter()
    settings = SandboxSettings(db_path=db_path, demo_devices=devices, seed=seed)
    db = demo.prepare(settings)
    seeded_s = time.perf_counter() - started
    sim = Simulator(db, seed=seed, start_ms=START_MS)
    uplinks = 0
    for _ in range(steps):
        report = sim.step(step_s)
        uplinks += getattr(report, "uplinks", 0)
    db.close()
    simulated_s = time.perf_counter() - started - seeded_s
    tables = digest_tables(db_path)
    whole = hashlib.sha256(
        json.dumps({t: v["digest"] for t, v in tables.items()}, sort_keys=True).encode()
    ).hexdigest()[:16]
    return {
        "bench": "replay_identical",
        "devices": devices,
        "steps": steps,
        "step_s": step_s,
        "seed": seed,
        "digest": whole,
        "tables": len(tables),
        "rows": sum(v["rows"] for v in tables.values()),
        "uplinks": uplinks,
        "seed_s": round(seeded_s, 1),
        "simulate_s": round(simulated_s, 1),
        "per_table": tables,
    }


def differences(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """'table' (present in one only, or row counts differ) or 'table.column' that differ."""
    out = []
    for table in sorted(set(a) | set(b)):
        if table not in a or table not in b or a[table]["rows"] != b[table]["rows"]:
            out.append(table)
            continue
        ca, cb = a[table]["columns"], b[table]["columns"]
        out += [f"{table}.{c}" for c in sorted(set(ca) | set(cb)) if ca.get(c) != cb.get(c)]
    return out


def compare(a_path: Path, b_path: Path, random_path: Path | None) -> dict[str, Any]:
    runs = [json.loads(p.read_text()) for p in (a_path, b_path)]
    noise: set[str] = set()
    if random_path is not None:
        again = json.loads(random_path.read_text())
        setting = ("devices", "steps", "step_s", "seed")
        if any(again[k] != runs[0][k] for k in setting):
            sys.exit(f"{random_path} is not a run of the same {', '.join(setting)} as {a_path}")
        noise = set(differences(runs[0]["per_table"], again["per_table"]))
    a, b = (run["per_table"] for run in runs)
    differ = differences(a, b)
    return {
        "bench": "replay_identical",
        "compare": [str(a_path), str(b_path)],
        "tables": len(set(a) | set(b)),
        "identical": not [d for d in differ if d not in noise],
        "differ": [d for d in differ if d not in noise],
        "random_in_both_runs": sorted(noise),
        "differ_but_random": [d for d in differ if d in noise],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, default=2000, help="the demo's devices")
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--step-s", type=float, default=60.0, help="simulated seconds a step")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--db", type=Path, default=None, help="default: a temporary file")
    parser.add_argument("--out", type=Path, default=None, help="the per-table digests (JSON)")
    parser.add_argument("--compare", type=Path, nargs=2, metavar=("A", "B"))
    parser.add_argument("--random", type=Path, default=None, metavar="A2")
    args = parser.parse_args(argv)
    if args.compare:
        result = compare(args.compare[0], args.compare[1], args.random)
        print(json.dumps(result))
        return 0 if result["identical"] else 1
    with tempfile.TemporaryDirectory(prefix="replay-") as tmp:
        db_path = args.db or Path(tmp) / "replay.sqlite"
        if db_path.exists():
            sys.exit(f"{db_path} exists: the replay starts from a new database")
        result = replay(db_path, args.devices, args.steps, args.step_s, args.seed)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1))
    print(json.dumps({k: v for k, v in result.items() if k != "per_table"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
