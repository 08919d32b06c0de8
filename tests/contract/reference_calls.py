"""Every read method of `LpwaClient` whose endpoint a public reference contract describes,
with arguments the reference accepts, by contract (`../shared/reference/`).

`test_reference_mock.py` runs them against a Prism mock of each contract; a count of these
(and of the read methods no reference describes) is in docs/architecture.md."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from lpwa_console.api import LpwaClient

Call = Callable[[LpwaClient], Awaitable[Any]]

BEGIN = datetime(2024, 5, 1, tzinfo=UTC)
DAY = timedelta(days=1)
DEVICE, GROUP, SERVER, STATION = "1", "1", "1", "1"


async def _first(iterator: Any) -> Any:
    async for item in iterator:
        return item
    return None


# Reads of the subscriber's interface: device-manager.tpe-public.openapi.yaml.
SUBSCRIBER_READS: dict[str, Call] = {
    "subscription.get": lambda c: c.subscription.get(),
    "devices.list": lambda c: c.devices.list(1, 10),
    "devices.iterate": lambda c: _first(c.devices.iterate(page_size=10)),
    "devices.iterate_by_cursor": lambda c: _first(c.devices.iterate_by_cursor(page_size=10)),
    "devices.get": lambda c: c.devices.get(DEVICE),
    "devices.tag_suggestions": lambda c: c.devices.tag_suggestions("t"),
    "devices.clusters": lambda c: c.devices.clusters(40.0, -5.0, 50.0, 10.0),
    "devices.tags_of": lambda c: c.devices.tags_of(DEVICE),
    "device_alarms.list": lambda c: c.device_alarms.list(1, 10),
    "device_alarms.iterate": lambda c: _first(c.device_alarms.iterate(page_size=10)),
    "device_alarms.iterate_sorted": lambda c: _first(
        c.device_alarms.iterate_sorted(sort="state", page_size=10)
    ),
    "device_alarms.of_owner": lambda c: c.device_alarms.of_owner(DEVICE),
    "device_alarms.histories": lambda c: c.device_alarms.histories(),
    "multicast_alarms.of_owner": lambda c: c.multicast_alarms.of_owner(GROUP),
    "frames.aggregated": lambda c: c.frames.aggregated(DEVICE, begin=BEGIN, duration=DAY),
    "frames.frames": lambda c: c.frames.frames(DEVICE, begin=BEGIN, duration=DAY),
    "app_servers.list": lambda c: c.app_servers.list(1, 10),
    "app_servers.iterate": lambda c: _first(c.app_servers.iterate(page_size=10)),
    "app_servers.get": lambda c: c.app_servers.get(SERVER),
    "app_servers.security": lambda c: c.app_servers.security(SERVER),
    "app_servers.iot_flow_connector_metrics": lambda c: c.app_servers.iot_flow_connector_metrics(
        SERVER
    ),
    "multicast_groups.list": lambda c: c.multicast_groups.list(1, 10),
    "multicast_groups.iterate": lambda c: _first(c.multicast_groups.iterate(page_size=10)),
    "multicast_groups.get": lambda c: c.multicast_groups.get(GROUP),
    "multicast_groups.bs_tag_suggestions": lambda c: c.multicast_groups.bs_tag_suggestions("t"),
    "multicast_groups.frames_aggregated": lambda c: c.multicast_groups.frames_aggregated(
        GROUP, begin=BEGIN, duration=DAY
    ),
    "multicast_groups.frames": lambda c: c.multicast_groups.frames(
        GROUP, begin=BEGIN, duration=DAY
    ),
    "device_profiles.list": lambda c: c.device_profiles.list(1, 10),
    "device_vendors.list": lambda c: c.device_vendors.list(1, 10),
    "network_subscriptions.list": lambda c: c.network_subscriptions.list(1, 10),
    "network_subscriptions.get": lambda c: c.network_subscriptions.get("1"),
    "hsm_groups.public_exchange_key": lambda c: c.hsm_groups.public_exchange_key(),
    "hsm_groups.public_exchange_key_pem": lambda c: c.hsm_groups.public_exchange_key_pem(),
}

# Reads the account should have that a 7.3 platform does not offer (no such path in the
# reference): the client says so with FeatureNotOffered.
SUBSCRIBER_NOT_OFFERED: dict[str, Call] = {
    "network_contexts.list": lambda c: c.network_contexts.list(),
    "as_transport_keys.list": lambda c: c.as_transport_keys.list(),
    "hsm_groups.list": lambda c: c.hsm_groups.list(),
    "network_subscriptions.managed_network_bs_tag_suggestions": (
        lambda c: c.network_subscriptions.managed_network_bs_tag_suggestions("t")
    ),
    # The multicast groups' alarms as one list: the reference has each group's only (its
    # path reads as a group's UID there, refused by the UID's pattern: 422).
    "multicast_alarms.list": lambda c: c.multicast_alarms.list(1, 10),
    "multicast_alarms.iterate": lambda c: _first(c.multicast_alarms.iterate(page_size=10)),
    # The key manager (Document 1 §2.11), not in the 7.3 reference.
    "key_manager.hsm_groups": lambda c: c.key_manager.hsm_groups(),
    "key_manager.as_keys": lambda c: c.key_manager.as_keys(),
    "key_manager.devices": lambda c: c.key_manager.devices(),
    "key_manager.iterate_devices": lambda c: _first(c.key_manager.iterate_devices(page_size=10)),
    "key_manager.states": lambda c: c.key_manager.states(),
    "key_manager.traffic": lambda c: c.key_manager.traffic(),
    "multicast_alarms.iterate_sorted": lambda c: _first(
        c.multicast_alarms.iterate_sorted(sort="state", page_size=10)
    ),
}

# Reads of the partner's interface: network-manager.tpe-public.openapi.yaml.
PARTNER_READS: dict[str, Call] = {
    "partners.get": lambda c: c.partners.get(),
    "stations.list": lambda c: c.stations.list(1, 10),
    "stations.iterate": lambda c: _first(c.stations.iterate(page_size=10)),
    "stations.iterate_by_cursor": lambda c: _first(c.stations.iterate_by_cursor(page_size=10)),
    "stations.models": lambda c: c.stations.models(1, 10),
    "stations.get": lambda c: c.stations.get(STATION),
    "stations.clusters": lambda c: c.stations.clusters(40.0, -5.0, 50.0, 10.0),
    "stations.counters": lambda c: c.stations.counters(),
    "stations.tag_suggestions": lambda c: c.stations.tag_suggestions("t"),
    "stations.tags_of": lambda c: c.stations.tags_of(STATION),
    "station_alarms.list": lambda c: c.station_alarms.list(1, 10),
    "station_alarms.iterate": lambda c: _first(c.station_alarms.iterate(page_size=10)),
    "station_alarms.iterate_sorted": lambda c: _first(
        c.station_alarms.iterate_sorted(sort="state", page_size=10)
    ),
    "station_alarms.of_owner": lambda c: c.station_alarms.of_owner(STATION),
    "station_alarms.histories": lambda c: c.station_alarms.histories(),
    "station_alarms.station_histories": lambda c: c.station_alarms.station_histories(STATION),
    "station_alarms.state_distributions": lambda c: c.station_alarms.state_distributions(),
    "station_monitoring.cpu": lambda c: c.station_monitoring.cpu(STATION),
    "station_monitoring.ram": lambda c: c.station_monitoring.ram(STATION),
    "station_monitoring.disk": lambda c: c.station_monitoring.disk(STATION, 0),
    "station_monitoring.cpu_history": lambda c: c.station_monitoring.cpu_history(
        STATION, begin=BEGIN, duration=DAY
    ),
    "station_monitoring.ram_history": lambda c: c.station_monitoring.ram_history(
        STATION, begin=BEGIN, duration=DAY
    ),
    "station_monitoring.disk_history": lambda c: c.station_monitoring.disk_history(
        STATION, 0, begin=BEGIN, duration=DAY
    ),
    "station_monitoring.rfcell_indicators": lambda c: c.station_monitoring.rfcell_indicators(
        STATION
    ),
    "station_monitoring.wan_indicators": lambda c: c.station_monitoring.wan_indicators(STATION),
    "station_monitoring.interface": lambda c: c.station_monitoring.interface(STATION, 0),
    "station_monitoring.round_trips": lambda c: c.station_monitoring.round_trips(
        STATION, 0, begin=BEGIN, duration=DAY
    ),
    "station_monitoring.served_devices": lambda c: c.station_monitoring.served_devices(
        STATION, 1, 10
    ),
    "station_radio.antennas": lambda c: c.station_radio.antennas(STATION),
    "station_radio.antenna": lambda c: c.station_radio.antenna(STATION, 0),
    "station_admin.last_command_status": lambda c: c.station_admin.last_command_status(STATION),
}
for _name in (
    "antennasGainAndLossStatus",
    "availableLrrVersions",
    "backupSwVersion",
    "fineTimestampKeysStatus",
    "locationStatus",
    "logStatus",
    "rfRegionStatus",
    "rfcStatus",
    "scanRadioStatus",
    "softwareUptime",
    "swVersion",
    "systemUptime",
):
    PARTNER_READS[f"station_admin.status[{_name}]"] = lambda c, name=_name: c.station_admin.status(
        STATION, name
    )

# Reads the reference does not describe (the seed's own, Documents 1 and 2): a 7.3 platform
# answers them with an error status the console already shows as such. Not counted as failures.
NOT_IN_REFERENCE: dict[str, tuple[str, Call]] = {
    # One item of a collection the platform lacks: "not found", as any missing item.
    "network_contexts.get": ("device-manager", lambda c: c.network_contexts.get("ctx")),
    "as_transport_keys.get": ("device-manager", lambda c: c.as_transport_keys.get("key")),
    # The key manager's other reads (its subscription, one item, the customers, the keys).
    "key_manager.subscription": ("device-manager", lambda c: c.key_manager.subscription()),
    "key_manager.customers": ("device-manager", lambda c: c.key_manager.customers()),
    "key_manager.public_exchange_keys": (
        "device-manager",
        lambda c: c.key_manager.public_exchange_keys(),
    ),
    "key_manager.as_key": ("device-manager", lambda c: c.key_manager.as_key("1")),
    "key_manager.device": ("device-manager", lambda c: c.key_manager.device("1")),
    # A station's RF probe: not in the 7.3 reference (a station without one is "not found").
    "station_radio.rf_probe": ("network-manager", lambda c: c.station_radio.rf_probe(STATION)),
    "station_radio.rf_probe_frames": (
        "network-manager",
        lambda c: c.station_radio.rf_probe_frames(STATION, begin=BEGIN, duration=DAY),
    ),
    # A station's command history: the sandbox's own route (the console then falls back to
    # the last command's status).
    "station_admin.command_history": (
        "network-manager",
        lambda c: c.station_admin.command_history(STATION),
    ),
}


# The main creates and updates, with bodies the reference accepts.
def _device_create() -> Any:
    from lpwa_console.schema.devices import DeviceCreate

    return DeviceCreate(
        EUI="FEEDC0DE00000001",
        activation="ABP",
        model={"ID": "LORA/GenericA.1.0.2a_ETSI"},
        nwAddress="01020304",
        appSKey="2B7E151628AED2A6ABF7158809CF4F3C",
        name="Contract",
    )


# A PUT of the reference takes the object as read (its occContext, and what it requires):
# these send back what the GET said, as a script does.
async def _subscription_update(c: LpwaClient) -> Any:
    from lpwa_console.schema.subscription import SubscriptionUpdate

    read = await c.subscription.get()
    body = {"showTagSuggestionsWhenDomainRestrictions": True}
    body["occContext"] = (read.model_extra or {}).get("occContext")
    return await c.subscription.update(SubscriptionUpdate.model_validate(body))


async def _station_update(c: LpwaClient) -> Any:
    from lpwa_console.schema.stations import BaseStationUpdate

    read = await c.stations.get(STATION)
    extra = read.model_extra or {}
    body = {"name": "S2", "host": {"ID": (extra.get("host") or {}).get("ID")}}
    return await c.stations.update(STATION, BaseStationUpdate.model_validate(body))


async def _partner_update(c: LpwaClient) -> Any:
    from lpwa_console.schema.partners import PartnerUpdate

    read = await c.partners.get()
    extra = read.model_extra or {}
    body = {
        "showTagSuggestionsWhenDomainRestrictions": True,
        "partner": read.partner.model_dump(mode="json", exclude_none=True),
    }
    body["occContext"] = extra.get("occContext")
    return await c.partners.update(PartnerUpdate.model_validate(body))


# Writes the reference cannot accept: its AppServer body is a oneOf of three shapes whose
# HTTP LoRaWAN and HTTP cellular members both match any HTTP server (neither has a required
# property or a discriminator), so every create or update fails "exactly one schema".
REFERENCE_DEFECTS = ("app_servers.create", "app_servers.update")


def _subscriber_writes() -> dict[str, Call]:
    from lpwa_console.schema.devices import DeviceUpdate
    from lpwa_console.schema.multicast import MulticastGroupCreate, MulticastGroupUpdate

    group = MulticastGroupCreate(
        EUI="FEEDC0DE00000002", nwAddress="FC001234", appSKey="2B7E151628AED2A6ABF7158809CF4F3C"
    )
    return {
        "subscription.update": _subscription_update,
        "devices.create": lambda c: c.devices.create(_device_create()),
        "devices.update": lambda c: c.devices.update(DEVICE, DeviceUpdate(name="Renamed")),
        "devices.tag": lambda c: c.devices.tag("contract", ["FEEDC0DE00000001"]),
        "multicast_groups.create": lambda c: c.multicast_groups.create(group),
        "multicast_groups.update": lambda c: c.multicast_groups.update(
            GROUP, MulticastGroupUpdate(name="Group")
        ),
    }


def _partner_writes() -> dict[str, Call]:
    from lpwa_console.schema.stations import BaseStationCreate

    return {
        "stations.create": lambda c: c.stations.create(
            BaseStationCreate(model={"ID": "KERLINK_WIRNET_ISTATION"}, lrrID="00000A01", name="S")
        ),
        "stations.update": _station_update,
        "stations.tag": lambda c: c.stations.tag("contract", ["00000A01"]),
        "partners.update": _partner_update,
    }


SUBSCRIBER_WRITES = _subscriber_writes()
PARTNER_WRITES = _partner_writes()
