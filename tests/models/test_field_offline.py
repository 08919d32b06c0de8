"""Field mode's parts on a live sandbox: the snapshot answers the real client offline, the
edits offline are queued (and refused beyond a name, tags and position, with the reason; a
base station's position by its updateLocation command), and the replay sends nothing twice,
a crash between a send and its mark included."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from lpwa_console.api import Credentials, LpwaClient
from lpwa_console.api.errors import PermissionDeniedError
from lpwa_console.models.field_offline.edit_queue import (
    CONFLICT,
    QUEUED,
    SENDING,
    SENT,
    EditQueue,
)
from lpwa_console.models.field_offline.offline_edits import OFFLINE_QUEUED, OfflineEditor
from lpwa_console.models.field_offline.paths import QUEUE_FILE, SNAPSHOT_FILE, TILES_FILE
from lpwa_console.models.field_offline.store import SnapshotStore
from lpwa_console.models.field_offline.sync import replay, resolve
from lpwa_console.models.field_offline.take import Box, Region, SnapshotTaker, tile_keys
from lpwa_console.models.field_offline.transport import SnapshotTransport
from lpwa_console.schema.devices import DeviceCreate, DeviceFilter, DeviceUpdate
from lpwa_console.schema.station_admin import UpdateLocationCommand
from tests.conftest import SandboxProcess
from tests.tile_fixtures import png, tile_server

BOX = (45.69, 4.79, 45.72, 4.81)
STATIONS_BOX = (45.71, 4.74, 45.775, 4.85)  # three of the seed's base stations in Lyon


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def street_map() -> Iterator[str]:
    class AnyTile(dict[Any, bytes]):
        def __missing__(self, key: Any) -> bytes:
            return png((230, 226, 218), 16)

    with tile_server(AnyTile()) as server:
        yield server.template


class Counting:
    """The platform's client, counting the PUTs and the commands (POST …/admins/…) it sends."""

    def __init__(self, sandbox: Any) -> None:
        account = sandbox.account("subscriber")
        self.puts: list[str] = []
        self.commands: list[str] = []
        http = httpx.AsyncClient(event_hooks={"request": [self._seen]})
        self.client = LpwaClient(
            sandbox.base_url,
            Credentials(sandbox.token_url, account["client_id"], account["client_secret"]),
            http=http,
        )
        self.http = http

    async def _seen(self, request: httpx.Request) -> None:
        if request.method == "PUT":
            self.puts.append(request.url.path)
        if request.method == "POST" and "/admins/" in request.url.path:
            self.commands.append(request.url.path)


@pytest.fixture
async def platform(sandbox: Any) -> AsyncIterator[Counting]:
    counting = Counting(sandbox)
    yield counting
    await counting.http.aclose()


@pytest.fixture
def living(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxProcess]:
    """A sandbox of its own whose stations carry their commands out (its simulator runs,
    ten times faster than the clock: a location update lands in about a second)."""
    db = tmp_path_factory.mktemp("living") / "sandbox.db"
    server = SandboxProcess(db, "--simulate", "--speed", "10")
    yield server
    server.stop()


async def take_box(platform: LpwaClient, folder: Path, street_map: str, box: Box = BOX) -> None:
    taker = SnapshotTaker(platform, folder, street_map)
    region = Region("box", box=box)
    estimate = await taker.estimate(region)
    assert estimate.devices > 0 and estimate.tiles == len(tile_keys(box))
    await taker.take(region, estimate, lambda *_: None, {"account_name": "Acme"})


def offline(folder: Path, base_url: str) -> tuple[LpwaClient, EditQueue, SnapshotStore]:
    store = SnapshotStore(folder / SNAPSHOT_FILE)
    queue = EditQueue(folder / QUEUE_FILE)
    transport = SnapshotTransport(store, OfflineEditor(store, queue), httpx.URL(base_url).path)
    client = LpwaClient(base_url, None, http=httpx.AsyncClient(transport=transport), max_retries=0)
    return client, queue, store


@pytest.mark.anyio
async def test_the_snapshot_answers_the_client_offline(
    platform: Counting, sandbox: Any, tmp_path: Path, street_map: str
) -> None:
    await take_box(platform.client, tmp_path, street_map)
    assert (tmp_path / TILES_FILE).is_file()
    client, queue, store = offline(tmp_path, sandbox.base_url)
    online = await platform.client.devices.list(page_size=1000, filters=DeviceFilter(
        minLat=BOX[0], minLon=BOX[1], maxLat=BOX[2], maxLon=BOX[3]))  # fmt: skip
    page = await client.devices.list(page_size=1000)
    assert {d.EUI for d in page.briefs} == {d.EUI for d in online.briefs}
    one = page.briefs[0]
    assert (await client.devices.get(one.path_ref)).EUI == one.EUI
    named = await client.devices.list(filters=DeviceFilter(name=one.name[:6]))
    assert one.EUI in {d.EUI for d in named.briefs}
    # Anything but a name, tags or position needs the platform: refused with the reason.
    with pytest.raises(PermissionDeniedError, match="needs a connection to the platform"):
        await client.devices.create(DeviceCreate(EUI="70B3D5E75FFF0001", name="New"))
    with pytest.raises(PermissionDeniedError, match="this also changes: customerAdminData"):
        await client.devices.update(one.path_ref, DeviceUpdate(customerAdminData="moved"))
    assert queue.edits() == []
    changed = await client.devices.update(one.path_ref, DeviceUpdate(name="Field name"))
    assert changed.name == "Field name"
    assert [(e.changes, e.base) for e in queue.edits()] == [
        ({"name": "Field name"}, {"name": one.name})
    ]
    # A tag added from the detail's tags tab: queued too, shown at once.
    await client.devices.tag("checked-on-site", [one.EUI])
    tagged = await client.devices.get(one.path_ref)
    assert "checked-on-site" in {t.name for t in tagged.tags}
    assert "checked-on-site" in {t["name"] for t in queue.edits()[-1].changes["tags"]}
    # The region's alarms, from the alarms centre's list and the device's own.
    euis = {d.EUI for d in page.briefs}
    alarms = await client.device_alarms.list(page_size=1000)
    assert alarms.count == store.count("device_alarms")
    assert all(a.device.EUI in euis for a in alarms.briefs)
    await client.aclose()
    queue.close()
    store.close()
    assert platform.puts == []


@pytest.mark.anyio
async def test_a_crash_between_send_and_mark_sends_nothing_twice(
    platform: Counting, sandbox: Any, tmp_path: Path, street_map: str
) -> None:
    await take_box(platform.client, tmp_path, street_map)
    client, queue, store = offline(tmp_path, sandbox.base_url)
    page = await client.devices.list(page_size=1000)
    sent_before, never_sent = page.briefs[0], page.briefs[1]
    await client.devices.update(
        sent_before.path_ref, DeviceUpdate(adminLat=45.7001, adminLon=4.8001)
    )
    await client.devices.update(never_sent.path_ref, DeviceUpdate(name="Sent once"))
    first, second = queue.edits()
    # The first was sent, and the console stopped before marking it; the second was marked
    # `sending` and the console stopped before its request left.
    queue.mark(first.seq, SENDING)
    await platform.client.devices.update(
        sent_before.path_ref, DeviceUpdate(adminLat=45.7001, adminLon=4.8001)
    )
    queue.mark(second.seq, SENDING)
    queue.close()
    platform.puts.clear()

    restarted = EditQueue(tmp_path / QUEUE_FILE)  # what a restart reads
    assert [e.state for e in restarted.edits()] == [SENDING, SENDING]
    outcomes: list[str] = []
    await replay(platform.client, restarted, lambda e: outcomes.append(e.outcome))
    assert outcomes[0].startswith("Already on the platform")
    assert outcomes[1] == "Sent"
    assert platform.puts == [
        f"{httpx.URL(sandbox.base_url).path}/subscriptions/mine/devices/{never_sent.path_ref}"
    ]
    assert [e.state for e in restarted.edits()] == [SENT, SENT]
    # Again: nothing waits, nothing is sent.
    assert await replay(platform.client, restarted) == 0
    assert len(platform.puts) == 1
    assert (await platform.client.devices.get(never_sent.path_ref)).name == "Sent once"
    # No secret is in the queue nor in the snapshot.
    secret = sandbox.account("subscriber")["client_secret"].encode()
    for name in (QUEUE_FILE, SNAPSHOT_FILE):
        assert secret not in (tmp_path / name).read_bytes()
    restarted.close()
    await client.aclose()
    store.close()
    assert QUEUED not in [e.state for e in EditQueue(tmp_path / QUEUE_FILE).edits()]


@pytest.mark.anyio
async def test_a_tag_is_sized_by_its_items_and_a_cancel_keeps_the_last_snapshot(
    platform: Counting, tmp_path: Path, street_map: str
) -> None:
    import asyncio

    taker = SnapshotTaker(platform.client, tmp_path, street_map)
    region = Region("tag", value="water")
    estimate = await taker.estimate(region)
    tagged = await platform.client.devices.list(page_size=1000, filters=DeviceFilter(tag=["water"]))
    assert estimate.devices == tagged.count and estimate.box is not None
    assert estimate.tiles == len(tile_keys(estimate.box)) and estimate.megabytes > 0
    # Cancelled once the details are under way: no snapshot, nothing partial left.
    seen: list[int] = []
    task = asyncio.ensure_future(taker.take(region, estimate, lambda done, *_: seen.append(done)))
    while len(seen) < 20:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def at(lat: float, lon: float) -> UpdateLocationCommand:
    return UpdateLocationCommand(locationType=1, adminLat=lat, adminLon=lon)


async def placed(client: LpwaClient, ref: str, lat: float, lon: float) -> None:
    """Until the platform's station reads at (lat, lon): the station carries out its
    updateLocation command a few seconds after it is sent."""
    import asyncio

    for _ in range(600):
        station = await client.stations.get(ref)
        if (round(station.lastGeoLat or 0, 7), round(station.lastGeoLon or 0, 7)) == (lat, lon):
            return
        await asyncio.sleep(0.1)
    detail = (await client.stations.get(ref)).model_dump(exclude_none=True)
    raise AssertionError(f"station {ref} never reached {lat}, {lon}: {detail}")


@pytest.mark.anyio
async def test_a_station_moved_offline_is_sent_back_as_its_location_command(
    living: SandboxProcess, tmp_path: Path, street_map: str
) -> None:
    sandbox = living
    platform = Counting(sandbox)
    await take_box(platform.client, tmp_path, street_map, STATIONS_BOX)
    client, queue, store = offline(tmp_path, sandbox.base_url)
    listed = {s.lrrID: s for s in (await client.stations.list(page_size=1000)).briefs}
    moved, office, other = listed["10000004"], listed["10000008"], listed["10000024"]
    before = {s.path_ref: await client.stations.get(s.path_ref) for s in (moved, office)}

    def near(ref: str, metres: int) -> tuple[float, float]:  # a few metres from where it was
        b = before[ref]
        assert b.lastGeoLat is not None and b.lastGeoLon is not None
        return round(b.lastGeoLat + metres * 1e-5, 7), round(b.lastGeoLon + metres * 1e-5, 7)

    moved_to, office_to = near(moved.path_ref, 1), near(office.path_ref, 2)
    # A GPS position needs the station; a station whose software has no location command
    # would be refused by the platform: both refused offline, with the reason.
    with pytest.raises(PermissionDeniedError, match="not taken from its GPS"):
        await client.station_admin.command(moved.path_ref, "updateLocation", {"locationType": 2})
    with pytest.raises(PermissionDeniedError, match="this one runs LRR_FREERTOS"):
        await client.station_admin.command(other.path_ref, "updateLocation", at(45.7, 4.8))
    # Typed positions: queued, and the snapshot shows them at once (detail and list).
    for station, spot in ((moved, moved_to), (office, office_to)):
        answer = await client.station_admin.command(station.path_ref, "updateLocation", at(*spot))
        assert "connection is back" in str(getattr(answer, OFFLINE_QUEUED))
    shown = await client.stations.get(moved.path_ref)
    assert (shown.lastGeoLat, shown.lastGeoLon) == moved_to
    relisted = {s.lrrID: s for s in (await client.stations.list(page_size=1000)).briefs}
    assert (relisted[moved.lrrID].lat, relisted[moved.lrrID].lon) == moved_to
    edits = queue.edits()
    assert [e.kind for e in edits] == ["stations"] * 2
    assert edits[0].changes == {"lastGeoLat": moved_to[0], "lastGeoLon": moved_to[1]}
    b = before[moved.path_ref]
    assert edits[0].base == {"lastGeoLat": b.lastGeoLat, "lastGeoLon": b.lastGeoLon}
    assert platform.commands == []
    # Meanwhile at the office, the second station was placed elsewhere.
    elsewhere = near(office.path_ref, 4)
    await platform.client.station_admin.command(office.path_ref, "updateLocation", at(*elsewhere))
    await placed(platform.client, office.path_ref, *elsewhere)
    platform.commands.clear()

    outcomes: list[tuple[str, str]] = []
    await replay(platform.client, queue, lambda e: outcomes.append((e.state, e.outcome)))
    assert outcomes[0] == (SENT, "Sent")
    assert outcomes[1][0] == CONFLICT
    assert queue.edits()[1].platform == {"lastGeoLat": elsewhere[0], "lastGeoLon": elsewhere[1]}
    bss = f"{httpx.URL(sandbox.base_url).path}/partners/mine/bss"
    assert platform.commands == [f"{bss}/{moved.path_ref}/admins/updateLocation"]
    # A crash after the send, before its mark: the re-read decides, nothing is sent again,
    # whether the station is still carrying the command out or already there.
    queue.mark(edits[0].seq, SENDING)
    await replay(platform.client, queue)
    assert queue.edits()[0].state == SENT and queue.edits()[0].outcome.startswith("Already")
    await placed(platform.client, moved.path_ref, *moved_to)
    queue.mark(edits[0].seq, SENDING)
    await replay(platform.client, queue)
    assert queue.edits()[0].outcome.startswith("Already on the platform")
    assert len(platform.commands) == 1
    # The conflict: the user keeps the field's position; it is sent then.
    await resolve(platform.client, queue, queue.edits()[1], mine=True)
    assert queue.edits()[1].state == SENT and len(platform.commands) == 2
    await placed(platform.client, office.path_ref, *office_to)
    await platform.http.aclose()
    await client.aclose()
    queue.close()
    store.close()
