"""Applying device import rows (CREATE_*, UPDATE_*, DELETE) with the same rules as the
device routes. Each row runs under a SAVEPOINT: a refused row leaves the batch intact.

Rules beyond the schema's:
- Updating the AS routing profile (column I of an UPDATE) needs LPWA_MGR::ADMIN_NODE, as
  PUT /devices/{id} does (Document 1 §5.4: WRITE_NODE is not enough). Setting one at creation
  is allowed (the rule speaks of updates).
- The routing profile must suit the device's connectivity (LORAWAN or CELLULAR, the profile's
  `connectivity` column): store.devices.routing_profile_mismatch, as PUT /devices/{id}.
- The network context (cellular column S) and HSM group (OTAA column R) must be the
  subscription's, as in POST and PUT /devices: store.devices.unknown_references.
- Application servers (column T) are forbidden when a routing profile (column I) is given.
- The import's `domain` parameter: created devices get those domains (a domain the line's
  own column AC gives in the same group wins); a deleted device must belong to all of them.
  Updates ignore the parameter.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import Any

from ...schema.device_import import ImportRow, activation_of, connectivity_of
from ...schema.devices import DeviceCreate, DeviceUpdate
from ...schema.domains import DomainRestrictions, domain_matches, leaves_domains
from ..accounts import ADMIN_NODE
from ..errors import (
    DUPLICATE,
    INVALID,
    NO_PERMISSION,
    NOT_FOUND,
    OUT_OF_DOMAIN,
    UNKNOWN_REFERENCE,
    ApiError,
)
from . import devices as store
from . import domains as domain_store
from .domains import APP_SERVER_DOMAINS


class RowRefused(ApiError):
    """One line refused, with the sandbox's error code (sandbox/errors.py): an ApiError, as
    the key manager import's lines are refused, though no request answers its status."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(400, code, message)


@dataclass
class Context:
    """What every row of one import shares (and lookups cached across rows)."""

    subscription_id: int
    restrictions: DomainRestrictions | None
    extra_domains: list[tuple[str, str]] = field(default_factory=list)
    now: int = 0
    # May the caller update a device's AS routing profile (LPWA_MGR::ADMIN_NODE)?
    may_route: bool = True
    _refs: dict[tuple[str, str], int | None] = field(default_factory=dict)
    _profiles: dict[str, store.RoutingProfileRef | None] = field(default_factory=dict)

    def ref(self, conn: sqlite3.Connection, table: str, ref: str, what: str) -> int:
        key = (table, ref)
        if key not in self._refs:
            if table == "device_models":
                self._refs[key] = store.model_id(conn, ref)
            else:
                self._refs[key] = store.ref_id(conn, table, self.subscription_id, ref)
        found = self._refs[key]
        if found is None:
            raise RowRefused(UNKNOWN_REFERENCE, f"{what}: unknown ID {ref}")
        return found

    def app_servers(
        self, conn: sqlite3.Connection, refs: list[str], linked: set[int] | None = None
    ) -> list[int]:
        """Row ids of the application servers `refs` (`routes._common.app_server_ids`'s
        rule): one outside a restricted caller's domains is unknown, unless the device
        already routes to it (`linked`)."""
        ids = []
        for ref in refs:
            found = self.ref(conn, "app_servers", ref, "appServers")
            if found not in (linked or set()) and not domain_store.within_reach(
                conn, APP_SERVER_DOMAINS, found, self.restrictions
            ):
                raise RowRefused(UNKNOWN_REFERENCE, f"appServers: unknown ID {ref}")
            ids.append(found)
        return ids

    def profile(self, conn: sqlite3.Connection, ref: str, connectivity: str) -> int:
        """The routing profile `ref`, checked against a device of `connectivity`."""
        if ref not in self._profiles:
            self._profiles[ref] = store.routing_profile(conn, self.subscription_id, ref)
        profile = self._profiles[ref]
        if profile is None:
            raise RowRefused(UNKNOWN_REFERENCE, f"appServersRoutingProfile: unknown ID {ref}")
        problem = store.routing_profile_mismatch(profile, connectivity)
        if problem:
            raise RowRefused(INVALID, problem)
        return profile.id

    def check_references(self, conn: sqlite3.Connection, body: DeviceCreate | DeviceUpdate) -> None:
        """The network context and HSM group the line sets must be the subscription's."""
        problems = store.unknown_references(conn, self.subscription_id, body)
        if problems:
            raise RowRefused(UNKNOWN_REFERENCE, "; ".join(problems))
        refusal = store.hsm_refusal(conn, self.subscription_id, body)
        if refusal:
            raise RowRefused(INVALID, refusal)


def context_for(
    subscription_id: int,
    restrictions: DomainRestrictions | None,
    rights: tuple[str, ...],
    extra_domains: list[tuple[str, str]],
    now: int,
) -> Context:
    return Context(
        subscription_id, restrictions, extra_domains, now, may_route=ADMIN_NODE in rights
    )


def _domains(
    ctx: Context, device: DeviceCreate | DeviceUpdate, *, creating: bool
) -> list[tuple[str, str]] | None:
    extra = ctx.extra_domains if creating else []
    if device.domains is None and not extra:
        return None
    pairs = [(d.group.name, d.name) for d in device.domains or []]
    groups = {g for g, _ in pairs}
    pairs += [(g, n) for g, n in extra if g not in groups]
    if not domain_matches(pairs, ctx.restrictions):
        raise RowRefused(OUT_OF_DOMAIN, "domains: outside the domains you are restricted to")
    return pairs


def _visible(conn: sqlite3.Connection, ctx: Context, eui: str) -> int:
    uid = store.find_uid(conn, ctx.subscription_id, eui=eui)
    if uid is None or not domain_matches(store.domains_of(conn, uid), ctx.restrictions):
        raise RowRefused(NOT_FOUND, f"no device with EUI {eui}")
    return uid


def apply(conn: sqlite3.Connection, ctx: Context, row: ImportRow) -> str:
    """Apply one valid row; returns a short message, raises RowRefused."""
    op = row.operation
    assert op is not None and row.EUI is not None
    conn.execute("SAVEPOINT import_row")
    try:
        if op == "DELETE":
            _delete(conn, ctx, row.EUI)
            message = "deleted"
        elif op.startswith("CREATE"):
            assert isinstance(row.device, DeviceCreate)
            message = f"created with UID {_create(conn, ctx, row, row.device)}"
        else:
            assert isinstance(row.device, DeviceUpdate)
            _update(conn, ctx, row, row.device)
            message = "updated"
    except BaseException:
        conn.execute("ROLLBACK TO import_row")
        conn.execute("RELEASE import_row")
        raise
    conn.execute("RELEASE import_row")
    return message


def _delete(conn: sqlite3.Connection, ctx: Context, eui: str) -> None:
    uid = _visible(conn, ctx, eui)
    if ctx.extra_domains:
        have = set(store.domains_of(conn, uid))
        missing = [f"{g}:{n}" for g, n in ctx.extra_domains if (g, n) not in have]
        if missing:
            raise RowRefused(
                OUT_OF_DOMAIN,
                f"device {eui} is not in the import's domain(s) {', '.join(missing)}: not deleted",
            )
    conn.execute("DELETE FROM devices WHERE uid = ?", (uid,))


def _no_servers_with_profile(servers_given: bool, profile_given: bool) -> None:
    if servers_given and profile_given:
        raise RowRefused(
            INVALID,
            "appServers: application servers (column T) cannot be given with an AS routing"
            " profile (column I)",
        )


def _create(conn: sqlite3.Connection, ctx: Context, row: ImportRow, body: DeviceCreate) -> int:
    sub = ctx.subscription_id
    if store.eui_taken(conn, body.EUI):
        raise RowRefused(DUPLICATE, f"a device with EUI {body.EUI} already exists")
    domains = _domains(ctx, body, creating=True) or []
    model = ctx.ref(conn, "device_models", body.model.ID, "model") if body.model else None
    if body.asTransportKey is not None:
        ctx.ref(conn, "as_transport_keys", body.asTransportKey.ID, "asTransportKey")
    ctx.check_references(conn, body)
    profile_ref = row.extras.get("appServersRoutingProfile")
    _no_servers_with_profile(bool(body.appServers), bool(profile_ref))
    servers = ctx.app_servers(conn, [s.ID for s in body.appServers or []])
    profile = ctx.profile(conn, profile_ref, body.connectivity) if profile_ref else None
    return store.create(
        conn, sub, body, now=ctx.now, model_id=model, routing_profile_id=profile,
        domains=domains, app_servers=servers,
    )  # fmt: skip


def _update(conn: sqlite3.Connection, ctx: Context, row: ImportRow, body: DeviceUpdate) -> None:
    assert row.operation is not None and row.EUI is not None
    sub = ctx.subscription_id
    given = body.model_fields_set
    if "appServersRoutingProfile" in given and not ctx.may_route:
        raise RowRefused(
            NO_PERMISSION,
            f"appServersRoutingProfile: cannot be updated without {ADMIN_NODE}"
            " (LPWA_MGR::WRITE_NODE is not enough)",
        )
    uid = _visible(conn, ctx, row.EUI)
    connectivity, activation = conn.execute(
        "SELECT connectivity, activation FROM devices WHERE uid = ?", (uid,)
    ).fetchone()
    wanted = activation_of(row.operation)
    if connectivity != connectivity_of(row.operation) or (wanted and activation != wanted):
        kind = activation or connectivity
        raise RowRefused(INVALID, f"{row.operation} does not apply to a {kind} device")
    profile_given = "appServersRoutingProfile" in given and body.appServersRoutingProfile
    _no_servers_with_profile(bool("appServers" in given and body.appServers), bool(profile_given))
    ctx.check_references(conn, body)
    values: dict[str, Any] = {}
    if "name" in given:
        values["name"] = body.name or row.EUI
    values |= store.updated_columns(body)
    if "asTransportKey" in given and body.asTransportKey is not None:
        ctx.ref(conn, "as_transport_keys", body.asTransportKey.ID, "asTransportKey")
        values["as_transport_key"] = body.asTransportKey.ID
    if body.appServersRoutingProfile is not None and "appServersRoutingProfile" in given:
        values["routing_profile_id"] = ctx.profile(
            conn, body.appServersRoutingProfile.ID, connectivity
        )
    store.update_columns(conn, uid, values)
    if "tags" in given:
        store.set_tags(conn, sub, uid, [t.name for t in body.tags or []])
    if "domains" in given:
        after = _domains(ctx, body, creating=False) or []
        if leaves_domains(store.domains_of(conn, uid), after, ctx.restrictions):
            raise RowRefused(
                OUT_OF_DOMAIN,
                "domains: a restricted account keeps its devices inside its own domains",
            )
        store.set_domains(conn, sub, uid, after)
    if "appServers" in given:
        refs = [s.ID for s in body.appServers or []]
        servers = ctx.app_servers(conn, refs, store.app_server_ids_of(conn, uid))
        store.set_app_servers(conn, uid, servers)
