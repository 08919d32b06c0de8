"""The device detail view-model: alarm 004 rules, rights, alarms and traffic of one device."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from PySide6.QtCore import Qt

from lpwa_console.models.device_detail import (
    ACK_BATCH,
    AckedRole,
    DeviceAlarmsModel,
    DeviceDetailViewModel,
    Threshold,
    alarm004_request,
    rights_of,
    routing_profile_read_only,
    thresholds_of,
)
from lpwa_console.models.paged_table import SeverityRole
from lpwa_console.models.rights import ADMIN_NODE, WRITE_NODE, AccountRights
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.schema.alarms import AlarmBrief, AlarmFilter, AlarmPage
from lpwa_console.schema.devices import Device
from lpwa_console.schema.frames import FramesAggregation
from lpwa_console.schema.subscription import Subscription


def device(**extra: Any) -> Device:
    return Device.model_validate({"EUI": "70B3D57ED0000001", "name": "meter 1", **extra})


def alarm(uid: str, state: int, acked: bool = False) -> AlarmBrief:
    return AlarmBrief(
        alarmUid=uid, ID=4, state=state, acked=acked, creationTimestamp=1, updateTimestamp=2
    )


class FakeClient:
    """Plain async callables in the client's shape. One device's alarms come in pages of
    `page_size`, in the order of `alarms` (the platform's: latest update first), filtered on
    `acked` as the platform does."""

    def __init__(self, alarms: list[AlarmBrief] | None = None, page_size: int = 100) -> None:
        self.acked: list[str] = []
        self.ack_requests: list[list[str]] = []
        self.alarms = (
            alarms
            if alarms is not None
            else [alarm("a1", 3), alarm("a2", 6), alarm("a3", 5, acked=True)]
        )
        self.page_size = page_size
        self.pages: list[tuple[int, bool | None]] = []  # (pageIndex, acked filter) asked
        self.traffic_calls: list[dict[str, Any]] = []
        self.gate: asyncio.Event | None = None  # when set, pages wait for it

        async def of_device(
            ref: str, page_index: int = 1, *, filters: AlarmFilter | None = None
        ) -> AlarmPage:
            acked = filters.acked if filters is not None else None
            self.pages.append((page_index, acked))
            if self.gate is not None:
                await self.gate.wait()
            listed = [a for a in self.alarms if acked is None or a.acked == acked]
            start = (page_index - 1) * self.page_size
            briefs = listed[start : start + self.page_size]
            more = start + self.page_size < len(listed)
            count = len(listed) if page_index == 1 else None
            return AlarmPage(briefs=briefs, count=count, more=more)

        async def acknowledge(uids: list[str]) -> None:
            self.ack_requests.append(list(uids))
            self.acked.extend(uids)
            done = set(uids)
            self.alarms = [
                a.model_copy(update={"acked": a.acked or a.alarmUid in done}) for a in self.alarms
            ]

        async def aggregated(ref: str, **kw: Any) -> FramesAggregation:
            self.traffic_calls.append({"ref": ref, **kw})
            return FramesAggregation.model_validate(
                {"briefs": [{"timestamp": 3_600_000 * i, "up": {"count": i}} for i in range(5)]}
            )

        self.device_alarms = SimpleNamespace(of_device=of_device, acknowledge=acknowledge)
        self.frames = SimpleNamespace(aggregated=aggregated)


def load_first_page(qtbot: Any, vm: DeviceDetailViewModel) -> None:
    vm.load_alarms()
    qtbot.waitUntil(lambda: vm.alarms_loaded and not vm.alarms_busy, timeout=2000)


def many_alarms(count: int) -> list[AlarmBrief]:
    """`count` alarms, latest update first, every third one acknowledged."""
    return [
        AlarmBrief(
            alarmUid=f"u{i:04d}", ID=4, state=3 + i % 4, acked=i % 3 == 2,
            creationTimestamp=1_700_000_000_000, updateTimestamp=1_700_000_000_000 - i,
        )
        for i in range(count)
    ]  # fmt: skip


def test_alarm004_default_and_rules() -> None:
    rows = thresholds_of(None)
    assert rows == [Threshold(True, 3, "P2D"), Threshold(True, 5, "P4D")]
    body, message = alarm004_request(rows)
    assert message == ""
    assert body == {
        "alarm004": [
            {"status": "ENABLE", "level": 3, "duration": "P2D"},
            {"status": "ENABLE", "level": 5, "duration": "P4D"},
        ]
    }
    body, message = alarm004_request([Threshold(True, 5, "P2D"), Threshold(True, 3, "P4D")])
    assert body is None and "level must be lower" in message
    body, message = alarm004_request([Threshold(True, 3, "P40D"), Threshold(False, 5, "P41D")])
    assert (
        body is None
        and message.startswith("Threshold 1:")
        and "between 1 hour and 30 days" in message
    )
    body, message = alarm004_request([Threshold(False, 3, "P1D"), Threshold(True, 5, "P4D")])
    assert body is None and "only if the first" in message
    body, message = alarm004_request([Threshold(True, 3, "p1d"), Threshold(False, 4, "P3D")])
    assert body is not None and body["alarm004"][0]["duration"] == "P1D"


def test_thresholds_of_device() -> None:
    d = device(
        alarmsConfiguration={"alarm004": [{"status": "ENABLE", "level": 4, "duration": "PT6H"}]}
    )
    assert thresholds_of(d) == [Threshold(True, 4, "PT6H"), Threshold(False, 5, "P4D")]


def test_rights_from_subscription() -> None:
    base = {"options": {"hsm": "DEACTIVATED"}, "subscription": {"grantedPermissions": ["x"]}}
    assert rights_of(Subscription.model_validate(base)) is None
    assert routing_profile_read_only(None) is False
    grant = {"grantedPermissions": ["x", "a"], "rights": [WRITE_NODE]}
    sub = Subscription.model_validate({**base, "subscription": grant})
    assert rights_of(sub) == frozenset({WRITE_NODE})
    assert routing_profile_read_only(rights_of(sub)) is True
    assert routing_profile_read_only(frozenset({WRITE_NODE, ADMIN_NODE})) is False


def test_account_rights_signal(qtbot: Any) -> None:
    rights = AccountRights(TaskRunner())
    sub = Subscription.model_validate(
        {
            "options": {"hsm": "DEACTIVATED"},
            "subscription": {"grantedPermissions": ["x"], "rights": [WRITE_NODE]},
        }
    )
    with qtbot.waitSignal(rights.changed, timeout=1000):
        rights.set_subscription(sub)
    assert rights.routing_read_only and rights.permissions == ("x",)


def test_alarms_load_in_the_platform_order_and_acknowledge(qtbot: Any, qloop: Any) -> None:
    fake = FakeClient()
    vm = DeviceDetailViewModel(TaskRunner(), fake)  # type: ignore[arg-type]
    vm.set_device(device())
    with qtbot.waitSignal(
        vm.alarms_changed, timeout=2000, check_params_cb=lambda alarms: bool(alarms)
    ) as changed:
        vm.load_alarms()
    # As the platform lists them (latest update first): pages that come later are appended,
    # so nothing is re-sorted under the user's eyes.
    assert [a.alarmUid for a in changed.args[0]] == ["a1", "a2", "a3"]
    assert vm.alarms_complete and vm.alarms_total == 3
    with qtbot.waitSignal(vm.acknowledged, timeout=2000) as acked:
        assert vm.acknowledge(["a2", "a2"])
    assert acked.args == ["1 alarm acknowledged"]
    assert fake.ack_requests == [["a2"]]  # one request for the selection
    # Shown acknowledged where it is; nothing asked again.
    assert [(a.alarmUid, a.acked) for a in vm.alarms] == [
        ("a1", False), ("a2", True), ("a3", True)
    ]  # fmt: skip
    assert fake.pages == [(1, None)]
    assert not vm.acknowledge([])


def test_every_alarm_page_after_page(qtbot: Any, qloop: Any) -> None:
    fake = FakeClient(many_alarms(250))
    vm = DeviceDetailViewModel(TaskRunner(), fake)  # type: ignore[arg-type]
    model = vm.alarms_model
    assert not vm.load_more_alarms()  # no device, nothing loaded yet
    vm.set_device(device())
    load_first_page(qtbot, vm)
    assert model.rowCount() == 100 and vm.alarms_total == 250 and not vm.alarms_complete
    assert model.canFetchMore()
    with qtbot.waitSignal(vm.alarms_changed, timeout=2000):
        model.fetchMore()  # what a view does when scrolled to its end
        assert vm.alarms_busy and not model.canFetchMore()
        assert not vm.load_more_alarms()  # one page at a time
    assert model.rowCount() == 200
    with qtbot.waitSignal(vm.alarms_changed, timeout=2000):
        assert vm.load_more_alarms()
    assert model.rowCount() == 250 and vm.alarms_complete and not model.canFetchMore()
    assert [a.alarmUid for a in vm.alarms] == [f"u{i:04d}" for i in range(250)]
    assert fake.pages == [(1, None), (2, None), (3, None)]
    assert not vm.load_more_alarms()


def test_an_alarm_that_moved_up_between_pages_is_listed_once(qtbot: Any, qloop: Any) -> None:
    fake = FakeClient(many_alarms(150))
    vm = DeviceDetailViewModel(TaskRunner(), fake)  # type: ignore[arg-type]
    vm.set_device(device())
    load_first_page(qtbot, vm)
    # A new alarm is raised: everything moves one place down, u0099 comes again on page 2.
    fresh = AlarmBrief(
        alarmUid="new", ID=4, state=6, creationTimestamp=1, updateTimestamp=1_800_000_000_000
    )
    fake.alarms.insert(0, fresh)
    with qtbot.waitSignal(vm.alarms_changed, timeout=2000):
        vm.load_more_alarms()
    uids = [a.alarmUid for a in vm.alarms]
    assert len(uids) == len(set(uids)) == 150 and uids[-1] == "u0149"
    load_first_page(qtbot, vm)  # Refresh: the new one on top
    assert vm.alarms[0].alarmUid == "new" and vm.alarms_model.rowCount() == 100


def test_unacknowledged_only_is_asked_of_the_platform(qtbot: Any, qloop: Any) -> None:
    fake = FakeClient(many_alarms(30))
    vm = DeviceDetailViewModel(TaskRunner(), fake)  # type: ignore[arg-type]
    vm.set_device(device())
    load_first_page(qtbot, vm)
    assert len(vm.alarms) == 30
    with qtbot.waitSignal(vm.alarms_changed, timeout=2000) as changed:
        vm.set_unacknowledged_only(True)
    qtbot.waitUntil(lambda: vm.alarms_loaded, timeout=2000)
    assert fake.pages[-1] == (1, False)
    assert len(vm.alarms) == 20 and not any(a.acked for a in vm.alarms)
    assert changed.args == [[]]  # what was shown is cleared first


def test_a_late_page_of_another_device_is_dropped(qtbot: Any, qloop: Any) -> None:
    fake = FakeClient(many_alarms(5))
    fake.gate = asyncio.Event()
    vm = DeviceDetailViewModel(TaskRunner(), fake)  # type: ignore[arg-type]
    vm.set_device(device())
    vm.load_alarms()
    assert vm.alarms_busy
    vm.set_device(device(EUI="70B3D57ED0000002"))
    assert not vm.alarms_busy and vm.alarms == []
    fake.gate.set()
    qtbot.wait(50)
    assert vm.alarms == [] and not vm.alarms_loaded


def test_a_big_selection_is_acknowledged_in_batches(qtbot: Any, qloop: Any) -> None:
    alarms = [a.model_copy(update={"acked": False}) for a in many_alarms(ACK_BATCH * 2 + 10)]
    fake = FakeClient(alarms, page_size=2000)
    vm = DeviceDetailViewModel(TaskRunner(), fake)  # type: ignore[arg-type]
    vm.set_device(device())
    load_first_page(qtbot, vm)
    uids = [a.alarmUid for a in vm.alarms]
    with qtbot.waitSignal(vm.acknowledged, timeout=5000) as acked:
        vm.acknowledge(uids)
    assert [len(r) for r in fake.ack_requests] == [ACK_BATCH, ACK_BATCH, 10]
    assert acked.args == [f"{len(uids):,} alarms acknowledged"]
    assert len(uids) == ACK_BATCH * 2 + 10 and all(a.acked for a in vm.alarms)


def test_alarms_model_roles(qtmodeltester: Any) -> None:
    model = DeviceAlarmsModel()
    qtmodeltester.check(model)
    model.append_page(AlarmPage(briefs=many_alarms(3), count=3), first=True)
    qtmodeltester.check(model, force_py=True)
    assert model.headerData(0, Qt.Orientation.Horizontal) == "Severity"
    assert model.index(0, 0).data() == "● Warning" and model.index(0, 0).data(SeverityRole) == 3
    assert model.index(2, 5).data() == "yes" and model.index(2, 0).data(AckedRole) is True
    assert model.index(2, 0).data(SeverityRole) is None  # acknowledged: no colour
    assert model.mark_acked(["u0000", "u0002"]) == 1
    assert model.index(0, 0).data(AckedRole) is True
    model.clear()
    assert model.rowCount() == 0 and model.total is None and not model.canFetchMore()


def test_traffic_window(qtbot: Any, qloop: Any) -> None:
    fake = FakeClient()
    vm = DeviceDetailViewModel(TaskRunner(), fake)  # type: ignore[arg-type]
    vm.set_device(device())
    with qtbot.waitSignal(vm.traffic_changed, timeout=2000) as changed:
        vm.load_traffic()
    assert changed.args[0].series()[1] == [0, 1, 2, 3, 4]
    assert fake.traffic_calls[-1]["step"] == "PT1H"
    with qtbot.waitSignal(vm.traffic_changed, timeout=2000):
        vm.set_window("Last 30 days")
    assert fake.traffic_calls[-1]["step"] == "P1D"
    # Another device: what was loaded is forgotten.
    with qtbot.waitSignal(vm.traffic_changed, timeout=1000) as cleared:
        vm.set_device(device(EUI="70B3D57ED0000002"))
    assert cleared.args == [None] and vm.alarms == []


def test_failure_is_a_signal(qtbot: Any, qloop: Any) -> None:
    fake = FakeClient()

    async def broken(ref: str, *_args: Any, **_kw: Any) -> AlarmPage:
        raise RuntimeError("route not there")

    fake.device_alarms.of_device = broken  # type: ignore[attr-defined]
    vm = DeviceDetailViewModel(TaskRunner(), fake)  # type: ignore[arg-type]
    vm.set_device(device())
    with qtbot.waitSignal(vm.alarms_error, timeout=2000) as error:
        vm.load_alarms()
    assert "route not there" in error.args[0]


def unacked_alarms(count: int) -> list[AlarmBrief]:
    return [
        AlarmBrief(
            alarmUid=f"u{i:03d}", ID=4, state=3, acked=False,
            creationTimestamp=1, updateTimestamp=1000 - i,
        )
        for i in range(count)
    ]  # fmt: skip


def test_unacknowledged_only_acknowledge_then_load_more_skips_nothing(
    qtbot: Any, qloop: Any
) -> None:
    # Acknowledged alarms leave the platform's filtered list: the later pages move up.
    fake = FakeClient(unacked_alarms(300), page_size=100)
    vm = DeviceDetailViewModel(TaskRunner(), fake)  # type: ignore[arg-type]
    vm.set_device(device())
    vm.unacknowledged_only = True
    load_first_page(qtbot, vm)
    assert len(vm.alarms) == 100 and vm.next_alarm_page() == 2
    with qtbot.waitSignal(vm.acknowledged, timeout=2000):
        vm.acknowledge([a.alarmUid for a in vm.alarms[:60]])
    assert vm.next_alarm_page() == 1  # u060..u099 are now the first 40 of the platform's list
    while not vm.alarms_complete:
        with qtbot.waitSignal(vm.alarms_changed, timeout=2000):
            assert vm.load_more_alarms()
    assert [a.alarmUid for a in vm.alarms] == [f"u{i:03d}" for i in range(300)]
    assert fake.pages == [(1, False), (1, False), (2, False), (3, False)]
    assert vm.alarms_total == 300  # the first page's count, not a later page's


def test_unacknowledged_only_every_alarm_of_a_page_acknowledged(qtbot: Any, qloop: Any) -> None:
    fake = FakeClient(unacked_alarms(300), page_size=100)
    vm = DeviceDetailViewModel(TaskRunner(), fake)  # type: ignore[arg-type]
    vm.set_device(device())
    vm.set_unacknowledged_only(True)
    qtbot.waitUntil(lambda: vm.alarms_loaded and not vm.alarms_busy, timeout=2000)
    with qtbot.waitSignal(vm.acknowledged, timeout=2000):
        vm.acknowledge([a.alarmUid for a in vm.alarms])
    with qtbot.waitSignal(vm.alarms_changed, timeout=2000):
        assert vm.load_more_alarms()
    assert not vm.alarms_complete  # u200..u299 are still to come
    assert {a.alarmUid for a in vm.alarms} == {f"u{i:03d}" for i in range(200)}
    with qtbot.waitSignal(vm.alarms_changed, timeout=2000):
        assert vm.load_more_alarms()
    assert len(vm.alarms) == 300 and vm.alarms_complete


def test_a_page_that_brings_nothing_new_is_not_asked_again(qtbot: Any, qloop: Any) -> None:
    fake = FakeClient(unacked_alarms(300), page_size=100)
    vm = DeviceDetailViewModel(TaskRunner(), fake)  # type: ignore[arg-type]
    vm.set_device(device())
    vm.unacknowledged_only = True
    load_first_page(qtbot, vm)
    with qtbot.waitSignal(vm.alarms_changed, timeout=2000):
        assert vm.load_more_alarms()
    with qtbot.waitSignal(vm.acknowledged, timeout=2000):
        vm.acknowledge(["u000"])
    # 100 new alarms raised meanwhile push everything down: the page asked brings no new one.
    fresh = [
        AlarmBrief(alarmUid=f"n{i:02d}", ID=4, state=3, creationTimestamp=1, updateTimestamp=2000)
        for i in range(100)
    ]
    fake.alarms = [*fresh, *fake.alarms]
    with qtbot.waitSignal(vm.alarms_changed, timeout=2000):
        assert vm.load_more_alarms()
    assert fake.pages[-1] == (2, False) and len(vm.alarms) == 200
    assert vm.next_alarm_page() == 3  # not page 2 again and again
    while not vm.alarms_complete:
        with qtbot.waitSignal(vm.alarms_changed, timeout=2000):
            assert vm.load_more_alarms()
    assert {a.alarmUid for a in vm.alarms} == {f"u{i:03d}" for i in range(300)}
    assert len(fake.pages) < 8


def test_an_acknowledgement_that_ends_after_a_refresh_is_shown(qtbot: Any, qloop: Any) -> None:
    fake = FakeClient(many_alarms(5))
    vm = DeviceDetailViewModel(TaskRunner(), fake)  # type: ignore[arg-type]
    vm.set_device(device())
    load_first_page(qtbot, vm)
    release = asyncio.Event()
    acknowledge = fake.device_alarms.acknowledge

    async def slow_ack(uids: list[str]) -> None:
        await release.wait()
        await acknowledge(uids)

    fake.device_alarms.acknowledge = slow_ack  # type: ignore[attr-defined]
    vm.acknowledge(["u0000", "u0001"])
    load_first_page(qtbot, vm)  # Refresh while the acknowledgement is on its way
    assert not vm.alarms_model.alarms[0].acked
    with qtbot.waitSignal(vm.acknowledged, timeout=2000):
        release.set()
    assert [a.acked for a in vm.alarms[:2]] == [True, True]


def test_an_acknowledgement_committed_after_a_page_was_read(qtbot: Any, qloop: Any) -> None:
    fake = FakeClient(many_alarms(5))
    vm = DeviceDetailViewModel(TaskRunner(), fake)  # type: ignore[arg-type]
    vm.set_device(device())
    load_first_page(qtbot, vm)
    deliver = asyncio.Event()

    async def read_then_wait(ref: str, page_index: int = 1, **_kw: Any) -> AlarmPage:
        page = AlarmPage(briefs=list(fake.alarms), count=len(fake.alarms))  # read now
        await deliver.wait()  # ...and delivered after the acknowledgement
        return page

    fake.device_alarms.of_device = read_then_wait  # type: ignore[attr-defined]
    vm.load_alarms()  # Refresh
    with qtbot.waitSignal(vm.acknowledged, timeout=2000):
        vm.acknowledge(["u0000"])
    assert vm.alarms_busy
    with qtbot.waitSignal(vm.alarms_changed, timeout=2000):
        deliver.set()
    assert vm.alarms[0].alarmUid == "u0000" and vm.alarms[0].acked


def test_a_batch_that_fails_after_others_succeeded(qtbot: Any, qloop: Any) -> None:
    alarms = [a.model_copy(update={"acked": False}) for a in many_alarms(ACK_BATCH * 2 + 10)]
    fake = FakeClient(alarms, page_size=2000)
    acknowledge = fake.device_alarms.acknowledge

    async def second_fails(uids: list[str]) -> None:
        if len(fake.ack_requests) == 1:
            raise RuntimeError("platform busy")
        await acknowledge(uids)

    fake.device_alarms.acknowledge = second_fails  # type: ignore[attr-defined]
    vm = DeviceDetailViewModel(TaskRunner(), fake)  # type: ignore[arg-type]
    vm.set_device(device())
    load_first_page(qtbot, vm)
    with qtbot.waitSignal(vm.acknowledged, timeout=5000) as acked:
        vm.acknowledge([a.alarmUid for a in vm.alarms])
    text = acked.args[0]
    assert text.startswith(f"{ACK_BATCH} alarms acknowledged; {ACK_BATCH + 10} could not be: ")
    assert text.endswith("platform busy")
    assert [a.acked for a in vm.alarms] == [True] * ACK_BATCH + [False] * (ACK_BATCH + 10)
    # The first batch failing is a plain failure.
    fake.device_alarms.acknowledge = second_fails  # type: ignore[attr-defined]
    fake.ack_requests = [["x"]]
    with qtbot.waitSignal(vm.alarms_error, timeout=5000) as error:
        vm.acknowledge([vm.alarms[-1].alarmUid])
    assert error.args[0].startswith("Could not acknowledge: ")
    assert error.args[0].endswith("platform busy")


def test_marking_thousands_acknowledged_is_one_change(qtbot: Any) -> None:
    model = DeviceAlarmsModel()
    alarms = [a.model_copy(update={"acked": False}) for a in many_alarms(4000)]
    model.append_page(AlarmPage(briefs=alarms, count=4000), first=True)
    changes: list[tuple[int, int, int, int]] = []
    model.dataChanged.connect(
        lambda top, bottom, *_: changes.append(
            (top.row(), top.column(), bottom.row(), bottom.column())
        )
    )
    uids = [a.alarmUid for a in alarms[5:3990]]
    assert model.mark_acked([*uids, "not-loaded"]) == len(uids)
    assert changes == [(5, 0, 3989, model.columnCount() - 1)]  # one signal, not 3,985
    assert [a.acked for a in model.alarms] == [False] * 5 + [True] * len(uids) + [False] * 10
    assert model.mark_acked(uids) == 0 and len(changes) == 1  # nothing new: no signal
