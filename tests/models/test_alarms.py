"""The alarms centre model: two lists as one lazy table, live refresh in place, acknowledge."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from lpwa_console.models.alarms import AlarmsViewModel, combined_fetcher, kind_of
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.schema.alarms import AlarmFilter, DeviceAlarmBrief, MulticastAlarmBrief
from lpwa_console.schema.common import ListEnvelope


def device_alarm(i: int, state: int = 4) -> DeviceAlarmBrief:
    return DeviceAlarmBrief(
        alarmUid=f"d{i}", ID=4, state=state, creationTimestamp=i, updateTimestamp=i,
        device={"EUI": f"{i:016X}", "name": f"dev {i}"},
    )  # fmt: skip


def group_alarm(i: int) -> MulticastAlarmBrief:
    return MulticastAlarmBrief(
        alarmUid=f"m{i}", ID=1, state=5, creationTimestamp=i, updateTimestamp=i,
        multicastGroup={"EUI": f"{i:08X}", "name": f"group {i}"},
    )  # fmt: skip


class FakeList:
    """A server list by pageIndex/pageSize with `count` on the first page only."""

    def __init__(self, items: list[Any]) -> None:
        self.items = items
        self.calls: list[tuple[int, int]] = []
        self.filters: list[AlarmFilter] = []

    async def __call__(
        self, page: int, size: int, sort: str | None, desc: bool, filters: AlarmFilter
    ) -> ListEnvelope[Any]:
        self.calls.append((page, size))
        self.filters.append(filters)
        await asyncio.sleep(0)
        chunk = self.items[(page - 1) * size : page * size]
        more = page * size < len(self.items)
        return ListEnvelope[Any](
            briefs=chunk, count=len(self.items) if page == 1 else None, more=more
        )


def fake_client(
    devices: FakeList | None, groups: FakeList | None, stations: FakeList | None = None
) -> Any:
    """The alarm lists of a client (devices, groups, base stations), served by FakeLists
    (none: an empty list)."""

    def resource(fake: FakeList | None) -> SimpleNamespace:
        source = fake or FakeList([])

        async def list_page(
            page: int, size: int, *, filters: AlarmFilter, sort: str | None, descending: bool
        ) -> ListEnvelope[Any]:
            return await source(page, size, sort, descending, filters)

        return SimpleNamespace(list=list_page)

    return SimpleNamespace(
        device_alarms=resource(devices),
        multicast_alarms=resource(groups),
        station_alarms=resource(stations),
    )


def gather(qtbot: Any, *coros: Any) -> list[Any]:
    future = asyncio.ensure_future(asyncio.gather(*coros))
    qtbot.waitUntil(future.done, timeout=3000)
    return list(future.result())


def test_concatenation_across_the_boundary(qtbot: Any, qloop: Any) -> None:
    devices = FakeList([device_alarm(i) for i in range(25)])
    groups = FakeList([group_alarm(i) for i in range(17)])
    fetch = combined_fetcher(devices, groups, AlarmFilter())
    pages = [gather(qtbot, fetch(p, 10, None, False))[0] for p in range(1, 6)]
    assert pages[0].count == 42
    uids = [a.alarmUid for page in pages for a in page.briefs]
    assert uids == [f"d{i}" for i in range(25)] + [f"m{i}" for i in range(17)]
    assert [len(p.briefs) for p in pages] == [10, 10, 10, 10, 2]
    assert pages[4].more is False and pages[3].more is True
    only_groups = combined_fetcher(None, groups, AlarmFilter())
    (page,) = gather(qtbot, only_groups(2, 10, None, False))
    assert page.count == 17 and page.briefs[0].alarmUid == "m10"


def test_view_model_filters_refresh_in_place_and_ack(
    qtbot: Any, qloop: Any, qtmodeltester: Any
) -> None:
    devices = FakeList([device_alarm(i, state=6 if i % 3 == 0 else 4) for i in range(250)])
    groups = FakeList([group_alarm(i) for i in range(30)])
    vm = AlarmsViewModel(TaskRunner(), page_size=50, refresh_ms=60_000)
    qtmodeltester.check(vm.model)  # watches every change from before the first load
    with qtbot.waitSignal(vm.first_page_loaded, timeout=3000):
        vm.set_client(fake_client(devices, groups))
    model = vm.model
    assert model.rowCount() == 280
    assert kind_of(model.item(0)) == "device"
    assert devices.filters[-1].acked is False  # unacknowledged by default
    # The last rows come from the multicast list.
    model.index(279, 0).data()
    qtbot.waitUntil(lambda: model.item(279) is not None, timeout=3000)
    assert model.item(279).alarmUid == "m29"
    assert model.index(0, 0).data() == "Critical"

    # Live refresh: new alarms arrive; no reset, rows appended, visible pages re-read.
    resets: list[int] = []
    model.modelReset.connect(lambda: resets.append(1))
    devices.items = devices.items + [device_alarm(1000 + i) for i in range(5)]
    devices.items[1] = device_alarm(1, state=2)
    vm.visible_rows = lambda: (0, 40)
    with qtbot.waitSignal(model.refreshed, timeout=3000):
        vm.refresh_visible()
    assert resets == [] and model.rowCount() == 285
    assert model.index(1, 0).data() == "Indeterminate"

    # Filters go to the server.
    with qtbot.waitSignal(vm.first_page_loaded, timeout=3000):
        vm.set_filters(min_severity=6, acked=None)
    params = dict(devices.filters[-1].to_params())
    assert params == {"state": "6", "stateFiltering": "EQUAL_OR_UPPER"}
    with qtbot.waitSignal(vm.first_page_loaded, timeout=3000):
        vm.set_filters(source="multicast")
    assert model.rowCount() == 30


def test_selection_follows_its_alarms_across_a_refresh(
    qtbot: Any, qloop: Any, qtmodeltester: Any
) -> None:
    """New alarms at the top push the rows down: the selection and the current index move
    with their alarms (by alarmUid), and an alarm that left the list leaves the selection."""
    from PySide6.QtCore import QItemSelectionModel

    devices = FakeList([device_alarm(i) for i in range(120)])
    vm = AlarmsViewModel(TaskRunner(), page_size=50, refresh_ms=60_000)
    qtmodeltester.check(vm.model)  # watches every change from before the first load
    with qtbot.waitSignal(vm.first_page_loaded, timeout=3000):
        vm.set_client(fake_client(devices, None))
    model = vm.model
    selection = QItemSelectionModel(model)
    flags = QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
    for row in (3, 7):
        selection.select(model.index(row, 0), flags)
    selection.setCurrentIndex(model.index(7, 0), QItemSelectionModel.SelectionFlag.NoUpdate)
    # Two new alarms arrive first; alarm d3 is cleared away.
    devices.items = [device_alarm(500), device_alarm(501)] + [
        a for a in devices.items if a.alarmUid != "d3"
    ]
    vm.visible_rows = lambda: (0, 20)
    with qtbot.waitSignal(model.refreshed, timeout=3000):
        vm.refresh_visible()
    assert model.rowCount() == 121
    chosen = sorted({i.row() for i in selection.selectedIndexes()})
    assert [model.item(r).alarmUid for r in chosen] == ["d7"]
    assert selection.currentIndex().row() == 8  # two new above, d3 gone

    # Acknowledging patches the alarms where they are now.
    vm.visible_rows = None
    vm._patch_acked({("device", "d7")})
    assert model.item(8).acked is True and model.item(7).acked is not True


class SortedFakeList(FakeList):
    """A FakeList that sorts like the platform: by the criterion, then the latest update
    first; with no criterion, the latest update first."""

    async def __call__(
        self, page: int, size: int, sort: str | None, desc: bool, filters: AlarmFilter
    ) -> ListEnvelope[Any]:
        items = sorted(self.items, key=lambda a: -a.updateTimestamp)
        if sort is not None:
            items = sorted(items, key=lambda a: getattr(a, sort), reverse=desc)
        saved, self.items = self.items, items
        try:
            return await super().__call__(page, size, sort, desc, filters)
        finally:
            self.items = saved


def test_merged_pages_follow_the_sort_across_both_lists(qtbot: Any, qloop: Any) -> None:
    import random

    rng = random.Random(4)
    devs = [device_alarm(i, state=rng.choice([2, 3, 4, 5, 6])) for i in range(230)]
    grps = [group_alarm(i) for i in range(37)]
    for alarm in devs + grps:
        alarm.updateTimestamp = rng.randrange(1000)
        alarm.acked = rng.random() < 0.3
    devices, groups = SortedFakeList(devs), SortedFakeList(grps)
    fetch = combined_fetcher(devices, groups, AlarmFilter())
    for sort, desc in ((None, False), ("state", False), ("state", True), ("acked", True)):

        def rank(a: Any, sort: str | None = sort, desc: bool = desc) -> tuple[Any, ...]:
            value = int(getattr(a, sort)) if sort else 0
            return (-value if desc else value, -a.updateTimestamp, kind_of(a) == "multicast")

        expected = [a.alarmUid for a in sorted(devs + grps, key=rank)]
        for page in (3, 1, 5, 2, 4, 6):  # any order: each page is found on its own
            (env,) = gather(qtbot, fetch(page, 50, sort, desc))
            assert env.count == 267
            assert [a.alarmUid for a in env.briefs] == expected[(page - 1) * 50 : page * 50]


def test_live_polling_follows_the_pane_and_moved_rows_drop_stale_pages(
    qtbot: Any, qloop: Any, qtmodeltester: Any
) -> None:
    devices = FakeList([device_alarm(i) for i in range(200)])
    vm = AlarmsViewModel(TaskRunner(), page_size=50, refresh_ms=60_000)
    qtmodeltester.check(vm.model)  # watches every change from before the first load
    vm.set_live(False)  # a hidden pane
    with qtbot.waitSignal(vm.first_page_loaded, timeout=3000):
        vm.set_client(fake_client(devices, None))
    assert not vm.timer.isActive()  # a reload does not restart what the pane stopped
    vm.set_live(True)
    assert vm.timer.isActive()
    model = vm.model
    model.index(120, 0).data()  # page 2 is loaded while the user looks down there
    qtbot.waitUntil(lambda: 2 in model.loaded_pages(), timeout=3000)
    devices.items = [device_alarm(900 + i) for i in range(3)] + devices.items
    vm.visible_rows = lambda: (0, 20)
    with qtbot.waitSignal(model.refreshed, timeout=3000):
        vm.refresh_visible()
    assert model.rowCount() == 203 and 2 not in model.loaded_pages()


def test_a_selection_off_screen_keeps_its_alarms(
    qtbot: Any, qloop: Any, qtmodeltester: Any
) -> None:
    """Selected rows on a page the view no longer shows: a refresh re-reads that page too, so
    the selection follows its alarms when new ones push them along, never onto others."""
    from PySide6.QtCore import QItemSelectionModel

    devices = FakeList([device_alarm(i) for i in range(200)])
    vm = AlarmsViewModel(TaskRunner(), page_size=50, refresh_ms=60_000)
    qtmodeltester.check(vm.model)  # watches every change from before the first load
    with qtbot.waitSignal(vm.first_page_loaded, timeout=3000):
        vm.set_client(fake_client(devices, None))
    model = vm.model
    model.index(120, 0).data()
    qtbot.waitUntil(lambda: 2 in model.loaded_pages(), timeout=3000)
    selection = QItemSelectionModel(model)
    flags = QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
    for row in (120, 121):
        selection.select(model.index(row, 0), flags)
    devices.items = [device_alarm(900 + i) for i in range(3)] + devices.items
    vm.visible_rows = lambda: (0, 20)  # the user scrolled back up
    with qtbot.waitSignal(model.refreshed, timeout=3000):
        vm.refresh_visible()
    rows = sorted({i.row() for i in selection.selectedIndexes()})
    assert rows == [123, 124]
    assert [model.item(r).alarmUid for r in rows] == ["d120", "d121"]


def test_alarm_ids_have_names_and_meanings() -> None:
    from lpwa_console.models.alarms import alarm_meaning, alarm_name

    assert alarm_name(4) == "004 No uplink"
    assert "no uplink" in alarm_meaning(4) and "2 days" in alarm_meaning(4)
    assert alarm_name(12) == "012 Tamper" and alarm_name(21) == "021 Multicast delivery failed"
    assert alarm_name(7) == "007" and "does not say" in alarm_meaning(7)


def test_a_shared_page_failing_after_its_readers_left_is_not_unhandled(
    qtbot: Any, qloop: asyncio.AbstractEventLoop
) -> None:
    """Found by the monkey bench: the sandbox restarts, the old client closes, and a page
    read nobody waits for any more fails; asyncio must not report it as never retrieved."""
    import gc

    started = asyncio.Event()
    release = asyncio.Event()

    async def devices(*_args: Any) -> ListEnvelope[Any]:
        started.set()
        await release.wait()
        raise RuntimeError("Cannot send a request, as the client has been closed.")

    reported: list[dict[str, Any]] = []
    qloop.set_exception_handler(lambda _loop, context: reported.append(context))
    try:
        fetch = combined_fetcher(devices, None, AlarmFilter())
        reader = asyncio.ensure_future(fetch(1, 10, None, False))
        qtbot.waitUntil(started.is_set, timeout=5000)
        reader.cancel()  # the model reloaded: its reader is gone
        release.set()
        qtbot.waitUntil(reader.done, timeout=5000)
        qtbot.wait(20)  # the shared read fails now
        del fetch, reader  # and is forgotten with its cache
        gc.collect()
        qtbot.wait(20)
        assert reported == []
    finally:
        qloop.set_exception_handler(None)


class NotOfferedList(FakeList):
    """A platform without the multicast groups' alarms as one list (a 7.3 platform)."""

    async def __call__(
        self, page: int, size: int, sort: str | None, desc: bool, filters: AlarmFilter
    ) -> ListEnvelope[Any]:
        import httpx

        from lpwa_console.api import FeatureNotOffered

        self.calls.append((page, size))
        request = httpx.Request("GET", "https://platform.example/multicastGroups/alarms")
        raise FeatureNotOffered(
            "the multicast groups' alarms as one list",
            response=httpx.Response(422, request=request),
            code=None,
        )


def test_alarms_a_platform_does_not_list_are_left_out_once(qtbot: Any, qloop: Any) -> None:
    devices = FakeList([device_alarm(i) for i in range(20)])
    groups = NotOfferedList([])
    vm = AlarmsViewModel(TaskRunner(), page_size=50, refresh_ms=60_000)
    with qtbot.assertNotEmitted(vm.error), qtbot.waitSignal(vm.first_page_loaded, timeout=3000):
        vm.set_client(fake_client(devices, groups))
    assert vm.model.rowCount() == 20  # the device alarms, without the groups'
    assert vm.not_offered == {
        "multicast": "This platform does not offer the multicast groups' alarms as one list"
    }
    asked = len(groups.calls)
    with qtbot.waitSignal(vm.first_page_loaded, timeout=3000):
        vm.reload()
    assert len(groups.calls) == asked  # not asked again
    vm.set_client(fake_client(devices, groups))
    assert vm.not_offered == {}
