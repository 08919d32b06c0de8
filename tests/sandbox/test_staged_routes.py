"""A staged app (what `serve` runs) answers the first screen at once, holds the rest until
all routes are in, then matches exactly as an app made whole."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx

from lpwa_console.sandbox import SandboxSettings, create_app
from lpwa_console.sandbox.accounts import listing
from lpwa_console.sandbox.app import finish_routes

from .conftest import API, DEVICES, TOKEN, _template, copy_database


def table(app: Any) -> list[tuple[str, tuple[str, ...]]]:
    return [
        (getattr(r, "path", type(r).__name__), tuple(sorted(getattr(r, "methods", None) or ())))
        for r in app.router.routes
    ]


def staged_app(tmp_path: Path) -> tuple[Any, SandboxSettings, dict[str, str]]:
    settings = SandboxSettings(db_path=tmp_path / "sandbox.db", demo_devices=300)
    copy_database(_template({"demo_devices": 300}), settings.db_path)
    app = create_app(settings, staged=True)
    account = {a["role"]: a for a in listing(app.state.services.db.conn())}["subscriber"]
    return app, settings, account


async def bearer(client: httpx.AsyncClient, account: dict[str, str]) -> dict[str, str]:
    answer = await client.post(
        TOKEN,
        data={
            "grant_type": "client_credentials",
            "client_id": account["client_id"],
            "client_secret": account["client_secret"],
        },
    )
    assert answer.status_code == 200, answer.text
    return {"Authorization": f"Bearer {answer.json()['access_token']}"}


def test_first_screen_served_the_rest_held_until_all_routes_are_in(tmp_path: Path) -> None:
    app, settings, account = staged_app(tmp_path)

    async def scenario() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://sandbox") as client:
            headers = await bearer(client, account)
            assert (await client.get(f"{API}/subscriptions/mine", headers=headers)).is_success
            page = await client.get(DEVICES, headers=headers, params={"pageSize": 10})
            assert page.status_code == 200 and len(page.json()["briefs"]) == 10
            # /devices/alarms would match /devices/{deviceUid} now: it waits instead.
            held = asyncio.ensure_future(client.get(f"{DEVICES}/alarms", headers=headers))
            for _ in range(20):
                await asyncio.sleep(0)
            assert not held.done()
            await asyncio.to_thread(finish_routes, app, settings)
            answer = await asyncio.wait_for(held, 30)
            assert answer.status_code == 200, answer.text
            assert "briefs" in answer.json()

    asyncio.run(scenario())


def test_a_finished_staged_app_matches_in_the_order_of_a_whole_one(tmp_path: Path) -> None:
    app, settings, _account = staged_app(tmp_path)
    whole = create_app(SandboxSettings(db_path=tmp_path / "whole.db", demo_devices=300))
    assert len(table(app)) < len(table(whole))
    finish_routes(app, settings)
    assert table(app) == table(whole)
