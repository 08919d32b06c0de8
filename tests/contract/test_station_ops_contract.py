"""The real client's station operations (station_admin, station_monitoring, station_radio)
against a real sandbox process: every method once, every command and status reading, so a
path, parameter or body the two sides read differently fails here."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from lpwa_console.api import APIStatusError, Credentials, LpwaClient, NotFoundError
from lpwa_console.schema.station_admin import (
    COMMAND_NAMES,
    STATUS_MODELS,
    STATUS_NAMES,
    AdminSettings,
    SupportPasswordChange,
)
from lpwa_console.schema.station_radio import AntennaUpdate, RfProbeUpdate

pytestmark = pytest.mark.anyio

PARAMS = {
    "upgrade": {"version": "3.0.1"},
    "downloadLrrVersion": {"version": "3.0.1"},
    "updateAntennasGainAndLoss": {"chains": [{"index": 0, "gain": 3, "cableLoss": 1}]},
    "updateFineTimestampKeys": {"fpgaBoards": [{"index": 0, "key": "0A" * 16}]},
    "updateLocation": {"locationType": 2},
    "updateLog": {"traceLevel": 1},
    "updateRfRegion": {"rfRegionID": "EU868_DEFAULT"},
    "scanRadio": {"frequency": {"start": 863, "stop": 870, "step": 100}},
}


@pytest.fixture
async def client(sandbox) -> AsyncIterator[LpwaClient]:  # type: ignore[no-untyped-def]
    account = sandbox.account("subscriber")
    creds = Credentials(sandbox.token_url, account["client_id"], account["client_secret"])
    async with LpwaClient(sandbox.base_url, creds) as c:
        yield c  # type: ignore[misc]


async def _lrr_linux_station(client: LpwaClient) -> str:
    async for brief in client.stations.iterate():
        if brief.model and brief.model.softwareType == "LRR_LINUX" and brief.href:
            return brief.href.rsplit("/", 1)[1]
    raise AssertionError("the demo network has an LRR_LINUX station")


async def test_admin_commands_and_statuses(client: LpwaClient) -> None:
    bs = await _lrr_linux_station(client)
    for name in COMMAND_NAMES:
        accepted = await client.station_admin.command(bs, name, PARAMS.get(name, {}))
        assert accepted.model_dump() == PARAMS.get(name, {})
        last = await client.station_admin.last_command_status(bs)
        assert last.lastCmdCompletionStatus == "PENDING" and last.lastCmdRequestDate
    for name in STATUS_NAMES:
        try:
            reading = await client.station_admin.status(bs, name)
        except NotFoundError as missing:  # the reference's answer always describes a backup
            assert name == "backupSwVersion" and "no backup" in str(missing)
            continue
        assert isinstance(reading, STATUS_MODELS[name])
    await client.station_admin.change_support_password(
        bs, SupportPasswordChange.model_validate({"password": "Contract-2pass"})
    )
    assert (await client.station_admin.last_command_status(bs)).lastCmdType == (
        "CHANGE_SUPPORT_PASSWORD"
    )
    history = await client.station_admin.command_history(bs, limit=3)  # the sandbox's own
    assert history.commands[0].lastCmdType == "CHANGE_SUPPORT_PASSWORD"
    assert len(history.commands) == 3
    state = await client.station_admin.settings(bs, AdminSettings(activateRX2Optimization=True))
    assert state.activateRX2Optimization
    with pytest.raises(APIStatusError) as refused:
        await client.station_admin.command(bs, "upgrade", {"version": "9.9.9"})
    assert "version" in str(refused.value)


async def test_monitoring(client: LpwaClient) -> None:
    bs = await _lrr_linux_station(client)
    monitoring = client.station_monitoring
    assert (await monitoring.cpu(bs)).recordedSince >= 0
    assert (await monitoring.ram(bs)).recordedSince >= 0
    assert (await monitoring.disk(bs, 0)).recordedSince >= 0
    assert (await monitoring.cpu_history(bs, duration="P1D")).now
    assert (await monitoring.ram_history(bs, step="PT2H")).now
    assert (await monitoring.disk_history(bs, 0, duration="PT12H")).now
    assert {i.ID for i in (await monitoring.rfcell_indicators(bs)).inds} >= {"urcv", "ucrc"}
    assert {i.ID for i in (await monitoring.wan_indicators(bs)).inds} == {"cnx", "disc", "rtt"}
    assert (await monitoring.interface(bs, 0)).address
    assert (await monitoring.round_trips(bs, 0, duration="P2D")).now
    served = await monitoring.served_devices(bs, 1, 20, duration="P7D", bs_rank=(1, 2))
    assert served.count >= len(served.devices) and served.lrrs


async def test_antennas_and_rf_probe(client: LpwaClient) -> None:
    bs = await _lrr_linux_station(client)
    radio = client.station_radio
    antennas = await radio.antennas(bs)
    assert antennas.briefs
    first = antennas.briefs[0].index
    assert (await radio.antenna(bs, first)).name
    changed = await radio.update_antenna(bs, first, AntennaUpdate(altitudeAboveGround=18))
    assert changed.altitudeAboveGround == 18
    assert (await radio.update_rf_probe(bs, RfProbeUpdate(enabled=True))).enabled
    assert (await radio.rf_probe(bs)).enabled
    frames = await radio.rf_probe_frames(bs, duration="PT6H")
    assert len(frames.briefs) == 6


@pytest.fixture(scope="module")
def living_sandbox(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """A sandbox whose simulator runs 30 times faster than real time."""
    from tests.conftest import SandboxProcess

    server = SandboxProcess(
        tmp_path_factory.mktemp("living") / "sandbox.db", "--simulate", "--speed", "30"
    )
    yield server
    server.stop()


async def test_a_reboot_followed_to_its_outcome(living_sandbox) -> None:  # type: ignore[no-untyped-def]
    """What a command dialog does: send, then follow lastCmdStatus until it is finished."""
    account = living_sandbox.account("subscriber")
    creds = Credentials(living_sandbox.token_url, account["client_id"], account["client_secret"])
    async with LpwaClient(living_sandbox.base_url, creds) as client:
        bs = await _lrr_linux_station(client)
        await client.station_admin.command(bs, "reboot")
        seen = []
        for _ in range(3000):  # bounded; each turn waits a little for the simulator
            last = await client.station_admin.last_command_status(bs)
            if not seen or seen[-1] != last.lastCmdCompletionStatus:
                seen.append(last.lastCmdCompletionStatus)
            if last.finished:
                break
            await asyncio.sleep(0.05)
        assert seen[-1] in ("COMPLETED", "ERR_NOSTART"), seen
        if seen[-1] == "COMPLETED":
            assert "PROCESSING" in seen
            station = await client.stations.get(bs)
            assert station.lastReboot == last.lastCmdCompletionDate
