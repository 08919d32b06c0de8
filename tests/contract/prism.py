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


TOKEN_PATH = "/users-auth/protocol/openid-connect/token"


@contextmanager
def platform_shim(subscriber_mock: str, partner_mock: str) -> Iterator[str]:
    """One platform on a free loopback port, as a console profile sees it: the token endpoint
    (which Prism does not serve: any client-credentials request gets a bearer token), the
    subscriber interface from the device-manager mock (`/subscriptions/...`), the partner's
    from the network-manager mock (`/partners/...`); any other path is a 404, as on a 7.3
    platform. Yields its base URL (the token URL is base + TOKEN_PATH)."""
    import http.server
    import json

    import httpx

    http_client = httpx.Client(timeout=30)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            pass

        def _reply(self, status: int, body: bytes, headers: dict[str, str]) -> None:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            if self.path.startswith(TOKEN_PATH):
                token = {"access_token": TOKEN, "token_type": "Bearer", "expires_in": 3600}
                self._reply(200, json.dumps(token).encode(), {"Content-Type": "application/json"})
                return
            if self.path.startswith("/subscriptions/"):
                target = subscriber_mock
            elif self.path.startswith("/partners/"):
                target = partner_mock
            else:
                self._reply(404, b'{"code": 404, "message": "Not found"}', {})
                return
            keep = ("Accept", "Authorization", "Content-Type")
            headers = {k: v for k, v in self.headers.items() if k in keep}
            answer = http_client.request(
                self.command, target + self.path, content=body, headers=headers
            )
            passed = {"Content-Type": answer.headers.get("Content-Type", "application/json")}
            self._reply(answer.status_code, answer.content, passed)

        do_GET = do_POST = do_PUT = do_DELETE = _handle

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        http_client.close()
