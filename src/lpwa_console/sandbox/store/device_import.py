"""Applying device import rows (CREATE_*, UPDATE_*, DELETE) with the same rules as the
device routes. Each row runs under a SAVEPOINT: a refused row leaves the batch intact."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import Any

from ...schema.device_import import ImportRow, activation_of, connectivity_of
from ...schema.devices import DeviceCreate, DeviceUpdate
from ...schema.domains import DomainRestrictions, domain_matches
from . import devices as store


class RowRefused(Exception):
    pass


@dataclass
class Context:
    """What every row of one import shares (and lookups cached across rows)."""

    subscription_id: int
    restrictions: DomainRestrictions | None
    extra_domains: list[tuple[str, str]] = field(default_factory=list)
    now: int = 0
    _refs: dict[tuple[str, str], int | None] = field(default_factory=dict)

    def ref(self, conn: sqlite3.Connection, table: str, ref: str, what: str) -> int:
        key = (table, ref)
        if key not in self._refs:
            if table == "device_models":
                self._refs[key] = store.model_id(conn, ref)
            else:
                self._refs[key] = store.ref_id(conn, table, self.subscription_id, ref)
        found = self._refs[key]
        if found is None:
            raise RowRefused(f"{what}: unknown ID {ref}")
        return found


def _domains(ctx: Context, device: DeviceCreate | DeviceUpdate) -> list[tuple[str, str]] | None:
    if device.domains is None and not ctx.extra_domains:
        return None
    pairs = [(d.group.name, d.name) for d in device.domains or []]
    groups = {g for g, _ in pairs}
    pairs += [(g, n) for g, n in ctx.extra_domains if g not in groups]
    if not domain_matches(pairs, ctx.restrictions):
        raise RowRefused("domains: outside the domains you are restricted to")
    return pairs


def _visible(conn: sqlite3.Connection, ctx: Context, eui: str) -> int:
    uid = store.find_uid(conn, ctx.subscription_id, eui=eui)
    if uid is None or not domain_matches(store.domains_of(conn, uid), ctx.restrictions):
        raise RowRefused(f"no device with EUI {eui}")
    return uid


def apply(conn: sqlite3.Connection, ctx: Context, row: ImportRow) -> str:
    """Apply one valid row; returns a short message, raises RowRefused."""
    op = row.operation
    assert op is not None and row.EUI is not None
    conn.execute("SAVEPOINT import_row")
    try:
        if op == "DELETE":
            uid = _visible(conn, ctx, row.EUI)
            conn.execute("DELETE FROM devices WHERE uid = ?", (uid,))
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


def _create(conn: sqlite3.Connection, ctx: Context, row: ImportRow, body: DeviceCreate) -> int:
    sub = ctx.subscription_id
    if store.eui_exists(conn, sub, body.EUI):
        raise RowRefused(f"a device with EUI {body.EUI} already exists")
    domains = _domains(ctx, body) or []
    model = ctx.ref(conn, "device_models", body.model.ID, "model") if body.model else None
    if body.asTransportKey is not None:
        ctx.ref(conn, "as_transport_keys", body.asTransportKey.ID, "asTransportKey")
    servers = [ctx.ref(conn, "app_servers", s.ID, "appServers") for s in body.appServers or []]
    profile_ref = row.extras.get("appServersRoutingProfile")
    profile = (
        ctx.ref(conn, "routing_profiles", profile_ref, "appServersRoutingProfile")
        if profile_ref
        else None
    )
    return store.create(
        conn, sub, body, now=ctx.now, model_id=model, routing_profile_id=profile,
        domains=domains, app_servers=servers,
    )  # fmt: skip


def _update(conn: sqlite3.Connection, ctx: Context, row: ImportRow, body: DeviceUpdate) -> None:
    assert row.operation is not None and row.EUI is not None
    sub = ctx.subscription_id
    uid = _visible(conn, ctx, row.EUI)
    connectivity, activation = conn.execute(
        "SELECT connectivity, activation FROM devices WHERE uid = ?", (uid,)
    ).fetchone()
    wanted = activation_of(row.operation)
    if connectivity != connectivity_of(row.operation) or (wanted and activation != wanted):
        kind = activation or connectivity
        raise RowRefused(f"{row.operation} does not apply to a {kind} device")
    given = body.model_fields_set
    values: dict[str, Any] = {}
    if "name" in given:
        values["name"] = body.name or row.EUI
    values |= store.updated_columns(body)
    if "asTransportKey" in given and body.asTransportKey is not None:
        ctx.ref(conn, "as_transport_keys", body.asTransportKey.ID, "asTransportKey")
        values["as_transport_key"] = body.asTransportKey.ID
    if "appServersRoutingProfile" in given and body.appServersRoutingProfile is not None:
        values["routing_profile_id"] = ctx.ref(
            conn, "routing_profiles", body.appServersRoutingProfile.ID, "appServersRoutingProfile"
        )
    store.update_columns(conn, uid, values)
    if "tags" in given:
        store.set_tags(conn, sub, uid, [t.name for t in body.tags or []])
    if "domains" in given:
        store.set_domains(conn, sub, uid, _domains(ctx, body) or [])
    if "appServers" in given:
        servers = [ctx.ref(conn, "app_servers", s.ID, "appServers") for s in body.appServers or []]
        store.set_app_servers(conn, uid, servers)
