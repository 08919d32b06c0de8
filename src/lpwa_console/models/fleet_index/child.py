"""The fleet index's sync process: `python -m lpwa_console.models.fleet_index.child PATH`
(in a bundle `<console> fleet-index PATH`), started by `process.SyncProcess`.

Why a process: decoding a million devices' pages and writing them is CPU work; in the
console's process it held the GIL and a core while the UI thread waited (stalls of 70-400
ms). Here it runs at a lower priority than the console and the server, on a core the
operating system gives it when one is free, and the UI thread never waits for it.

It reads its sign-in from stdin (the only way a secret reaches it: never the command line,
the environment, a file or a log), then commands, and writes progress to stdout (JSON
lines, `protocol`). It runs the same `SyncThread` logic as the in-process runner, in its
main thread; it stops at "stop" or at the end of stdin (the console closed it, or died).
No Qt here.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from .progress import (
    FULL_EVERY_S,
    PAGE_SIZE,
    REFRESH_EVERY_S,
    RefreshCost,
    SyncProgress,
    SyncSettings,
)
from .protocol import SignIn, cost_line, progress_line, read_command, read_sign_in
from .sync import SyncThread

if TYPE_CHECKING:
    from ...api import LpwaClient

log = logging.getLogger(__name__)

NICE = 10  # POSIX: the console and a local server run at 0
BELOW_NORMAL_PRIORITY_CLASS = 0x00004000  # Windows' SetPriorityClass


def lower_priority() -> None:
    """Below the console's priority: it and the server keep a core when the machine is
    busy. Best effort: an OS that refuses leaves it as it is."""
    try:
        if sys.platform == "win32":
            import ctypes

            kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined,unused-ignore]
            kernel32.SetPriorityClass(kernel32.GetCurrentProcess(), BELOW_NORMAL_PRIORITY_CLASS)
        else:
            os.nice(NICE)
    except (OSError, AttributeError):
        log.info("the fleet index sync keeps its priority", exc_info=True)


class Reporter:
    """Writes reports as JSON lines; a closed stdout (the console gone) stops the sync."""

    def __init__(self, out: BinaryIO, on_gone: threading.Event) -> None:
        self.out = out
        self.gone = on_gone
        self.lock = threading.Lock()

    def write(self, line: bytes) -> None:
        with self.lock:
            try:
                self.out.write(line)
                self.out.flush()
            except (OSError, ValueError):
                self.gone.set()

    def progress(self, progress: SyncProgress) -> None:
        self.write(progress_line(progress))

    def cost(self, cost: RefreshCost) -> None:
        self.write(cost_line(cost))


def follow_commands(stdin: BinaryIO, sync: SyncThread) -> None:
    """The console's commands, until "stop" or the end of stdin (then: stop)."""
    for line in iter(stdin.readline, b""):
        command = read_command(line)
        if command == "pause":
            sync.pause()
        elif command == "resume":
            sync.resume()
        elif command == "refresh":
            sync.refresh_now()
        elif command == "stop":
            break
    sync.stop()


def make_client_of(sign_in: SignIn) -> LpwaClient:
    from ...api import LpwaClient

    return LpwaClient(sign_in.base_url, sign_in.credentials, verify=sign_in.verify)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="fleet-index", description=__doc__.split("\n")[0])
    parser.add_argument("path", type=Path, help="the index file")
    parser.add_argument("--page-size", type=int, default=PAGE_SIZE)
    parser.add_argument("--refresh-every", type=float, default=REFRESH_EVERY_S)
    parser.add_argument("--full-every", type=float, default=FULL_EVERY_S)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    lower_priority()
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    first = stdin.readline()
    if not first:
        return 0  # the console closed before signing in: nothing to do
    try:
        sign_in = read_sign_in(first)
    except ValueError as exc:
        print(f"fleet-index: {exc}", file=sys.stderr)
        return 2
    gone = threading.Event()
    reporter = Reporter(stdout, gone)
    settings = SyncSettings(args.page_size, args.refresh_every, args.full_every)
    sync = SyncThread(
        args.path,
        lambda: make_client_of(sign_in),
        reporter.progress,
        settings,
        on_cost=reporter.cost,
    )
    threading.Thread(target=follow_commands, args=(stdin, sync), daemon=True).start()

    def stop_when_gone() -> None:
        gone.wait()
        sync.stop()

    threading.Thread(target=stop_when_gone, daemon=True).start()
    sync.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
