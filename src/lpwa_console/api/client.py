"""The client the console uses: one instance per platform interface."""

from __future__ import annotations

from functools import cached_property

from ._base import BaseClient
from .resources.alarms import DeviceAlarmsResource, MulticastAlarmsResource
from .resources.app_servers import AppServersResource
from .resources.dashboard import DashboardResource
from .resources.device_import import DeviceImportResource
from .resources.device_profiles import DeviceProfilesResource, DeviceVendorsResource
from .resources.devices import DevicesResource
from .resources.frames import FramesResource
from .resources.key_manager import KeyManagerResource
from .resources.multicast import MulticastGroupsResource
from .resources.network import (
    AsTransportKeysResource,
    HsmGroupsResource,
    NetworkContextsResource,
    NetworkSubscriptionsResource,
)
from .resources.partners import OperatorPartnersResource, PartnersResource
from .resources.station_admin import StationAdminResource
from .resources.station_alarms import StationAlarmsResource
from .resources.station_monitoring import StationMonitoringResource
from .resources.station_radio import StationRadioResource
from .resources.stations import StationsResource
from .resources.subscription import SubscriptionResource


class LpwaClient(BaseClient):
    """Async client of the platform's REST API.

    >>> client = LpwaClient(base_url, Credentials(token_url, client_id, secret))
    >>> page = await client.devices.list(page_size=50)
    """

    @cached_property
    def subscription(self) -> SubscriptionResource:
        return SubscriptionResource(self)

    @cached_property
    def partners(self) -> PartnersResource:
        return PartnersResource(self)

    @cached_property
    def operator_partners(self) -> OperatorPartnersResource:
        return OperatorPartnersResource(self)

    @cached_property
    def dashboard(self) -> DashboardResource:
        return DashboardResource(self)

    @cached_property
    def stations(self) -> StationsResource:
        return StationsResource(self)

    @cached_property
    def station_alarms(self) -> StationAlarmsResource:
        return StationAlarmsResource(self)

    @cached_property
    def devices(self) -> DevicesResource:
        return DevicesResource(self)

    @cached_property
    def device_alarms(self) -> DeviceAlarmsResource:
        return DeviceAlarmsResource(self)

    @cached_property
    def device_import(self) -> DeviceImportResource:
        return DeviceImportResource(self)

    @cached_property
    def device_profiles(self) -> DeviceProfilesResource:
        return DeviceProfilesResource(self)

    @cached_property
    def device_vendors(self) -> DeviceVendorsResource:
        return DeviceVendorsResource(self)

    @cached_property
    def frames(self) -> FramesResource:
        return FramesResource(self)

    @cached_property
    def multicast_groups(self) -> MulticastGroupsResource:
        return MulticastGroupsResource(self)

    @cached_property
    def multicast_alarms(self) -> MulticastAlarmsResource:
        return MulticastAlarmsResource(self)

    @cached_property
    def app_servers(self) -> AppServersResource:
        return AppServersResource(self)

    @cached_property
    def network_contexts(self) -> NetworkContextsResource:
        return NetworkContextsResource(self)

    @cached_property
    def as_transport_keys(self) -> AsTransportKeysResource:
        return AsTransportKeysResource(self)

    @cached_property
    def hsm_groups(self) -> HsmGroupsResource:
        return HsmGroupsResource(self)

    @cached_property
    def network_subscriptions(self) -> NetworkSubscriptionsResource:
        return NetworkSubscriptionsResource(self)

    @cached_property
    def key_manager(self) -> KeyManagerResource:
        return KeyManagerResource(self)

    @cached_property
    def station_admin(self) -> StationAdminResource:
        return StationAdminResource(self)

    @cached_property
    def station_monitoring(self) -> StationMonitoringResource:
        return StationMonitoringResource(self)

    @cached_property
    def station_radio(self) -> StationRadioResource:
        return StationRadioResource(self)
