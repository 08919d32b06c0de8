"""Secondary indexes of the devices and stations and their link tables: bulk seeding
drops and rebuilds them (a sorted build is far faster than a million random inserts)."""

from __future__ import annotations

from .ddl import create_indexes, drop_indexes

DEVICE_INDEXES: dict[str, str] = {
    # Every list query is "this subscription, ordered by X": uid closes ties and makes the
    # index covering for the page's uid list.
    "ix_devices_name": "devices(subscription_id, name, uid)",
    "ix_devices_created": "devices(subscription_id, creation_date, uid)",
    "ix_devices_lastup": "devices(subscription_id, last_up, uid)",
    "ix_devices_lastdw": "devices(subscription_id, last_dw, uid)",
    "ix_devices_sf": "devices(subscription_id, last_sf, uid)",
    "ix_devices_snr": "devices(subscription_id, avg_snr, uid)",
    "ix_devices_bat": "devices(subscription_id, last_bat, uid)",
    # Equality filters: the domain set after the value, so a restricted count stays in the index.
    "ix_devices_health_ds": "devices(subscription_id, health, domain_set)",
    "ix_devices_alarm_ds": "devices(subscription_id, alarm_level, domain_set)",
    # Clusters scan boxes by latitude with the domain set at hand (restricted users).
    "ix_devices_geo_ds": "devices(subscription_id, lat, lon, domain_set)",
    # A map tile's devices (clusters: the summary's upkeep and the box's edge tiles).
    "ix_devices_tile": "devices(subscription_id, tile_y, tile_x, domain_set, lat, lon)",
    # The count of a restricted user's devices: a range per visible domain set.
    "ix_devices_domain_set": "devices(subscription_id, domain_set)",
    "ix_devices_conn_ds": "devices(subscription_id, connectivity, domain_set)",
    "ix_devices_atk_ds": "devices(subscription_id, as_transport_key, domain_set)",
    "ix_devices_netctx_ds": "devices(subscription_id, network_context_id, domain_set)",
    "ix_devices_imei": "devices(subscription_id, last_imei)",
    "ix_devices_imsi": "devices(subscription_id, imsi)",
    "ix_devices_iccid": "devices(subscription_id, iccid)",
    "ix_devices_eid": "devices(subscription_id, eid)",
    "ix_device_tags_rev": "device_tags(tag_id, device_uid)",
    "ix_device_domains_rev": "device_domains(domain_id, device_uid)",
    "ix_device_app_servers_rev": "device_app_servers(app_server_id, device_uid)",
}


def create_device_indexes_sql() -> str:
    return "\n".join(create_indexes(DEVICE_INDEXES))


def drop_device_indexes_sql() -> str:
    return "\n".join(drop_indexes(DEVICE_INDEXES))


# Secondary indexes of stations (bulk seeding drops and rebuilds them).
STATION_INDEXES: dict[str, str] = {
    # The sorts, the domain set last: a restricted page reads the index alone.
    "ix_stations_name": "stations(partner_uid, name, uid, domain_set)",
    "ix_stations_created": "stations(partner_uid, creation_date, uid, domain_set)",
    "ix_stations_lastup": "stations(partner_uid, last_up, uid, domain_set)",
    "ix_stations_lastdw": "stations(partner_uid, last_dw, uid, domain_set)",
    "ix_stations_version": "stations(partner_uid, sw_version, uid, domain_set)",
    "ix_stations_reboot": "stations(partner_uid, last_reboot, uid, domain_set)",
    "ix_stations_lrr": "stations(partner_uid, lrr_id, domain_set)",
    "ix_stations_uuid": "stations(partner_uid, lrr_uuid)",
    "ix_stations_health_ds": "stations(partner_uid, health_state, domain_set)",
    "ix_stations_alarm_ds": "stations(partner_uid, alarm_level, domain_set)",
    "ix_stations_domain_set": "stations(partner_uid, domain_set)",
    "ix_stations_tile": "stations(partner_uid, tile_y, tile_x, domain_set, lat, lon)",
    "ix_station_tags_rev": "station_tags(tag_id, station_uid)",
    "ix_station_domains_rev": "station_domains(domain_id, station_uid)",
}


def create_station_indexes_sql() -> list[str]:
    return create_indexes(STATION_INDEXES)


def drop_station_indexes_sql() -> list[str]:
    return drop_indexes(STATION_INDEXES)
