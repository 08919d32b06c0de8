"""What the partner, station, station alarm and operator partner resources put on the wire."""

from __future__ import annotations

import json

import httpx
import pytest
import respx

from lpwa_console.api import LpwaClient
from lpwa_console.schema.partners import OperatorPartnerUpdate, PartnerCreate, PartnerUpdate
from lpwa_console.schema.station_alarms import StationAlarmFilter
from lpwa_console.schema.stations import (
    BaseStationCreate,
    BaseStationFilter,
    BaseStationUpdate,
    StationsDomainsRequest,
)

pytestmark = pytest.mark.anyio

BASE = "https://platform.test/rest"
BSS = f"{BASE}/partners/mine/bss"
STATION = {"lrrID": "0A1B2C3D", "name": "Roof", "alarmsConfiguration": {"alarm102": []}}
PARTNER = {"partner": {"ID": "100", "name": "Acme", "grantedPermissions": ["x"]}}


@pytest.fixture
async def client():
    async with httpx.AsyncClient() as http:
        yield LpwaClient(BASE, None, http=http)


@respx.mock
async def test_list_filters_sort_and_cursor(client: LpwaClient) -> None:
    route = respx.get(BSS).mock(
        return_value=httpx.Response(
            200, json={"briefs": [STATION], "count": 1, "more": True, "cursors": {"last": "QQ=="}}
        )
    )
    filters = BaseStationFilter(LRRID=["0A", "0B"], healthState=["ACTIVE"], tag=["roof"])
    page = await client.stations.list(1, 20, filters=filters, sort="lrrID", page_after="QQ==")
    assert page.next_cursor == "QQ==" and page.briefs[0].path_ref == "i0A1B2C3D"
    params = route.calls[0].request.url.params
    assert params.get_list("LRRID") == ["0A", "0B"]
    assert (params["sort"], params["pageAfter"], params["healthState"]) == (
        "lrrID,asc",
        "QQ==",
        "ACTIVE",
    )
    assert "%3D%3D" in str(route.calls[0].request.url)  # the cursor's '=' encoded


@respx.mock
async def test_create_get_update_with_partner_forms(client: LpwaClient) -> None:
    created = respx.post(f"{BASE}/partners/id%3Asub%3A100/bss").mock(
        return_value=httpx.Response(201, json=STATION)
    )
    got = respx.get(f"{BSS}/i0A1B2C3D").mock(return_value=httpx.Response(200, json=STATION))
    put = respx.put(f"{BSS}/12").mock(return_value=httpx.Response(200, json=STATION))
    await client.stations.create(
        BaseStationCreate(model={"ID": "M"}, lrrID="0a1b2c3d"), partner="id:sub:100"
    )
    sent = json.loads(created.calls[0].request.content)
    assert sent["lrrID"] == "0A1B2C3D" and sent["model"] == {"ID": "M"}
    assert sent["alarmsConfiguration"]["alarm102"] == [{"duration": "PT30S", "severity": 6}]
    assert (await client.stations.get("i0A1B2C3D")).name == "Roof" and got.called
    await client.stations.update("12", BaseStationUpdate(name="New", rfProbe={"enabled": True}))
    assert json.loads(put.calls[0].request.content) == {"name": "New", "rfProbe": {"enabled": True}}


@respx.mock
async def test_clusters_tags_domains_counters(client: LpwaClient) -> None:
    clusters = respx.get(f"{BSS}/clusters").mock(
        return_value=httpx.Response(200, json={"count": 0, "clusters": []})
    )
    tags = respx.post(f"{BSS}/tags").mock(return_value=httpx.Response(200, json={"name": "t"}))
    domains = respx.post(f"{BSS}/domains").mock(return_value=httpx.Response(204))
    counters = respx.get(f"{BSS}/counters").mock(
        return_value=httpx.Response(
            200, json={"briefs": [{"healthState": "ACTIVE", "count": 2}], "totalCount": 2}
        )
    )
    suggestions = respx.get(f"{BSS}/tags/suggestions").mock(
        return_value=httpx.Response(200, json={"briefs": [{"name": "roof"}], "query": "r"})
    )
    await client.stations.clusters(1, 2, 3, 4, filters=BaseStationFilter(minLat=9, name="x"))
    params = clusters.calls[0].request.url.params
    assert (params["minLat"], params["maxLon"], params["name"]) == ("1", "4", "x")
    await client.stations.untag("t", ["0a1b2c3d"])
    assert tags.calls[0].request.url.params["action"] == "UNTAG"
    assert json.loads(tags.calls[0].request.content) == {
        "name": "t",
        "action": "UNTAG",
        "LRRIDs": ["0A1B2C3D"],
    }
    await client.stations.set_domains(
        StationsDomainsRequest(
            removedDomains=[{"name": "A", "group": {"name": "Site"}}], LRRIDs=["0A1B2C3D"]
        )
    )
    assert json.loads(domains.calls[0].request.content)["removedDomains"][0]["name"] == "A"
    assert (await client.stations.counters()).totalCount == 2 and counters.called
    await client.stations.tag_suggestions("r", exclude=["a", "b"])
    assert suggestions.calls[0].request.url.params.get_list("exclude") == ["a", "b"]


@respx.mock
async def test_partner_and_operator_paths(client: LpwaClient) -> None:
    mine = respx.put(f"{BASE}/partners/mine").mock(return_value=httpx.Response(200, json=PARTNER))
    await client.partners.update(PartnerUpdate(showTagSuggestionsWhenDomainRestrictions=False))
    assert json.loads(mine.calls[0].request.content) == {
        "showTagSuggestionsWhenDomainRestrictions": False
    }
    ops = f"{BASE}/admins/operators/mine/partners"
    created = respx.post(ops).mock(return_value=httpx.Response(201, json=PARTNER))
    await client.operator_partners.create(PartnerCreate(ID="p", name="P"))
    assert json.loads(created.calls[0].request.content) == {"ID": "p", "name": "P"}
    put = respx.put(f"{ops}/id%3Asup%3Ap").mock(return_value=httpx.Response(200, json=PARTNER))
    await client.operator_partners.update(
        "id:sup:p", OperatorPartnerUpdate(totalBaseStationsGranted=3)
    )
    assert json.loads(put.calls[0].request.content) == {"totalBaseStationsGranted": 3}
    station = respx.get(f"{ops}/2/stations/i0A1B2C3D").mock(
        return_value=httpx.Response(200, json=STATION)
    )
    await client.operator_partners.station("2", "i0A1B2C3D")
    assert station.called
    credits = respx.get(f"{ops}/2/stationCreditTransactions").mock(
        return_value=httpx.Response(
            200,
            json={"briefs": [{"ID": 1, "timestamp": 5, "type": "STATION_CREATED", "amount": -1}]},
        )
    )
    assert (await client.operator_partners.credit_transactions("2")).briefs[0].amount == -1
    assert credits.calls[0].request.url.params["pageIndex"] == "1"


@respx.mock
async def test_station_alarms(client: LpwaClient) -> None:
    listed = respx.get(f"{BSS}/alarms").mock(
        return_value=httpx.Response(200, json={"briefs": [], "count": 0})
    )
    await client.station_alarms.list(
        None, 50, sort="alarmUid", page_after="AA==", filters=StationAlarmFilter(lrrID=["0A"])
    )
    params = listed.calls[0].request.url.params
    assert (params["sort"], params["pageAfter"], params["lrrID"]) == ("alarmUid,asc", "AA==", "0A")
    with pytest.raises(ValueError, match="alarmUid"):
        await client.station_alarms.list(1, 10, sort="state", page_after="AA==")
    ack = respx.post(f"{BSS}/i0A1B2C3D/alarms/00000000000000aa/ack").mock(
        return_value=httpx.Response(201)
    )
    await client.station_alarms.acknowledge_one("i0A1B2C3D", "00000000000000aa")
    assert ack.called
    other = respx.get(f"{BASE}/partners/7/bss/alarms/stateDistributions").mock(
        return_value=httpx.Response(
            200, json={"briefs": [{"state": 6, "count": 1}], "totalCount": 1}
        )
    )
    dist = await client.station_alarms.for_partner("7").state_distributions()
    assert dist.totalCount == 1 and other.called


@respx.mock
async def test_station_models(client: LpwaClient) -> None:
    brief = {
        "ID": "GEN/GW.1",
        "commercialName": "Reference design",
        "vendor": {"ID": "generic", "commercialName": "Generic"},
        "rfHardwareConfig": "S1_A1_B1",
        "softwareType": "LRR_LINUX",
        "defaultIsmBands": [{"ID": "eu868", "name": "EU 868"}],
    }
    route = respx.get(f"{BASE}/partners/mine/bsProfiles").mock(
        return_value=httpx.Response(200, json={"briefs": [brief], "more": False, "count": 1})
    )
    page = await client.stations.models(2, 50, vendor_id="generic")
    model = page.briefs[0]
    assert model.name == "Reference design" and model.vendor.ID == "generic"
    assert model.defaultIsmBands[0].ID == "eu868"
    params = route.calls[0].request.url.params
    assert (params["pageIndex"], params["pageSize"], params["vendorID"]) == ("2", "50", "generic")
    other = respx.get(f"{BASE}/partners/id%3Asup%3Ax/bsProfiles").mock(
        return_value=httpx.Response(200, json={"briefs": [], "more": False})
    )
    await client.stations.models(partner="id:sup:x")
    assert other.called
