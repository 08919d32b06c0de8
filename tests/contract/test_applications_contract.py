"""The application scope's client against a real sandbox process: every method once, with
the console's own application ID (it holds a slash, sent percent-encoded)."""

from __future__ import annotations

import pytest

from lpwa_console.api import Credentials, LpwaClient
from lpwa_console.api.errors import NotFoundError, PermissionDeniedError
from lpwa_console.schema.applications import CONSOLE_APPLICATION_ID

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _client(sandbox, role: str) -> LpwaClient:  # type: ignore[no-untyped-def]
    account = sandbox.account(role)
    creds = Credentials(sandbox.token_url, account["client_id"], account["client_secret"])
    return LpwaClient(sandbox.base_url, creds)


async def test_application_scope(sandbox) -> None:  # type: ignore[no-untyped-def]
    async with _client(sandbox, "subscriber-restricted") as client:
        scope = client.applications.of(f"id:{CONSOLE_APPLICATION_ID}")
        app = await scope.get()
        assert app.ID == CONSOLE_APPLICATION_ID and app.UID is not None
        assert (await client.applications.of(app.UID).get()).ID == app.ID
        auth = await scope.authenticate()
        assert sorted(auth.grantedPermissions.permission) == ["a", "x"]
        assert auth.domainRestrictions is not None and auth.domainRestrictions.and_
        assert auth.userUid is not None
        me = await scope.user(auth.userUid)
        assert me.platformID and me.oidcSub
        assert (await scope.user(me.platformID)).UID == me.UID
        assert (await scope.user(me.oidcSub)).UID == me.UID
        found = await scope.oidc_user(me.oidcSub)
        assert (found.UID, found.platformID) == (me.UID, me.platformID)
        contexts = (await scope.contexts(me.UID)).items
        assert contexts[0].type == "SUBSCRIBER"
        assert contexts[0].domainRestrictions == auth.domainRestrictions
        with pytest.raises(NotFoundError):
            await client.applications.of("id:no/such-app").get()
    async with _client(sandbox, "operator") as client:
        scope = client.applications.of(f"id:{CONSOLE_APPLICATION_ID}")
        assert (await scope.get()).ID == CONSOLE_APPLICATION_ID
        with pytest.raises(PermissionDeniedError):
            await scope.authenticate()
        assert (await scope.user(me.UID)).platformID == me.platformID
