"""`lpwa-sandbox`: serve the API, list the demo accounts, seed devices.

Contract relied on by the console and the tests:
  serve     prints exactly one JSON line on stdout once listening:
            {"base_url": ..., "token_url": ..., "db": ...}; logs go to stderr; exits 0 on
            SIGINT/SIGTERM (and at stdin EOF with --exit-with-stdin). With --phases, lines
            {"phase": "demo"} (creating the demo network of a new database) may come first;
            with --with-accounts the ready line also holds "accounts" (as `accounts --json`),
            which spares its parent a second process.
  accounts  --json prints a JSON list of {"role", "client_id", "client_secret", ...}.
  seed      adds N devices (and base stations) and prints one JSON line of figures.
A user error (a bad option, a database that cannot be served, a busy port) prints one line
on stderr and exits 2, without a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

from . import accounts, demo
from .db import Database, DatabaseRefused
from .settings import SandboxSettings

log = logging.getLogger("lpwa_console.sandbox")
USAGE_ERROR = 2


class _Parser(argparse.ArgumentParser):
    """Errors in one line (`--help` still shows the usage)."""

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE_ERROR, f"{self.prog}: {message}\n")


def _number(low: float, what: str, kind: type[int] | type[float] = int) -> Any:
    def parse(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"{text} is not {what}")
        return value

    return parse


def _port(text: str) -> int:
    value = _number(0, "a port (0 to 65535)")(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"{text} is not a port (0 to 65535)")
    return int(value)


_count = _number(0, "a count (0 or more)")
_seconds = _number(1, "a number of seconds (1 or more)")


def _factor(text: str) -> float:
    value = _number(0, "a positive factor", float)(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text} is not a positive factor")
    return float(value)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="lpwa-sandbox", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="serve the API on loopback")
    serve.add_argument("--db", type=Path, required=True)
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=_port, default=0, help="0: any free port")
    serve.add_argument("--seed", type=_count, default=None, metavar="N",
                       help="demo devices for a new database (default 2000)")  # fmt: skip
    serve.add_argument("--random-seed", type=int, default=1)
    serve.add_argument("--token-lifetime", type=_seconds, default=3600, metavar="SECONDS")
    serve.add_argument("--exit-with-stdin", action="store_true",
                       help="stop when stdin reaches EOF (the parent went away)")  # fmt: skip
    serve.add_argument("--access-log", action="store_true")
    serve.add_argument("--phases", action="store_true",
                       help='print {"phase": ...} lines on stdout before the ready line')  # fmt: skip
    serve.add_argument("--with-accounts", action="store_true",
                       help="the ready line also lists the demo accounts (with secrets)")  # fmt: skip
    serve.add_argument("--simulate", action="store_true",
                       help="run the living network simulator in the background")  # fmt: skip
    serve.add_argument("--speed", type=_factor, default=1.0, metavar="FACTOR",
                       help="simulated seconds per real second (default 1: timestamps stay"
                            " on the wall clock, as the console's time windows expect)")  # fmt: skip
    serve.add_argument("--sim-seed", type=int, default=None, metavar="N",
                       help="simulator seed (default: --random-seed)")  # fmt: skip

    acc = commands.add_parser("accounts", help="print the demo accounts")
    acc.add_argument("--db", type=Path, required=True)
    acc.add_argument("--json", action="store_true", help="as a JSON list")

    seed = commands.add_parser("seed", help="add realistic devices")
    seed.add_argument("--db", type=Path, required=True)
    seed.add_argument("--devices", type=_count, required=True)
    seed.add_argument("--stations", type=_count, default=None, metavar="N",
                      help="base stations to add (default: one per 100 devices)")  # fmt: skip
    seed.add_argument("--random-seed", type=int, default=1)
    return parser


def utf8_pipes() -> None:
    """Write UTF-8 to pipes, as the console reads them. A pipe's encoding is otherwise the
    locale's, on Windows the ANSI code page, and a refusal naming a path with "Ü" would
    arrive garbled; a bundle ignores PYTHONIOENCODING. A terminal keeps its own."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None and not stream.isatty() and hasattr(stream, "reconfigure"):
            stream.reconfigure(encoding="utf-8", errors="backslashreplace")


def main(argv: list[str] | None = None) -> None:
    utf8_pipes()
    args = _parser().parse_args(argv)
    logging.basicConfig(
        stream=sys.stderr,
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    commands = {"serve": _serve, "accounts": _accounts, "seed": _seed}
    try:
        code = commands[args.command](args)
    except DatabaseRefused as exc:
        print(f"lpwa-sandbox: {exc}", file=sys.stderr, flush=True)
        code = USAGE_ERROR
    raise SystemExit(code)


def _accounts(args: argparse.Namespace) -> int:
    # Only to read: a new database's history is the server's to make.
    db = demo.prepare(SandboxSettings(db_path=args.db), history=False)
    rows = accounts.listing(db.conn())
    db.close()
    if args.json:
        print(json.dumps(rows, indent=None))
    else:
        for row in rows:
            print(f"{row['role']:<24} {row['client_id']:<20} {row['client_secret']}")
    return 0


def _seed(args: argparse.Namespace) -> int:
    db = demo.prepare(SandboxSettings(db_path=args.db, demo_devices=0), history=False)
    started = time.perf_counter()
    added = demo.seed_devices(db, args.devices, seed=args.random_seed)
    wanted = args.devices // 100 if args.stations is None else args.stations
    from .demo_stations import seed_more_stations

    now = int(time.time() * 1000)
    stations = seed_more_stations(db, wanted, seed=args.random_seed, now=now)
    from .station_sim import StationSimulator

    with db.write() as conn:  # the devices are heard by the stations around them
        heard = StationSimulator(args.random_seed).hear_all(conn, now)
    seconds = time.perf_counter() - started
    total = db.conn().execute("SELECT count(*) FROM devices").fetchone()[0]
    total_stations = db.conn().execute("SELECT count(*) FROM stations").fetchone()[0]
    db.close()
    figures = {"added": added, "seconds": round(seconds, 2), "devices": total,
               "stationsAdded": stations, "stations": total_stations,
               "devicesHeard": heard}  # fmt: skip
    print(json.dumps(figures), flush=True)
    return 0


def _say(line: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


def _prepare_and_import(settings: SandboxSettings, *, phases: bool) -> Any:
    """The app on a prepared database. The database (for a new one, the demo network) is
    made in a thread while FastAPI and the routes are imported here: SQLite leaves the GIL
    while it writes, so the two overlap on a second core."""
    db = Database(settings.db_path)
    try:
        if phases and demo.needs_demo(db):
            _say({"phase": "demo"})
    finally:
        db.close()
    prepared: dict[str, Any] = {}

    def prepare() -> None:
        try:
            prepared["db"] = demo.prepare(settings, history=False)
        except BaseException as exc:  # raised again below, in the main thread
            prepared["error"] = exc

    worker = threading.Thread(target=prepare, name="prepare-db")
    worker.start()
    try:
        import uvicorn  # noqa: F401  (imported now, used by _serve)

        from .app import create_app
    finally:
        worker.join()
    if "error" in prepared:
        raise prepared["error"]
    return create_app(settings, db=prepared["db"], staged=True)


async def warm_routes(app: Any) -> None:
    """FastAPI prepares each route on its first match (~0.3 s for all of ours on a busy
    machine): one request for a path no route has, before listening, prepares them all
    here, so the console's first sign-in does not wait for it."""
    from .app import WARM_UP_PATH

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": WARM_UP_PATH,
        "raw_path": WARM_UP_PATH.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"localhost")],
        "client": ("127.0.0.1", 0),
        "server": ("127.0.0.1", 0),
    }

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(_message: dict[str, Any]) -> None:
        pass

    started = time.perf_counter()
    await app(scope, receive, send)
    log.info("routes prepared in %.0f ms", (time.perf_counter() - started) * 1000)


@contextlib.contextmanager
def _nothing() -> Iterator[None]:
    yield


def listening_socket(host: str, port: int) -> socket.socket:
    """The server's socket, named TCP (not protocol 0) so asyncio sets TCP_NODELAY on the
    connections it accepts: without it every small answer waits ~40 ms for the client's
    delayed ACK."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, *reuse_option())
    sock.bind((host, port))
    return sock


def reuse_option() -> tuple[int, int]:
    """POSIX: SO_REUSEADDR, so a restarted sandbox binds its port while the last one's
    connections linger in TIME_WAIT. Windows' SO_REUSEADDR would let two servers bind one
    port (a busy `--port` would not be refused): SO_EXCLUSIVEADDRUSE there instead, which
    also keeps another program from taking the port over."""
    if sys.platform == "win32":
        return getattr(socket, "SO_EXCLUSIVEADDRUSE", -5), 1  # -5: its value in winsock2.h
    return socket.SO_REUSEADDR, 1


REQUEST_THREADS = 1
# The other routes are imported once a console's first screen is served (sign-in, first
# page of devices), or another route is asked for, or after this long.
FIRST_SCREEN_WAIT_S = 1.5
# The demo's traffic history waits this long after the sandbox listens: a console's first
# requests come at once, and are served before the history's ~1 s of work starts.
HISTORY_DELAY_S = 2.0


def later_history(db: Database, settings: SandboxSettings) -> None:
    """The demo devices' traffic history, made in a thread a moment after the server is
    ready (a new data folder starts without waiting for it)."""
    if not demo.history_pending(db):
        return

    def fill() -> None:
        time.sleep(HISTORY_DELAY_S)
        try:
            demo.fill_history(db, settings)
        except Exception:  # the server stopping closed the database: made on the next start
            log.warning("the demo traffic history was not made", exc_info=True)

    threading.Thread(target=fill, name="demo-history", daemon=True).start()


def _serve(args: argparse.Namespace) -> int:
    import anyio.to_thread

    # The port first: a busy one is refused before minutes of seeding a new database.
    try:
        sock = listening_socket(args.host, args.port)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        print(f"lpwa-sandbox: cannot listen on {args.host}:{args.port}: {reason}", file=sys.stderr)
        return USAGE_ERROR
    settings = SandboxSettings(
        db_path=args.db.resolve(),
        token_lifetime_s=args.token_lifetime,
        demo_devices=2000 if args.seed is None else args.seed,
        seed=args.random_seed,
    )
    try:
        app = _prepare_and_import(settings, phases=args.phases)
    except BaseException:
        sock.close()
        raise

    def simulate() -> None:
        from .simulator import Simulator

        seed = args.random_seed if args.sim_seed is None else args.sim_seed
        app.state.simulator = Simulator(app.state.services.db, seed=seed, speed=args.speed)
        app.state.simulator.start()
        log.info("simulator running: seed %d, speed x%g", seed, args.speed)

    import uvicorn

    port = sock.getsockname()[1]
    from .http_errors import json_error_protocol

    config = uvicorn.Config(
        app, log_config=None, access_log=args.access_log, lifespan="on",
        timeout_graceful_shutdown=5, http=json_error_protocol(),
    )  # fmt: skip

    class Server(uvicorn.Server):
        # Our own handlers: uvicorn's re-raise the signal after shutdown (exit status != 0).
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield

    server = Server(config)

    async def run() -> None:
        loop = asyncio.get_running_loop()
        # One request thread: the requests' Python work takes turns on the GIL anyway, and
        # each thread more (anyio's default is 40) switching at every SQLite step cost CPU
        # per request: with two, 20 clients got 80% of one client's rate, with one 100%.
        anyio.to_thread.current_default_thread_limiter().total_tokens = REQUEST_THREADS

        def stop(*_: object) -> None:
            server.should_exit = True

        # SIGTERM never reaches a process on Windows (the console closes stdin instead);
        # Ctrl+Break in its terminal is SIGBREAK there.
        stop_signals = [signal.SIGINT, signal.SIGTERM]
        if sys.platform == "win32":
            stop_signals.append(signal.SIGBREAK)
        for sig in stop_signals:
            try:
                loop.add_signal_handler(sig, stop)
            except NotImplementedError:  # Windows
                signal.signal(sig, lambda *_: loop.call_soon_threadsafe(stop))
        if args.exit_with_stdin:

            def watch_stdin() -> None:
                # os.read, not sys.stdin.buffer: a daemon thread blocked inside the buffered
                # reader holds its lock, and the interpreter's shutdown (after SIGTERM) then
                # dies with "Fatal Python error: _enter_buffered_busy".
                with contextlib.suppress(Exception):
                    while os.read(stdin, 65536):
                        pass
                with contextlib.suppress(RuntimeError):  # the loop is closed already
                    loop.call_soon_threadsafe(stop)

            stdin = sys.stdin.fileno()

            threading.Thread(target=watch_stdin, name="stdin-watch", daemon=True).start()

        await warm_routes(app)
        task = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started and not task.done():
            await asyncio.sleep(0.001)  # the ready line at most 1 ms after uvicorn is (issue 8)
        if server.started:
            host = f"[{args.host}]" if ":" in args.host else args.host
            root = f"http://{host}:{port}"
            line: dict[str, Any] = {
                "base_url": root + settings.api_prefix,
                "token_url": root + settings.token_path,
                "db": str(settings.db_path),
            }
            if args.with_accounts:
                line["accounts"] = accounts.listing(app.state.services.db.conn())
            _say(line)
            # The rest of the routes, then the living network, after the first screen's.
            from .app import finish_routes, rest_wanted

            await rest_wanted(app, FIRST_SCREEN_WAIT_S, lambda: server.should_exit)
            if not server.should_exit:  # a stop asked at once (stdin's end): leave at once
                await asyncio.to_thread(finish_routes, app, settings)
                await warm_routes(app)
            if not server.should_exit:  # a stop asked meanwhile: no network to start
                if args.simulate:
                    simulate()
                later_history(app.state.services.db, settings)
        await task
        simulator = getattr(app.state, "simulator", None)
        if simulator is not None:  # started after the lifespan's end had run: stop it here
            simulator.stop()

    asyncio.run(run())
    log.info("sandbox stopped")
    return 0 if server.started else 1
