"""The provisioning queue's triggers: every change of a device, station or HSM group
queues its items, whichever path made it (routes, the import, the key manager).

An HSM group's update is queued by the store, once per change (`store.operations.
update_hsm_group`): the triggers on its name and on each new key (issue 21: one PUT queued
three UPDATE items, a creation a CREATION and two UPDATEs) were dropped by migration step
`V_PLATFORM_RULES`; `SHIPPED_PROV_QUEUE_TRIGGERS` keeps the set step `V_OPERATIONS` made."""

from __future__ import annotations

from .ddl import create_triggers, drop_triggers

_NOW_MS = "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)"
# The subsystem takes an item 1.5 to 4.5 seconds after it is queued.
_DONE_AT = f"{_NOW_MS} + 1500 + (abs(random()) % 3000)"


def _prov_insert(type_: str, action: str, sub_system: str, uid: str, ref: str,
                 sub: str = "NULL", partner: str = "NULL", when: str = "1") -> str:  # fmt: skip
    return (
        "INSERT INTO prov_queue (type, action, sub_system, entity_uid, entity_id,"
        " subscription_id, partner_uid, created, done_at)"
        f" SELECT '{type_}', '{action}', '{sub_system}', {uid}, {ref}, {sub}, {partner},"
        f" {_NOW_MS}, {_DONE_AT} WHERE {when};"
    )


def _device_items(action: str, row: str) -> str:
    """A LoRaWAN device goes to the LRC, a cellular one to the HSS/SPR and the PGW."""
    args = (f"{row}.uid", f"{row}.eui", f"{row}.subscription_id", "NULL")
    cellular = f"{row}.connectivity = 'CELLULAR'"
    return "\n    ".join(
        [
            _prov_insert("DEVICE", action, "LRC", *args, when=f"NOT ({cellular})"),
            _prov_insert("DEVICE", action, "HSS_SPR", *args, when=cellular),
            _prov_insert("DEVICE", action, "PGW", *args, when=cellular),
        ]
    )


# What the platform provisions of a device: a change of another column (the simulator's
# readings, alarms, counters) sends nothing to the subsystems.
_PROVISIONED_DEVICE_COLUMNS = (
    "name", "model_id", "activation", "nw_address", "app_eui", "app_key", "app_skey",
    "as_transport_key", "hsm_group_id", "routing_profile_id", "network_context_id", "imsi",
    "iccid", "lorawan_debug",
)  # fmt: skip
_DEVICE_CHANGED = " OR ".join(f"OLD.{c} IS NOT NEW.{c}" for c in _PROVISIONED_DEVICE_COLUMNS)
_STATION_ARGS = ("NEW.uid", "NEW.lrr_id", "NULL", "NEW.partner_uid")
_OLD_STATION_ARGS = ("OLD.uid", "OLD.lrr_id", "NULL", "OLD.partner_uid")
_HSM_ARGS = ("NEW.id", "NEW.ref", "NEW.subscription_id")
SHIPPED_PROV_QUEUE_TRIGGERS = {
    "tr_prov_device_added": f"AFTER INSERT ON devices BEGIN\n    "
    f"{_device_items('ACTIVATION', 'NEW')}\nEND",
    # UPDATE OF: the simulator's updates of other columns (every second) skip the trigger.
    "tr_prov_device_changed": f"AFTER UPDATE OF {', '.join(_PROVISIONED_DEVICE_COLUMNS)}"
    f" ON devices WHEN {_DEVICE_CHANGED} BEGIN\n    "
    f"{_device_items('UPDATE', 'NEW')}\nEND",
    "tr_prov_device_removed": f"AFTER DELETE ON devices BEGIN\n    "
    f"{_device_items('DEACTIVATION', 'OLD')}\nEND",
    "tr_prov_station_added": "AFTER INSERT ON stations BEGIN\n    "
    f"{_prov_insert('BASE_STATION', 'ACTIVATION', 'LRC', *_STATION_ARGS)}\nEND",
    # Every change through the API bumps the station's version; the simulator's never does.
    "tr_prov_station_changed": "AFTER UPDATE OF version ON stations"
    " WHEN OLD.version IS NOT NEW.version BEGIN\n    "
    f"{_prov_insert('BASE_STATION', 'UPDATE', 'LRC', *_STATION_ARGS)}\nEND",
    "tr_prov_station_removed": "AFTER DELETE ON stations BEGIN\n    "
    f"{_prov_insert('BASE_STATION', 'DEACTIVATION', 'LRC', *_OLD_STATION_ARGS)}\nEND",
    "tr_prov_hsm_added": "AFTER INSERT ON hsm_groups BEGIN\n    "
    f"{_prov_insert('HSM_GROUP', 'CREATION', 'LRC', *_HSM_ARGS)}\nEND",
    "tr_prov_hsm_changed": "AFTER UPDATE OF name ON hsm_groups"
    " WHEN OLD.name IS NOT NEW.name BEGIN\n    "
    f"{_prov_insert('HSM_GROUP', 'UPDATE', 'LRC', *_HSM_ARGS)}\nEND",
    "tr_prov_hsm_key": "AFTER INSERT ON hsm_keys BEGIN\n    "
    + _prov_insert(
        "HSM_GROUP",
        "UPDATE",
        "LRC",
        "NEW.hsm_group_id",
        "(SELECT ref FROM hsm_groups WHERE id = NEW.hsm_group_id)",
        "(SELECT subscription_id FROM hsm_groups WHERE id = NEW.hsm_group_id)",
    )
    + "\nEND",
    "tr_prov_hsm_removed": "AFTER DELETE ON hsm_groups BEGIN\n    "
    f"{_prov_insert('HSM_GROUP', 'DELETION', 'LRC', 'OLD.id', 'OLD.ref', 'OLD.subscription_id')}"
    "\nEND",
}


RETIRED_PROV_QUEUE_TRIGGERS = ("tr_prov_hsm_changed", "tr_prov_hsm_key")
PROV_QUEUE_TRIGGERS = {
    name: body
    for name, body in SHIPPED_PROV_QUEUE_TRIGGERS.items()
    if name not in RETIRED_PROV_QUEUE_TRIGGERS
}


def create_prov_queue_triggers() -> list[str]:
    return create_triggers(PROV_QUEUE_TRIGGERS)


def drop_prov_queue_triggers() -> list[str]:
    return drop_triggers(PROV_QUEUE_TRIGGERS)
