"""`lpwa-sandbox`: serve the API, list the demo accounts, seed devices.

Contract relied on by the console and the tests:
  serve     prints exactly one JSON line on stdout once listening:
            {"base_url": ..., "token_url": ..., "db": ...}; logs go to stderr; exits 0 on
            SIGINT/SIGTERM (and at stdin EOF with --exit-with-stdin).
  accounts  --json prints a JSON list of {"role", "client_id", "client_secret", ...}.
  seed      adds N devices and prints one JSON line of figures.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import signal
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from . import accounts, demo
from .settings import SandboxSettings

log = logging.getLogger("lpwa_console.sandbox")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="lpwa-sandbox", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="serve the API on loopback")
    serve.add_argument("--db", type=Path, required=True)
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=0, help="0: any free port")
    serve.add_argument("--seed", type=int, default=None, metavar="N",
                       help="demo devices for a new database (default 2000)")  # fmt: skip
    serve.add_argument("--random-seed", type=int, default=1)
    serve.add_argument("--token-lifetime", type=int, default=3600, metavar="SECONDS")
    serve.add_argument("--exit-with-stdin", action="store_true",
                       help="stop when stdin reaches EOF (the parent went away)")  # fmt: skip
    serve.add_argument("--access-log", action="store_true")
    serve.add_argument("--simulate", action="store_true",
                       help="run the living network simulator in the background")  # fmt: skip
    serve.add_argument("--speed", type=float, default=1.0, metavar="FACTOR",
                       help="simulated seconds per real second (default 1: timestamps stay"
                            " on the wall clock, as the console's time windows expect)")  # fmt: skip
    serve.add_argument("--sim-seed", type=int, default=None, metavar="N",
                       help="simulator seed (default: --random-seed)")  # fmt: skip

    acc = commands.add_parser("accounts", help="print the demo accounts")
    acc.add_argument("--db", type=Path, required=True)
    acc.add_argument("--json", action="store_true", help="as a JSON list")

    seed = commands.add_parser("seed", help="add realistic devices")
    seed.add_argument("--db", type=Path, required=True)
    seed.add_argument("--devices", type=int, required=True)
    seed.add_argument("--random-seed", type=int, default=1)
    return parser


def main(argv: list[str] | None = None) -> None:
    args = _parser().parse_args(argv)
    logging.basicConfig(
        stream=sys.stderr,
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    if args.command == "serve":
        raise SystemExit(_serve(args))
    if args.command == "accounts":
        raise SystemExit(_accounts(args))
    raise SystemExit(_seed(args))


def _accounts(args: argparse.Namespace) -> int:
    db = demo.prepare(SandboxSettings(db_path=args.db))
    rows = accounts.listing(db.conn())
    db.close()
    if args.json:
        print(json.dumps(rows, indent=None))
    else:
        for row in rows:
            print(f"{row['role']:<24} {row['client_id']:<20} {row['client_secret']}")
    return 0


def _seed(args: argparse.Namespace) -> int:
    db = demo.prepare(SandboxSettings(db_path=args.db, demo_devices=0))
    started = time.perf_counter()
    added = demo.seed_devices(db, args.devices, seed=args.random_seed)
    seconds = time.perf_counter() - started
    total = db.conn().execute("SELECT count(*) FROM devices").fetchone()[0]
    db.close()
    print(json.dumps({"added": added, "seconds": round(seconds, 2), "devices": total}), flush=True)
    return 0


def listening_socket(host: str, port: int) -> socket.socket:
    """The server's socket, named TCP (not protocol 0) so asyncio sets TCP_NODELAY on the
    connections it accepts: without it every small answer waits ~40 ms for the client's
    delayed ACK."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    return sock


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from .app import create_app

    settings = SandboxSettings(
        db_path=args.db.resolve(),
        token_lifetime_s=args.token_lifetime,
        demo_devices=2000 if args.seed is None else args.seed,
        seed=args.random_seed,
    )
    app = create_app(settings)
    if args.simulate:
        from .simulator import Simulator

        if args.speed <= 0:
            log.error("--speed must be positive")
            return 2
        seed = args.random_seed if args.sim_seed is None else args.sim_seed
        app.state.simulator = Simulator(app.state.services.db, seed=seed, speed=args.speed)
        app.state.simulator.start()
        log.info("simulator running: seed %d, speed x%g", seed, args.speed)
    sock = listening_socket(args.host, args.port)
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        app, log_config=None, access_log=args.access_log, lifespan="on", timeout_graceful_shutdown=5
    )

    class Server(uvicorn.Server):
        # Our own handlers: uvicorn's re-raise the signal after shutdown (exit status != 0).
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield

    server = Server(config)

    async def run() -> None:
        loop = asyncio.get_running_loop()

        def stop(*_: object) -> None:
            server.should_exit = True

        for sig in (signal.SIGINT, signal.SIGTERM):
            try:
                loop.add_signal_handler(sig, stop)
            except NotImplementedError:  # Windows
                signal.signal(sig, lambda *_: loop.call_soon_threadsafe(stop))
        if args.exit_with_stdin:

            def watch_stdin() -> None:
                with contextlib.suppress(Exception):
                    while sys.stdin.buffer.read(65536):
                        pass
                loop.call_soon_threadsafe(stop)

            threading.Thread(target=watch_stdin, name="stdin-watch", daemon=True).start()

        task = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started and not task.done():
            await asyncio.sleep(0.01)
        if server.started:
            host = f"[{args.host}]" if ":" in args.host else args.host
            root = f"http://{host}:{port}"
            line = {
                "base_url": root + settings.api_prefix,
                "token_url": root + settings.token_path,
                "db": str(settings.db_path),
            }
            sys.stdout.write(json.dumps(line) + "\n")
            sys.stdout.flush()
        await task

    asyncio.run(run())
    log.info("sandbox stopped")
    return 0 if server.started else 1
