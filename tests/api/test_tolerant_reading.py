"""Tolerant reading (api._tolerant): an answer with a missing or differently shaped field
still reads; the field is unknown (None) and the mismatch is logged once per path, never
with its value. Strict reading (the suite's default, LPWA_STRICT_RESPONSES) refuses it."""

from __future__ import annotations

import logging

import httpx
import pytest
import respx

from lpwa_console.api import APIResponseValidationError, LpwaClient
from lpwa_console.api._tolerant import MismatchLog, read_tolerantly
from lpwa_console.schema.app_servers import AppServerPage
from lpwa_console.schema.subscription import Subscription

pytestmark = pytest.mark.anyio

BASE = "https://platform.test/rest"
SECRET = "s3cret-value-never-logged"


async def test_the_suite_reads_strictly_by_default() -> None:
    assert LpwaClient(BASE).strict_responses


@respx.mock
async def test_a_missing_required_field_is_unknown_and_logged_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    respx.get(f"{BASE}/subscriptions/mine").respond(
        200, json={"name": SECRET, "options": {}, "subscription": {"grantedPermissions": ["x"]}}
    )
    async with LpwaClient(BASE, strict_responses=False) as client:
        with caplog.at_level(logging.WARNING, logger="lpwa_console.api._tolerant"):
            first = await client.subscription.get()
            await client.subscription.get()
    assert isinstance(first, Subscription) and type(first) is Subscription
    assert first.options.hsm is None and first.name == SECRET
    assert first.subscription.grantedPermissions == ["x"]
    said = [r.getMessage() for r in caplog.records]
    assert said == ["Answer not as expected at Subscription.options.hsm: missing; shown as unknown"]
    assert not any(SECRET in line for line in said)


@respx.mock
async def test_strict_reading_refuses_the_same_answer() -> None:
    respx.get(f"{BASE}/subscriptions/mine").respond(200, json={"options": {}})
    async with LpwaClient(BASE, strict_responses=True) as client:
        with pytest.raises(APIResponseValidationError, match="do not match Subscription"):
            await client.subscription.get()


def test_a_list_keeps_its_readable_items_and_fields() -> None:
    said: list[tuple[str, str]] = []
    page = read_tolerantly(
        AppServerPage,
        {
            "briefs": [
                {"ID": "as1", "name": "One", "scope": "SUBSCRIBER"},
                "not an object",
                {"ID": "as2", "name": {"wrong": SECRET}, "scope": "SUBSCRIBER"},
            ],
            "count": 3,
        },
        lambda path, what: said.append((path, what)),
    )
    assert [b.ID for b in page.briefs] == ["as1", "as2"]
    assert page.briefs[1].name is None and page.count == 3
    assert ("AppServerPage.briefs[].name", "expected str, got an object") in said
    assert any(path == "AppServerPage.briefs[]" for path, _ in said)
    assert not any(SECRET in what for _, what in said)


def test_the_log_says_a_path_once(caplog: pytest.LogCaptureFixture) -> None:
    log = MismatchLog()
    with caplog.at_level(logging.WARNING, logger="lpwa_console.api._tolerant"):
        log("A.b", "missing")
        log("A.b", "missing")
        log("A.c", "missing")
    assert len(caplog.records) == 2


@respx.mock
async def test_an_answer_that_is_not_an_object_still_fails() -> None:
    respx.get(f"{BASE}/subscriptions/mine").mock(return_value=httpx.Response(200, json=[1, 2]))
    async with LpwaClient(BASE, strict_responses=False) as client:
        with pytest.raises(APIResponseValidationError):
            await client.subscription.get()


def test_state_and_version_read_in_both_shapes() -> None:
    from pydantic import TypeAdapter

    from lpwa_console.schema.common import VersionValue

    as_object = {"options": {"hsm": "ACTIVATED"}, "subscription": {}}
    reference = Subscription.model_validate(
        {**as_object, "state": {"timestamp": 1577836800000, "value": "ACTIVE"}}
    )
    plain = Subscription.model_validate({**as_object, "state": "ACTIVE"})
    assert reference.state is not None and plain.state is not None
    assert reference.state.value == plain.state.value == "ACTIVE"
    assert reference.state.timestamp == 1577836800000
    # Written as the reference says (issue 21, docs/reference-conformance.md).
    assert plain.model_dump(mode="json")["state"] == {"value": "ACTIVE", "timestamp": None}
    version = TypeAdapter(VersionValue)
    assert version.validate_python({"version": "2.8.1", "status": "UPTODATE"}) == "2.8.1"
    assert version.validate_python("2.8.1") == "2.8.1"


@respx.mock
async def test_a_collection_the_platform_lacks_is_a_feature_not_offered() -> None:
    from lpwa_console.api import FeatureNotOffered, NotFoundError

    respx.get(f"{BASE}/subscriptions/mine/cellularNetworkContexts").respond(404)
    respx.get(f"{BASE}/subscriptions/mine/hsmGroups").respond(405)
    respx.get(f"{BASE}/subscriptions/mine/asTransportKeys/k1").respond(404)
    async with LpwaClient(BASE) as client:
        with pytest.raises(FeatureNotOffered, match="does not offer cellular network contexts"):
            await client.network_contexts.list()
        with pytest.raises(FeatureNotOffered, match="does not offer HSM groups"):
            await client.hsm_groups.list()
        with pytest.raises(NotFoundError):  # one item not found is not a missing feature
            await client.as_transport_keys.get("k1")


@respx.mock
async def test_tag_suggestions_always_send_the_query() -> None:
    route = respx.get(f"{BASE}/subscriptions/mine/devices/tags/suggestions").respond(
        200, json={"briefs": []}
    )
    async with LpwaClient(BASE) as client:
        await client.devices.tag_suggestions("wa")
    assert route.calls.last.request.url.params["query"] == "wa"
