"""Sandbox route tests: each test gets its own temporary database and app."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from lpwa_console.sandbox import SandboxSettings, create_app, demo
from lpwa_console.sandbox.accounts import listing
from lpwa_console.sandbox.db.sealing import key_path

API = "/thingpark/wireless/rest"
DEVICES = f"{API}/subscriptions/mine/devices"
TOKEN = "/users-auth/protocol/openid-connect/token"
DEMO_DEVICES = 300


class Sandbox:
    """A TestClient plus bearer headers per role."""

    def __init__(self, client: TestClient, accounts: list[dict[str, Any]]) -> None:
        self.client = client
        self.accounts = {a["role"]: a for a in accounts}
        self._headers: dict[str, dict[str, str]] = {}

    def token(self, role: str) -> str:
        account = self.accounts[role]
        response = self.client.post(
            TOKEN,
            data={
                "grant_type": "client_credentials",
                "client_id": account["client_id"],
                "client_secret": account["client_secret"],
            },
        )
        assert response.status_code == 200, response.text
        return str(response.json()["access_token"])

    def headers(self, role: str = "subscriber") -> dict[str, str]:
        if role not in self._headers:
            self._headers[role] = {"Authorization": f"Bearer {self.token(role)}"}
        return self._headers[role]

    def get(self, path: str, role: str = "subscriber", **kw: Any) -> Any:
        headers = self.headers(role) | kw.pop("headers", {})
        return self.client.get(path, headers=headers, **kw)

    def post(self, path: str, role: str = "subscriber", **kw: Any) -> Any:
        headers = self.headers(role) | kw.pop("headers", {})
        return self.client.post(path, headers=headers, **kw)

    def put(self, path: str, role: str = "subscriber", **kw: Any) -> Any:
        headers = self.headers(role) | kw.pop("headers", {})
        return self.client.put(path, headers=headers, **kw)

    def all_devices(self, role: str = "subscriber", **params: Any) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        index = 1
        while True:
            page = self.get(DEVICES, role, params={**params, "pageIndex": index, "pageSize": 1000})
            assert page.status_code == 200, page.text
            body = page.json()
            out += body["briefs"]
            if not body["more"]:
                return out
            index += 1


# Demo databases made once per session and settings: a new test database is a copy (a new
# demo costs most of a second: its key pairs, stations and histories; a copy, milliseconds).
_TEMPLATES: dict[tuple[tuple[str, Any], ...], Path] = {}


def _template(settings: dict[str, Any]) -> Path:
    key = tuple(sorted(settings.items()))
    if key not in _TEMPLATES:
        folder = Path(tempfile.mkdtemp(prefix="lpwa-template-"))
        atexit.register(shutil.rmtree, folder, True)
        path = folder / "template.db"
        db = demo.prepare(SandboxSettings(db_path=path, **settings))
        db.conn().execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.close()
        _TEMPLATES[key] = path
    return _TEMPLATES[key]


def copy_database(source: Path, target: Path) -> None:
    """A database and its sealing key file (the keys it holds open only with it)."""
    shutil.copyfile(source, target)
    shutil.copyfile(key_path(source), key_path(target))


def make_sandbox(path: Path, **settings: Any) -> Iterator[Sandbox]:
    if not path.exists():
        copy_database(_template(settings), path)
    app = create_app(SandboxSettings(db_path=path, **settings))
    db = app.state.services.db
    with TestClient(app) as client:
        yield Sandbox(client, listing(db.conn()))


@pytest.fixture
def sb(tmp_path: Path) -> Iterator[Sandbox]:
    yield from make_sandbox(tmp_path / "sandbox.db", demo_devices=DEMO_DEVICES)
