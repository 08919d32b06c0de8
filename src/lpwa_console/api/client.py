"""The client the console uses: one instance per platform interface.

Each resource (and the schema it reads) is imported when first used: a console start needs
only the subscription and the devices, and importing all of them is a good part of a start."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from ._base import BaseClient

if TYPE_CHECKING:
    from .resources.alarms import DeviceAlarmsResource, MulticastAlarmsResource
    from .resources.app_servers import AppServersResource
    from .resources.applications import ApplicationsResource
    from .resources.catalogs import CatalogsResource
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
    from .resources.operations import OperationsResource
    from .resources.partners import OperatorPartnersResource, PartnersResource
    from .resources.station_admin import StationAdminResource
    from .resources.station_alarms import StationAlarmsResource
    from .resources.station_monitoring import StationMonitoringResource
    from .resources.station_radio import StationRadioResource
    from .resources.stations import StationsResource
    from .resources.subscription import SubscriptionResource
    from .resources.suppliers import SuppliersResource


class LpwaClient(BaseClient):
    """Async client of the platform's REST API.

    >>> client = LpwaClient(base_url, Credentials(token_url, client_id, secret))
    >>> page = await client.devices.list(page_size=50)
    """

    @cached_property
    def subscription(self) -> SubscriptionResource:
        from .resources.subscription import SubscriptionResource

        return SubscriptionResource(self)

    @cached_property
    def partners(self) -> PartnersResource:
        from .resources.partners import PartnersResource

        return PartnersResource(self)

    @cached_property
    def operator_partners(self) -> OperatorPartnersResource:
        from .resources.partners import OperatorPartnersResource

        return OperatorPartnersResource(self)

    @cached_property
    def operations(self) -> OperationsResource:
        """The operator's HSM groups, provisioning and command queues, SIM cards, devices."""
        from .resources.operations import OperationsResource

        return OperationsResource(self)

    @cached_property
    def catalogs(self) -> CatalogsResource:
        """The operator's catalogs (profiles, vendors, RF regions, catalog versions)."""
        from .resources.catalogs import CatalogsResource

        return CatalogsResource(self)

    @cached_property
    def dashboard(self) -> DashboardResource:
        from .resources.dashboard import DashboardResource

        return DashboardResource(self)

    @cached_property
    def stations(self) -> StationsResource:
        from .resources.stations import StationsResource

        return StationsResource(self)

    @cached_property
    def station_alarms(self) -> StationAlarmsResource:
        from .resources.station_alarms import StationAlarmsResource

        return StationAlarmsResource(self)

    @cached_property
    def devices(self) -> DevicesResource:
        from .resources.devices import DevicesResource

        return DevicesResource(self)

    @cached_property
    def device_alarms(self) -> DeviceAlarmsResource:
        from .resources.alarms import DeviceAlarmsResource

        return DeviceAlarmsResource(self)

    @cached_property
    def device_import(self) -> DeviceImportResource:
        from .resources.device_import import DeviceImportResource

        return DeviceImportResource(self)

    @cached_property
    def device_profiles(self) -> DeviceProfilesResource:
        from .resources.device_profiles import DeviceProfilesResource

        return DeviceProfilesResource(self)

    @cached_property
    def device_vendors(self) -> DeviceVendorsResource:
        from .resources.device_profiles import DeviceVendorsResource

        return DeviceVendorsResource(self)

    @cached_property
    def frames(self) -> FramesResource:
        from .resources.frames import FramesResource

        return FramesResource(self)

    @cached_property
    def multicast_groups(self) -> MulticastGroupsResource:
        from .resources.multicast import MulticastGroupsResource

        return MulticastGroupsResource(self)

    @cached_property
    def multicast_alarms(self) -> MulticastAlarmsResource:
        from .resources.alarms import MulticastAlarmsResource

        return MulticastAlarmsResource(self)

    @cached_property
    def app_servers(self) -> AppServersResource:
        from .resources.app_servers import AppServersResource

        return AppServersResource(self)

    @cached_property
    def network_contexts(self) -> NetworkContextsResource:
        from .resources.network import NetworkContextsResource

        return NetworkContextsResource(self)

    @cached_property
    def as_transport_keys(self) -> AsTransportKeysResource:
        from .resources.network import AsTransportKeysResource

        return AsTransportKeysResource(self)

    @cached_property
    def hsm_groups(self) -> HsmGroupsResource:
        from .resources.network import HsmGroupsResource

        return HsmGroupsResource(self)

    @cached_property
    def network_subscriptions(self) -> NetworkSubscriptionsResource:
        from .resources.network import NetworkSubscriptionsResource

        return NetworkSubscriptionsResource(self)

    @cached_property
    def key_manager(self) -> KeyManagerResource:
        from .resources.key_manager import KeyManagerResource

        return KeyManagerResource(self)

    @cached_property
    def station_admin(self) -> StationAdminResource:
        from .resources.station_admin import StationAdminResource

        return StationAdminResource(self)

    @cached_property
    def station_monitoring(self) -> StationMonitoringResource:
        from .resources.station_monitoring import StationMonitoringResource

        return StationMonitoringResource(self)

    @cached_property
    def station_radio(self) -> StationRadioResource:
        from .resources.station_radio import StationRadioResource

        return StationRadioResource(self)

    @cached_property
    def applications(self) -> ApplicationsResource:
        from .resources.applications import ApplicationsResource

        return ApplicationsResource(self)

    @cached_property
    def suppliers(self) -> SuppliersResource:
        """The supplier interface (`/suppliers/mine` unless told another supplier)."""
        from .resources.suppliers import SuppliersResource

        return SuppliersResource(self)
