"""The real client against the session's real sandbox process, for the endpoints the other
contract tests leave out: subscription settings, the deprecated device tags and multicast frames
(and the aggregated histories replacing them), multicast keys, application servers by UID,
network contexts, AS transport keys, the public exchange key and filtered clusters.

The sandbox is shared by the session: every test creates its own objects and deletes them,
and puts back any setting it changes."""

from __future__ import annotations

import itertools
import random
import warnings
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from lpwa_console.api import (
    ConflictError,
    Credentials,
    LpwaClient,
    NotFoundError,
    PermissionDeniedError,
)
from lpwa_console.schema.app_servers import (
    ALL_SCOPES,
    AppServerCreate,
    AppServerFilter,
    AppServerUpdate,
    DownlinkSecurityRequest,
    HttpDestination,
    OccVersion,
    SecurityAppServerUpdate,
)
from lpwa_console.schema.common import device_ref
from lpwa_console.schema.devices import DeviceFilter, app_skey_xml
from lpwa_console.schema.frames import MULTICAST_RATIO_RANGES, ratio_index
from lpwa_console.schema.multicast import MulticastGroupCreate, MulticastGroupUpdate
from lpwa_console.schema.network import (
    AsTransportKeyCreate,
    AsTransportKeyUpdate,
    CellularNetworkContextCreate,
    CellularNetworkContextUpdate,
    rsa_public_key_from_pem,
)
from lpwa_console.schema.subscription import SubscriptionUpdate

pytestmark = pytest.mark.anyio

KEY = "2B7E151628AED2A6ABF7158809CF4F3C"
OTHER_KEY = "000102030405060708090A0B0C0D0E0F"
HOUR_MS = 3_600_000
_serial = itertools.count(random.randrange(1 << 20) << 8)


def client_for(sandbox, role: str) -> LpwaClient:  # type: ignore[no-untyped-def]
    account = sandbox.account(role)
    creds = Credentials(sandbox.token_url, account["client_id"], account["client_secret"])
    return LpwaClient(sandbox.base_url, creds)


@pytest.fixture
async def client(sandbox) -> AsyncIterator[LpwaClient]:  # type: ignore[no-untyped-def]
    async with client_for(sandbox, "subscriber") as c:
        yield c  # type: ignore[misc]


@pytest.fixture
async def restricted(sandbox) -> AsyncIterator[LpwaClient]:  # type: ignore[no-untyped-def]
    async with client_for(sandbox, "subscriber-restricted") as c:
        yield c  # type: ignore[misc]


def _uid(href: str | None) -> int:
    assert href is not None
    return int(href.rsplit("/", 1)[1])


# --- subscription -------------------------------------------------------------------------


async def test_put_subscription_and_the_tag_suggestion_rule(
    sandbox,
    client: LpwaClient,
    restricted: LpwaClient,  # type: ignore[no-untyped-def]
) -> None:
    before = await client.subscription.get()
    try:
        hidden = await client.subscription.update(
            SubscriptionUpdate(showTagSuggestionsWhenDomainRestrictions=False)
        )
        assert hidden.showTagSuggestionsWhenDomainRestrictions is False
        assert hidden.options.hsm == before.options.hsm  # only what was sent changed
        assert "x" in hidden.subscription.grantedPermissions
        assert (await client.subscription.get()).showTagSuggestionsWhenDomainRestrictions is False
        # A user with domain restrictions gets no suggestions; one without still does.
        assert (await restricted.devices.tag_suggestions("")).briefs == []
        assert (await restricted.multicast_groups.bs_tag_suggestions("")).briefs == []
        managed = await restricted.network_subscriptions.managed_network_bs_tag_suggestions("")
        assert managed.briefs == []
        assert (await client.devices.tag_suggestions("")).briefs
        assert (await client.multicast_groups.bs_tag_suggestions("")).briefs
        async with client_for(sandbox, "subscriber-viewer") as viewer:
            with pytest.raises(PermissionDeniedError):  # changing settings needs 'a'
                await viewer.subscription.update(
                    SubscriptionUpdate(showTagSuggestionsWhenDomainRestrictions=True)
                )
        shown = await client.subscription.update(
            SubscriptionUpdate(showTagSuggestionsWhenDomainRestrictions=True)
        )
        assert shown.showTagSuggestionsWhenDomainRestrictions is True
        assert (await restricted.devices.tag_suggestions("")).briefs
    finally:
        await client.subscription.update(
            SubscriptionUpdate(
                showTagSuggestionsWhenDomainRestrictions=before.showTagSuggestionsWhenDomainRestrictions
            )
        )
    after = await client.subscription.get()
    assert after.showTagSuggestionsWhenDomainRestrictions == (
        before.showTagSuggestionsWhenDomainRestrictions
    )
    assert after.options.hsm == before.options.hsm and after.name == before.name


# --- devices: deprecated tags, filtered clusters -------------------------------------------


async def test_deprecated_device_tags_warn_and_match_the_device(client: LpwaClient) -> None:
    page = await client.devices.list(1, 100)
    device = next(d for d in page.briefs if d.tags)
    with pytest.warns(DeprecationWarning, match="tags"):
        tags = await client.devices.tags_of(device_ref(device.EUI))
    fetched = await client.devices.get(device_ref(device.EUI))
    assert [t.name for t in tags.briefs] == [t.name for t in fetched.tags]
    assert all(t.href for t in tags.briefs)
    with pytest.warns(DeprecationWarning), pytest.raises(NotFoundError):
        await client.devices.tags_of("e0000000000000000")


async def test_clusters_with_app_server_and_connectivity_filters(client: LpwaClient) -> None:
    box = (35.0, -10.0, 60.0, 25.0)  # the demo network's Europe
    every = await client.devices.clusters(*box)
    for filters in (
        DeviceFilter(appServerID=["as-metering"]),
        DeviceFilter(connectivity="CELLULAR"),
        DeviceFilter(appServerID=["as-metering"], connectivity="LORAWAN"),
    ):
        clusters = await client.devices.clusters(*box, filters=filters)
        boxed = filters.model_copy(
            update={"minLat": box[0], "minLon": box[1], "maxLat": box[2], "maxLon": box[3]}
        )
        listed = await client.devices.list(1, 10, filters=boxed)
        assert 0 < clusters.count == listed.count < every.count, filters
        assert sum(c.count for c in clusters.clusters) == clusters.count
        assert len(clusters.clusters) <= 64
        for cluster in clusters.clusters:
            if cluster.item is not None:
                assert filters.connectivity in (None, cluster.item.connectivity)
                if filters.appServerID:
                    assert "as-metering" in [s.ID for s in cluster.item.appServers]


# --- multicast groups ------------------------------------------------------------------------


async def test_multicast_frames_deprecated_and_aggregated(client: LpwaClient) -> None:
    groups = await client.multicast_groups.list()
    group = groups.briefs[0].path_ref
    with pytest.warns(DeprecationWarning, match="frames_aggregated"):
        every = await client.multicast_groups.frames()
    with pytest.warns(DeprecationWarning):
        one = await client.multicast_groups.frames(group, duration="P1D")
    assert every.briefs and one.briefs
    assert len(one.briefs) <= 25 and {f.status for f in every.briefs} <= {"SUCCESS", "ABORTED"}

    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # the replacement does not warn
        history = await client.multicast_groups.frames_aggregated()
        daily = await client.multicast_groups.frames_aggregated(group, step="P1D", duration="P3D")
        metering = await client.multicast_groups.frames_aggregated(app_server_id="as-metering")
    assert len(history.briefs) == 7 * 24 and history.ranges == MULTICAST_RATIO_RANGES
    assert len(daily.briefs) == 3 and sum(daily.series()[1]) > 0
    assert 0 < sum(metering.series()[1]) < sum(history.series()[1])
    # The aggregation counts the raw downlinks of the same window, by success ratio.
    begin = datetime.fromtimestamp(history.briefs[0].timestamp / 1000, UTC)
    with pytest.warns(DeprecationWarning):
        raw = await client.multicast_groups.frames(begin=begin, duration="P7D")
    by_ratio = [0] * len(MULTICAST_RATIO_RANGES)
    for frame in raw.briefs:
        by_ratio[ratio_index(frame.bsSuccessCount / frame.bsCount)] += 1
    totals = [
        sum(b.successfulTransmissionValues[i].count for b in history.briefs)
        for i in range(len(MULTICAST_RATIO_RANGES))
    ]
    assert totals == by_ratio


async def test_multicast_create_with_deprecated_app_keys_then_put_app_skey(
    client: LpwaClient,
) -> None:
    eui = f"FEEDC0E1{next(_serial):08X}"
    with pytest.warns(DeprecationWarning, match="appKeys"):
        request = MulticastGroupCreate(EUI=eui, nwAddress="FC00ABCD", appKeys=app_skey_xml(KEY))
    created = await client.multicast_groups.create(request)
    try:
        assert eui == created.EUI and created.name == eui
        assert "appKeys" not in created.model_dump() and "appSKey" not in created.model_dump()
        with warnings.catch_warnings():
            warnings.simplefilter("error", DeprecationWarning)
            update = MulticastGroupUpdate(appSKey=OTHER_KEY, name="Contract keys")
            updated = await client.multicast_groups.update(created.path_ref, update)
        assert updated.name == "Contract keys"
        assert updated.occContext is not None and updated.occContext.version == 1
        assert "appSKey" not in updated.model_dump()
        # A single group's answers need no alarm counters, but the sandbox sends them.
        assert (await client.multicast_groups.get(created.path_ref)).alarm_counts == (0,) * 6
    finally:
        await client.multicast_groups.delete(created.path_ref)
    with pytest.raises(NotFoundError):
        await client.multicast_groups.get(created.path_ref)


# --- application servers -----------------------------------------------------------------------


async def test_app_servers_default_to_subscription_scope(client: LpwaClient) -> None:
    default = await client.app_servers.list()
    both = await client.app_servers.list(filters=ALL_SCOPES)
    subscription_only = await client.app_servers.list(
        filters=AppServerFilter(scope=["SUBSCRIPTION"])
    )
    assert default.briefs and all(s.scope == "SUBSCRIPTION" for s in default.briefs)
    assert {s.ID for s in default.briefs} == {s.ID for s in subscription_only.briefs}
    assert {s.ID for s in default.briefs} < {s.ID for s in both.briefs}
    assert any(s.scope == "OPERATOR" for s in both.briefs)


async def test_app_server_by_integer_uid_update_and_security(client: LpwaClient) -> None:
    created = await client.app_servers.create(
        AppServerCreate(
            name=f"Contract UID {next(_serial)}",
            destinations=[
                HttpDestination(addresses=["https://a.example"], ports="443", strategy="BLAST")
            ],
        )
    )
    uid = _uid(created.href)
    try:
        by_uid = await client.app_servers.get(uid)
        assert by_uid.ID == created.ID and by_uid.scope == "SUBSCRIPTION"
        assert by_uid.deviceCount == 0 and by_uid.multicastGroupCount == 0
        version = by_uid.occContext.version if by_uid.occContext else 0
        updated = await client.app_servers.update(
            uid,
            AppServerUpdate(
                name="Contract UID renamed",
                destinations=[
                    HttpDestination(
                        addresses=["https://a.example", "https://b.example"],
                        ports="443,8443",
                        strategy="SEQUENTIAL",
                    ),
                    HttpDestination(addresses=["https://c.example"], ports="*", strategy="BLAST"),
                ],
                occContext=OccVersion(version=version),
            ),
        )
        assert updated.name == "Contract UID renamed" and len(updated.destinations) == 2
        assert updated.destinations[0].addresses == ["https://a.example", "https://b.example"]
        assert updated.occContext is not None and updated.occContext.version == version + 1
        assert (await client.app_servers.get(created.path_ref)).name == "Contract UID renamed"
        with pytest.raises(ConflictError):  # the version read before is stale now
            await client.app_servers.update(
                uid, AppServerUpdate(name="Lost update", occContext=OccVersion(version=version))
            )

        security = await client.app_servers.update_security(
            uid,
            SecurityAppServerUpdate(
                downlinkSecurity=DownlinkSecurityRequest(
                    status="DOWNLINK_AS_KEY",
                    asID="contract.as",
                    downlinkAsKey=KEY,
                    maxTimestampDeviation=30_000,
                )
            ),
        )
        assert security.downlinkSecurity.status == "DOWNLINK_AS_KEY"
        assert security.downlinkSecurity.asID == "contract.as"
        assert "downlinkAsKey" not in security.downlinkSecurity.model_dump()  # never returned
        again = await client.app_servers.security(uid)
        assert again.downlinkSecurity.maxTimestampDeviation == 30_000
    finally:
        await client.app_servers.delete(uid)
    with pytest.raises(NotFoundError):
        await client.app_servers.get(uid)
    with pytest.raises(NotFoundError):
        await client.app_servers.get(created.path_ref)


async def test_integer_uids_address_subscription_servers_only(client: LpwaClient) -> None:
    both = (await client.app_servers.list(filters=ALL_SCOPES)).briefs
    operator = next(s for s in both if s.scope == "OPERATOR")
    assert operator.href is None  # §2.1: no UID form; `id:` + ID works for every scope
    assert (await client.app_servers.get(operator.path_ref)).ID == operator.ID
    mine = [s for s in both if s.scope == "SUBSCRIPTION"]
    for server in mine[:3]:
        assert (await client.app_servers.get(_uid(server.href))).ID == server.ID
    with pytest.raises(NotFoundError):
        await client.app_servers.get(max(_uid(s.href) for s in mine) + 1000)


# --- network resources ------------------------------------------------------------------------


async def test_put_cellular_network_context(client: LpwaClient) -> None:
    ref = f"nc-contract-put-{next(_serial)}"
    await client.network_contexts.create(
        CellularNetworkContextCreate(ID=ref, name="Contract", apn="iot.contract.example")
    )
    try:
        updated = await client.network_contexts.update(
            ref,
            CellularNetworkContextUpdate(
                name="Contract renamed", ipVersion="IPV4V6", plmnID="20801"
            ),
        )
        assert (updated.ID, updated.name, updated.ipVersion) == (ref, "Contract renamed", "IPV4V6")
        assert updated.apn == "iot.contract.example"  # not sent, not changed
        fetched = await client.network_contexts.get(ref)
        assert fetched.plmnID == "20801" and fetched.name == "Contract renamed"
        with pytest.raises(NotFoundError):
            await client.network_contexts.update("nc-none", CellularNetworkContextUpdate(name="x"))
    finally:
        await client.network_contexts.delete(ref)


async def test_as_transport_keys_list_and_put(client: LpwaClient) -> None:
    before = await client.as_transport_keys.list()
    assert before.briefs and before.count == len(before.briefs)
    ref = f"atk-contract-put-{next(_serial)}"
    await client.as_transport_keys.create(AsTransportKeyCreate(ID=ref, name="Contract"))
    try:
        listed = await client.as_transport_keys.list()
        assert ref in [k.ID for k in listed.briefs] and listed.count == (before.count or 0) + 1
        updated = await client.as_transport_keys.update(ref, AsTransportKeyUpdate(name="Renamed"))
        assert (updated.ID, updated.name) == (ref, "Renamed")
        assert (await client.as_transport_keys.get(ref)).name == "Renamed"
    finally:
        await client.as_transport_keys.delete(ref)
    after = await client.as_transport_keys.list()
    assert [k.ID for k in after.briefs] == [k.ID for k in before.briefs]


async def test_public_exchange_key_without_hsm_group(client: LpwaClient) -> None:
    platform = await client.hsm_groups.public_exchange_key()
    hsm = await client.hsm_groups.public_exchange_key("hsm-eu-west-1")
    assert platform.kty == "RSA" and platform.kid and platform.kid != hsm.kid
    assert platform.n != hsm.n
    assert (await client.hsm_groups.public_exchange_key()).kid == platform.kid  # stable
    pem = await client.hsm_groups.public_exchange_key_pem()
    assert pem == platform.pem()
    n, e = rsa_public_key_from_pem(await client.hsm_groups.public_exchange_key_pem("hsm-eu-west-1"))
    assert (n, e) == rsa_public_key_from_pem(hsm.pem())
    groups = await client.hsm_groups.list()
    versions = {g.ID: g.hsmExchangeKeyVersion for g in groups.briefs}
    assert versions["hsm-eu-west-1"] == hsm.kid
    with pytest.raises(NotFoundError):
        await client.hsm_groups.public_exchange_key("hsm-none")
