"""The routes the supplier interface declares alike for several of its resources, each
declared once for what differs: one item read and replaced by its path (service accounts,
an application's manifest, options, versions, and the sold resources: applications and
devices sold) and a child collection listed and added to (options, versions).

FastAPI reads a route's parameters from its endpoint's signature, so each route is a closure
made for one resource. This module does not postpone its annotations (no `from __future__
import annotations`): the path dependencies and body models are read when a closure is
defined."""

import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Annotated, Any, Protocol, get_args

from fastapi import Depends, Path

from ._common import PageParams
from ._router import RecordedRouter


class ItemPath(Protocol):
    """A resource's path as its dependency resolved it (`suppliers.ChildPath`)."""

    def conn(self) -> sqlite3.Connection: ...

    def write(self) -> AbstractContextManager[sqlite3.Connection]: ...

    def uid(self, conn: sqlite3.Connection) -> int: ...

    def uids(self, conn: sqlite3.Connection) -> tuple[int, int]: ...


class SoldResource(Protocol):
    """What the routes ask of `suppliers.SoldKind`."""

    def get(self, path: Any, custom_fields: str | None) -> dict[str, Any]: ...

    def change(self, path: Any, body: Any) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Item:
    """A resource read and replaced by its path: `read(conn, uid)` answers it,
    `update(conn, parent, uid, body)` applies a PUT's body (`parent`: the UID of the
    resource it is under)."""

    read: Callable[[sqlite3.Connection, int], dict[str, Any]]
    update: Callable[[sqlite3.Connection, int, int, Any], None]

    def get(self, path: ItemPath) -> dict[str, Any]:
        conn = path.conn()
        return self.read(conn, path.uid(conn))

    def change(self, path: ItemPath, body: Any) -> dict[str, Any]:
        with path.write() as conn:
            parent, uid = path.uids(conn)
            self.update(conn, parent, uid, body)
            return self.read(conn, uid)


def child_dependency(
    parent: Callable[..., Any], param: str, make: Callable[[Any, str], Any]
) -> Callable[..., Any]:
    """A path dependency under `parent`'s: `make(parent's value, the path parameter
    `param`)`."""

    async def path(
        up: Annotated[Any, Depends(parent)], text: Annotated[str, Path(alias=param)]
    ) -> Any:
        return make(up, text)

    return path


def _dependency(alias: Any) -> Any:
    """The `Depends(...)` of an `Annotated[type, Depends(...)]` alias."""
    return get_args(alias)[1]


def add_item_routes(
    router: RecordedRouter,
    path: str,
    of: Any,
    models: tuple[Any, Any],
    item: Item | SoldResource,
    noun: str,
    update_doc: str | None = None,
) -> None:
    """GET and PUT of the item at `path` (`of`: its path dependency; `models`: the answer
    and the PUT's body), named `get_{noun}` and `update_{noun}`. A sold resource's GET
    takes `customFields` (its custom fields are answered when it is given)."""
    found, (model, update_model) = _dependency(of), models

    def get(at: Annotated[Any, found]) -> dict[str, Any]:
        assert isinstance(item, Item)
        return item.get(at)

    def get_sold(at: Annotated[Any, found], customFields: str | None = None) -> dict[str, Any]:
        assert not isinstance(item, Item)
        return item.get(at, customFields)

    # The body model is the caller's: FastAPI reads it, mypy cannot.
    def update(
        at: Annotated[Any, found],
        body: update_model,  # type: ignore[valid-type]
    ) -> dict[str, Any]:
        return item.change(at, body)

    router.reads(path, model, name=f"get_{noun}")(get if isinstance(item, Item) else get_sold)
    router.replaces(path, model, name=f"update_{noun}", description=update_doc)(update)


@dataclass(frozen=True)
class Children:
    """A collection under one parent (an application's options, a device's versions):
    `page` and `count` list it (after the parent's UID), `create(conn, parent, body)` adds
    one and gives its UID, `item` reads and replaces one."""

    page: Callable[..., Any]
    count: Callable[..., int]
    create: Callable[[sqlite3.Connection, int, Any], int]
    item: Item


def add_children_routes(
    router: RecordedRouter,
    path: str,
    param: str,
    of: tuple[Any, Any],
    models: tuple[Any, Any, Any, Any],
    children: Children,
    nouns: tuple[str, str],
) -> None:
    """List and create at `path`, then read and replace at `path/{param}` (`of`: the
    parent's and a child's path dependencies; `models`: page, child, creation and update
    bodies; `nouns`: plural and singular, for the route names)."""
    parent = _dependency(of[0])
    page_model, model, create_model, update_model = models
    plural, noun = nouns

    def listed(at: Annotated[Any, parent], paging: PageParams) -> dict[str, Any]:
        conn = at.conn()
        return paging.of(children.page, children.count, conn, at.uid(conn))

    def create(
        at: Annotated[Any, parent],
        body: create_model,  # type: ignore[valid-type]
    ) -> dict[str, Any]:
        with at.write() as conn:
            uid = children.create(conn, at.uid(conn), body)
            return children.item.read(conn, uid)

    router.reads(path, page_model, name=f"list_{plural}")(listed)
    router.creates(path, model, name=f"create_{noun}")(create)
    add_item_routes(
        router, f"{path}/{{{param}}}", of[1], (model, update_model), children.item, noun
    )
