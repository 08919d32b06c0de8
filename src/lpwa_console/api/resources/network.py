"""Network resources of the subscription: cellular network contexts, AS transport keys
(CRUD, addressed by their ID), HSM groups with the public exchange key, network subscriptions."""

from __future__ import annotations

from ...schema.common import path_segment
from ...schema.multicast import BsTagSuggestions
from ...schema.network import (
    JWK_MEDIA_TYPE,
    PEM_MEDIA_TYPE,
    AsTransportKey,
    AsTransportKeyCreate,
    AsTransportKeyPage,
    AsTransportKeyUpdate,
    CellularNetworkContext,
    CellularNetworkContextCreate,
    CellularNetworkContextPage,
    CellularNetworkContextUpdate,
    HsmGroupPage,
    NetworkSubscription,
    NetworkSubscriptionFilter,
    NetworkSubscriptionPage,
    PublicRsaJsonWebKey,
    rsa_public_key_from_pem,
)
from ..errors import APIResponseValidationError
from ..pagination import page_params
from ._resource import APIResource

MINE = "/subscriptions/mine"
CONTEXTS = f"{MINE}/cellularNetworkContexts"
KEYS = f"{MINE}/asTransportKeys"
# What a platform that answers 404 or 405 for the collection does not offer (FeatureNotOffered).
NETWORK_CONTEXTS = "cellular network contexts"
AS_KEYS = "AS transport keys"
HSM_GROUPS = "HSM groups"
MANAGED_NETWORK = "a managed customer network"


class NetworkContextsResource(APIResource):
    """`/subscriptions/mine/cellularNetworkContexts`."""

    async def list(self, page_index: int = 1, page_size: int = 100) -> CellularNetworkContextPage:
        params = page_params(page_index, page_size)
        return await self._client.get(
            CONTEXTS, CellularNetworkContextPage, params=params, feature=NETWORK_CONTEXTS
        )

    async def get(self, context_id: str) -> CellularNetworkContext:
        return await self._client.get(
            f"{CONTEXTS}/{path_segment(context_id)}", CellularNetworkContext
        )

    async def create(self, context: CellularNetworkContextCreate) -> CellularNetworkContext:
        return await self._client.post(CONTEXTS, CellularNetworkContext, json=context.to_wire())

    async def update(
        self, context_id: str, update: CellularNetworkContextUpdate
    ) -> CellularNetworkContext:
        return await self._client.put(
            f"{CONTEXTS}/{path_segment(context_id)}", CellularNetworkContext, json=update.to_wire()
        )

    async def delete(self, context_id: str) -> None:
        await self._client.delete(f"{CONTEXTS}/{path_segment(context_id)}")


class AsTransportKeysResource(APIResource):
    """`/subscriptions/mine/asTransportKeys`."""

    async def list(self, page_index: int = 1, page_size: int = 100) -> AsTransportKeyPage:
        return await self._client.get(
            KEYS, AsTransportKeyPage, params=page_params(page_index, page_size), feature=AS_KEYS
        )

    async def get(self, key_id: str) -> AsTransportKey:
        return await self._client.get(f"{KEYS}/{path_segment(key_id)}", AsTransportKey)

    async def create(self, key: AsTransportKeyCreate) -> AsTransportKey:
        return await self._client.post(KEYS, AsTransportKey, json=key.to_wire())

    async def update(self, key_id: str, update: AsTransportKeyUpdate) -> AsTransportKey:
        return await self._client.put(
            f"{KEYS}/{path_segment(key_id)}", AsTransportKey, json=update.to_wire()
        )

    async def delete(self, key_id: str) -> None:
        await self._client.delete(f"{KEYS}/{path_segment(key_id)}")


class HsmGroupsResource(APIResource):
    """`/subscriptions/mine/hsmGroups` and the public exchange key."""

    async def list(self, page_index: int = 1, page_size: int = 100) -> HsmGroupPage:
        params = page_params(page_index, page_size)
        return await self._client.get(
            f"{MINE}/hsmGroups", HsmGroupPage, params=params, feature=HSM_GROUPS
        )

    async def public_exchange_key(self, hsm_group_id: str | None = None) -> PublicRsaJsonWebKey:
        """GET /subscriptions/mine/publicExchangeKey as a JSON Web Key (`Accept:
        application/jwk+json`): that HSM group's key (hsmGroupID, exact match), or without
        one the platform's exchange key (used when no HSM is)."""
        params = {"hsmGroupID": hsm_group_id} if hsm_group_id else None
        return await self._client.get(
            f"{MINE}/publicExchangeKey", PublicRsaJsonWebKey, params=params, accept=JWK_MEDIA_TYPE
        )

    async def public_exchange_key_pem(self, hsm_group_id: str | None = None) -> str:
        """The same key as PEM (X.509 SubjectPublicKeyInfo, `Accept: application/x-pem-file`),
        checked to be an RSA public key."""
        params = {"hsmGroupID": hsm_group_id} if hsm_group_id else None
        response = await self._client.request(
            "GET", f"{MINE}/publicExchangeKey", params=params, accept=PEM_MEDIA_TYPE
        )
        text = response.text
        try:
            rsa_public_key_from_pem(text)
        except ValueError as exc:
            raise APIResponseValidationError(
                f"Unexpected answer from {response.request.url.path}: {exc}", response=response
            ) from None
        return text


class NetworkSubscriptionsResource(APIResource):
    """`/subscriptions/mine/networkSubscriptions`."""

    async def list(
        self,
        page_index: int = 1,
        page_size: int = 100,
        *,
        filters: NetworkSubscriptionFilter | None = None,
    ) -> NetworkSubscriptionPage:
        params = (
            page_params(page_index, page_size)
            + (filters or NetworkSubscriptionFilter()).to_params()
        )
        return await self._client.get(
            f"{MINE}/networkSubscriptions", NetworkSubscriptionPage, params=params
        )

    async def get(self, subscription: str | int) -> NetworkSubscription:
        return await self._client.get(
            f"{MINE}/networkSubscriptions/{path_segment(subscription)}", NetworkSubscription
        )

    async def managed_network_bs_tag_suggestions(self, query: str) -> BsTagSuggestions:
        """GET /subscriptions/mine/managedCustomerNetwork/bss/tags/suggestions (`query`, a
        tag name's first characters, always sent)."""
        return await self._client.get(
            f"{MINE}/managedCustomerNetwork/bss/tags/suggestions",
            BsTagSuggestions,
            params={"query": query},
            feature=MANAGED_NETWORK,
        )
