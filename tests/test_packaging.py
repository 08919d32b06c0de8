"""The packaged console's sandbox dispatch, without building a bundle.

In a PyInstaller bundle `sys.executable` is the console, so models/embedded.py starts the
sandbox as `<console> sandbox ...` and packaging/frozen_main.py hands that to the sandbox CLI.
Here `sys.frozen` is simulated and the entry script is run by the test's Python.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from PySide6.QtCore import QProcess

from lpwa_console.models import embedded
from lpwa_console.models.embedded import EmbeddedSandbox, sandbox_command

ROOT = Path(__file__).resolve().parents[1]
FROZEN_MAIN = ROOT / "packaging" / "frozen_main.py"
SERVE_OPTIONS = ["--port", "0", "--exit-with-stdin", "--simulate", "--speed", "1"]
SERVE_OPTIONS += ["--phases", "--with-accounts"]


def load_frozen_main() -> ModuleType:
    # By path: the folder is named like the `packaging` distribution, so never import it.
    spec = importlib.util.spec_from_file_location("lpwa_frozen_main", FROZEN_MAIN)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class RecordingProcess(QProcess):
    """A QProcess that records what it was asked to start and starts nothing."""

    launched: list[tuple[str, list[str]]] = []

    def start(self, program: str, arguments: list[str]) -> None:  # type: ignore[override]
        RecordingProcess.launched.append((program, list(arguments)))


def commands_run(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[tuple[str, list[str]]]:
    """The server and accounts commands an EmbeddedSandbox runs (nothing is started)."""
    RecordingProcess.launched = []
    monkeypatch.setattr(embedded, "QProcess", RecordingProcess)
    sandbox = EmbeddedSandbox(tmp_path, python="/opt/lpwa-console/lpwa-console")
    sandbox.start()
    sandbox._fetch_accounts()
    return RecordingProcess.launched


def test_from_source_the_sandbox_runs_as_python_dash_m(
    qapp: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delattr(sys, "frozen", raising=False)
    db = str(tmp_path / "sandbox.db")
    serve, accounts = commands_run(monkeypatch, tmp_path)
    program = "/opt/lpwa-console/lpwa-console"
    assert serve == (program, ["-m", "lpwa_console.sandbox", "serve", "--db", db, *SERVE_OPTIONS])
    assert accounts == (program, ["-m", "lpwa_console.sandbox", "accounts", "--db", db, "--json"])
    src = str(ROOT / "src")
    assert embedded._environment().value("PYTHONPATH").split(os.pathsep)[0] == src


def test_frozen_the_console_runs_itself_with_sandbox(
    qapp: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.delenv("PYTHONPATH", raising=False)  # whatever the caller's environment holds
    db = str(tmp_path / "sandbox.db")
    serve, accounts = commands_run(monkeypatch, tmp_path)
    program = "/opt/lpwa-console/lpwa-console"
    assert serve == (program, ["sandbox", "serve", "--db", db, *SERVE_OPTIONS])
    assert accounts == (program, ["sandbox", "accounts", "--db", db, "--json"])
    # A bundle carries its modules: no source tree is put on PYTHONPATH.
    pythonpath = embedded._environment().value("PYTHONPATH", "")
    assert str(ROOT / "src") not in pythonpath.split(os.pathsep)


def test_the_default_program_is_sys_executable(monkeypatch: pytest.MonkeyPatch) -> None:
    # In a bundle sys.executable is the console binary: the command then runs the console.
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert EmbeddedSandbox(Path("unused"))._python == sys.executable
    assert sandbox_command(sys.executable, "accounts")[1][0] == "sandbox"


def test_the_entry_point_sends_sandbox_to_the_sandbox_cli(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    _, args = sandbox_command("console", "accounts", "--db", "x.db", "--json")
    frozen_main = load_frozen_main()
    calls: list[list[str]] = []

    def sandbox_main(argv: list[str]) -> None:
        calls.append(argv)
        raise SystemExit(0)

    monkeypatch.setattr("lpwa_console.sandbox.cli.main", sandbox_main)
    monkeypatch.setattr("lpwa_console.startup.main", lambda argv: pytest.fail("GUI started"))
    with pytest.raises(SystemExit) as exit_:
        frozen_main.main(args)
    assert exit_.value.code == 0
    assert calls == [["accounts", "--db", "x.db", "--json"]]


def test_the_entry_point_sends_anything_else_to_the_gui(monkeypatch: pytest.MonkeyPatch) -> None:
    frozen_main = load_frozen_main()
    calls: list[list[str]] = []

    def console_main(argv: list[str]) -> int:
        calls.append(argv)
        return 3

    monkeypatch.setattr("lpwa_console.startup.main", console_main)
    monkeypatch.setattr(
        "lpwa_console.sandbox.cli.main", lambda argv: pytest.fail("sandbox started")
    )
    with pytest.raises(SystemExit) as exit_:
        frozen_main.main(["--self-test", "--data-dir", "d"])
    assert exit_.value.code == 3
    assert calls == [["--self-test", "--data-dir", "d"]]


def test_the_frozen_accounts_command_really_runs(tmp_path: Path) -> None:
    """The command line embedded.py builds in a bundle, through the entry script, for real:
    the accounts come back as JSON, and the sandbox side never imports Qt."""
    probe = (
        "import runpy, sys\n"
        "try:\n"
        f"    runpy.run_path({str(FROZEN_MAIN)!r}, run_name='__main__')\n"
        "finally:\n"
        "    print('qt imported' if 'PySide6' in sys.modules else 'no qt', file=sys.stderr)\n"
    )
    args = ["sandbox", "accounts", "--db", str(tmp_path / "sandbox.db"), "--json"]
    done = subprocess.run(
        [sys.executable, "-c", probe, *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    accounts = json.loads(done.stdout)
    assert {"subscriber", "operator"} <= {a["role"] for a in accounts}
    assert done.stderr.strip().endswith("no qt")


def test_the_entry_point_sends_fleet_index_to_the_sync(monkeypatch: pytest.MonkeyPatch) -> None:
    from lpwa_console.models.fleet_index.process import index_command

    monkeypatch.setattr(sys, "frozen", True, raising=False)
    program, args = index_command("console", "index.sqlite", "--page-size", "100")
    assert program == "console" and args[0] == "fleet-index"
    frozen_main = load_frozen_main()
    calls: list[list[str]] = []

    def sync_main(argv: list[str]) -> int:
        calls.append(argv)
        return 0

    monkeypatch.setattr("lpwa_console.models.fleet_index.child.main", sync_main)
    monkeypatch.setattr("lpwa_console.startup.main", lambda argv: pytest.fail("GUI started"))
    with pytest.raises(SystemExit) as exit_:
        frozen_main.main(args)
    assert exit_.value.code == 0
    assert calls == [["index.sqlite", "--page-size", "100"]]
