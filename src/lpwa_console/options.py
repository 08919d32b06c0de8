"""The console's command line (`Options`, `parse_args`) and where its settings live
(`make_settings`): read by the first steps (`startup.py`) and by the composition root
(`app.py`), so neither imports the other for them."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QSettings

from .models.pane_access import PANE_ACCESS

# `--size WxH`: the smallest window the panes are laid out for, and a sane upper bound.
MIN_SIZE = (640, 400)
MAX_SIZE = (7680, 4320)


@dataclass
class Options:
    data_dir: Path | None = None
    profile: str | None = None
    self_test: bool = False
    screenshot: Path | None = None
    theme: str | None = None
    pane: str | None = None
    size: tuple[int, int] | None = None
    time_first_rows: bool = False
    launched_at: float | None = None  # time.perf_counter() when main() began


def _size(text: str) -> tuple[int, int]:
    width, sep, height = text.lower().partition("x")
    try:
        size = (int(width), int(height))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not WIDTHxHEIGHT (e.g. 1280x720)") from None
    if not sep or not all(
        low <= n <= high for n, low, high in zip(size, MIN_SIZE, MAX_SIZE, strict=True)
    ):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a window size from {MIN_SIZE[0]}x{MIN_SIZE[1]}"
            f" to {MAX_SIZE[0]}x{MAX_SIZE[1]}"
        )
    return size


def parse_args(argv: list[str] | None) -> Options:
    parser = command_line()
    args = parser.parse_args(argv)
    if args.size is not None and args.screenshot is None:
        parser.error("--size goes with --screenshot")
    return Options(
        args.data_dir,
        args.profile,
        args.self_test,
        args.screenshot,
        args.theme,
        args.pane,
        args.size,
        args.time_first_rows,
    )


def command_line() -> argparse.ArgumentParser:
    """The options `lpwa-console --help` lists."""
    parser = argparse.ArgumentParser(
        prog="lpwa-console", description="Manage LoRaWAN and cellular IoT networks."
    )
    parser.add_argument("--profile", help="connection profile to open (default: the last one)")
    parser.add_argument("--data-dir", type=Path, help="settings and sandbox database here")
    parser.add_argument(
        "--self-test",
        action="store_true",
        help="open every pane, print one JSON line of timings, exit 0 when all is well",
    )
    parser.add_argument("--screenshot", type=Path, metavar="DIR", help="save a PNG of every pane")
    parser.add_argument(
        "--size",
        type=_size,
        metavar="WxH",
        help="window size of --screenshot, e.g. 1280x720 (default 1400x820)",
    )
    parser.add_argument("--theme", choices=["system", "light", "dark"])
    parser.add_argument(
        "--pane",
        metavar="NAME",
        # Every pane, from the one table of panes (the README lists the same 13).
        help="pane to show at start (those the account may use): " + ", ".join(PANE_ACCESS),
    )
    parser.add_argument(
        "--time-first-rows",
        action="store_true",
        help="diagnostics: start as usual, print one JSON line of the milliseconds from launch"
        " to the first device rows painted (and to each step before), then quit"
        " (bench/first_start.py)",
    )
    return parser


def make_settings(data_dir: Path | None) -> QSettings:
    if data_dir is not None:
        # A private ini file: tests and benches never touch the user's settings.
        return QSettings(str(data_dir / "settings.ini"), QSettings.Format.IniFormat)
    return QSettings(
        QSettings.Format.IniFormat, QSettings.Scope.UserScope, "lpwa-console", "console"
    )
