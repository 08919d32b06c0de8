"""The CLI contract, through real processes (urllib, not httpx: as any client would)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import stat
import subprocess
import sys
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import pytest

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


# SIGTERM cannot be sent to another process on Windows (Popen.send_signal terminates it):
# there the console and the tests stop the sandbox by closing its stdin (below).
POSIX_SIGNALS = pytest.mark.skipif(sys.platform == "win32", reason="no SIGTERM on Windows")


@POSIX_SIGNALS
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


@pytest.mark.parametrize("simulate", [[], ["--simulate"]])
def test_serve_exits_with_stdin(tmp_path: Path, simulate: list[str]) -> None:
    # With --simulate: the parent leaving before the living network starts (it starts once
    # every route is in) leaves no simulator running.
    process, _ = _start(tmp_path / "s.db", "--exit-with-stdin", *simulate)
    assert process.stdin is not None
    process.stdin.close()
    assert process.wait(timeout=15) == 0


def test_seed_adds_devices(tmp_path: Path) -> None:
    db = tmp_path / "seed.db"
    result = json.loads(_run("seed", "--db", str(db), "--devices", "500"))
    assert result["added"] == 500 and result["devices"] == 500
    result = json.loads(_run("seed", "--db", str(db), "--devices", "250"))
    assert result["devices"] == 750
    # The devices are heard by the stations seeded around them: served at once.
    assert 0 < result["devicesHeard"] <= 750
    with sqlite3.connect(db) as conn:
        served = conn.execute("SELECT count(DISTINCT device_uid) FROM station_devices").fetchone()
        listed = conn.execute(
            "SELECT count(*) FROM devices WHERE receptions IS NOT NULL"
        ).fetchone()
    assert served[0] == listed[0] == result["devicesHeard"]


def test_listening_socket_is_named_tcp() -> None:
    """asyncio only sets TCP_NODELAY on accepted sockets whose listener says IPPROTO_TCP."""
    import socket

    from lpwa_console.sandbox.cli import listening_socket

    sock = listening_socket("127.0.0.1", 0)
    try:
        assert sock.proto == socket.IPPROTO_TCP and sock.getsockname()[1] > 0
    finally:
        sock.close()


def _fails_in_one_line(*args: str) -> str:
    done = subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    return lines[0]


@POSIX_SIGNALS
def test_sigterm_with_stdin_watch_and_simulator_exits_cleanly(tmp_path: Path) -> None:
    """The console's own options: a daemon thread reading stdin must not make the
    interpreter's shutdown fatal ("_enter_buffered_busy") after SIGTERM."""
    db = tmp_path / "term.db"
    for _ in range(2):
        process = subprocess.Popen(
            [*CLI, "serve", "--db", str(db), "--port", "0", "--seed", "50",
             "--exit-with-stdin", "--simulate", "--speed", "1"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )  # fmt: skip
        assert process.stdout is not None and process.stderr is not None
        assert json.loads(process.stdout.readline())["db"] == str(db.resolve())
        process.send_signal(signal.SIGTERM)
        err = process.stderr.read().decode(errors="replace")
        assert process.wait(timeout=30) == 0, err
        assert "Fatal Python error" not in err
        assert "Traceback" not in err
        process.stdout.close()
        process.stderr.close()
        assert process.stdin is not None
        process.stdin.close()


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("seed", "--devices", "-5"), "--devices: -5 is not a count"),
        (("seed", "--devices", "many"), "'many' is not a number"),
        (("serve", "--token-lifetime", "-1"), "--token-lifetime: -1 is not a number of seconds"),
        (("serve", "--token-lifetime", "0"), "--token-lifetime: 0 is not a number of seconds"),
        (("serve", "--speed", "0"), "--speed: 0 is not a positive factor"),
        (("serve", "--seed", "-1"), "--seed: -1 is not a count"),
        (("serve", "--port", "70000"), "--port: 70000 is not a port"),
    ],
)
def test_bad_options_are_refused_in_one_line(
    tmp_path: Path, args: tuple[str, ...], expected: str
) -> None:
    command, *options = args
    db = tmp_path / "never.db"
    line = _fails_in_one_line(command, "--db", str(db), *options)
    assert expected in line
    assert not db.exists()


def _file_state(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), path.stat().st_mtime_ns


def test_a_database_from_a_newer_version_is_refused_untouched(tmp_path: Path) -> None:
    from lpwa_console.sandbox.db import MIGRATIONS

    db = tmp_path / "newer.db"
    _run("seed", "--db", str(db), "--devices", "3")
    conn = sqlite3.connect(db)
    conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    conn.close()  # the last connection out checkpoints the WAL into the file
    before = _file_state(db)
    for command in (("serve", "--port", "0"), ("accounts",), ("seed", "--devices", "1")):
        line = _fails_in_one_line(command[0], "--db", str(db), *command[1:])
        assert "newer version of the sandbox" in line and str(db) in line
    assert _file_state(db) == before
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS) + 1
    assert conn.execute("SELECT count(*) FROM devices").fetchone()[0] == 3
    conn.close()


def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "notes.db"
    db.write_text("not a database, just some notes that happen to be long enough" * 20)
    assert "cannot be used" in _fails_in_one_line("accounts", "--db", str(db))
    assert "is a folder" in _fails_in_one_line("accounts", "--db", str(tmp_path))
    # A folder that cannot be made: under a file.
    line = _fails_in_one_line("accounts", "--db", str(db / "sub" / "x.db"))
    assert f"The folder {db / 'sub'} cannot be created" in line


@pytest.mark.skipif(
    os.name != "posix" or os.geteuid() == 0, reason="POSIX permissions; root writes anyway"
)
def test_a_read_only_database_or_folder_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "ro" / "r.db"
    _run("seed", "--db", str(db), "--devices", "2")
    db.chmod(0o400)
    try:
        assert "is read-only" in _fails_in_one_line("serve", "--db", str(db), "--port", "0")
    finally:
        db.chmod(0o600)
    db.parent.chmod(0o500)
    try:
        assert "is not writable" in _fails_in_one_line("accounts", "--db", str(db))
    finally:
        db.parent.chmod(0o700)


def test_read_only_refusal_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same refusal where permissions cannot be taken away (root, Windows): the
    operating system is made to answer "not writable"."""
    from lpwa_console.sandbox import cli

    db = tmp_path / "r.db"
    _run("seed", "--db", str(db), "--devices", "1")
    real_access = os.access
    monkeypatch.setattr(
        os, "access", lambda p, mode: real_access(p, mode & ~os.W_OK) and Path(p) != db
    )
    with pytest.raises(SystemExit) as stop:
        cli.main(["accounts", "--db", str(db)])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"lpwa-sandbox: The database {db} is read-only: the sandbox needs to write it"]


def test_a_busy_port_is_refused_in_one_line(tmp_path: Path) -> None:
    import socket

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        port = str(taken.getsockname()[1])
        line = _fails_in_one_line("serve", "--db", str(tmp_path / "p.db"), "--port", port)
        assert f"cannot listen on 127.0.0.1:{port}" in line
    finally:
        taken.close()


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_database_and_its_folder_are_private(tmp_path: Path) -> None:
    folder = tmp_path / "made" / "by-sandbox"
    db = folder / "private.db"
    process, _ = _start(db)
    try:
        # The live files: the database, its token file and SQLite's WAL sidecars, while
        # serving.
        tokens = db.with_name(db.name + ".tokens")
        files = [db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm"), tokens]
        files += [tokens.with_name(tokens.name + "-wal"), tokens.with_name(tokens.name + "-shm")]
        assert all(f.exists() for f in files)
        modes = {f.name: stat.S_IMODE(f.stat().st_mode) for f in files}
        assert modes == {f.name: 0o600 for f in files}
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    finally:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=15)
    assert process.returncode == 0


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_an_older_world_readable_database_is_narrowed(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    _run("seed", "--db", str(db), "--devices", "1")
    db.chmod(0o644)
    _run("accounts", "--db", str(db), "--json")
    assert stat.S_IMODE(db.stat().st_mode) == 0o600


def test_the_listening_socket_option_of_each_system(monkeypatch: pytest.MonkeyPatch) -> None:
    """POSIX reuses a port left in TIME_WAIT; Windows' SO_REUSEADDR would share a busy port,
    so it takes the port for itself instead (the option exists on Windows only: checked by
    name here, used there)."""
    import socket

    from lpwa_console.sandbox.cli import reuse_option

    assert reuse_option() == (socket.SO_REUSEADDR, 1) or sys.platform == "win32"
    monkeypatch.setattr(sys, "platform", "win32")
    assert reuse_option() == (getattr(socket, "SO_EXCLUSIVEADDRUSE", -5), 1)


def test_a_refusal_naming_a_non_ascii_path_arrives_in_utf8(tmp_path: Path) -> None:
    """The console reads the sandbox's pipes as UTF-8: the sandbox writes them so on every
    OS (a Windows pipe would otherwise get the ANSI code page)."""
    folder = tmp_path / "Zoë Ünal O'Brien"
    folder.mkdir()
    done = subprocess.run(
        [*CLI, "accounts", "--db", str(folder)],
        capture_output=True,
        timeout=60,
        env=dict(os.environ, PYTHONIOENCODING="latin-1"),  # what a pipe might otherwise get
    )
    assert done.returncode == 2
    assert f"{folder} is a folder".encode() in done.stderr
