"""The real client against a real sandbox on a free loopback port (no mocks)."""

from __future__ import annotations

import itertools
import random
from collections.abc import AsyncIterator

import pytest

from lpwa_console.api import (
    BadRequestError,
    ConflictError,
    Credentials,
    LpwaClient,
    NotFoundError,
    PermissionDeniedError,
    TokenError,
)
from lpwa_console.schema.common import device_ref
from lpwa_console.schema.devices import DeviceCreate, DeviceFilter, DeviceUpdate
from lpwa_console.schema.domains import domain_matches

pytestmark = pytest.mark.anyio

WRITE_NODE, ADMIN_NODE = "LPWA_MGR::WRITE_NODE", "LPWA_MGR::ADMIN_NODE"

KEY = "2B7E151628AED2A6ABF7158809CF4F3C"
_serial = itertools.count(random.randrange(1 << 20) << 8)


def fresh_eui() -> str:
    return f"FEEDC0DE{next(_serial):08X}"


def client_for(sandbox, role: str) -> LpwaClient:  # type: ignore[no-untyped-def]
    account = sandbox.account(role)
    creds = Credentials(sandbox.token_url, account["client_id"], account["client_secret"])
    return LpwaClient(sandbox.base_url, creds)


@pytest.fixture
async def client(sandbox) -> AsyncIterator[LpwaClient]:  # type: ignore[no-untyped-def]
    async with client_for(sandbox, "subscriber") as c:
        yield c  # type: ignore[misc]


async def test_subscription_of_the_caller(client: LpwaClient) -> None:
    subscription = await client.subscription.get()
    assert subscription.options.hsm in ("ACTIVATED", "DEACTIVATED")
    assert "x" in subscription.subscription.grantedPermissions


async def test_first_page_has_count_later_pages_do_not(client: LpwaClient) -> None:
    first = await client.devices.list(1, 10)
    assert first.count is not None and first.count > 10
    assert len(first.briefs) == 10 and first.more
    second = await client.devices.list(2, 10)
    assert second.count is None
    assert {d.EUI for d in first.briefs}.isdisjoint({d.EUI for d in second.briefs})


async def test_create_get_update_round_trip(client: LpwaClient) -> None:
    eui = fresh_eui()
    created = await client.devices.create(
        DeviceCreate(
            EUI=eui.lower(), nwAddress="01020304", appSKey=KEY, tags=[{"name": "contract"}]
        )
    )
    assert eui == created.EUI
    assert created.name == eui  # name defaults to the DevEUI
    assert [t.name for t in created.tags] == ["contract"] and created.tags[0].href
    assert created.alarmsConfiguration is not None
    levels = [(t.level, t.duration) for t in created.alarmsConfiguration.alarm004 or []]
    assert levels == [(3, "P2D"), (5, "P4D")]
    assert "appSKey" not in created.model_dump(exclude_none=True)  # keys are never returned

    fetched = await client.devices.get(device_ref(eui))
    assert eui == fetched.EUI
    updated = await client.devices.update(device_ref(eui), DeviceUpdate(name="Contract meter"))
    assert updated.name == "Contract meter"
    assert (await client.devices.get(device_ref(eui))).tags[0].name == "contract"


async def test_duplicate_eui_is_a_conflict(client: LpwaClient) -> None:
    device = DeviceCreate(EUI=fresh_eui(), nwAddress="01020304", appSKey=KEY)
    await client.devices.create(device)
    with pytest.raises(ConflictError) as info:
        await client.devices.create(device)
    assert info.value.code is not None and info.value.message


async def test_server_validates_too(client: LpwaClient) -> None:
    # Bypass the client's own validation: the server must refuse with a field-named message.
    with pytest.raises(BadRequestError) as info:
        await client.request(
            "POST",
            "/subscriptions/mine/devices",
            json={"EUI": "not-hex", "connectivity": "LORAWAN"},
        )
    assert "EUI" in info.value.message


async def test_unknown_device_is_not_found(client: LpwaClient) -> None:
    with pytest.raises(NotFoundError):
        await client.devices.get("e0000000000000000")


async def test_connectivity_and_prefix_filters(client: LpwaClient) -> None:
    cellular = await client.devices.list(1, 50, filters=DeviceFilter(connectivity="CELLULAR"))
    assert cellular.briefs and all(d.connectivity == "CELLULAR" for d in cellular.briefs)
    sample = cellular.briefs[0]
    assert sample.imsi and sample.lastIMEI  # every demo cellular device has its SIM and IMEI
    by_sim = await client.devices.list(1, 50, filters=DeviceFilter(simID=sample.imsi[:8]))
    assert sample.EUI in {d.EUI for d in by_sim.briefs}
    by_imei = await client.devices.list(1, 50, filters=DeviceFilter(imei=sample.lastIMEI))
    assert by_imei.briefs and all(d.lastIMEI == sample.lastIMEI for d in by_imei.briefs)


async def test_app_server_filter_requires_all(client: LpwaClient) -> None:
    page = await client.devices.list(1, 200)
    linked = next(d for d in page.briefs if d.appServers)
    ids = [a.ID for a in linked.appServers]
    both = await client.devices.list(1, 200, filters=DeviceFilter(appServerID=ids))
    assert linked.EUI in {d.EUI for d in both.briefs}
    for device in both.briefs:
        assert set(ids) <= {a.ID for a in device.appServers}


async def test_sort_by_name_both_ways(client: LpwaClient) -> None:
    asc = await client.devices.list(1, 20, sort="name")
    desc = await client.devices.list(1, 20, sort="name", descending=True)
    assert [d.name for d in asc.briefs] == sorted(d.name for d in asc.briefs)
    assert [d.name for d in desc.briefs] == sorted((d.name for d in desc.briefs), reverse=True)


async def test_cursor_walk_visits_each_device_once(client: LpwaClient) -> None:
    filters = DeviceFilter(connectivity="CELLULAR")
    paginator = client.devices.iterate_by_cursor(filters=filters, page_size=25)
    euis = [d.EUI async for d in paginator]
    assert len(euis) == len(set(euis)) == paginator.count


async def test_tag_untag_and_suggestions(client: LpwaClient) -> None:
    eui = fresh_eui()
    await client.devices.create(DeviceCreate(EUI=eui, nwAddress="01020304", appSKey=KEY))
    tag = f"zz-contract-{eui[-4:].lower()}"
    await client.devices.tag(tag, [eui])
    assert tag in [t.name for t in (await client.devices.get(device_ref(eui))).tags]
    suggestions = await client.devices.tag_suggestions("zz-contract")
    assert tag in [s.name for s in suggestions.briefs]
    await client.devices.untag(tag, [eui])
    await client.devices.untag(tag, [eui])  # untagging a missing tag is fine (200)
    assert tag not in [t.name for t in (await client.devices.get(device_ref(eui))).tags]


async def test_clusters_at_most_64(client: LpwaClient) -> None:
    clusters = await client.devices.clusters(-90, -180, 90, 180)
    assert 0 < len(clusters.clusters) <= 64
    assert sum(c.count for c in clusters.clusters) == clusters.count
    for cluster in clusters.clusters:
        assert (cluster.item is not None) == (cluster.count == 1)


async def test_restricted_user_sees_only_matching_devices(sandbox) -> None:  # type: ignore[no-untyped-def]
    async with client_for(sandbox, "subscriber-restricted") as restricted:
        grant = (await restricted.subscription.get()).subscription
        assert grant.domainRestrictions is not None and grant.domainRestrictions.and_
        page = await restricted.devices.list(1, 200)
        for device in page.briefs:
            pairs = [(d.group.name, d.name) for d in device.domains]
            assert domain_matches(pairs, grant.domainRestrictions)
    async with client_for(sandbox, "subscriber") as full:
        assert (await full.devices.list(1, 10)).count > page.count  # type: ignore[operator]


async def test_rights_tell_the_routing_rule(sandbox) -> None:  # type: ignore[no-untyped-def]
    """A WRITE_NODE-only account can read that it lacks ADMIN_NODE (so the console shows the
    routing profile read-only, §5.4); the server refuses the change all the same."""
    async with client_for(sandbox, "subscriber-restricted") as restricted:
        rights = (await restricted.subscription.get()).subscription.rights
        assert rights is not None and WRITE_NODE in rights and ADMIN_NODE not in rights
        device = (await restricted.devices.list(1, 1)).briefs[0]
        change = DeviceUpdate.model_validate({"appServersRoutingProfile": {"ID": "rp-metering"}})
        with pytest.raises(PermissionDeniedError):
            await restricted.devices.update(device_ref(device.EUI), change)
    async with client_for(sandbox, "subscriber") as admin:
        rights = (await admin.subscription.get()).subscription.rights
        assert rights is not None and ADMIN_NODE in rights


async def test_viewer_cannot_write(sandbox) -> None:  # type: ignore[no-untyped-def]
    async with client_for(sandbox, "subscriber-viewer") as viewer:
        assert (await viewer.devices.list(1, 5)).briefs
        with pytest.raises(PermissionDeniedError):
            await viewer.devices.create(
                DeviceCreate(EUI=fresh_eui(), nwAddress="01020304", appSKey=KEY)
            )


async def test_operator_has_no_subscription(sandbox) -> None:  # type: ignore[no-untyped-def]
    async with client_for(sandbox, "operator") as operator:
        with pytest.raises(PermissionDeniedError):
            await operator.subscription.get()


async def test_wrong_secret_is_refused(sandbox) -> None:  # type: ignore[no-untyped-def]
    account = sandbox.account("subscriber")
    creds = Credentials(sandbox.token_url, account["client_id"], "wrong")
    async with LpwaClient(sandbox.base_url, creds) as client:
        with pytest.raises(TokenError):
            await client.subscription.get()


async def test_revoked_token_is_renewed_transparently(client: LpwaClient) -> None:
    await client.subscription.get()
    provider = client.token_provider
    assert provider is not None
    provider._token = "revoked-or-expired"  # as if the server forgot it
    await client.subscription.get()
    renewed = await provider.token()
    assert renewed != "revoked-or-expired"
