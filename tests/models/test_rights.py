"""What an account may do, from what GET /subscriptions/mine says it is granted."""

from __future__ import annotations

from typing import Any

import pytest

from lpwa_console.models.rights import (
    ACTIONS,
    ADMIN_NODE,
    READ_NODE,
    WRITE_NODE,
    AccountRights,
    Grants,
    restrictions_in_words,
)
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.schema.domains import DomainRestrictions
from lpwa_console.schema.subscription import Subscription


def subscription(permissions: list[str], rights: list[str] | None, **grant: Any) -> Subscription:
    body: dict[str, Any] = {"grantedPermissions": permissions, **grant}
    if rights is not None:
        body["rights"] = rights
    return Subscription.model_validate({"options": {"hsm": "DEACTIVATED"}, "subscription": body})


def test_a_viewer_may_read_but_not_change() -> None:
    grants = Grants.of(subscription(["x"], [READ_NODE]))
    verdict = grants.check("device.create")
    assert not verdict.allowed
    assert verdict.reason == (
        "Your account may not create devices: it lacks the subscription's write permission "
        "('a') and the access right to change devices and multicast groups"
        " (LPWA_MGR::WRITE_NODE)"
    )
    assert not grants.check("subscription.edit").allowed
    assert "write permission ('a')" in grants.check("app_servers.create").reason
    assert "WRITE_NODE" not in grants.check("app_servers.create").reason


def test_write_node_is_not_enough_for_the_routing_profile() -> None:
    grants = Grants.of(subscription(["x", "a"], [READ_NODE, WRITE_NODE]))
    assert grants.check("device.edit").allowed
    verdict = grants.check("device.routing")
    assert not verdict.allowed
    assert verdict.reason.endswith(
        "it lacks the access right to administer devices (LPWA_MGR::ADMIN_NODE);"
        " LPWA_MGR::WRITE_NODE is not enough"
    )
    admin = Grants.of(subscription(["x", "a"], [READ_NODE, WRITE_NODE, ADMIN_NODE]))
    # every action of a subscriber; the operator's need the operator interface's right
    assert all(admin.check(n).allowed for n, r in ACTIONS.items() if r.owner != "operator")
    assert not admin.check("catalog.edit").allowed


def test_a_platform_that_does_not_say_lets_the_server_judge() -> None:
    silent = Grants.of(subscription([], None))
    assert not silent.known
    assert all(silent.check(name).allowed for name in ACTIONS)
    # Permissions said, rights not: only the permissions count.
    letters = Grants.of(subscription(["x", "a"], None))
    assert letters.check("device.routing").allowed


def test_an_undeclared_action_is_a_bug() -> None:
    with pytest.raises(KeyError):
        Grants().check("device.creat")


def test_restrictions_in_words() -> None:
    restricted = DomainRestrictions.model_validate(
        {"and": [{"type": "PREFIX", "name": "France/", "group": {"name": "Site"}}]}
    )
    assert restrictions_in_words(restricted) == [
        "Only resources in a domain of group “Site” whose name starts with “France/”"
    ]
    assert restrictions_in_words(None)[0].startswith("None")


def test_account_rights_follow_the_client(qtbot: Any) -> None:
    rights = AccountRights(TaskRunner())
    with qtbot.waitSignal(rights.changed, timeout=1000):
        rights.set_subscription(subscription(["x"], [READ_NODE]))
    assert rights.permissions == ("x",) and rights.rights == frozenset({READ_NODE})
    assert (
        "device.create",
        Grants.of(subscription(["x"], [READ_NODE])).check("device.create").reason,
    ) in rights.denied()
    with qtbot.waitSignal(rights.changed, timeout=1000):
        rights.set_client(None)
    assert not rights.grants.known and rights.denied() == []


def test_a_restricted_account_may_not_change_subscription_settings() -> None:
    france = {"and": [{"type": "PREFIX", "name": "France/", "group": {"name": "Site"}}]}
    restricted = Grants.of(
        subscription(["x", "a"], [READ_NODE, WRITE_NODE], domainRestrictions=france)
    )
    verdict = restricted.check("subscription.edit")
    assert not verdict.allowed
    assert verdict.reason == (
        "Your account may not change the subscription's settings: it has domain restrictions,"
        " and these settings reach every domain"
    )
    assert restricted.check("app_servers.create").allowed  # only the settings
    unrestricted = Grants.of(subscription(["x", "a"], [READ_NODE, WRITE_NODE]))
    assert unrestricted.check("subscription.edit").allowed


def test_station_commands_need_the_partners_write_permission() -> None:
    viewer = Grants(permissions=frozenset({"x"}))
    verdict = viewer.check("station.command.disruptive")
    assert verdict.reason == (
        "Your account may not reboot, restart, restore or upgrade base stations: it lacks the"
        " network partner's write permission ('a')"
    )
    assert not viewer.check("station.support_password").allowed
    administrator = Grants(permissions=frozenset({"x", "a"}))
    assert all(administrator.check(name).allowed for name in ACTIONS if name.startswith("station."))
