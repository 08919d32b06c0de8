"""The device map's view-model: the visible box in, the platform's clusters out (debounced,
stale answers dropped), errors in words, following the session."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any, cast

import pytest

from lpwa_console.api import Credentials, LpwaClient
from lpwa_console.models.device_map import DeviceMapViewModel, GeoBox, merged
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.schema.devices import DeviceCluster, DeviceClusters, DeviceFilter
from tests.helpers import refusal, run

EUROPE = GeoBox(35.0, -10.0, 60.0, 20.0)
PACIFIC = GeoBox(-20.0, -150.0, -10.0, -140.0)  # no demo device there


def cluster(lat: float, lon: float, count: int = 1, *, name: str = "") -> DeviceCluster:
    half = 0.01 if count > 1 else 0.0
    data: dict[str, Any] = {
        "count": count,
        "location": {"lat": lat, "lng": lon},
        "bbox": {
            "northeast": {"lat": lat + half, "lng": lon + half},
            "southwest": {"lat": lat - half, "lng": lon - half},
        },
    }
    if count == 1:
        data["item"] = {"EUI": "70B3D5E75000ABCD", "name": name or "Water meter", "alarmLevel": 5}
    return DeviceCluster.model_validate(data)


class FakeDevices:
    """`client.devices.clusters` with answers and timing under the test's control."""

    def __init__(self, answer: Callable[[GeoBox], DeviceClusters] | None = None) -> None:
        self.answer = answer or (lambda box: DeviceClusters(count=0, clusters=[]))
        self.calls: list[tuple[GeoBox, DeviceFilter | None]] = []
        self.gates: list[asyncio.Event] = []
        self.cancelled: list[int] = []
        self.hold = False  # calls wait until `release(index)`
        self.stubborn = False  # a held call ignores cancellation and answers anyway
        self.error: Exception | None = None

    async def clusters(
        self,
        min_lat: float,
        min_lon: float,
        max_lat: float,
        max_lon: float,
        *,
        filters: DeviceFilter | None = None,
    ) -> DeviceClusters:
        index = len(self.calls)
        box = GeoBox(min_lat, min_lon, max_lat, max_lon)
        self.calls.append((box, filters))
        gate = asyncio.Event()
        self.gates.append(gate)
        while self.hold:
            try:
                await gate.wait()
                break
            except asyncio.CancelledError:
                self.cancelled.append(index)
                if not self.stubborn:
                    raise
        await asyncio.sleep(0)
        if self.error is not None:
            raise self.error
        return self.answer(box)

    def release(self, index: int) -> None:
        self.gates[index].set()


class FakeClient:
    def __init__(self, devices: FakeDevices) -> None:
        self.devices = devices


def make_vm(runner: TaskRunner, devices: FakeDevices, debounce_ms: int = 0) -> DeviceMapViewModel:
    vm = DeviceMapViewModel(runner, debounce_ms=debounce_ms)
    vm.set_client(cast(LpwaClient, FakeClient(devices)))
    return vm


def one_cluster_at(lat: float) -> Callable[[GeoBox], DeviceClusters]:
    return lambda box: DeviceClusters(count=3, clusters=[cluster(lat, 2.0, 3)])


@pytest.fixture(autouse=True)
def _loop(qloop: asyncio.AbstractEventLoop) -> None:
    """Every test here runs tasks on the qasync loop."""


# --- against the live sandbox ----------------------------------------------------------------


@pytest.fixture
def client(sandbox: Any, qloop: asyncio.AbstractEventLoop, qtbot: Any) -> Iterator[LpwaClient]:
    account = sandbox.account("subscriber")
    client = LpwaClient(
        sandbox.base_url,
        Credentials(sandbox.token_url, account["client_id"], account["client_secret"]),
    )
    yield client
    run(qtbot, client.aclose())


def answer_for(qtbot: Any, vm: DeviceMapViewModel, box: GeoBox) -> None:
    with qtbot.waitSignal(vm.clusters_changed, timeout=10000):
        vm.set_box(box)
    assert vm.answered_box == box.clamped() and vm.settled


def test_world_clusters_hold_every_located_device(
    qtbot: Any, runner: TaskRunner, client: LpwaClient
) -> None:
    vm = DeviceMapViewModel(runner)
    vm.set_client(client)
    answer_for(qtbot, vm, GeoBox.world())
    located = run(qtbot, client.devices.list(1, 10, filters=DeviceFilter(
        minLat=-90, minLon=-180, maxLat=90, maxLon=180,
    )))  # fmt: skip
    assert located.count and located.count >= 2000  # the demo network
    assert 0 < len(vm.clusters) <= 64
    assert sum(c.count for c in vm.clusters) == vm.total == located.count
    assert all(c.item is not None for c in vm.clusters if c.count == 1)
    assert vm.summary() == f"{vm.total:,} devices in {len(vm.clusters)} clusters in view"

    # Where the devices are: the box around them all, in western Europe.
    with qtbot.waitSignal(vm.extent_found, timeout=10000) as found:
        vm.fit_all()
    extent = found.args[0]
    assert isinstance(extent, GeoBox)
    assert EUROPE.min_lat < extent.min_lat < extent.max_lat < EUROPE.max_lat
    assert EUROPE.min_lon < extent.min_lon < extent.max_lon < EUROPE.max_lon

    # Only cellular devices: fewer, and the filter went to the server.
    with qtbot.waitSignal(vm.clusters_changed, timeout=10000):
        vm.set_connectivity("CELLULAR")
    cellular = run(qtbot, client.devices.list(1, 10, filters=DeviceFilter(
        connectivity="CELLULAR", minLat=-90, minLon=-180, maxLat=90, maxLon=180,
    )))  # fmt: skip
    assert 0 < vm.total == cellular.count < located.count


def test_a_box_without_devices_has_no_clusters(
    qtbot: Any, runner: TaskRunner, client: LpwaClient
) -> None:
    vm = DeviceMapViewModel(runner)
    vm.set_client(client)
    answer_for(qtbot, vm, PACIFIC)
    assert vm.clusters == [] and vm.total == 0
    assert vm.summary() == "0 devices in 0 clusters in view"
    with qtbot.waitSignal(vm.extent_found, timeout=10000) as found:
        vm.set_connectivity("CELLULAR")
        vm.set_box(PACIFIC)
        vm.fit_all()
    assert found.args[0] is not None  # the cellular devices are somewhere else


# --- requests: debounced, stale answers dropped ----------------------------------------------


def test_requests_wait_until_the_view_is_still(qtbot: Any, runner: TaskRunner) -> None:
    devices = FakeDevices(one_cluster_at(48.0))
    vm = make_vm(runner, devices, debounce_ms=100)
    for step in range(5):  # a pan: five boxes in quick succession
        vm.set_box(GeoBox(40.0, step, 50.0, 10.0 + step))
    assert vm.loading and not vm.settled
    assert devices.calls == []
    qtbot.waitUntil(lambda: vm.settled, timeout=3000)
    assert [box for box, _f in devices.calls] == [GeoBox(40.0, 4.0, 50.0, 14.0)]
    assert vm.answered_box == GeoBox(40.0, 4.0, 50.0, 14.0) and vm.total == 3
    vm.set_box(GeoBox(40.0, 4.0, 50.0, 14.0))  # the same box again asks nothing
    assert not vm.loading and len(devices.calls) == 1


def test_a_newer_request_cancels_the_older_one(qtbot: Any, runner: TaskRunner) -> None:
    answers = {40.0: 48.0, 30.0: 45.0}  # the cluster's latitude by the box's min_lat
    devices = FakeDevices(lambda box: DeviceClusters(count=1, clusters=[
        cluster(answers[box.min_lat], 2.0)
    ]))  # fmt: skip
    devices.hold = True
    vm = make_vm(runner, devices)
    changes: list[float] = []
    vm.clusters_changed.connect(lambda: changes.append(vm.clusters[0].location.lat))
    vm.set_box(GeoBox(40.0, 0.0, 50.0, 10.0), now=True)
    qtbot.waitUntil(lambda: len(devices.calls) == 1, timeout=3000)  # on its way
    vm.set_box(GeoBox(30.0, 0.0, 50.0, 10.0), now=True)
    qtbot.waitUntil(lambda: devices.cancelled == [0], timeout=3000)
    devices.release(1)
    qtbot.waitUntil(lambda: changes == [45.0], timeout=3000)
    assert vm.answered_box == GeoBox(30.0, 0.0, 50.0, 10.0) and vm.settled


def test_a_stale_answer_that_arrives_anyway_is_dropped(qtbot: Any, runner: TaskRunner) -> None:
    """Cancellation may come too late (the answer was on its way): the generation decides."""
    answers = {40.0: 48.0, 30.0: 45.0}
    devices = FakeDevices(lambda box: DeviceClusters(count=1, clusters=[
        cluster(answers[box.min_lat], 2.0)
    ]))  # fmt: skip
    devices.hold = devices.stubborn = True
    vm = make_vm(runner, devices)
    changes: list[float] = []
    vm.clusters_changed.connect(lambda: changes.append(vm.clusters[0].location.lat))
    vm.set_box(GeoBox(40.0, 0.0, 50.0, 10.0), now=True)
    qtbot.waitUntil(lambda: len(devices.calls) == 1, timeout=3000)  # on its way
    vm.set_box(GeoBox(30.0, 0.0, 50.0, 10.0), now=True)
    qtbot.waitUntil(lambda: len(devices.calls) == 2 and devices.cancelled == [0], timeout=3000)
    devices.release(1)  # the newer answers first ...
    qtbot.waitUntil(lambda: changes == [45.0], timeout=3000)
    devices.release(0)  # ... then the older one arrives, and is ignored
    qtbot.waitUntil(lambda: not runner.busy, timeout=3000)
    assert changes == [45.0] and vm.clusters[0].location.lat == 45.0
    assert vm.answered_box == GeoBox(30.0, 0.0, 50.0, 10.0)


def test_errors_become_a_message(qtbot: Any, runner: TaskRunner) -> None:
    devices = FakeDevices(one_cluster_at(48.0))
    vm = make_vm(runner, devices)
    answer_for(qtbot, vm, EUROPE)
    devices.error = refusal(400, "minLat: the bounding box needs minLat <= maxLat")
    with qtbot.waitSignal(vm.error, timeout=3000) as failed:
        vm.refresh()
    assert failed.args == ["minLat: the bounding box needs minLat <= maxLat"]
    assert vm.error_message == failed.args[0] and vm.settled
    assert vm.total == 3  # the last clusters stay
    devices.error = None
    with qtbot.waitSignal(vm.clusters_changed, timeout=3000):
        vm.refresh()
    assert vm.error_message == ""


def test_follows_the_session(qtbot: Any, runner: TaskRunner) -> None:
    first, second = FakeDevices(one_cluster_at(48.0)), FakeDevices(one_cluster_at(52.0))
    first.hold = True
    vm = make_vm(runner, first)
    vm.set_box(EUROPE, now=True)
    qtbot.waitUntil(lambda: len(first.calls) == 1, timeout=3000)
    with qtbot.waitSignal(vm.client_changed, timeout=1000) as changed:
        vm.set_client(None)
    assert changed.args == [False]
    qtbot.waitUntil(lambda: first.cancelled == [0], timeout=3000)
    assert vm.clusters == [] and vm.summary() == "Not connected" and not vm.loading
    vm.refresh()  # no client: nothing is asked
    assert len(first.calls) == 1
    vm.set_client(cast(LpwaClient, FakeClient(second)))  # the box is asked again at once
    qtbot.waitUntil(lambda: vm.answered_box == EUROPE, timeout=3000)
    assert vm.clusters[0].location.lat == 52.0 and vm.first_clusters_ms is not None


def test_only_the_filters_the_endpoint_takes(qtbot: Any, runner: TaskRunner) -> None:
    devices = FakeDevices()
    vm = make_vm(runner, devices)
    answer_for(qtbot, vm, EUROPE)
    with qtbot.waitSignal(vm.clusters_changed, timeout=3000):
        vm.set_filters(DeviceFilter(name="water", connectivity="LORAWAN", appServerID=["as-1"]))
    sent = devices.calls[-1][1]
    assert sent == DeviceFilter(connectivity="LORAWAN", appServerID=["as-1"])
    assert vm.connectivity == "LORAWAN"
    calls = len(devices.calls)
    vm.set_filters(DeviceFilter(name="gas", connectivity="LORAWAN", appServerID=["as-1"]))
    assert len(devices.calls) == calls  # nothing the endpoint sees changed


def test_fit_all_finds_the_box_around_the_devices(qtbot: Any, runner: TaskRunner) -> None:
    devices = FakeDevices(lambda box: DeviceClusters(
        count=4, clusters=[cluster(48.0, 2.0, 3), cluster(52.5, 13.4)]
    ))  # fmt: skip
    vm = make_vm(runner, devices)
    with qtbot.waitSignal(vm.extent_found, timeout=3000) as found:
        vm.fit_all()
    assert devices.calls[-1][0] == GeoBox.world()
    assert found.args == [GeoBox(47.99, 1.99, 52.5, 13.4)]
    devices.answer = lambda box: DeviceClusters(count=0, clusters=[])
    with qtbot.waitSignal(vm.extent_found, timeout=3000) as found:
        vm.fit_all()
    assert found.args == [None]


def test_boxes_and_merging() -> None:
    assert GeoBox(-95.0, -200.0, 95.0, 181.0).clamped() == GeoBox.world()
    assert GeoBox(10.0, 10.0, 10.0, 20.0).empty
    assert GeoBox.around([]) is None
    one = merged([cluster(48.0, 2.0, 3), cluster(52.0, 2.0)])
    assert one.count == 4 and one.item is None
    assert one.location.lat == pytest.approx(49.0)
    assert GeoBox.of_cluster(one) == GeoBox(47.99, 1.99, 52.0, 2.01)
    single = cluster(48.0, 2.0)
    assert merged([single]) is single
