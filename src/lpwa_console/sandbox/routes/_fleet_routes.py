"""The collection routes that devices and base stations share: map clusters and tag
suggestions, declared once for a fleet entity's description.

FastAPI reads a route's parameters from its endpoint's signature, so each route is a closure
made for one entity. This module does not postpone its annotations (no `from __future__
import annotations`): the entity's dependencies are read when a closure is defined."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, get_args

from fastapi import Query

from ..auth import AppServices
from ._common import Latitude, Longitude, box_bounds
from ._router import RecordedRouter


@dataclass(frozen=True)
class FleetEntity:
    """What differs between two fleet entities' shared routes.

    `reader` and `filters` are `Annotated[..., Depends(...)]` aliases (who may read, the
    list's filters); the callables take the connection and what `reader` resolved to."""

    noun: str  # the route names (operation IDs): `{noun}_clusters`
    reader: Any
    filters: Any
    clusters_model: Any
    suggestions_model: Any
    clusters: Callable[[Any, Any, Any, Any], tuple[int, list[dict[str, Any]]]]
    shows_suggestions: Callable[[Any, Any], bool]
    suggestions: Callable[[Any, Any, str, list[str]], list[dict[str, Any]]]


def _dependency(alias: Any) -> Any:
    """The `Depends(...)` of an `Annotated[type, Depends(...)]` alias."""
    return get_args(alias)[1]


def add_clusters_route(router: RecordedRouter, entity: FleetEntity) -> None:
    """GET /clusters: the entities the filters select inside a box, grouped for a map."""
    reader, filters = _dependency(entity.reader), _dependency(entity.filters)

    def clusters(
        who: Annotated[Any, reader],
        svc: AppServices,
        chosen: Annotated[Any, filters],
        minLat: Latitude,
        minLon: Longitude,
        maxLat: Latitude,
        maxLon: Longitude,
    ) -> dict[str, Any]:
        bounds = box_bounds(minLat, minLon, maxLat, maxLon)
        total, found = entity.clusters(svc.db.conn(), who, chosen, bounds)
        return {"count": total, "clusters": found}

    router.get(
        "/clusters",
        name=f"{entity.noun}_clusters",
        response_model=entity.clusters_model,
        response_model_exclude_none=True,
    )(clusters)


def add_tag_suggestions_route(router: RecordedRouter, entity: FleetEntity) -> None:
    """GET /tags/suggestions: tag names starting with `query`, none of `exclude`. A
    restricted caller sees none when the owner hides suggestions from restricted users."""
    reader = _dependency(entity.reader)

    def tag_suggestions(
        who: Annotated[Any, reader],
        svc: AppServices,
        query: str = "",
        exclude: Annotated[list[str] | None, Query()] = None,
    ) -> dict[str, Any]:
        conn = svc.db.conn()
        if who.restricted and not entity.shows_suggestions(conn, who):
            return {"briefs": [], "query": query}
        return {"briefs": entity.suggestions(conn, who, query, exclude or []), "query": query}

    router.get(
        "/tags/suggestions",
        response_model=entity.suggestions_model,
        response_model_exclude_none=True,
    )(tag_suggestions)
