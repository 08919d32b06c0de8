"""The real client's dashboard resource against a real sandbox process: KPI metadata, last
values over each listed duration (another refused), dimension elements; the operator only."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from lpwa_console.api import Credentials, LpwaClient, PermissionDeniedError
from lpwa_console.api.errors import APIError, NotFoundError
from lpwa_console.schema.dashboard import DASHBOARD_KPIS

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _client(sandbox, role: str) -> LpwaClient:  # type: ignore[no-untyped-def]
    account = sandbox.account(role)
    creds = Credentials(sandbox.token_url, account["client_id"], account["client_secret"])
    return LpwaClient(sandbox.base_url, creds)


@pytest.fixture
async def operator(sandbox) -> AsyncIterator[LpwaClient]:  # type: ignore[no-untyped-def]
    async with _client(sandbox, "operator") as c:
        yield c


async def test_every_dashboard_kpi_and_its_durations(operator: LpwaClient) -> None:
    for uid in DASHBOARD_KPIS:
        kpi = await operator.dashboard.kpi(uid)
        assert uid == kpi.ID and kpi.metrics and kpi.durations
        for duration in kpi.durations:
            values = await operator.dashboard.last_values(uid, duration)
            assert values.duration == duration and values.series
            for series in values.series:
                assert kpi.metric_of(series.key) is not None, series.key
        with pytest.raises(APIError) as refused:
            await operator.dashboard.last_values(uid, "PT1M")
        assert refused.value.status_code == 400
        for dimension in kpi.dimensions:
            elements = await operator.dashboard.dimension_elements(dimension)
            assert elements.dimension == dimension and elements.elements


async def test_unknown_kpi_and_other_accounts(operator: LpwaClient, sandbox) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(NotFoundError):
        await operator.dashboard.kpi("unknown")
    async with _client(sandbox, "subscriber") as subscriber:
        with pytest.raises(PermissionDeniedError):
            await subscriber.dashboard.kpi("devices")
