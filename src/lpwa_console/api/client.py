"""The client the console uses: one instance per platform interface."""

from __future__ import annotations

from functools import cached_property

from ._base import BaseClient
from .resources.devices import DevicesResource
from .resources.subscription import SubscriptionResource


class LpwaClient(BaseClient):
    """Async client of the platform's REST API.

    >>> client = LpwaClient(base_url, Credentials(token_url, client_id, secret))
    >>> page = await client.devices.list(page_size=50)
    """

    @cached_property
    def subscription(self) -> SubscriptionResource:
        return SubscriptionResource(self)

    @cached_property
    def devices(self) -> DevicesResource:
        return DevicesResource(self)
