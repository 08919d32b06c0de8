"""The client against a mock of each public reference contract (Stoplight Prism, request
validation on): a platform that answers only as the 7.3 reference allows (issue 22).

Every read method the reference describes must read (tolerantly: what the reference leaves
out is unknown), every request must be one the reference accepts, and a collection the
platform lacks must say so (FeatureNotOffered). Skipped, saying why, without Node."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import httpx
import pytest

from lpwa_console.api import APIStatusError, FeatureNotOffered, LpwaClient

from .prism import DEVICE_MANAGER, NETWORK_MANAGER, TOKEN, prism_mock
from .reference_calls import (
    NOT_IN_REFERENCE,
    PARTNER_READS,
    PARTNER_WRITES,
    REFERENCE_DEFECTS,
    SUBSCRIBER_NOT_OFFERED,
    SUBSCRIBER_READS,
    SUBSCRIBER_WRITES,
    Call,
)

# Deprecated reads are called on purpose: the reference still describes them.
pytestmark = [
    pytest.mark.anyio,
    pytest.mark.reference_mock,
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]


@pytest.fixture(scope="module")
def device_manager() -> Iterator[str]:
    with prism_mock(DEVICE_MANAGER) as url:
        yield url


@pytest.fixture(scope="module")
def network_manager() -> Iterator[str]:
    with prism_mock(NETWORK_MANAGER) as url:
        yield url


async def _client(base_url: str) -> AsyncIterator[LpwaClient]:
    # Prism checks that a bearer token is sent, not what it is; it serves no token endpoint.
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with httpx.AsyncClient(headers=headers, timeout=30) as http:
        yield LpwaClient(base_url, None, http=http, max_retries=0, strict_responses=False)


@pytest.fixture
async def subscriber(device_manager: str) -> AsyncIterator[LpwaClient]:
    async for client in _client(device_manager):
        yield client


@pytest.fixture
async def partner(network_manager: str) -> AsyncIterator[LpwaClient]:
    async for client in _client(network_manager):
        yield client


@pytest.mark.parametrize("name", sorted(SUBSCRIBER_READS | SUBSCRIBER_WRITES))
async def test_subscriber_calls_succeed(subscriber: LpwaClient, name: str) -> None:
    call: Call = (SUBSCRIBER_READS | SUBSCRIBER_WRITES)[name]
    await call(subscriber)


@pytest.mark.parametrize("name", sorted(PARTNER_READS | PARTNER_WRITES))
async def test_partner_calls_succeed(partner: LpwaClient, name: str) -> None:
    call: Call = (PARTNER_READS | PARTNER_WRITES)[name]
    await call(partner)


@pytest.mark.parametrize("name", sorted(SUBSCRIBER_NOT_OFFERED))
async def test_a_collection_the_platform_lacks_is_not_offered(
    subscriber: LpwaClient, name: str
) -> None:
    with pytest.raises(FeatureNotOffered, match="this platform does not offer"):
        await SUBSCRIBER_NOT_OFFERED[name](subscriber)


@pytest.mark.parametrize("name", sorted(NOT_IN_REFERENCE))
async def test_what_the_reference_lacks_is_an_error_status(
    subscriber: LpwaClient, partner: LpwaClient, name: str
) -> None:
    contract, call = NOT_IN_REFERENCE[name]
    with pytest.raises(APIStatusError):
        await call(subscriber if contract == "device-manager" else partner)


@pytest.mark.parametrize("name", REFERENCE_DEFECTS)
async def test_the_reference_refuses_every_app_server_body(
    subscriber: LpwaClient, name: str
) -> None:
    from lpwa_console.schema.app_servers import AppServerCreate, AppServerUpdate, HttpDestination

    if name == "app_servers.create":
        body = AppServerCreate(
            name="Contract server",
            destinations=[
                HttpDestination(addresses=["https://x.example"], ports="443", strategy="BLAST")
            ],
        )
        call = subscriber.app_servers.create(body)
    else:
        call = subscriber.app_servers.update("1", AppServerUpdate(name="Two"))
    with pytest.raises(APIStatusError) as refused:
        await call
    assert refused.value.status_code == 422


# The client's resources whose paths the two references describe, and their methods that
# change something (or make no request).
COVERED = (
    "subscription", "devices", "device_alarms", "multicast_alarms", "frames", "app_servers",
    "multicast_groups", "device_profiles", "device_vendors", "network_subscriptions",
    "hsm_groups", "network_contexts", "as_transport_keys", "partners", "stations",
    "station_alarms", "station_monitoring", "station_radio", "station_admin", "key_manager",
)  # fmt: skip
NOT_READS = {
    "create", "update", "delete", "tag", "untag", "add_tag", "update_tag", "remove_tag",
    "set_domains", "acknowledge", "acknowledge_owner", "acknowledge_one", "command",
    "change_support_password", "settings", "update_security", "update_antenna",
    "update_rf_probe", "for_partner", "acknowledge_device", "acknowledge_group",
    "acknowledge_station", "generate_app_keys", "generate_nwk_keys", "create_as_key",
    "update_as_key", "create_device", "update_device", "delete_device", "claim",
    "import_devices", "of",
    # of_owner by its other names
    "of_device", "of_group", "of_station",
}  # fmt: skip


def test_every_read_method_is_counted() -> None:
    """Each read method of those resources is in exactly one list: 88 methods, 99 calls
    (the station's twelve admin statuses are calls of one method)."""
    client = LpwaClient("http://127.0.0.1:9")
    reads = {
        f"{resource}.{name}"
        for resource in COVERED
        for name in dir(getattr(client, resource))
        if not name.startswith("_") and name not in NOT_READS
        and callable(getattr(getattr(client, resource), name))
    }  # fmt: skip
    lists = (SUBSCRIBER_READS, PARTNER_READS, SUBSCRIBER_NOT_OFFERED, NOT_IN_REFERENCE)
    listed = [name.split("[")[0] for names in lists for name in names]
    assert reads == set(listed)
    assert len(listed) == 99
