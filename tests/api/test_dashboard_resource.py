"""The dashboard resource: paths, the duration parameter and the parsed answers."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest
import respx

from lpwa_console.api import LpwaClient
from lpwa_console.api.errors import APIError

pytestmark = pytest.mark.anyio

BASE = "https://platform.test/rest"
OPS = f"{BASE}/operators/mine"
KPI = {
    "ID": "traffic",
    "name": "Rates",
    "metrics": [
        {"name": "uplinks", "colorId": "blue", "lineStyle": "SOLID"},
        {"name": "byServer.*", "colorId": "red", "lineStyle": "DOTTED", "keyDimension": "as"},
    ],
    "lastValues": {"durations": ["PT6H", "P1D"]},
}


@pytest.fixture
async def client():
    async with httpx.AsyncClient() as http:
        yield LpwaClient(BASE, None, http=http)


@respx.mock
async def test_kpi_metadata(client: LpwaClient) -> None:
    respx.get(f"{OPS}/kpis/traffic").mock(return_value=httpx.Response(200, json=KPI))
    kpi = await client.dashboard.kpi("traffic")
    assert kpi.durations == ["PT6H", "P1D"]
    assert kpi.metrics[1].wildcard and kpi.metrics[1].keyDimension == "as"
    assert kpi.metric_of("byServer.as-1") is kpi.metrics[1]


@respx.mock
async def test_last_values_send_the_duration(client: LpwaClient) -> None:
    route = respx.get(f"{OPS}/kpis/traffic/lastValues").mock(
        return_value=httpx.Response(
            200,
            json={
                "kpi": "traffic",
                "duration": "P1D",
                "since": 1,
                "until": 2,
                "series": [{"key": "uplinks", "values": [{"timestamp": 2, "value": 5.0}]}],
            },
        )
    )
    values = await client.dashboard.last_values("traffic", timedelta(days=1))
    assert route.calls.last.request.url.params["duration"] == "P1D"
    assert values.series[0].values[0].value == 5.0
    other = respx.get(f"{BASE}/operators/id%3Aop/kpis/traffic/lastValues").mock(
        return_value=route.return_value
    )
    await client.dashboard.last_values("traffic", "PT6H", operator="id:op")
    assert other.called and other.calls.last.request.url.params["duration"] == "PT6H"


@respx.mock
async def test_a_refused_duration_raises(client: LpwaClient) -> None:
    respx.get(f"{OPS}/kpis/traffic/lastValues").mock(
        return_value=httpx.Response(400, json={"code": 1, "message": "duration: not P3D"})
    )
    with pytest.raises(APIError):
        await client.dashboard.last_values("traffic", "P3D")


@respx.mock
async def test_dimension_elements(client: LpwaClient) -> None:
    respx.get(f"{OPS}/dimensions/rfRegion/elements").mock(
        return_value=httpx.Response(
            200, json={"dimension": "rfRegion", "elements": [{"ID": "EU868", "name": "EU868"}]}
        )
    )
    found = await client.dashboard.dimension_elements("rfRegion")
    assert [e.ID for e in found.elements] == ["EU868"]
