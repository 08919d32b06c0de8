"""The resource view-model's filters and refusals, without a widget."""

from __future__ import annotations

from typing import Any

import httpx

from lpwa_console.api.errors import status_error
from lpwa_console.models.resources import (
    ResourceViewModel,
    app_servers_kind,
    is_conflict,
    multicast_kind,
    network_kinds,
)
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.schema.app_servers import ALL_SCOPES, AppServerFilter
from lpwa_console.schema.multicast import MulticastGroupFilter


def answer(status: int, message: str) -> Exception:
    request = httpx.Request("PUT", "https://platform.example/x")
    return status_error(httpx.Response(status, json={"message": message}, request=request))


def test_filters_default_change_and_compare(qtbot: Any) -> None:
    vm = ResourceViewModel(TaskRunner(), app_servers_kind())
    assert vm.filters == ALL_SCOPES and not vm.filtered
    with qtbot.waitSignal(vm.filters_changed, timeout=1000) as changed:
        vm.update_filters(scope=["OPERATOR"])
    assert changed.args[0] == AppServerFilter(scope=["OPERATOR"]) and vm.filtered
    with qtbot.assertNotEmitted(vm.filters_changed):
        vm.update_filters(scope=["OPERATOR"])  # the same: nothing to load again
    vm.update_filters(scope=["SUBSCRIPTION", "OPERATOR"])
    assert not vm.filtered  # back to the default
    assert ALL_SCOPES.scope == ["SUBSCRIPTION", "OPERATOR"]  # the default itself untouched

    groups = ResourceViewModel(TaskRunner(), multicast_kind())
    groups.update_filters(appServerID=["a", "b"], query="Lyon")
    assert groups.filters == MulticastGroupFilter(appServerID=["a", "b"], query="Lyon")

    contexts = ResourceViewModel(TaskRunner(), network_kinds()[0])
    contexts.update_filters(query="x")  # a list without filters: nothing happens
    assert contexts.filters is None and not contexts.filtered


def test_what_counts_as_a_concurrent_change() -> None:
    assert is_conflict(answer(409, "modified"))
    assert is_conflict(answer(412, "precondition failed"))
    assert is_conflict(answer(400, "occContext: version 3 is stale"))
    assert not is_conflict(answer(400, "name: too long"))
    assert not is_conflict(answer(403, "OPERATOR scope"))
    assert not is_conflict(RuntimeError("occContext"))


def test_a_list_the_platform_does_not_offer_is_hidden_once(qtbot: Any, qloop: Any) -> None:
    """A 404 on cellularNetworkContexts (a 7.3 platform): the reason, once, no error, and a
    refresh asks nothing more; another client (platform) asks again."""
    import respx

    from lpwa_console.api import LpwaClient

    base = "https://platform.example/rest"
    with respx.mock:
        route = respx.get(f"{base}/subscriptions/mine/cellularNetworkContexts").respond(404)
        vm = ResourceViewModel(TaskRunner(), network_kinds()[0], LpwaClient(base))
        with (
            qtbot.assertNotEmitted(vm.error),
            qtbot.waitSignal(vm.not_offered, timeout=5000) as said,
        ):
            vm.ensure_loaded()
        assert said.args == ["This platform does not offer cellular network contexts"]
        assert vm.not_offered_reason == said.args[0] and not vm.can_create
        with qtbot.assertNotEmitted(vm.not_offered, wait=100):
            vm.reload()
        assert route.call_count == 1
        vm.set_client(LpwaClient(base))
        assert vm.not_offered_reason is None
