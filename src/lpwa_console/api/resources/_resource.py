from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .._base import BaseClient


class APIResource:
    def __init__(self, client: BaseClient) -> None:
        self._client = client


def box_params(
    min_lat: float, min_lon: float, max_lat: float, max_lon: float
) -> list[tuple[str, str]]:
    """The box of a cluster request (`minLat`, `minLon`, `maxLat`, `maxLon`)."""
    return [
        ("minLat", str(min_lat)),
        ("minLon", str(min_lon)),
        ("maxLat", str(max_lat)),
        ("maxLon", str(max_lon)),
    ]
