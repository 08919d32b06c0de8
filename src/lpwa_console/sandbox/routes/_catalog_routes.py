"""The operator's path (`/admins/operators/{operatorUid}`) and the routes its catalog
resources share (device profiles, base station profiles, RF regions): list and create,
read and update one entry, declared once for an `EntryRoutes` description.

FastAPI reads a route's parameters from its endpoint's signature, so each route is a closure
made for one catalog; the entry's path parameter keeps its name (`profileUid`...) through an
alias. This module does not postpone its annotations (no `from __future__ import
annotations`): the body models are read when a closure is defined."""

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Protocol

from fastapi import Depends, Path, Query

from ...schema import catalogs as wire
from ...schema.common import parse_identifier
from ..auth import AppServices, OperatorAccount
from ..errors import not_found
from ..store import catalogs as store
from ._common import PageParams, Paging, PathScope
from ._router import RecordedRouter

Lang = Annotated[str | None, Query(alias="language-tag", max_length=35)]


def _operator(conn: sqlite3.Connection, operator_uid: str) -> None:
    ident = parse_identifier(operator_uid)
    ref = store.operator(conn)["ID"]
    known = ident.kind == "mine" or (ident.kind == "uid" and ident.value == "1")
    if not (known or (ident.kind == "id" and ident.value == ref)):
        raise not_found(f"operator {operator_uid} not found")


class OperatorPath(PathScope):
    """`{operatorUid}`: `check(conn)` answers 404 unless it names the operator."""

    def check(self, conn: sqlite3.Connection) -> None:
        _operator(conn, self.text)


async def operator_path(
    operatorUid: str, account: OperatorAccount, svc: AppServices
) -> OperatorPath:
    return OperatorPath(operatorUid, svc)


OfOperator = Annotated[OperatorPath, Depends(operator_path)]


class CatalogEntries(Protocol):
    """What the routes ask of a catalog resource (`routes.catalogs.Entries`)."""

    def page(
        self, op: OperatorPath, paging: Paging, language_tag: str | None, **filters: Any
    ) -> dict[str, Any]: ...

    def read(self, op: OperatorPath, text: str, language_tag: str | None) -> dict[str, Any]: ...

    def create(
        self, op: OperatorPath, values: dict[str, Any], vendor_kind: str | None = None
    ) -> dict[str, Any]: ...

    def change(
        self, op: OperatorPath, text: str, update: Callable[[sqlite3.Connection, int], None]
    ) -> dict[str, Any]: ...


@dataclass(frozen=True)
class EntryRoutes:
    """How one catalog resource is declared: its path and entry parameter, its models, how
    a creation's body becomes the values stored, how an update applies, and its route names
    (`list_{noun}s`, `create_{noun}`, `get_{noun}`, `update_{noun}`)."""

    entries: CatalogEntries
    path: str  # "/baseStationProfiles"
    param: str  # "profileUid": the entry, a UID or `id:` + its ID (slashes allowed)
    noun: str
    model: Any
    create_model: Any
    update_model: Any
    duplicate: str  # the creation's 409, as documented
    values: Callable[[Any], dict[str, Any]]  # a creation's body -> the values to store
    update: Callable[[sqlite3.Connection, int, Any], None]  # apply an update's body
    vendor_kind: str | None = None  # a creation names a vendor of this kind
    page_model: Any = None  # None: the list is declared by hand (filters of its own)
    create_doc: str | None = None  # the routes' OpenAPI descriptions
    update_doc: str | None = None


def add_collection_routes(router: RecordedRouter, d: EntryRoutes) -> None:
    """GET (unless `page_model` is None: filter by `source`) and POST on the collection."""
    entries = d.entries

    def listed(
        op: OfOperator,
        paging: PageParams,
        source: wire.CatalogSource | None = None,
        language_tag: Lang = None,
    ) -> dict[str, Any]:
        return entries.page(op, paging, language_tag, source=source)

    # The body models are the description's: FastAPI reads them, mypy cannot.
    def create(
        op: OfOperator,
        body: d.create_model,  # type: ignore[name-defined]
    ) -> dict[str, Any]:
        return entries.create(op, d.values(body), d.vendor_kind)

    if d.page_model is not None:
        router.reads(d.path, d.page_model, name=f"list_{d.noun}s")(listed)
    router.creates(
        d.path, d.model, name=f"create_{d.noun}", description=d.create_doc,
        responses={409: {"description": d.duplicate}},
    )(create)  # fmt: skip


def add_entry_routes(router: RecordedRouter, d: EntryRoutes) -> None:
    """GET and PUT of one entry (`{param:path}`: after the routes below an entry's path)."""
    entries, item = d.entries, f"{d.path}/{{{d.param}:path}}"
    Ref = Annotated[str, Path(alias=d.param)]

    def get(op: OfOperator, ref: Ref, language_tag: Lang = None) -> dict[str, Any]:
        return entries.read(op, ref, language_tag)

    def update(
        op: OfOperator,
        ref: Ref,
        body: d.update_model,  # type: ignore[name-defined]
    ) -> dict[str, Any]:
        return entries.change(op, ref, lambda conn, uid: d.update(conn, uid, body))

    router.reads(item, d.model, name=f"get_{d.noun}")(get)
    router.replaces(item, d.model, name=f"update_{d.noun}", description=d.update_doc)(update)
