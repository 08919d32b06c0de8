"""Identifiers that may hold `/` are each one percent-encoded path segment.

Application, application-server and catalog IDs may hold a slash (`id:lpwa/console`,
`id:LORA/GenericA.1.0.4a_ETSI`); a client sends each percent-encoded (`%2F`), so their routes
declare `{name:path}`. Starlette matches routes against the decoded path, where `{name:path}`
takes any number of segments: `/applications/{applicationUid:path}` then matched every path
under `/applications`, so an unknown path answered 405 with `Allow: GET` where GET answered
404, and `/rfRegions/X/logo` listed the region's PUT and DELETE in its `Allow`.

`OneSegmentRoute` matches a `{name:path}` parameter to exactly one segment of the raw path
(split before decoding) and gives it that segment decoded: an unknown path is then no route
(404), and a known path's 405 lists the methods its routes really serve (errors.py).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

from fastapi.routing import APIRoute
from starlette.routing import Match
from starlette.types import Scope

_PARAM = re.compile(r"^\{([^}:]+)(?::[^}]*)?\}$")


def raw_segments(scope: Scope) -> list[str]:
    """The request path's segments as sent (not decoded), without the leading `/`."""
    raw = scope.get("raw_path") or scope["path"].encode()
    path = raw.decode("latin-1").split("?", 1)[0]
    root = scope.get("root_path", "")
    if root and path.startswith(root):
        path = path[len(root) :]
    return path.lstrip("/").split("/")


class OneSegmentRoute(APIRoute):
    """An APIRoute whose path parameters are one raw segment each (see the module)."""

    def __init__(self, path: str, *args: Any, **kwargs: Any) -> None:
        super().__init__(path, *args, **kwargs)
        # Per segment of the path: the parameter's name, or None for a literal.
        parts = path.lstrip("/").split("/")
        self.segment_params: list[str | None] | None = None
        if ":path}" in path:
            self.segment_params = [m.group(1) if (m := _PARAM.match(p)) else None for p in parts]
            self.segment_literals = [p if _PARAM.match(p) is None else None for p in parts]

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        match, child = super().matches(scope)
        if match is Match.NONE or self.segment_params is None:
            return match, child
        raw = raw_segments(scope)
        if len(raw) != len(self.segment_params):
            return Match.NONE, {}
        params = dict(child.get("path_params", {}))
        for name, literal, text in zip(
            self.segment_params, self.segment_literals, raw, strict=True
        ):
            value = unquote(text)
            if name is not None:
                if not value:
                    return Match.NONE, {}
                params[name] = value
            elif value != literal:
                return Match.NONE, {}
        return match, child | {"path_params": params}
