"""The subscription settings view-model: whether the account may change them, what a save
sends (only what changed), and how refusals come back (fakes in the client's shape)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import httpx

from lpwa_console.api.errors import status_error
from lpwa_console.models.subscription_settings import (
    SubscriptionSettings,
    SubscriptionSettingsViewModel,
    changes,
)
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.schema.subscription import Subscription, SubscriptionUpdate

BEFORE = SubscriptionSettings("Acme", True, "DEACTIVATED")


def subscription(permissions: list[str], **extra: Any) -> Subscription:
    return Subscription.model_validate(
        {
            "ID": "100", "name": "Acme", "options": {"hsm": "DEACTIVATED"},
            "showTagSuggestionsWhenDomainRestrictions": True,
            "subscription": {"grantedPermissions": permissions}, **extra,
        }
    )  # fmt: skip


class FakeSubscription:
    def __init__(self, permissions: list[str]) -> None:
        self.current = subscription(permissions)
        self.sent: list[SubscriptionUpdate] = []
        self.refuse: Exception | None = None

    async def get(self) -> Subscription:
        if self.refuse is not None and getattr(self.refuse, "status_code", 0) == 403:
            raise self.refuse
        return self.current

    async def update(self, request: SubscriptionUpdate) -> Subscription:
        self.sent.append(request)
        if self.refuse is not None:
            raise self.refuse
        data = self.current.model_dump()
        wire = request.to_wire()
        data.update({k: v for k, v in wire.items() if k != "options"})
        if "options" in wire:
            data["options"] = {**data["options"], **wire["options"]}  # type: ignore[dict-item]
        self.current = Subscription.model_validate(data)
        return self.current


def forbidden(message: str) -> Exception:
    request = httpx.Request("PUT", "https://platform.example/subscriptions/mine")
    return status_error(httpx.Response(403, json={"code": 9, "message": message}, request=request))


def connected(
    qtbot: Any, runner: TaskRunner, fake: FakeSubscription
) -> SubscriptionSettingsViewModel:
    vm = SubscriptionSettingsViewModel(runner)
    assert not vm.can_write and vm.reason == "Not connected"
    with qtbot.waitSignal(vm.availability_changed, timeout=3000):
        vm.set_client(SimpleNamespace(subscription=fake))  # type: ignore[arg-type]
    qtbot.waitUntil(lambda: not runner.busy, timeout=3000)
    return vm


def test_only_changes_are_sent() -> None:
    assert changes(BEFORE, BEFORE) == {}
    after = SubscriptionSettings(" Acme North ", False, "ACTIVATED")
    assert changes(BEFORE, after) == {
        "name": "Acme North",
        "showTagSuggestionsWhenDomainRestrictions": False,
        "options": {"hsm": "ACTIVATED"},
    }
    SubscriptionUpdate.model_validate(changes(BEFORE, after))


def test_writers_save_what_changed(qtbot: Any, qloop: Any, runner: TaskRunner) -> None:
    fake = FakeSubscription(["x", "a"])
    vm = connected(qtbot, runner, fake)
    assert vm.can_write and vm.reason == ""
    assert vm.check(BEFORE, SubscriptionSettings("  ", True, "DEACTIVATED")) == {
        "name": "The subscription needs a name"
    }
    with qtbot.waitSignal(vm.saved, timeout=3000) as saved:
        assert vm.save(BEFORE, SubscriptionSettings("Acme", False, "ACTIVATED"))
    (sent,) = fake.sent
    assert sent.to_wire() == {
        "options": {"hsm": "ACTIVATED"},
        "showTagSuggestionsWhenDomainRestrictions": False,
    }
    assert saved.args[0].options.hsm == "ACTIVATED"
    with qtbot.waitSignal(vm.saved, timeout=3000):
        vm.save(BEFORE, BEFORE)  # nothing changed: nothing sent
    assert len(fake.sent) == 1


def test_readers_cannot_and_a_403_says_so(qtbot: Any, qloop: Any, runner: TaskRunner) -> None:
    vm = connected(qtbot, runner, FakeSubscription(["x"]))
    assert not vm.can_write and "can read the subscription but not change it" in vm.reason

    fake = FakeSubscription([])  # no permissions said: the server judges
    vm = connected(qtbot, runner, fake)
    assert vm.can_write
    fake.refuse = forbidden("changes need the subscription permission 'a'")
    with qtbot.waitSignal(vm.save_failed, timeout=3000) as failed:
        vm.save(BEFORE, SubscriptionSettings("Acme", False, "DEACTIVATED"))
    message, field = failed.args
    assert message.startswith("The server refused: this account may not change")
    assert "changes need the subscription permission 'a'" in message and field == ""

    # An account the platform refuses to show a subscription to: no settings at all.
    vm = connected(qtbot, runner, fake)
    assert not vm.can_write and "Not allowed" in vm.reason


def test_the_occ_context_read_goes_back_with_a_change(
    qtbot: Any, qloop: Any, runner: TaskRunner
) -> None:
    """A platform as the 7.3 reference: its PUT requires the occContext the GET gave."""
    fake = FakeSubscription(["x", "a"])
    fake.current = subscription(["x", "a"], occContext={"version": 7})
    vm = connected(qtbot, runner, fake)
    with qtbot.waitSignal(vm.saved, timeout=3000):
        assert vm.save(BEFORE, SubscriptionSettings("Acme", False, "DEACTIVATED"))
    (sent,) = fake.sent
    assert sent.to_wire() == {
        "showTagSuggestionsWhenDomainRestrictions": False,
        "occContext": {"version": 7},
    }
