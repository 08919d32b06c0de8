from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .._base import BaseClient


class APIResource:
    def __init__(self, client: BaseClient) -> None:
        self._client = client
