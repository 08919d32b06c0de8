"""The device detail view-model: alarm 004 rules, rights, alarms and traffic of one device."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from lpwa_console.models.device_detail import (
    ADMIN_NODE,
    WRITE_NODE,
    AccountRights,
    DeviceDetailViewModel,
    Threshold,
    alarm004_request,
    rights_of,
    routing_profile_read_only,
    thresholds_of,
)
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.schema.alarms import AlarmBrief, AlarmPage
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
    """Plain async callables in the client's shape (the sandbox routes are not there yet)."""

    def __init__(self) -> None:
        self.acked: list[tuple[str, str]] = []
        self.alarms = [alarm("a1", 3), alarm("a2", 6), alarm("a3", 5, acked=True)]
        self.traffic_calls: list[dict[str, Any]] = []

        async def of_device(ref: str, page_index: int = 1, **_kw: Any) -> AlarmPage:
            return AlarmPage(briefs=list(self.alarms), count=len(self.alarms))

        async def acknowledge_one(ref: str, uid: str) -> None:
            self.acked.append((ref, uid))
            self.alarms = [
                a.model_copy(update={"acked": a.acked or a.alarmUid == uid}) for a in self.alarms
            ]

        async def aggregated(ref: str, **kw: Any) -> FramesAggregation:
            self.traffic_calls.append({"ref": ref, **kw})
            return FramesAggregation.model_validate(
                {"briefs": [{"timestamp": 3_600_000 * i, "up": {"count": i}} for i in range(5)]}
            )

        self.device_alarms = SimpleNamespace(of_device=of_device, acknowledge_one=acknowledge_one)
        self.frames = SimpleNamespace(aggregated=aggregated)


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
    assert body is None and message.startswith("Threshold 1:") and "P30D" in message
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


def test_alarms_load_sorted_and_acknowledge(qtbot: Any, qloop: Any) -> None:
    fake = FakeClient()
    vm = DeviceDetailViewModel(TaskRunner(), fake)  # type: ignore[arg-type]
    vm.set_device(device())
    with qtbot.waitSignal(vm.alarms_changed, timeout=2000) as changed:
        vm.load_alarms()
    # Unacknowledged first, most severe first.
    assert [a.alarmUid for a in changed.args[0]] == ["a2", "a1", "a3"]
    with qtbot.waitSignal(vm.acknowledged, timeout=2000) as acked:
        assert vm.acknowledge(["a2"])
    assert acked.args == ["1 alarm acknowledged"]
    assert [uid for _ref, uid in fake.acked] == ["a2"]
    qtbot.waitUntil(lambda: [a.alarmUid for a in vm.alarms] == ["a1", "a2", "a3"], timeout=2000)


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

    async def broken(ref: str, **_kw: Any) -> AlarmPage:
        raise RuntimeError("route not there")

    fake.device_alarms.of_device = broken  # type: ignore[attr-defined]
    vm = DeviceDetailViewModel(TaskRunner(), fake)  # type: ignore[arg-type]
    vm.set_device(device())
    with qtbot.waitSignal(vm.alarms_error, timeout=2000) as error:
        vm.load_alarms()
    assert "route not there" in error.args[0]
