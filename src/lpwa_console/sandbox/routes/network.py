"""Network resources (Document 1 §2.6, §4.3): cellular network contexts and AS transport keys
(CRUD), HSM groups, network subscriptions and the public exchange key.

The public exchange key follows the reference contract: without `hsmGroupID` it is the
platform's exchange key (the one that protects keys when no HSM is used), with it that HSM
group's key (exact match, 404 when there is none). It comes as PEM (X.509 SubjectPublicKeyInfo,
`application/x-pem-file`, the default) or as a JSON Web Key (`application/jwk+json`), as the
Accept header prefers; an Accept that allows neither gets 406.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Annotated, Any

from fastapi import Header, Query, Response

from ...schema import network as wire
from ...schema.common import parse_identifier
from ..auth import AppServices, ClientBodies, SubscriptionReader
from ..errors import NOT_ACCEPTABLE, ApiError, bad_request, not_found
from ..store import network as store
from ._by_id import ByID, ByIDRoutes, add_by_id_routes
from ._common import PageParams
from ._router import RecordedRouter

router = RecordedRouter(prefix="/subscriptions/mine", tags=["network"], dependencies=[ClientBodies])


# --- cellular network contexts and AS transport keys: addressed by their ID ------------------


def _update_context(
    conn: sqlite3.Connection, sub: int, ref: str, body: wire.CellularNetworkContextUpdate
) -> None:
    if "name" in body.model_fields_set and body.name is None:
        raise bad_request("name: cannot be removed")
    store.update_context(conn, sub, ref, body)


def _rename_key(
    conn: sqlite3.Connection, sub: int, ref: str, body: wire.AsTransportKeyUpdate
) -> None:
    if body.name:
        store.rename_key(conn, sub, ref, body.name)


NETWORK_CONTEXTS = ByID(
    "cellular network context", "a network context", "network_contexts",
    store.find_context, store.create_context, _update_context,
    store.contexts_page, store.contexts_count,
)  # fmt: skip
TRANSPORT_KEYS = ByID(
    "AS transport key", "an AS transport key", "as_transport_keys",
    store.find_key, store.create_key, _rename_key, store.keys_page, store.keys_count,
)  # fmt: skip
add_by_id_routes(router, ByIDRoutes(
    NETWORK_CONTEXTS, "/cellularNetworkContexts", "networkContextID", "context", "contexts",
    wire.CellularNetworkContextPage, wire.CellularNetworkContext,
    wire.CellularNetworkContextCreate, wire.CellularNetworkContextUpdate,
    "A context with this ID exists",
))  # fmt: skip
add_by_id_routes(router, ByIDRoutes(
    TRANSPORT_KEYS, "/asTransportKeys", "asTransportKeyID", "key", "keys",
    wire.AsTransportKeyPage, wire.AsTransportKey,
    wire.AsTransportKeyCreate, wire.AsTransportKeyUpdate,
    "A key with this ID exists",
))  # fmt: skip


# --- HSM groups, exchange key, network subscriptions --------------------------------------------


@router.reads("/hsmGroups", wire.HsmGroupPage)
def list_hsm_groups(account: SubscriptionReader, svc: AppServices, paging: PageParams) -> Any:
    return paging.of(store.hsm_groups_page, store.hsm_groups_count, svc.db.conn(), account.sub)


# The representations of the public exchange key, the default first (the reference's order).
KEY_MEDIA_TYPES = (wire.PEM_MEDIA_TYPE, wire.JWK_MEDIA_TYPE)


def preferred(accept: str | None, offered: tuple[str, ...]) -> str | None:
    """The offered media type `accept` prefers: the highest quality, the most specific range
    deciding each type's quality, the first offered on a tie. The first offered without an
    Accept header; None when it allows none of them."""
    if accept is None or not accept.strip():
        return offered[0]
    ranges: list[tuple[str, float]] = []
    for part in accept.split(","):
        media, *options = (p.strip() for p in part.split(";"))
        quality = 1.0
        for option in options:
            name, _, value = option.partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if media:
            ranges.append((media.lower(), quality))
    best, best_quality = None, 0.0
    for candidate in offered:
        kind = candidate.split("/")[0]
        matches = [
            (2 if media == candidate else 1 if media == f"{kind}/*" else 0, quality)
            for media, quality in ranges
            if media in (candidate, f"{kind}/*", "*/*")
        ]
        quality = max(matches)[1] if matches else 0.0
        if quality > best_quality:
            best, best_quality = candidate, quality
    return best


@router.get(
    "/publicExchangeKey",
    response_class=Response,
    responses={
        200: {
            "description": "The RSA public exchange key, as PEM or as a JSON Web Key",
            "content": {
                wire.PEM_MEDIA_TYPE: {"schema": {"type": "string"}},
                wire.JWK_MEDIA_TYPE: {"schema": wire.PublicRsaJsonWebKey.model_json_schema()},
            },
        },
        404: {"description": "No public exchange key for this HSM group"},
        406: {"description": "The Accept header allows neither representation"},
    },
)
def public_exchange_key(
    account: SubscriptionReader,
    svc: AppServices,
    hsmGroupID: str | None = None,
    accept: Annotated[str | None, Header()] = None,
) -> Response:
    media = preferred(accept, KEY_MEDIA_TYPES)
    if media is None:
        raise ApiError(
            406, NOT_ACCEPTABLE,
            f"Accept: the public exchange key comes as {' or '.join(KEY_MEDIA_TYPES)}",
        )  # fmt: skip
    key: dict[str, str] | None
    if hsmGroupID is None:
        key = store.platform_key(svc.db.conn())
    else:
        group = store.find_hsm_group(svc.db.conn(), account.sub, hsmGroupID)
        key = store.hsm_key(group) if group is not None else None
        if key is None:
            raise not_found(f"no public exchange key for HSM group {hsmGroupID}")
    headers = {"Vary": "Accept"}
    if media == wire.JWK_MEDIA_TYPE:
        return Response(json.dumps(key), media_type=wire.JWK_MEDIA_TYPE, headers=headers)
    pem = wire.PublicRsaJsonWebKey.model_validate(key).pem()
    return Response(pem, media_type=wire.PEM_MEDIA_TYPE, headers=headers)


@router.reads("/networkSubscriptions", wire.NetworkSubscriptionPage)
def list_network_subscriptions(
    account: SubscriptionReader,
    svc: AppServices,
    paging: PageParams,
    connectivity: Annotated[str | None, Query(pattern="^(LORAWAN|CELLULAR)$")] = None,
    communicationType: Annotated[str | None, Query(pattern="^(UNICAST|MULTICAST)$")] = None,
    connectivitySupplier: str | None = None,
    networkSubscriptionID: str | None = None,
) -> dict[str, Any]:
    w = store.network_subscription_where(
        account.sub, connectivity=connectivity, communication_type=communicationType,
        supplier=connectivitySupplier, ref=networkSubscriptionID,
    )  # fmt: skip
    page, count = store.network_subscriptions_page, store.network_subscriptions_count
    return paging.of(page, count, svc.db.conn(), w)


@router.reads("/networkSubscriptions/{networkSubscriptionUid}", wire.NetworkSubscription)
def get_network_subscription(
    networkSubscriptionUid: str, account: SubscriptionReader, svc: AppServices
) -> dict[str, Any]:
    ident = parse_identifier(networkSubscriptionUid)
    found = None
    if ident.kind == "uid":
        found = store.find_network_subscription(svc.db.conn(), account.sub, uid=ident.uid)
    elif ident.kind in ("id", "text"):
        found = store.find_network_subscription(svc.db.conn(), account.sub, ref=ident.value)
    if found is None:
        raise not_found(f"network subscription {networkSubscriptionUid} not found")
    return found
