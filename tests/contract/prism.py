"""A Stoplight Prism mock serving one of the platform's public reference contracts
(`../shared/reference/`), on a free loopback port, with its request validation on.

Prism is installed by `./dev test` into `.prism/` (pinned, once; see `./dev`). The tests
that need it skip, saying why, when Node is missing or the install failed."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = Path(os.environ.get("LPWA_REFERENCE_DIR", ROOT.parent / "shared" / "reference"))
DEVICE_MANAGER = REFERENCE / "device-manager.tpe-public.openapi.yaml"
NETWORK_MANAGER = REFERENCE / "network-manager.tpe-public.openapi.yaml"
PRISM = ROOT / ".prism" / "node_modules" / ".bin" / "prism"
# A bearer token for the mock: Prism checks that one is sent, not what it is.
TOKEN = "contract-test"


def skip_reason(contract: Path) -> str | None:
    """Why the mock cannot run here, or None."""
    if shutil.which("node") is None:
        return "Node.js is not installed: the reference mock (Stoplight Prism) cannot run"
    if not PRISM.exists():
        return f"Prism is not installed in {PRISM.parent.parent.parent} (./dev test installs it)"
    if not contract.exists():
        return f"the reference contract {contract} is not on this machine"
    return None


def _free_port() -> int:
    # Prism takes no port 0: ask the OS for a free one and hand it over.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def prism_mock(contract: Path, *, timeout_s: float = 60.0) -> Iterator[str]:
    """Start `prism mock` on `contract`, wait until it listens, yield its base URL, stop it."""
    reason = skip_reason(contract)
    if reason:
        pytest.skip(reason)
    port = _free_port()
    process = subprocess.Popen(
        # Request validation is Prism's default (an invalid request is answered 422). Not
        # --errors: it would also turn the reference's own examples that break its schemas
        # (a Device example without `connectivity`, ...) into 500s.
        [str(PRISM), "mock", "--host", "127.0.0.1", "--port", str(port), str(contract)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    output: list[str] = []
    try:
        deadline = time.monotonic() + timeout_s
        assert process.stdout is not None
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            output.append(line)
            if "Prism is listening" in line:
                break
        else:
            raise RuntimeError("Prism did not start in time:\n" + "".join(output[-20:]))
        if process.poll() is not None or not output or "listening" not in output[-1]:
            raise RuntimeError("Prism did not start:\n" + "".join(output[-20:]))
        # Its log goes on: read it away so the pipe never fills.
        threading.Thread(target=process.stdout.read, daemon=True).start()
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
