"""The lists the offline transport answers itself from a snapshot's items: paged (by index
or cursor), sorted and filtered as the platform would, for the filters a field engineer
uses (name, query, EUI and lrrID prefixes, tags, health, alarm level, a map box). A filter
it does not know is not applied: the snapshot is already the region taken offline."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

Item = dict[str, Any]
Params = list[tuple[str, str]]

PREFIX_FIELDS = {"name": "name", "LRRUUID": "lrrUUID"}
QUERY_FIELDS = ("name", "EUI", "lrrID", "lrrUUID", "lastIMEI")


def _values(params: Params, name: str) -> list[str]:
    return [v for k, v in params if k == name]


def _one(params: Params, name: str) -> str | None:
    values = _values(params, name)
    return values[-1] if values else None


def _starts(value: Any, prefix: str) -> bool:
    return isinstance(value, str) and value.lower().startswith(prefix.lower())


def _tags(item: Item) -> set[str]:
    return {str(t.get("name")) for t in item.get("tags") or [] if isinstance(t, dict)}


def _position(item: Item) -> tuple[float, float] | None:
    lat, lon = item.get("lat"), item.get("lon")
    if isinstance(lat, (int, float)) and isinstance(lon, (int, float)):
        return float(lat), float(lon)
    return None


class Matcher:
    """Whether a list item passes the request's filters."""

    def __init__(self, params: Params) -> None:
        self.prefixes = {f: p for n, f in PREFIX_FIELDS.items() if (p := _one(params, n))}
        self.query = _one(params, "query") or ""
        self.ids = {f: _values(params, n) for n, f in (("devEUI", "EUI"), ("LRRID", "lrrID"))}
        self.tags = set(_values(params, "tag"))
        self.health = set(_values(params, "healthState"))
        self.level = int(_one(params, "alarmLevel") or 0)
        box = [_one(params, k) for k in ("minLat", "minLon", "maxLat", "maxLon")]
        self.box = tuple(float(v) for v in box if v is not None) if None not in box else None
        acked = _one(params, "acked")
        self.acked = None if acked is None else acked.lower() == "true"

    @property
    def empty(self) -> bool:
        """No filter: every item passes."""
        return not (self.prefixes or self.query or any(self.ids.values()) or self.tags
                    or self.health or self.level or self.box or self.acked is not None)  # fmt: skip

    def __call__(self, item: Item) -> bool:
        if any(not _starts(item.get(f), p) for f, p in self.prefixes.items()):
            return False
        if self.query and not any(_starts(item.get(f), self.query) for f in QUERY_FIELDS):
            return False
        for field, prefixes in self.ids.items():
            if prefixes and not any(_starts(item.get(field), p) for p in prefixes):
                return False
        if self.tags and not self.tags <= _tags(item):
            return False
        if self.health and item.get("healthState") not in self.health:
            return False
        if self.level and int(item.get("alarmLevel") or 0) < self.level:
            return False
        if self.box is not None and not _inside(_position(item), *self.box):
            return False
        return self.acked is None or bool(item.get("acked")) == self.acked


def matcher(params: Params) -> Callable[[Item], bool]:
    return Matcher(params)


def _inside(at: tuple[float, float] | None, s: float, w: float, n: float, e: float) -> bool:
    return at is not None and s <= at[0] <= n and w <= at[1] <= e


def _sort_key(field: str) -> Callable[[Item], tuple[int, Any]]:
    def key(item: Item) -> tuple[int, Any]:
        value = item.get(field)
        if value is None:
            return (1, "")
        return (0, value.lower() if isinstance(value, str) else value)

    return key


def select(items: list[Item], params: Params) -> list[Item]:
    """The items this request's filters keep, in its order."""
    test = Matcher(params)
    chosen = items if test.empty else [i for i in items if test(i)]
    sort = _one(params, "sort")
    if sort:
        field, _, direction = sort.partition(",")
        chosen = sorted(chosen, key=_sort_key(field), reverse=direction.lower() == "desc")
    return chosen


def page(
    items: list[Item], params: Params, *, now: Any = None, chosen: list[Item] | None = None
) -> Item:
    """One page of the list of `items` this request asks for, in the platform's envelope
    (`chosen`: the selection already made for these filters and sort)."""
    if chosen is None:
        chosen = select(items, params)
    size = max(1, int(_one(params, "pageSize") or 100))
    after = _one(params, "pageAfter")
    index = _one(params, "pageIndex")
    if after is not None:
        start = int(after.lstrip("@") or 0)
    else:
        start = (max(1, int(index or 1)) - 1) * size
    briefs = chosen[start : start + size]
    more = start + size < len(chosen)
    envelope: Item = {"briefs": briefs, "more": more}
    if start == 0:
        envelope["count"] = len(chosen)
    if after is not None or (index is None and _one(params, "sort") is not None):
        envelope["cursors"] = {"last": f"@{start + size}" if more else None}
    if now is not None:
        envelope["now"] = now
    return envelope


def clusters(items: list[Item], params: Params, *, cells: int = 24) -> Item:
    """The map's clusters of the items in the box: one per grid cell of the box (an item
    alone in its cell is given whole), as the platform answers GET …/clusters."""
    box = [_one(params, k) for k in ("minLat", "minLon", "maxLat", "maxLon")]
    if any(v is None for v in box):
        return {"count": 0, "clusters": []}
    south, west, north, east = (float(v) for v in box if v is not None)
    test = matcher([(k, v) for k, v in params if k not in ("minLat", "minLon", "maxLat", "maxLon")])
    cell_lat = max((north - south) / cells, 1e-9)
    cell_lon = max((east - west) / cells, 1e-9)
    groups: dict[tuple[int, int], list[tuple[float, float, Item]]] = {}
    for item in items:
        at = _position(item)
        if not _inside(at, south, west, north, east) or not test(item):
            continue
        assert at is not None
        cell = (math.floor((at[0] - south) / cell_lat), math.floor((at[1] - west) / cell_lon))
        groups.setdefault(cell, []).append((at[0], at[1], item))
    out = []
    for members in groups.values():
        lats = [m[0] for m in members]
        lons = [m[1] for m in members]
        cluster: Item = {
            "count": len(members),
            "location": {"lat": sum(lats) / len(lats), "lng": sum(lons) / len(lons)},
            "bbox": {
                "northeast": {"lat": max(lats), "lng": max(lons)},
                "southwest": {"lat": min(lats), "lng": min(lons)},
            },
        }
        if len(members) == 1:
            cluster["item"] = members[0][2]
        out.append(cluster)
    return {"count": sum(c["count"] for c in out), "clusters": out}
