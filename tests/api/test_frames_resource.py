"""Traffic history: /frames/aggregated parameters and the deprecated raw frames."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest
import respx

from lpwa_console.api import LpwaClient

pytestmark = pytest.mark.anyio

BASE = "https://platform.test/rest"
DEVICE = f"{BASE}/subscriptions/mine/devices/e70B3D5E75E000001"


@pytest.fixture
async def client():
    async with httpx.AsyncClient() as http:
        yield LpwaClient(BASE, None, http=http)


@respx.mock
async def test_aggregated_window_and_step(client: LpwaClient) -> None:
    route = respx.get(f"{DEVICE}/frames/aggregated").mock(
        return_value=httpx.Response(
            200,
            json={
                "briefs": [
                    {"timestamp": 1000, "up": {"count": 4}, "dw": {"count": 1}},
                    {"timestamp": 2000, "up": {"count": 0}, "dw": {"count": 2}},
                ],
                "now": 3000,
            },
        )
    )
    history = await client.frames.aggregated(
        "e70B3D5E75E000001",
        begin=datetime(2024, 5, 1, tzinfo=UTC),
        duration=timedelta(days=7),
        step="DAY",
        types=[0, 1],
    )
    assert history.series() == ([1000, 2000], [4, 0], [1, 2])
    params = route.calls[0].request.url.params
    assert params["begin"] == "2024-05-01T00:00:00.000Z"
    assert (params["duration"], params["step"]) == ("P7D", "P1D")
    assert params.get_list("type") == ["0", "1"]


@respx.mock
async def test_default_step_is_an_hour(client: LpwaClient) -> None:
    route = respx.get(f"{DEVICE}/frames/aggregated").mock(
        return_value=httpx.Response(200, json={"briefs": []})
    )
    await client.frames.aggregated("e70B3D5E75E000001")
    assert dict(route.calls[0].request.url.params) == {"step": "PT1H"}


async def test_bad_step(client: LpwaClient) -> None:
    with pytest.raises(ValueError, match="duration"):
        await client.frames.aggregated("1", step="FORTNIGHT")


@respx.mock
async def test_deprecated_frames_warn(client: LpwaClient) -> None:
    respx.get(f"{DEVICE}/frames").mock(
        return_value=httpx.Response(200, json={"briefs": [{"type": 0, "timestamp": 5}]})
    )
    with pytest.warns(DeprecationWarning, match="aggregated"):
        frames = await client.frames.frames("e70B3D5E75E000001", duration="PT1H")
    assert frames.briefs[0].timestamp == 5
