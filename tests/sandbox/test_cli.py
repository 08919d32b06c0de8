"""The CLI contract, through real processes (urllib, not httpx: as any client would)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

CLI = [sys.executable, "-m", "lpwa_console.sandbox"]


def _run(*args: str) -> str:
    done = subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=60, check=True)
    return done.stdout


def _start(db: Path, *extra: str) -> tuple[subprocess.Popen[str], dict[str, Any]]:
    process = subprocess.Popen(
        [*CLI, "serve", "--db", str(db), "--port", "0", "--seed", "100", *extra],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line, process.stderr.read() if process.stderr else ""
    return process, json.loads(line)


def test_serve_prints_one_json_line_answers_and_stops_on_sigterm(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    process, info = _start(db)
    try:
        assert set(info) == {"base_url", "token_url", "db"}
        assert info["base_url"].startswith("http://127.0.0.1:")
        assert info["base_url"].endswith("/thingpark/wireless/rest")
        assert Path(info["db"]) == db.resolve()
        accounts = json.loads(_run("accounts", "--db", str(db), "--json"))
        assert {a["role"] for a in accounts} >= {
            "subscriber",
            "subscriber-restricted",
            "subscriber-viewer",
            "operator",
            "supplier",
            "partner",
        }
        subscriber = next(a for a in accounts if a["role"] == "subscriber")
        form = urllib.parse.urlencode(
            {
                "grant_type": "client_credentials",
                "client_id": subscriber["client_id"],
                "client_secret": subscriber["client_secret"],
            }
        ).encode()
        with urllib.request.urlopen(info["token_url"], data=form, timeout=10) as response:
            token = json.load(response)
        assert token["token_type"] == "Bearer"
        request = urllib.request.Request(
            info["base_url"] + "/subscriptions/mine/devices?pageSize=10",
            headers={"Authorization": "Bearer " + token["access_token"]},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            page = json.load(response)
        assert page["count"] == 100 and len(page["briefs"]) == 10
    finally:
        process.send_signal(signal.SIGTERM)
        out, _ = process.communicate(timeout=15)
    assert process.returncode == 0
    assert out == ""  # the JSON line was the only stdout


def test_serve_exits_with_stdin(tmp_path: Path) -> None:
    process, _ = _start(tmp_path / "s.db", "--exit-with-stdin")
    assert process.stdin is not None
    process.stdin.close()
    assert process.wait(timeout=15) == 0


def test_seed_adds_devices(tmp_path: Path) -> None:
    db = tmp_path / "seed.db"
    result = json.loads(_run("seed", "--db", str(db), "--devices", "500"))
    assert result["added"] == 500 and result["devices"] == 500
    result = json.loads(_run("seed", "--db", str(db), "--devices", "250"))
    assert result["devices"] == 750


def test_listening_socket_is_named_tcp() -> None:
    """asyncio only sets TCP_NODELAY on accepted sockets whose listener says IPPROTO_TCP."""
    import socket

    from lpwa_console.sandbox.cli import listening_socket

    sock = listening_socket("127.0.0.1", 0)
    try:
        assert sock.proto == socket.IPPROTO_TCP and sock.getsockname()[1] > 0
    finally:
        sock.close()
