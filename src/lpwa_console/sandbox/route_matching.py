"""Which route a path belongs to: each identifier is one path segment, and a literal segment
beats an identifier.

Application, application-server and catalog IDs may hold a slash (`id:lpwa/console`,
`id:LORA/GenericA.1.0.4a_ETSI`); a client sends each percent-encoded (`%2F`), so their routes
declare `{name:path}`. Starlette matches routes against the decoded path, where `{name:path}`
takes any number of segments: `/applications/{applicationUid:path}` matched every path under
`/applications`, so an unknown path answered 405 with `Allow: GET` where GET answered 404.
And an identifier route matches the literal paths beside it: `/deviceProfiles/catalog` is
also `/deviceProfiles/{profileUid}`, so its 405 listed the profiles' PUT, and a PUT there
was sent to a profile named "catalog".

`SegmentRoute` (every route of the sandbox, through app.py's route class):
- matches a `{name:path}` parameter to exactly one segment of the raw path (split before
  decoding) and gives it that segment decoded: an unknown path is no route (404);
- does not match a path that a route with literals where it has identifiers claims (same
  segments, literals equal): that path is the other route's, for every method, so its 405
  lists only the methods served there (errors.py) and other methods are 405, never a 404
  about an item named like the literal.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import unquote

from fastapi.routing import APIRoute
from starlette.routing import Match
from starlette.types import Scope

_PARAM = re.compile(r"^\{([^}:]+)(?::[^}]*)?\}$")


def raw_segments(scope: Scope) -> list[str]:
    """The request path's segments as sent (not decoded), without the leading `/`."""
    raw: bytes = scope.get("raw_path") or scope["path"].encode()
    path = raw.decode("latin-1").split("?", 1)[0]
    root: str = scope.get("root_path", "")
    if root and path.startswith(root):
        path = path[len(root) :]
    return path.lstrip("/").split("/")


class SegmentRoute(APIRoute):
    """An APIRoute matched segment by segment (see the module)."""

    def __init__(self, path: str, *args: Any, **kwargs: Any) -> None:
        super().__init__(path, *args, **kwargs)
        parts = path.lstrip("/").split("/")
        # Per segment: the parameter's name for a whole-segment `{name}`, else None; and the
        # literal text for a segment without braces, else None.
        self.segment_params = [m.group(1) if (m := _PARAM.match(p)) else None for p in parts]
        self.segment_literals = [None if "{" in p else p for p in parts]
        self.raw_params = ":path}" in path
        self._siblings: tuple[int, int, list[SegmentRoute]] | None = None

    def claims(self, segments: Sequence[str]) -> bool:
        """Whether decoded `segments` have this route's shape (literals equal, identifiers
        not empty); a segment mixing text and a parameter claims nothing."""
        if len(segments) != len(self.segment_literals):
            return False
        for name, literal, text in zip(
            self.segment_params, self.segment_literals, segments, strict=True
        ):
            if literal is not None and text != literal:
                return False
            if literal is None and (name is None or not text):
                return False
        return True

    def _dominates(self, other: SegmentRoute) -> bool:
        """A literal where `other` has an identifier, and no identifier where it has one."""
        if len(self.segment_literals) != len(other.segment_literals):
            return False
        more = False
        for mine, theirs in zip(self.segment_literals, other.segment_literals, strict=True):
            if mine is None and theirs is not None:
                return False
            more = more or (mine is not None and theirs is None)
        return more

    def _more_literal(self, routes: Sequence[Any]) -> list[SegmentRoute]:
        # Cached per route list: a staged app adds its routes after its first requests.
        key = (id(routes), len(routes))
        if self._siblings is None or self._siblings[:2] != key:
            found = [r for r in routes if isinstance(r, SegmentRoute) and r._dominates(self)]
            self._siblings = (*key, found)
        return self._siblings[2]

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        match, child = super().matches(scope)
        if match is Match.NONE or all(p is None for p in self.segment_params):
            return match, child
        decoded = [unquote(p) for p in raw_segments(scope)]
        if self.raw_params:
            if not self.claims(decoded):
                return Match.NONE, {}
            params = dict(child.get("path_params", {}))
            for name, text in zip(self.segment_params, decoded, strict=True):
                if name is not None:
                    params[name] = text
            child = {**child, "path_params": params}
        router = scope.get("router")
        routes = getattr(router, "routes", None) or ()
        if any(route.claims(decoded) for route in self._more_literal(routes)):
            return Match.NONE, {}
        return match, child
