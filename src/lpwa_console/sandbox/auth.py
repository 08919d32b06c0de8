"""Bearer tokens and the typed dependencies every route uses.

Tokens are random opaque strings kept in SQLite (so they outlive a restart), in a file of
their own (`db/token_file.py`: sign-in never waits behind an import's write lock), and
cached in memory (so a request costs no SQL to authenticate).
"""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request

from ..schema.common import quiet_deprecated_fields
from . import accounts
from .accounts import READ_NODE, WRITE_NODE, Account
from .db import Database
from .errors import BAD_TOKEN, NO_SUBSCRIPTION, NO_TOKEN, ApiError, forbidden
from .settings import SandboxSettings
from .store import tokens as token_store


class TokenStore:
    def __init__(self, db: Database, lifetime_s: int) -> None:
        self._db = db
        self.lifetime_s = lifetime_s
        self._cache: dict[str, tuple[Account, float]] = {}
        self._lock = threading.Lock()

    def issue(self, account: Account) -> str:
        token = secrets.token_urlsafe(32)
        expires_at = time.time() + self.lifetime_s
        with self._db.tokens.write() as conn:
            token_store.save(conn, token, account.id, account.client_id, expires_at, time.time())
        with self._lock:
            self._cache[token] = (account, expires_at)
        return token

    def forget_client(self, client_id: str) -> None:
        """Drop the tokens of this client (its account was deleted): kept and cached."""
        with self._db.tokens.write() as conn:
            token_store.forget_client(conn, client_id)
        with self._lock:
            for token in [t for t, (a, _e) in self._cache.items() if a.client_id == client_id]:
                del self._cache[token]

    def resolve(self, token: str) -> Account | None:
        with self._lock:
            hit = self._cache.get(token)
        if hit is None:
            with self._db.tokens.read() as conn:
                found = token_store.find(conn, token)
            account = accounts.by_id(self._db.conn(), found[0]) if found else None
            # An account id may be given again after a deletion: the client id must match.
            if found is None or account is None or account.client_id != found[1]:
                return None
            hit = (account, found[2])
            with self._lock:
                self._cache[token] = hit
        account, expires_at = hit
        if time.time() >= expires_at:
            with self._lock:
                self._cache.pop(token, None)
            return None
        return account


@dataclass
class Services:
    """Everything a request may need; one per app, on `app.state.services`."""

    settings: SandboxSettings
    db: Database
    tokens: TokenStore


# The dependencies below are `async`: they run on the event loop, each a few attribute reads
# (a token missing from the cache costs one indexed row, once per token). As plain `def`
# each would be a hop through the thread pool: seven per request, queued behind every other
# request's hops and fighting for the GIL, which halved the throughput of 20 clients.
async def services(request: Request) -> Services:
    return request.app.state.services  # type: ignore[no-any-return]


AppServices = Annotated[Services, Depends(services)]


async def current_account(request: Request, svc: AppServices) -> Account:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(
            401, NO_TOKEN, "authentication required: send 'Authorization: Bearer <token>'"
        )
    account = svc.tokens.resolve(token.strip())
    if account is None:
        raise ApiError(401, BAD_TOKEN, "the bearer token is unknown or expired")
    return account


CurrentAccount = Annotated[Account, Depends(current_account)]


async def _subscriber(account: CurrentAccount) -> Account:
    if account.subscription_id is None:
        raise forbidden(f"the {account.role} account has no subscription", NO_SUBSCRIPTION)
    return account


async def _reader(account: Annotated[Account, Depends(_subscriber)]) -> Account:
    if not account.can("x"):
        raise forbidden("reading needs the subscription permission 'x'")
    return account


async def _writer(account: Annotated[Account, Depends(_subscriber)]) -> Account:
    if not account.can("a"):
        raise forbidden("changes need the subscription permission 'a'")
    return account


async def _settings_writer(account: Annotated[Account, Depends(_writer)]) -> Account:
    # Subscription-wide settings reach past any domain: one of them exists to restrict what
    # restricted accounts see, so a restricted account must not be able to turn it off.
    if account.restricted:
        raise forbidden(
            "subscription settings can be changed only by an account without domain restrictions"
        )
    return account


async def _device_reader(account: Annotated[Account, Depends(_reader)]) -> Account:
    if not account.can(READ_NODE):
        raise forbidden(f"reading devices needs {READ_NODE}")
    return account


async def _device_writer(account: Annotated[Account, Depends(_writer)]) -> Account:
    if not account.can(WRITE_NODE):
        raise forbidden(f"changing devices needs {WRITE_NODE}")
    return account


OPERATOR_ADMIN = "OPERATOR::ADMIN"


async def _operator(account: CurrentAccount) -> Account:
    # The operator interface (/admins/operators/...) is the operator's alone.
    if not account.can(OPERATOR_ADMIN):
        raise forbidden(f"the operator interface needs {OPERATOR_ADMIN}")
    return account


# A user of a subscription, whatever its permissions (the application scope authenticates
# subscription users, Document 1 §5.2).
SubscriptionMember = Annotated[Account, Depends(_subscriber)]
SUPPLIER_ADMIN = "SUPPLIER::ADMIN"


async def _supplier(account: CurrentAccount) -> Account:
    # The supplier interface (/suppliers/...): a supplier's accounts for their own supplier,
    # the operator for any (it controls the validation state, PUT /restricted).
    if not (account.can(SUPPLIER_ADMIN) or account.can(OPERATOR_ADMIN)):
        raise forbidden(f"the supplier interface needs {SUPPLIER_ADMIN}")
    return account


SubscriptionReader = Annotated[Account, Depends(_reader)]
SubscriptionWriter = Annotated[Account, Depends(_writer)]
SettingsWriter = Annotated[Account, Depends(_settings_writer)]
DeviceReader = Annotated[Account, Depends(_device_reader)]
DeviceWriter = Annotated[Account, Depends(_device_writer)]
OperatorAccount = Annotated[Account, Depends(_operator)]
SupplierAccount = Annotated[Account, Depends(_supplier)]


async def client_bodies() -> None:
    """A router dependency: the request bodies of this request are what a client sent, so a
    deprecated field in them is accepted quietly (the DeprecationWarning of a request model
    is for the code that sets the field, not for the server reading it). Async on purpose:
    it runs in the request's own task before the body is validated there, and what it sets
    ends with that task."""
    quiet_deprecated_fields()


ClientBodies = Depends(client_bodies)
