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
from typing import Annotated, Any

from fastapi import Header, Query, Response

from ...schema.common import parse_identifier
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
    NetworkSubscriptionPage,
    PublicRsaJsonWebKey,
)
from ..auth import AppServices, ClientBodies, SubscriptionReader, SubscriptionWriter
from ..errors import DUPLICATE, NOT_ACCEPTABLE, ApiError, bad_request, not_found, refuse_changed
from ..store import network as store
from ._common import PageParams, list_answer
from ._router import RecordedRouter

router = RecordedRouter(prefix="/subscriptions/mine", tags=["network"], dependencies=[ClientBodies])
CONTEXTS = "/cellularNetworkContexts"
KEYS = "/asTransportKeys"


# --- cellular network contexts ----------------------------------------------------------------


def _context(svc: Any, sub: int, ref: str) -> dict[str, Any]:
    found = store.find_context(svc.db.conn(), sub, ref)
    if found is None:
        raise not_found(f"cellular network context {ref} not found")
    return found


@router.get(CONTEXTS, response_model=CellularNetworkContextPage, response_model_exclude_none=True)
def list_contexts(
    account: SubscriptionReader, svc: AppServices, paging: PageParams
) -> dict[str, Any]:
    sub = account.subscription_id
    assert sub is not None
    conn = svc.db.conn()
    items, more = store.contexts_page(conn, sub, paging.offset, paging.size)
    return list_answer(
        items, more, first=paging.first, count=lambda: store.contexts_count(conn, sub)
    )


@router.post(CONTEXTS, status_code=201, response_model=CellularNetworkContext,
             response_model_exclude_none=True,
             responses={409: {"description": "A context with this ID exists"}})  # fmt: skip
def create_context(
    body: CellularNetworkContextCreate, account: SubscriptionWriter, svc: AppServices
) -> dict[str, Any]:
    sub = account.subscription_id
    assert sub is not None
    with svc.db.write() as conn:
        if store.find_context(conn, sub, body.ID) is not None:
            raise ApiError(409, DUPLICATE, f"ID: a network context {body.ID} exists")
        store.create_context(conn, sub, body)
    return _context(svc, sub, body.ID)


@router.get(f"{CONTEXTS}/{{networkContextID}}", response_model=CellularNetworkContext,
            response_model_exclude_none=True)  # fmt: skip
def get_context(
    networkContextID: str, account: SubscriptionReader, svc: AppServices
) -> dict[str, Any]:
    assert account.subscription_id is not None
    return _context(svc, account.subscription_id, networkContextID)


@router.put(f"{CONTEXTS}/{{networkContextID}}", response_model=CellularNetworkContext,
            response_model_exclude_none=True)  # fmt: skip
def update_context(
    networkContextID: str,
    body: CellularNetworkContextUpdate,
    account: SubscriptionWriter,
    svc: AppServices,
) -> dict[str, Any]:
    sub = account.subscription_id
    assert sub is not None
    refuse_changed(_context(svc, sub, networkContextID), body.fixed_values())
    if "name" in body.model_fields_set and body.name is None:
        raise bad_request("name: cannot be removed")
    with svc.db.write() as conn:
        store.update_context(conn, sub, networkContextID, body)
    return _context(svc, sub, networkContextID)


@router.delete(f"{CONTEXTS}/{{networkContextID}}", status_code=204)
def delete_context(
    networkContextID: str, account: SubscriptionWriter, svc: AppServices
) -> Response:
    sub = account.subscription_id
    assert sub is not None
    with svc.db.write() as conn:
        _context(svc, sub, networkContextID)
        used = store.delete_unused(
            conn, sub, "network_contexts", networkContextID, account.restrictions
        )
        if used.total:
            raise bad_request(f"networkContextID: still used by {used.words()}")
    return Response(status_code=204)


# --- AS transport keys ------------------------------------------------------------------------


def _key(svc: Any, sub: int, ref: str) -> dict[str, Any]:
    found = store.find_key(svc.db.conn(), sub, ref)
    if found is None:
        raise not_found(f"AS transport key {ref} not found")
    return found


@router.get(KEYS, response_model=AsTransportKeyPage, response_model_exclude_none=True)
def list_keys(account: SubscriptionReader, svc: AppServices, paging: PageParams) -> dict[str, Any]:
    sub = account.subscription_id
    assert sub is not None
    conn = svc.db.conn()
    items, more = store.keys_page(conn, sub, paging.offset, paging.size)
    return list_answer(items, more, first=paging.first, count=lambda: store.keys_count(conn, sub))


@router.post(KEYS, status_code=201, response_model=AsTransportKey, response_model_exclude_none=True,
             responses={409: {"description": "A key with this ID exists"}})  # fmt: skip
def create_key(
    body: AsTransportKeyCreate, account: SubscriptionWriter, svc: AppServices
) -> dict[str, Any]:
    sub = account.subscription_id
    assert sub is not None
    with svc.db.write() as conn:
        if store.find_key(conn, sub, body.ID) is not None:
            raise ApiError(409, DUPLICATE, f"ID: an AS transport key {body.ID} exists")
        store.create_key(conn, sub, body)
    return _key(svc, sub, body.ID)


@router.get(f"{KEYS}/{{asTransportKeyID}}", response_model=AsTransportKey,
            response_model_exclude_none=True)  # fmt: skip
def get_key(asTransportKeyID: str, account: SubscriptionReader, svc: AppServices) -> dict[str, Any]:
    assert account.subscription_id is not None
    return _key(svc, account.subscription_id, asTransportKeyID)


@router.put(f"{KEYS}/{{asTransportKeyID}}", response_model=AsTransportKey,
            response_model_exclude_none=True)  # fmt: skip
def update_key(
    asTransportKeyID: str, body: AsTransportKeyUpdate, account: SubscriptionWriter, svc: AppServices
) -> dict[str, Any]:
    sub = account.subscription_id
    assert sub is not None
    refuse_changed(_key(svc, sub, asTransportKeyID), body.fixed_values())
    if body.name:
        with svc.db.write() as conn:
            store.rename_key(conn, sub, asTransportKeyID, body.name)
    return _key(svc, sub, asTransportKeyID)


@router.delete(f"{KEYS}/{{asTransportKeyID}}", status_code=204)
def delete_key(asTransportKeyID: str, account: SubscriptionWriter, svc: AppServices) -> Response:
    sub = account.subscription_id
    assert sub is not None
    with svc.db.write() as conn:
        _key(svc, sub, asTransportKeyID)
        used = store.delete_unused(
            conn, sub, "as_transport_keys", asTransportKeyID, account.restrictions
        )
        if used.total:
            raise bad_request(f"asTransportKeyID: still used by {used.words()}")
    return Response(status_code=204)


# --- HSM groups, exchange key, network subscriptions --------------------------------------------


@router.get("/hsmGroups", response_model=HsmGroupPage, response_model_exclude_none=True)
def list_hsm_groups(
    account: SubscriptionReader, svc: AppServices, paging: PageParams
) -> dict[str, Any]:
    sub = account.subscription_id
    assert sub is not None
    conn = svc.db.conn()
    items, more = store.hsm_groups_page(conn, sub, paging.offset, paging.size)
    return list_answer(
        items, more, first=paging.first, count=lambda: store.hsm_groups_count(conn, sub)
    )


# The representations of the public exchange key, the default first (the reference's order).
KEY_MEDIA_TYPES = (PEM_MEDIA_TYPE, JWK_MEDIA_TYPE)


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
                PEM_MEDIA_TYPE: {"schema": {"type": "string"}},
                JWK_MEDIA_TYPE: {"schema": PublicRsaJsonWebKey.model_json_schema()},
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
    assert account.subscription_id is not None
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
        group = store.find_hsm_group(svc.db.conn(), account.subscription_id, hsmGroupID)
        key = store.hsm_key(group) if group is not None else None
        if key is None:
            raise not_found(f"no public exchange key for HSM group {hsmGroupID}")
    headers = {"Vary": "Accept"}
    if media == JWK_MEDIA_TYPE:
        return Response(json.dumps(key), media_type=JWK_MEDIA_TYPE, headers=headers)
    pem = PublicRsaJsonWebKey.model_validate(key).pem()
    return Response(pem, media_type=PEM_MEDIA_TYPE, headers=headers)


@router.get("/networkSubscriptions", response_model=NetworkSubscriptionPage,
            response_model_exclude_none=True)  # fmt: skip
def list_network_subscriptions(
    account: SubscriptionReader,
    svc: AppServices,
    paging: PageParams,
    connectivity: Annotated[str | None, Query(pattern="^(LORAWAN|CELLULAR)$")] = None,
    communicationType: Annotated[str | None, Query(pattern="^(UNICAST|MULTICAST)$")] = None,
    connectivitySupplier: str | None = None,
    networkSubscriptionID: str | None = None,
) -> dict[str, Any]:
    sub = account.subscription_id
    assert sub is not None
    conn = svc.db.conn()
    w = store.network_subscription_where(
        sub, connectivity=connectivity, communication_type=communicationType,
        supplier=connectivitySupplier, ref=networkSubscriptionID,
    )  # fmt: skip
    items, more = store.network_subscriptions_page(conn, w, paging.offset, paging.size)
    return list_answer(
        items, more, first=paging.first, count=lambda: store.network_subscriptions_count(conn, w)
    )


@router.get("/networkSubscriptions/{networkSubscriptionUid}", response_model=NetworkSubscription,
            response_model_exclude_none=True)  # fmt: skip
def get_network_subscription(
    networkSubscriptionUid: str, account: SubscriptionReader, svc: AppServices
) -> dict[str, Any]:
    assert account.subscription_id is not None
    ident = parse_identifier(networkSubscriptionUid)
    found = None
    if ident.kind == "uid":
        found = store.find_network_subscription(
            svc.db.conn(), account.subscription_id, uid=ident.uid
        )
    elif ident.kind in ("id", "text"):
        found = store.find_network_subscription(
            svc.db.conn(), account.subscription_id, ref=ident.value
        )
    if found is None:
        raise not_found(f"network subscription {networkSubscriptionUid} not found")
    return found
