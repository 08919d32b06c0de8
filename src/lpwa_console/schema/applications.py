"""The application scope (Document 1 §2.8, §4.5, §5): an application, the authentication of a
subscription user, and users by UID, platform ID or OpenID `sub` with their contexts.

`applicationUid` is the UID or `id:` + the application's ID; an ID may hold `/`, so the
identifier travels percent-encoded as one path segment (`id%3Aacme%2Fportal`). Where
Document 1 gives no shape, these are our choices, said per class. The deprecated trees of the
scope (nodes, places, models, notifications) are not modelled: the feature is removed.
"""

from __future__ import annotations

from pydantic import Field

from .common import ApiModel
from .domains import DomainRestrictions
from .subscription import Permission

# The console's own application ID on a platform (the sandbox's demo has it): the console
# asks the application scope about itself. It holds a slash, so it travels encoded.
CONSOLE_APPLICATION_ID = "lpwa/console"


class Application(ApiModel):
    """GET /applications/{applicationUid}. Our choice beyond §2.8: UID, ID, name,
    description, publisher, href. The m2m* fields are deprecated: read if a platform still
    sends them, never used."""

    UID: int | None = None
    ID: str
    name: str | None = None
    description: str | None = None
    publisher: str | None = None
    href: str | None = None
    m2mClientCN: str | None = Field(default=None, deprecated="deprecated by the platform")
    m2mCredential: str | None = Field(default=None, deprecated="deprecated by the platform")
    m2mURI: str | None = Field(default=None, deprecated="deprecated by the platform")


class GrantedPermissions(ApiModel):
    """The subscription permissions of a user, as the application scope words them: an
    object holding the `permission` array (x, a, ra, rc, s1)."""

    permission: list[Permission] = Field(default_factory=list)


class Authentication(ApiModel):
    """GET /applications/{applicationUid}/subscriptions/authenticate: the signed-in user's
    grantedPermissions (required) and domainRestrictions (§2.8). Our choice beyond it:
    `userUid`, the UID of the user authenticated, so a client can read the user (where a
    platform says who the caller is is not shown)."""

    grantedPermissions: GrantedPermissions
    domainRestrictions: DomainRestrictions | None = None
    userUid: int | None = None


class User(ApiModel):
    """GET .../subscriptions/users/{userUid}. Our choice beyond §2.8: UID, platformID (the
    platform's identifier, given at creation), oidcSub (the OpenID `sub` of the user's ID
    tokens), name, email, role (the kind of account), subscriptionID (the subscription it
    belongs to, absent for a platform-level user), href. facebookID and googleID are
    deprecated."""

    UID: int
    platformID: str | None = None
    oidcSub: str | None = None
    name: str | None = None
    email: str | None = None
    role: str | None = None
    subscriptionID: str | None = None
    href: str | None = None
    facebookID: str | None = Field(default=None, deprecated="deprecated by the platform")
    googleID: str | None = Field(default=None, deprecated="deprecated by the platform")


class UserIdentifier(ApiModel):
    """GET .../subscriptions/oidcUsers/{oidcUserID}: which user an OpenID `sub` names.
    Our choice: UID, platformID, href."""

    UID: int
    platformID: str | None = None
    href: str | None = None


class UserContext(ApiModel):
    """A context of a user (§2.8: grantedPermissions, required, and domainRestrictions):
    where the user acts. Our choice beyond it: type (SUBSCRIBER for a subscription, else the
    platform role the user acts in), ID and name of the subscription or party, href."""

    grantedPermissions: GrantedPermissions
    domainRestrictions: DomainRestrictions | None = None
    type: str | None = None
    ID: str | None = None
    name: str | None = None
    href: str | None = None


class UserContextBriefs(ApiModel):
    brief: list[UserContext] = Field(default_factory=list)


class UserContexts(ApiModel):
    """GET .../subscriptions/users/{userUid}/contexts: `briefs.brief[]` (§2.8), an object
    holding the array rather than the array itself as other lists do."""

    briefs: UserContextBriefs = Field(default_factory=UserContextBriefs)

    @property
    def items(self) -> list[UserContext]:
        return self.briefs.brief
