"""Field mode benchmark (issue 23): every figure the issue names, in one JSON line.

Runs the two halves, each in a process of its own (each has its own Qt application and
sandbox), and prints their figures together:
  index: `field_index.py` (§1-2): the local index of 1,000,000 devices and 100,000 stations
    built over HTTP, the worst UI stall meanwhile, fragment search p50/p95, a refresh's cost;
  offline: `field_offline.py` (§3): a city's snapshot (time, MB), offline start to first
    rows, the sync of 500 queued edits with 10 conflicts and the worst UI stall meanwhile.

Usage: ./dev bench field_mode [--index ARGS...] [--offline ARGS...]
e.g. `./dev bench field_mode --index --devices 100000 --stations 10000` for a smaller fleet.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def split_arguments(argv: list[str]) -> dict[str, list[str]]:
    """`--index A B --offline C` -> {"index": [A, B], "offline": [C]}."""
    parts: dict[str, list[str]] = {"index": [], "offline": []}
    current: list[str] | None = None
    for arg in argv:
        if arg in ("--index", "--offline"):
            current = parts[arg[2:]]
        elif current is None:
            raise SystemExit(f"field_mode: {arg!r} belongs after --index or --offline")
        else:
            current.append(arg)
    return parts


def last_json_line(script: str, args: list[str]) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, str(HERE / script), *args],
        stdout=subprocess.PIPE,
        text=True,
        check=False,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise SystemExit(f"field_mode: {script} failed (exit {done.returncode})")
    figures: dict[str, object] = json.loads(lines[-1])
    return figures


def main() -> None:
    parts = split_arguments(sys.argv[1:])
    figures = {
        "index": last_json_line("field_index.py", parts["index"]),
        "offline": last_json_line("field_offline.py", parts["offline"]),
    }
    print(json.dumps(figures), flush=True)


if __name__ == "__main__":
    main()
