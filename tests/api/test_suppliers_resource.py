"""What the supplier resource puts on the wire: `/suppliers/mine` unless told, identifiers
percent-encoded, filters as query parameters, customFields only when asked."""

from __future__ import annotations

import json

import httpx
import pytest
import respx

from lpwa_console.api import LpwaClient
from lpwa_console.schema.suppliers import ProductFilter, ServiceAccountCreate

pytestmark = pytest.mark.anyio

BASE = "https://platform.test/rest"
MINE = f"{BASE}/suppliers/mine"


@pytest.fixture
async def client():
    async with httpx.AsyncClient() as http:
        yield LpwaClient(BASE, None, http=http)


@respx.mock
async def test_supplier_and_custom_fields(client: LpwaClient) -> None:
    route = respx.get(MINE).mock(return_value=httpx.Response(200, json={"ID": "s", "name": "S"}))
    await client.suppliers.get()
    assert "customFields" not in route.calls[0].request.url.params
    await client.suppliers.get(custom_fields=True)
    assert route.calls[1].request.url.params["customFields"] == "true"
    other = respx.get(f"{BASE}/suppliers/id%3Aacme%2Fsensors").mock(
        return_value=httpx.Response(200, json={"ID": "acme/sensors", "name": "A"})
    )
    await client.suppliers.get(supplier="id:acme/sensors")
    assert other.called


@respx.mock
async def test_product_filters_on_the_wire(client: LpwaClient) -> None:
    route = respx.get(f"{MINE}/devices").mock(
        return_value=httpx.Response(200, json={"briefs": [], "count": 0, "more": False})
    )
    filters = ProductFilter(status="OUT_STOCK", minStock=1, maxStock=9, SKU="A B")
    await client.suppliers.products(2, 50, filters=filters)
    params = route.calls[0].request.url.params
    assert (params["status"], params["minStock"], params["maxStock"]) == ("OUT_STOCK", "1", "9")
    assert (params["SKU"], params["pageIndex"], params["pageSize"]) == ("A B", "2", "50")


@respx.mock
async def test_service_account_and_secret(client: LpwaClient) -> None:
    made = respx.post(f"{MINE}/serviceAccounts").mock(
        return_value=httpx.Response(201, json={"ID": "sup-x-1", "name": "CI"})
    )
    secret = respx.post(f"{MINE}/serviceAccounts/sup-x-1/secret").mock(
        return_value=httpx.Response(201, json={"ID": "sup-x-1", "clientSecret": "very-secret"})
    )
    account = await client.suppliers.create_service_account(ServiceAccountCreate(name="CI"))
    assert json.loads(made.calls[0].request.content) == {"name": "CI"}
    answer = await client.suppliers.new_secret(account.ID)
    assert secret.called and answer.clientSecret.get_secret_value() == "very-secret"
    assert "very-secret" not in repr(answer)


@respx.mock
async def test_orders_and_helpers(client: LpwaClient) -> None:
    order = respx.get(f"{MINE}/subscribers/orders/12").mock(
        return_value=httpx.Response(200, json={"ID": "12"})
    )
    assert (await client.suppliers.order("12")).ID == "12" and order.called
    page = {"briefs": [], "more": False}
    cfs = respx.get(f"{MINE}/helpers/devices/customFieldSets").mock(
        return_value=httpx.Response(200, json=page)
    )
    await client.suppliers.custom_field_sets("devices")
    assert cfs.called
    categories = respx.get(f"{MINE}/helpers/categories").mock(
        return_value=httpx.Response(200, json=page)
    )
    await client.suppliers.categories()
    assert "type" not in categories.calls[0].request.url.params
