"""A subscription's resource addressed by its own ID (cellular network contexts, AS
transport keys): its five routes declared once for a `ByID` description.

FastAPI reads a route's parameters from its endpoint's signature, so each route is a closure
made for one resource; the path parameter keeps the resource's name (`networkContextID`...)
through an alias. This module does not postpone its annotations (no `from __future__ import
annotations`): the body models are read when a closure is defined."""

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Path, Response

from ..accounts import Account
from ..auth import AppServices, Services, SubscriptionReader, SubscriptionWriter
from ..errors import DUPLICATE, ApiError, bad_request, not_found, refuse_changed
from ..store.network import delete_unused
from ._common import PageParams
from ._router import RecordedRouter


@dataclass(frozen=True)
class ByID:
    """A subscription's resource addressed by its ID: found or 404, made unless the ID is
    taken (409), changed but for its fixed fields, deleted unless something uses it (400
    naming what). The store callables take the connection and the subscription."""

    what: str  # as a 404 names it
    one: str  # as a 409 names one
    table: str
    find: Callable[[sqlite3.Connection, int, str], dict[str, Any] | None]
    create: Callable[[sqlite3.Connection, int, Any], None]
    update: Callable[[sqlite3.Connection, int, str, Any], None]  # the fields an update set
    page: Callable[..., Any]
    count: Callable[[sqlite3.Connection, int], int]

    def get(self, svc: Services, sub: int, ref: str) -> dict[str, Any]:
        found = self.find(svc.db.conn(), sub, ref)
        if found is None:
            raise not_found(f"{self.what} {ref} not found")
        return found

    def add(self, svc: Services, sub: int, body: Any) -> dict[str, Any]:
        with svc.db.write() as conn:
            if self.find(conn, sub, body.ID) is not None:
                raise ApiError(409, DUPLICATE, f"ID: {self.one} {body.ID} exists")
            self.create(conn, sub, body)
        return self.get(svc, sub, body.ID)

    def change(self, svc: Services, sub: int, ref: str, body: Any) -> dict[str, Any]:
        refuse_changed(self.get(svc, sub, ref), body.fixed_values())
        with svc.db.write() as conn:
            self.update(conn, sub, ref, body)
        return self.get(svc, sub, ref)

    def delete(self, svc: Services, account: Account, ref: str, field: str) -> Response:
        with svc.db.write() as conn:
            self.get(svc, account.sub, ref)
            used = delete_unused(conn, account.sub, self.table, ref, account.restrictions)
            if used.total:
                raise bad_request(f"{field}: still used by {used.words()}")
        return Response(status_code=204)


@dataclass(frozen=True)
class ByIDRoutes:
    """How one `ByID` resource is declared: its collection path and ID parameter, its
    models, and its route names (`list_{plural}`, `create_{noun}`...)."""

    kind: ByID
    path: str
    param: str
    noun: str
    plural: str
    page_model: Any
    model: Any
    create_model: Any
    update_model: Any
    duplicate: str  # the 409's description


def add_by_id_routes(router: RecordedRouter, d: ByIDRoutes) -> None:
    """List, create, read, update and delete (in that order in the OpenAPI document)."""
    kind, item = d.kind, f"{d.path}/{{{d.param}}}"
    Ref = Annotated[str, Path(alias=d.param)]

    def listed(account: SubscriptionReader, svc: AppServices, paging: PageParams) -> Any:
        return paging.of(kind.page, kind.count, svc.db.conn(), account.sub)

    # The body models are the description's: FastAPI reads them, mypy cannot.
    def create(
        body: d.create_model,  # type: ignore[name-defined]
        account: SubscriptionWriter,
        svc: AppServices,
    ) -> dict[str, Any]:
        return kind.add(svc, account.sub, body)

    def get(ref: Ref, account: SubscriptionReader, svc: AppServices) -> Any:
        return kind.get(svc, account.sub, ref)

    def update(
        ref: Ref,
        body: d.update_model,  # type: ignore[name-defined]
        account: SubscriptionWriter,
        svc: AppServices,
    ) -> dict[str, Any]:
        return kind.change(svc, account.sub, ref, body)

    def delete(ref: Ref, account: SubscriptionWriter, svc: AppServices) -> Response:
        return kind.delete(svc, account, ref, d.param)

    router.reads(d.path, d.page_model, name=f"list_{d.plural}")(listed)
    router.creates(
        d.path, d.model, name=f"create_{d.noun}", responses={409: {"description": d.duplicate}}
    )(create)
    router.reads(item, d.model, name=f"get_{d.noun}")(get)
    router.replaces(item, d.model, name=f"update_{d.noun}")(update)
    router.delete(item, status_code=204, name=f"delete_{d.noun}")(delete)
