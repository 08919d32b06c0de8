"""The real client's partner, station, station alarm and operator partner resources against a
real sandbox process: every method once, so a path, parameter or body the two sides read
differently fails here. (The session's sandbox is shared: these tests create their own
stations and partners rather than rely on counts.)"""

from __future__ import annotations

import random
import warnings
from collections.abc import AsyncIterator

import pytest

from lpwa_console.api import APIStatusError, Credentials, LpwaClient, PermissionDeniedError
from lpwa_console.api.errors import NotFoundError
from lpwa_console.schema.alarms import AlarmFilter
from lpwa_console.schema.common import Severity
from lpwa_console.schema.domains import Domain
from lpwa_console.schema.partners import OperatorPartnerUpdate, PartnerCreate, PartnerUpdate
from lpwa_console.schema.station_alarms import StationAlarmFilter
from lpwa_console.schema.stations import (
    AlarmsConfiguration,
    BaseStationCreate,
    BaseStationFilter,
    BaseStationUpdate,
    StationsDomainsRequest,
    StationTagCreate,
)

pytestmark = pytest.mark.anyio
MODEL = {"ID": "KERLINK_WIRNET_ISTATION"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _client(sandbox, role: str) -> LpwaClient:  # type: ignore[no-untyped-def]
    account = sandbox.account(role)
    creds = Credentials(sandbox.token_url, account["client_id"], account["client_secret"])
    return LpwaClient(sandbox.base_url, creds)


@pytest.fixture
async def client(sandbox) -> AsyncIterator[LpwaClient]:  # type: ignore[no-untyped-def]
    async with _client(sandbox, "subscriber") as c:
        yield c


@pytest.fixture
async def operator(sandbox) -> AsyncIterator[LpwaClient]:  # type: ignore[no-untyped-def]
    async with _client(sandbox, "operator") as c:
        yield c


def _lrr_id() -> str:
    return f"{random.randrange(0x20000000, 0xEFFFFFFF):08X}"


async def test_partner_and_stations(client: LpwaClient) -> None:
    partner = await client.partners.get()
    assert partner.ID == "100" and "a" in partner.permissions
    again = await client.partners.update(PartnerUpdate(alarmStateNotifications="ENABLED"))
    assert again.alarmStateNotifications == "ENABLED"

    page = await client.stations.list(1, 10, filters=BaseStationFilter(healthState=["ACTIVE"]))
    assert page.count and all(b.healthState == "ACTIVE" for b in page.briefs)
    by_lrr = await client.stations.list(1, 10, sort="lrrID")
    assert by_lrr.next_cursor
    after = await client.stations.list(1, 10, sort="lrrID", page_after=by_lrr.next_cursor)
    assert after.briefs[0].lrrID > by_lrr.briefs[-1].lrrID
    cursor_ids = [b.lrrID async for b in client.stations.iterate_by_cursor(page_size=10)]
    indexed = [b.lrrID async for b in client.stations.iterate(sort="lrrID", page_size=10)]
    assert cursor_ids == indexed and len(cursor_ids) == len(set(cursor_ids))

    lrr = _lrr_id()
    created = await client.stations.create(
        BaseStationCreate(
            model=MODEL,
            lrrID=lrr.lower(),
            name="Contract station",
            domains=[Domain(name="France/Paris", group={"name": "Site"})],
        )
    )
    assert created.lrrID == lrr and created.alarmsConfiguration.alarm102[0].severity == 6
    config = AlarmsConfiguration(
        alarm103=[{"duration": "PT1H", "severity": 3}, {"duration": "PT4H", "severity": 5}]
    )
    updated = await client.stations.update(
        created.path_ref, BaseStationUpdate(name="Contract 2", alarmsConfiguration=config)
    )
    assert updated.name == "Contract 2" and len(updated.alarmsConfiguration.alarm103) == 2
    assert (await client.stations.get(created.path_ref)).name == "Contract 2"

    clusters = await client.stations.clusters(48.7, 2.1, 49.0, 2.6)
    assert clusters.count and clusters.clusters
    counters = await client.stations.counters()
    assert counters.totalCount == sum(b.count for b in counters.briefs)

    tagged = await client.stations.tag("contract-tag", [lrr])
    assert tagged.count == 1
    assert [t.name for t in (await client.stations.tag_suggestions("contract-")).briefs] == [
        "contract-tag"
    ]
    assert (await client.stations.untag("contract-tag", [lrr])).count == 1
    assert (await client.stations.untag("never-made-tag", [lrr])).count == 0
    added = await client.stations.add_tag(created.path_ref, StationTagCreate(name="contract-solo"))
    assert added.href
    tag_uid = added.href.rsplit("/", 1)[1]
    renamed = await client.stations.update_tag(
        created.path_ref, tag_uid, StationTagCreate(name="contract-solo-2")
    )
    assert renamed.name == "contract-solo-2"
    assert [t.name for t in (await client.stations.tags_of(created.path_ref)).briefs] == [
        "contract-solo-2"
    ]
    assert renamed.href
    await client.stations.remove_tag(created.path_ref, renamed.href.rsplit("/", 1)[1])
    await client.stations.set_domains(
        StationsDomainsRequest(
            addedDomains=[Domain(name="France/Lyon", group={"name": "Site"})], LRRIDs=[lrr]
        )
    )
    assert [d.name for d in (await client.stations.get(created.path_ref)).domains] == [
        "France/Lyon"
    ]


async def test_station_alarms(client: LpwaClient) -> None:
    alarms = client.station_alarms
    first = await alarms.list(1, 10)
    assert first.count and first.briefs[0].bs is not None
    seen = [a.alarmUid async for a in alarms.iterate(page_size=10)]
    assert len(seen) == len(set(seen)) == first.count
    by_state = [a async for a in alarms.iterate_sorted(sort="state", descending=True, page_size=50)]
    assert [a.state for a in by_state] == sorted((a.state for a in by_state), reverse=True)
    raised = await alarms.list(
        1, 50, filters=StationAlarmFilter(state=Severity.WARNING, acked=False)
    )
    alarm = raised.briefs[0]
    assert alarm.bs is not None
    station = "i" + alarm.bs.lrrID
    own = await alarms.list(1, 10, filters=StationAlarmFilter(lrrID=[alarm.bs.lrrID]))
    assert {a.bs.lrrID for a in own.briefs if a.bs} == {alarm.bs.lrrID}
    assert (await alarms.of_station(station)).briefs
    await alarms.acknowledge([alarm.alarmUid])
    await alarms.acknowledge_one(station, alarm.alarmUid)
    await alarms.acknowledge_station(station, filters=AlarmFilter(ID=102))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert (await alarms.histories()).briefs
    await alarms.station_histories(station)
    dist = await alarms.state_distributions()
    assert dist.totalCount == sum(b.count for b in dist.briefs) > 0


async def test_rights_and_restrictions(sandbox) -> None:  # type: ignore[no-untyped-def]
    async with _client(sandbox, "subscriber-viewer") as viewer:
        assert (await viewer.stations.list(1, 10)).briefs
        with pytest.raises(PermissionDeniedError):
            await viewer.stations.create(BaseStationCreate(model=MODEL))
    async with _client(sandbox, "partner-restricted") as restricted:
        partner = await restricted.partners.get()
        assert partner.partner.domainRestrictions is not None
        page = await restricted.stations.list(1, 1000)
        sites = {d.name for b in page.briefs for d in b.domains if d.group.name == "Site"}
        assert sites and all(s.startswith("France/") for s in sites)
        berlin = await _berlin_station(sandbox)
        with pytest.raises(NotFoundError):
            await restricted.stations.get(berlin)


async def _berlin_station(sandbox) -> str:  # type: ignore[no-untyped-def]
    async with _client(sandbox, "subscriber") as c:
        page = await c.stations.list(
            1, 100, filters=BaseStationFilter(domain=["Site:Germany/Berlin"])
        )
        return page.briefs[0].path_ref


async def test_operator_view(operator: LpwaClient) -> None:
    ops = operator.operator_partners
    listed = await ops.list()
    assert {"100", "demo-networks"} <= {p.ID for p in listed.briefs}
    new_id = f"contract-{random.randrange(1 << 30)}"
    created = await ops.create(
        PartnerCreate(
            type="SUPPLIER", ID=new_id, name="Contract partner", totalBaseStationsGranted=1
        )
    )
    assert created.totalBaseStationsGranted == 1 and created.totalBaseStationsUsed == 0
    ref = f"id:sup:{new_id}"
    assert (await ops.get(ref)).name == "Contract partner"
    station = await operator.stations.create(BaseStationCreate(model=MODEL), partner=ref)
    seen = await ops.station(ref, station.path_ref)
    assert seen.lrrID == station.lrrID and seen.gpsReceiverConfig is None
    changed = await ops.update_station(ref, station.path_ref, BaseStationUpdate(name="Op name"))
    assert changed.name == "Op name"
    grown = await ops.update(ref, OperatorPartnerUpdate(totalBaseStationsGranted=5))
    assert grown.stations_left == 4
    credits = await ops.credit_transactions(ref)
    assert [c.type for c in credits.briefs] == ["GRANT_CHANGED", "STATION_CREATED", "GRANT_CHANGED"]
    alarms = operator.station_alarms.for_partner("id:sub:100")
    assert (await alarms.list(1, 10)).briefs


async def test_new_station_from_a_listed_model(operator: LpwaClient, client: LpwaClient) -> None:
    """What the console's new-station form does: list the models, create one of them (lrrID
    given in small letters, or allocated), and the refusals the form shows on their field."""
    models = await client.stations.models(1, 100)
    assert models.count == len(models.briefs) and not models.more
    kerlink = next(m for m in models.briefs if MODEL["ID"] == m.ID)
    assert kerlink.name == "Kerlink Wirnet iStation" and kerlink.vendor.ID == "KERLINK"
    only = await client.stations.models(vendor_id="KERLINK")
    assert {m.vendor.ID for m in only.briefs} == {"KERLINK"}
    lrr = _lrr_id()
    created = await client.stations.create(
        BaseStationCreate.model_validate({"model": {"ID": kerlink.ID}, "lrrID": lrr.lower()})
    )
    assert created.lrrID == lrr and created.model is not None and created.model.ID == kerlink.ID
    with pytest.raises(APIStatusError) as duplicate:
        await client.stations.create(
            BaseStationCreate.model_validate({"model": MODEL, "lrrID": lrr})
        )
    assert duplicate.value.status_code == 409 and duplicate.value.message.startswith("lrrID")
    # A partner whose grant is used up is refused, naming the grant.
    new_id = f"contract-{random.randrange(1 << 30)}"
    await operator.operator_partners.create(
        PartnerCreate(type="SUPPLIER", ID=new_id, name="Full partner", totalBaseStationsGranted=1)
    )
    ref = f"id:sup:{new_id}"
    await operator.stations.create(BaseStationCreate(model=MODEL), partner=ref)
    with pytest.raises(PermissionDeniedError) as full:
        await operator.stations.create(BaseStationCreate(model=MODEL), partner=ref)
    assert "totalBaseStationsGranted" in full.value.message
    partner = await operator.operator_partners.get(ref)
    assert partner.totalBaseStationsUsed == partner.totalBaseStationsGranted == 1
