from __future__ import annotations

from ...schema.subscription import Subscription, SubscriptionUpdate
from ._resource import APIResource


class SubscriptionResource(APIResource):
    """`/subscriptions/mine`: the authenticated user's subscription."""

    async def get(self) -> Subscription:
        return await self._client.get("/subscriptions/mine", Subscription)

    async def update(self, update: SubscriptionUpdate) -> Subscription:
        return await self._client.put("/subscriptions/mine", Subscription, json=update.to_wire())
