"""A router that records its routes and adds them to the app once.

FastAPI works out a route's parameters, dependencies and response model when the route is
added to a router, and again, on its first request, for each router it is included in: an
`APIRouter` of a module included in the app paid that twice, a third of the sandbox's start.
A `RecordedRouter` only notes what its decorators declare; `add_to(app, prefix)` adds each
route straight to the app's own router, where it is worked out once (with the app's
dependencies, as an included router's would be)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import Enum
from typing import Any, TypeVar

from fastapi import APIRouter, FastAPI, params

_F = TypeVar("_F", bound=Callable[..., Any])


class RecordedRouter(APIRouter):
    """`APIRouter(prefix=..., tags=..., dependencies=...)` whose routes wait for `add_to`.
    Other router-wide options are not carried over, so they are refused."""

    def __init__(
        self,
        *,
        prefix: str = "",
        tags: list[str | Enum] | None = None,
        dependencies: Sequence[params.Depends] | None = None,
    ) -> None:
        super().__init__(prefix=prefix, tags=tags, dependencies=dependencies)
        self.recorded: list[tuple[str, Callable[..., Any], dict[str, Any]]] = []

    # The platform leaves null members out of every answer: one declaration per verb says
    # so, rather than `response_model_exclude_none=True` on each route.
    def reads(self, path: str, model: Any, **options: Any) -> Callable[[_F], _F]:
        """GET answering `model`."""
        return self.get(path, response_model=model, response_model_exclude_none=True, **options)

    def creates(self, path: str, model: Any, **options: Any) -> Callable[[_F], _F]:
        """POST answering 201 and the `model` made."""
        return self.post(
            path, status_code=201, response_model=model, response_model_exclude_none=True,
            **options,
        )  # fmt: skip

    def replaces(self, path: str, model: Any, **options: Any) -> Callable[[_F], _F]:
        """PUT answering the `model` as changed."""
        return self.put(path, response_model=model, response_model_exclude_none=True, **options)

    def add_api_route(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        self.recorded.append((path, endpoint, kwargs))

    def add_to(self, app: FastAPI, prefix: str) -> None:
        for path, endpoint, kwargs in self.recorded:
            options = dict(kwargs)
            options["tags"] = [*self.tags, *(options.get("tags") or [])]
            options["dependencies"] = [*self.dependencies, *(options.get("dependencies") or [])]
            app.router.add_api_route(prefix + self.prefix + path, endpoint, **options)
