"""The application scope's client resource on a mocked transport: identifiers with slashes
and colons travel as one percent-encoded segment, users by UID, platform ID or OpenID sub."""

from __future__ import annotations

import httpx
import pytest
import respx

from lpwa_console.api import LpwaClient
from lpwa_console.api.errors import NotFoundError

pytestmark = pytest.mark.anyio

BASE = "https://platform.test/rest"
APP = f"{BASE}/applications/id%3Aacme%2Fportal"
PERMS = {"grantedPermissions": {"permission": ["x", "a"]}}


@pytest.fixture
async def client():
    async with httpx.AsyncClient() as http:
        yield LpwaClient(BASE, None, http=http)


@respx.mock
async def test_paths_and_shapes(client: LpwaClient) -> None:
    app = respx.get(APP).mock(
        return_value=httpx.Response(200, json={"UID": 2, "ID": "acme/portal", "name": "Portal"})
    )
    auth = respx.get(f"{APP}/subscriptions/authenticate").mock(
        return_value=httpx.Response(200, json=PERMS | {"userUid": 9})
    )
    by_sub = respx.get(f"{APP}/subscriptions/users/a%2Fb%3Ac").mock(
        return_value=httpx.Response(200, json={"UID": 9, "platformID": "usr-9"})
    )
    contexts = respx.get(f"{APP}/subscriptions/users/9/contexts").mock(
        return_value=httpx.Response(200, json={"briefs": {"brief": [PERMS | {"ID": "100"}]}})
    )
    oidc = respx.get(f"{APP}/subscriptions/oidcUsers/0f2c-9a").mock(
        return_value=httpx.Response(200, json={"UID": 9, "platformID": "usr-9"})
    )
    scope = client.applications.of("id:acme/portal")
    assert (await scope.get()).name == "Portal" and app.called
    assert (await scope.authenticate()).userUid == 9 and auth.called
    assert (await scope.user("a/b:c")).platformID == "usr-9" and by_sub.called
    assert (await scope.contexts(9)).items[0].ID == "100" and contexts.called
    assert (await scope.oidc_user("0f2c-9a")).UID == 9 and oidc.called
    by_uid = respx.get(f"{BASE}/applications/2").mock(
        return_value=httpx.Response(200, json={"UID": 2, "ID": "acme/portal"})
    )
    assert (await client.applications.of(2).get()).UID == 2 and by_uid.called


@respx.mock
async def test_not_offered_is_a_not_found(client: LpwaClient) -> None:
    respx.get(APP).mock(
        return_value=httpx.Response(404, json={"code": 40400, "message": "not found"})
    )
    with pytest.raises(NotFoundError):
        await client.applications.of("id:acme/portal").get()
