"""What the partner and station routes share: the partner behind `{partnerUid}` with the
caller's rights on it, and the station behind `{bsUid}`.

`{partnerUid}` is `mine` (the caller's partner), a UID, `id:sub:` + a subscriber ID or
`id:sup:` + a supplier ID (Document 2 §2.1). A partner account reaches its own partner only
(another one is "not found"); the operator reaches every partner, unrestricted. The rights
are the partner's grantedPermissions as Document 1 applies them: `x` to read, `a` to change.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends

from ...schema.common import parse_identifier
from ...schema.domains import DomainRestrictions, domain_matches
from ...schema.stations import normalise_lrr_id, normalise_lrr_uuid
from ..accounts import Account
from ..auth import OPERATOR_ADMIN, AppServices, CurrentAccount
from ..errors import OUT_OF_DOMAIN, bad_request, forbidden, not_found
from ..store import partners as partner_store
from ..store import stations as station_store

# The sandbox has one operator: `mine`, its UID 1 or `id:` + OPERATOR_ID.
OPERATOR_ID = "demo-operator"


def check_operator(operator_uid: str) -> None:
    """404 unless `{operatorUid}` names the sandbox's operator."""
    ident = parse_identifier(operator_uid)
    known = ident.kind == "mine" or (ident.kind == "uid" and ident.value == "1")
    if not (known or (ident.kind == "id" and ident.value == OPERATOR_ID)):
        raise not_found(f"operator {operator_uid} not found")


def is_operator(account: Account) -> bool:
    return account.can(OPERATOR_ADMIN)


@dataclass(frozen=True)
class PartnerScope:
    """A request's partner and the caller acting on it."""

    uid: int
    subscription_id: int | None  # a subscriber partner's subscription (its domains)
    account: Account

    @property
    def restrictions(self) -> DomainRestrictions | None:
        return None if is_operator(self.account) else self.account.restrictions

    @property
    def restricted(self) -> bool:
        return not is_operator(self.account) and self.account.restricted

    def can(self, permission: str) -> bool:
        return is_operator(self.account) or self.account.can(permission)

    @property
    def who(self) -> str:
        return self.account.name

    @property
    def station_base(self) -> str:
        """Where this caller finds the partner's stations (their `href`s)."""
        return station_store.station_base(self.uid, self.account.partner_uid == self.uid)


def resolve_partner(conn: sqlite3.Connection, account: Account, text: str) -> int:
    """The partner UID behind a `{partnerUid}`; 404 when unknown or not the caller's."""
    ident = parse_identifier(text)
    uid: int | None = None
    if ident.kind == "mine":
        if account.partner_uid is None:
            raise forbidden(f"the {account.role} account does not act for a network partner")
        uid = account.partner_uid
    elif ident.kind == "uid":
        uid = ident.uid if partner_store.get(conn, ident.uid) is not None else None
    elif ident.kind == "sub":
        uid = partner_store.find(conn, "SUBSCRIBER", ident.value)
    elif ident.kind == "sup":
        uid = partner_store.find(conn, "SUPPLIER", ident.value)
    if uid is None or (not is_operator(account) and uid != account.partner_uid):
        raise not_found(f"partner {text} not found")
    return uid


def partner_scope(partnerUid: str, account: CurrentAccount, svc: AppServices) -> PartnerScope:
    conn = svc.db.conn()
    uid = resolve_partner(conn, account, partnerUid)
    return PartnerScope(uid, partner_store.subscription_of(conn, uid), account)


def partner_reader(scope: Annotated[PartnerScope, Depends(partner_scope)]) -> PartnerScope:
    if not scope.can("x"):
        raise forbidden("reading needs the partner permission 'x'")
    return scope


def partner_writer(scope: Annotated[PartnerScope, Depends(partner_scope)]) -> PartnerScope:
    if not scope.can("a"):
        raise forbidden("changes need the partner permission 'a'")
    return scope


PartnerReader = Annotated[PartnerScope, Depends(partner_reader)]
PartnerWriter = Annotated[PartnerScope, Depends(partner_writer)]


def visible_station_uid(conn: sqlite3.Connection, scope: PartnerScope, bs_uid: str) -> int:
    """The UID behind `{bsUid}` (UID, `i` + lrrID, `u` + lrrUUID), or 404 when absent, of
    another partner or outside the caller's domains."""
    uid: int | None = None
    ident = parse_identifier(bs_uid)
    try:
        if ident.kind == "uid":
            uid = station_store.find_uid(conn, scope.uid, uid=ident.uid)
        elif bs_uid[:1] in ("i", "I") and len(bs_uid) == 9:
            uid = station_store.find_uid(conn, scope.uid, lrr_id=normalise_lrr_id(bs_uid[1:]))
        elif bs_uid[:1] in ("u", "U"):
            uid = station_store.find_uid(conn, scope.uid, lrr_uuid=normalise_lrr_uuid(bs_uid[1:]))
    except ValueError:
        uid = None
    if uid is None or not domain_matches(station_store.domains_of(conn, uid), scope.restrictions):
        raise not_found(f"base station {bs_uid} not found")
    return uid


def check_station_domains(
    scope: PartnerScope, pairs: list[tuple[str, str]], *, field: str = "domains"
) -> None:
    """403 when `pairs` fall outside the caller's restrictions; 400 when the partner has no
    domains (a supplier partner: domains are a subscriber partner's)."""
    if pairs and scope.subscription_id is None:
        raise bad_request(f"{field}: only a subscriber partner's stations have domains")
    if not domain_matches(pairs, scope.restrictions):
        raise forbidden(f"{field}: outside the domains you are restricted to", OUT_OF_DOMAIN)
