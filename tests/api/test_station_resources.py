"""What the station admin, monitoring and radio resources put on the wire."""

from __future__ import annotations

import json

import httpx
import pytest
import respx
from pydantic import ValidationError

from lpwa_console.api import LpwaClient
from lpwa_console.schema.station_admin import (
    AdminSettings,
    LastCmdStatus,
    RfcStatus,
    SupportPasswordChange,
)
from lpwa_console.schema.station_radio import AntennaUpdate, RfProbeUpdate

pytestmark = pytest.mark.anyio

BASE = "https://platform.test/rest"
BS = f"{BASE}/partners/mine/bss"


@pytest.fixture
async def client():
    async with httpx.AsyncClient() as http:
        yield LpwaClient(BASE, None, http=http)


@respx.mock
async def test_command_posts_checked_parameters(client: LpwaClient) -> None:
    route = respx.post(f"{BS}/12/admins/upgrade").mock(
        return_value=httpx.Response(201, json={"version": "2.4.18"})
    )
    answer = await client.station_admin.command(12, "upgrade", {"version": "2.4.18"})
    assert json.loads(route.calls[0].request.content) == {"version": "2.4.18"}
    assert answer.model_extra == {"version": "2.4.18"}
    with pytest.raises(ValidationError, match="traceLevel"):
        await client.station_admin.command(12, "updateLog", {"traceLevel": 9})
    with pytest.raises(ValueError, match="unknown"):
        await client.station_admin.command(12, "format", {})
    assert len(respx.calls) == 1


@respx.mock
async def test_command_by_lrr_id_and_other_partner(client: LpwaClient) -> None:
    route = respx.post(f"{BASE}/partners/id%3Asub%3A100/bss/i1000086C/admins/reboot").mock(
        return_value=httpx.Response(201, json={})
    )
    await client.station_admin.command("i1000086C", "reboot", partner="id:sub:100")
    assert json.loads(route.calls[0].request.content) == {}


@respx.mock
async def test_status_and_last_command(client: LpwaClient) -> None:
    respx.get(f"{BS}/3/admins/rfcStatus").mock(
        return_value=httpx.Response(200, json={"completionStatus": "COMPLETED", "rfcellState": 2})
    )
    respx.get(f"{BS}/3/admins/lastCmdStatus").mock(
        return_value=httpx.Response(
            200,
            json={
                "now": 1,
                "lastCmdType": "CHANGE_SUPPORT_PASSWORD",
                "lastCmdCompletionStatus": "PENDING",
            },
        )
    )
    status = await client.station_admin.status(3, "rfcStatus")
    assert isinstance(status, RfcStatus) and status.rfcellState == 2
    last = await client.station_admin.last_command_status(3)
    assert isinstance(last, LastCmdStatus) and not last.finished
    with pytest.raises(ValueError):
        await client.station_admin.status(3, "everything")


@respx.mock
async def test_password_and_settings(client: LpwaClient) -> None:
    pw = respx.post(f"{BS}/3/admins/changeSupportPassword").mock(
        return_value=httpx.Response(201, json={})
    )
    settings = respx.put(f"{BS}/3/admins/settings").mock(
        return_value=httpx.Response(200, json={"activateBeaconTransmission": True})
    )
    await client.station_admin.change_support_password(
        3, SupportPasswordChange.model_validate({"password": "Secr3t-pass"})
    )
    assert json.loads(pw.calls[0].request.content) == {"password": "Secr3t-pass"}
    state = await client.station_admin.settings(3, AdminSettings(activateBeaconTransmission=True))
    assert json.loads(settings.calls[0].request.content) == {"activateBeaconTransmission": True}
    assert state.activateBeaconTransmission


@respx.mock
async def test_monitoring_paths_and_windows(client: LpwaClient) -> None:
    cpu = respx.get(f"{BS}/3/sys/cpu/histories").mock(
        return_value=httpx.Response(200, json={"now": 1, "briefs": []})
    )
    served = respx.get(f"{BS}/3/rfcell/servedDevices").mock(
        return_value=httpx.Response(
            200, json={"devices": [], "lrrs": [], "more": False, "count": 0}
        )
    )
    rt = respx.get(f"{BS}/3/wans/ints/1/roundTrips").mock(
        return_value=httpx.Response(200, json={"now": 1, "briefs": []})
    )
    await client.station_monitoring.cpu_history(3, duration="P2D", step="PT2H")
    assert dict(cpu.calls[0].request.url.params) == {"duration": "P2D", "step": "PT2H"}
    await client.station_monitoring.served_devices(3, 2, 50, bs_rank=(1, 2), order="asc")
    params = served.calls[0].request.url.params
    assert params.get_list("bsRank") == ["1", "2"] and params["sort"] == "lastUpTimestamp,asc"
    assert params["pageIndex"] == "2"
    await client.station_monitoring.round_trips(3, 1)
    assert rt.called


@respx.mock
async def test_antennas_and_rf_probe(client: LpwaClient) -> None:
    ant = respx.put(f"{BS}/3/ants/0").mock(
        return_value=httpx.Response(200, json={"index": 0, "name": "A", "altitudeAboveGround": 20})
    )
    probe = respx.put(f"{BS}/3/rfProbe").mock(
        return_value=httpx.Response(200, json={"enabled": True})
    )
    frames = respx.get(f"{BS}/3/rfProbe/frames").mock(
        return_value=httpx.Response(200, json={"now": 1, "briefs": []})
    )
    got = await client.station_radio.update_antenna(3, 0, AntennaUpdate(altitudeAboveGround=20))
    assert json.loads(ant.calls[0].request.content) == {"altitudeAboveGround": 20}
    assert got.altitudeAboveGround == 20
    assert (await client.station_radio.update_rf_probe(3, RfProbeUpdate(enabled=True))).enabled
    assert json.loads(probe.calls[0].request.content) == {"enabled": True}
    await client.station_radio.rf_probe_frames(3, duration="PT6H")
    assert frames.calls[0].request.url.params["duration"] == "PT6H"
