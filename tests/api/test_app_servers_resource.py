"""What the application server resource puts on the wire: scope, identifier forms, bodies."""

from __future__ import annotations

import json

import httpx
import pytest
import respx

from lpwa_console.api import LpwaClient, PermissionDeniedError
from lpwa_console.schema.app_servers import (
    ALL_SCOPES,
    AppServerCreate,
    AppServerIotFlowConnectorMetrics,
    AppServerUpdate,
    SecurityAppServerUpdate,
    app_server_ref,
)

pytestmark = pytest.mark.anyio

BASE = "https://platform.test/rest"
SERVERS = f"{BASE}/subscriptions/mine/appServers"
SERVER = {"ID": "tenant/as-1", "name": "AS", "scope": "SUBSCRIPTION"}
ENCODED = f"{SERVERS}/id%3Atenant%2Fas-1"
KEY = "2B7E151628AED2A6ABF7158809CF4F3C"


@pytest.fixture
async def client():
    async with httpx.AsyncClient() as http:
        yield LpwaClient(BASE, None, http=http)


@respx.mock
async def test_scope_filter_repeats_and_defaults_to_nothing_sent(client: LpwaClient) -> None:
    route = respx.get(SERVERS).mock(return_value=httpx.Response(200, json={"briefs": [SERVER]}))
    await client.app_servers.list()
    await client.app_servers.list(filters=ALL_SCOPES)
    first, second = (c.request.url.params for c in route.calls)
    assert "scope" not in first
    assert second.get_list("scope") == ["SUBSCRIPTION", "OPERATOR"]


@respx.mock
async def test_identifier_forms(client: LpwaClient) -> None:
    by_id = respx.get(ENCODED).mock(return_value=httpx.Response(200, json=SERVER))
    by_uid = respx.get(f"{SERVERS}/42").mock(return_value=httpx.Response(200, json=SERVER))
    server = await client.app_servers.get(app_server_ref("tenant/as-1"))
    await client.app_servers.get(42)
    assert server.path_ref == "id:tenant/as-1" and by_id.called and by_uid.called


@respx.mock
async def test_create_update_delete(client: LpwaClient) -> None:
    created = respx.post(SERVERS).mock(return_value=httpx.Response(201, json=SERVER))
    put = respx.put(ENCODED).mock(return_value=httpx.Response(200, json=SERVER))
    deleted = respx.delete(ENCODED).mock(return_value=httpx.Response(204))
    destination = {"addresses": ["https://a/x", "https://b/x"], "ports": "443", "strategy": "BLAST"}
    await client.app_servers.create(
        AppServerCreate.model_validate({"name": "AS", "destinations": [destination]})
    )
    assert json.loads(created.calls[0].request.content) == {
        "name": "AS",
        "destinations": [destination],
    }
    await client.app_servers.update("id:tenant/as-1", AppServerUpdate(name="B"))
    assert json.loads(put.calls[0].request.content) == {"name": "B"}
    await client.app_servers.delete("id:tenant/as-1")
    assert deleted.called


@respx.mock
async def test_operator_scope_refused_on_write(client: LpwaClient) -> None:
    respx.put(f"{SERVERS}/id%3Aop-as").mock(
        return_value=httpx.Response(403, json={"code": 403, "message": "OPERATOR scope"})
    )
    with pytest.raises(PermissionDeniedError):
        await client.app_servers.update("id:op-as", AppServerUpdate(name="x"))


@respx.mock
async def test_security_and_metrics(client: LpwaClient) -> None:
    security = {"downlinkSecurity": {"status": "DOWNLINK_AS_KEY", "asID": "as"}}
    got = respx.get(f"{ENCODED}/security").mock(return_value=httpx.Response(200, json=security))
    put = respx.put(f"{ENCODED}/security").mock(return_value=httpx.Response(200, json=security))
    metrics = dict.fromkeys(AppServerIotFlowConnectorMetrics.model_fields, 3)
    respx.get(f"{ENCODED}/iotFlowConnector/metrics").mock(
        return_value=httpx.Response(200, json=metrics)
    )
    ref = app_server_ref("tenant/as-1")
    assert (await client.app_servers.security(ref)).downlinkSecurity.asID == "as"
    body = SecurityAppServerUpdate.model_validate(
        {"downlinkSecurity": {"status": "DOWNLINK_AS_KEY", "asID": "as", "downlinkAsKey": KEY}}
    )
    await client.app_servers.update_security(ref, body)
    assert json.loads(put.calls[0].request.content)["downlinkSecurity"]["downlinkAsKey"] == KEY
    assert (await client.app_servers.iot_flow_connector_metrics(ref)).uplinksLast24h == 3
    assert got.called
