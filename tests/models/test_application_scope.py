"""Reading the application scope for the account view: the chain application -> authenticate
-> user -> contexts, a platform without the scope (404, 403) said in one line, refusals of a
later step kept as notes, and the words of a context."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import respx

from lpwa_console.api import LpwaClient
from lpwa_console.models.application_scope import (
    ApplicationScope,
    ApplicationScopeViewModel,
    context_in_words,
    read_scope,
)
from lpwa_console.schema.applications import UserContext
from lpwa_console.ui.account_view import scope_html

BASE = "https://platform.test/rest"
APP = f"{BASE}/applications/id%3Alpwa%2Fconsole"
ERROR = {"code": 40400, "message": "not found"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def client() -> AsyncIterator[LpwaClient]:
    async with httpx.AsyncClient() as http:
        yield LpwaClient(BASE, None, http=http)


@pytest.mark.anyio
@respx.mock
async def test_the_whole_chain(client: LpwaClient) -> None:
    respx.get(APP).mock(
        return_value=httpx.Response(200, json={"UID": 1, "ID": "lpwa/console", "name": "LPWA"})
    )
    respx.get(f"{APP}/subscriptions/authenticate").mock(
        return_value=httpx.Response(
            200, json={"grantedPermissions": {"permission": ["x"]}, "userUid": 4}
        )
    )
    respx.get(f"{APP}/subscriptions/users/4").mock(
        return_value=httpx.Response(200, json={"UID": 4, "platformID": "usr-4", "oidcSub": "s"})
    )
    respx.get(f"{APP}/subscriptions/users/4/contexts").mock(
        return_value=httpx.Response(
            200, json={"briefs": {"brief": [{"grantedPermissions": {"permission": ["x"]}}]}}
        )
    )
    scope = await read_scope(client)
    assert scope.unavailable == "" and scope.notes == []
    assert scope.user is not None and scope.user.platformID == "usr-4"
    assert len(scope.contexts) == 1


@pytest.mark.anyio
@pytest.mark.parametrize(("status", "words"), [(404, "does not know"), (403, "refused")])
@respx.mock
async def test_a_platform_without_the_scope(client: LpwaClient, status: int, words: str) -> None:
    respx.get(APP).mock(return_value=httpx.Response(status, json=ERROR | {"code": status * 100}))
    scope = await read_scope(client)
    assert scope.unavailable.startswith("This platform does not offer the application scope")
    assert words in scope.unavailable and scope.application is None


@pytest.mark.anyio
@respx.mock
async def test_not_a_subscription_user(client: LpwaClient) -> None:
    respx.get(APP).mock(return_value=httpx.Response(200, json={"ID": "lpwa/console"}))
    respx.get(f"{APP}/subscriptions/authenticate").mock(
        return_value=httpx.Response(403, json={"code": 40300, "message": "no subscription"})
    )
    scope = await read_scope(client)
    assert scope.application is not None and scope.authentication is None
    assert "subscription users only" in scope.notes[0]


def test_context_words() -> None:
    context = UserContext.model_validate(
        {
            "type": "SUBSCRIBER",
            "ID": "100",
            "name": "Acme",
            "grantedPermissions": {"permission": ["x", "a"]},
            "domainRestrictions": {
                "and": [{"type": "PREFIX", "name": "France/", "group": {"name": "Site"}}]
            },
        }
    )
    text = context_in_words(context)
    assert text.startswith("Subscription Acme (100): permissions x, a; only resources")
    assert "“France/”" in text
    operator = UserContext.model_validate({"type": "OPERATOR", "grantedPermissions": {}})
    assert context_in_words(operator) == "Operator: no subscription permission"


def test_the_view_says_each_state(runner: Any) -> None:
    vm = ApplicationScopeViewModel(runner)
    assert "Not connected" in scope_html(vm)
    vm.state, vm.scope = "loaded", ApplicationScope(unavailable="This platform does not offer")
    assert "This platform does not offer" in scope_html(vm)
    vm.state, vm.message = "failed", "The server did not answer in time"
    assert "Could not ask the platform: The server did not answer in time" in scope_html(vm)
