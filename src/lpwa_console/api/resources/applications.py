"""The application scope: `/applications/{applicationUid}` (Document 1 §4.5, §5).

`client.applications.of("id:acme/portal")` works on one application (a UID, or `id:` + an ID
that may hold slashes: it goes out as one percent-encoded segment). Users are addressed by
UID, platform ID or OpenID `sub`, each sent as one encoded segment too.
"""

from __future__ import annotations

from ...schema.applications import (
    Application,
    Authentication,
    User,
    UserContexts,
    UserIdentifier,
)
from ...schema.common import path_segment
from .._base import BaseClient
from ._resource import APIResource


class ApplicationResource(APIResource):
    """One application and its subscription users."""

    def __init__(self, client: BaseClient, application: str | int) -> None:
        super().__init__(client)
        self.base = f"/applications/{path_segment(str(application))}"

    async def get(self) -> Application:
        return await self._client.get(self.base, Application)

    async def authenticate(self) -> Authentication:
        """The signed-in user's permissions and domain restrictions for this application."""
        return await self._client.get(f"{self.base}/subscriptions/authenticate", Authentication)

    async def user(self, user: str | int) -> User:
        """A user by UID, platform ID or OpenID `sub`."""
        return await self._client.get(
            f"{self.base}/subscriptions/users/{path_segment(str(user))}", User
        )

    async def contexts(self, user: str | int) -> UserContexts:
        return await self._client.get(
            f"{self.base}/subscriptions/users/{path_segment(str(user))}/contexts", UserContexts
        )

    async def oidc_user(self, sub: str) -> UserIdentifier:
        """Which user the OpenID `sub` of an ID token names."""
        return await self._client.get(
            f"{self.base}/subscriptions/oidcUsers/{path_segment(sub)}", UserIdentifier
        )


class ApplicationsResource(APIResource):
    """`client.applications.of(identifier)`."""

    def of(self, application: str | int) -> ApplicationResource:
        return ApplicationResource(self._client, application)
