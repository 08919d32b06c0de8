"""The ordered migration steps and the function that runs the pending ones.

The schema version lives in `PRAGMA user_version`: step N of `MIGRATIONS` has run when
user_version >= N. A step is never edited once shipped; a change is a new step.
"""

from __future__ import annotations

import sqlite3

from .sealing import ensure_functions
from .steps_devices import (
    DEVICE_CATALOG,
    V1,
    V2,
    V3,
    V4,
    V5,
    V6,
    V7,
    V8,
    V9,
    V10,
    V_AS_COUNTS,
    V_TAG_COUNTS,
)
from .steps_platform import (
    KEY_MANAGER,
    V_APPLICATIONS,
    V_CATALOGS,
    V_DASHBOARD_KPIS,
    V_OPERATIONS,
    V_PLATFORM_RULES,
    V_SECRETS_AT_REST,
    V_SUPPLIERS,
)
from .steps_reference import V_NETWORK_SUBSCRIPTION_FIELDS, V_OCC_CONTEXTS
from .steps_stations import (
    V_RECEPTIONS_INLINE,
    V_SIM_STEADY,
    V_SIM_WHEEL,
    V_STATION_DOMAIN_SET_CHANGED,
    V_STATION_OPS,
    V_STATIONS,
    V_TILE_TRIGGER,
)

MIGRATIONS: list[str] = [
    V1, V2, V3, V4, V5, V6, V7, V8, V9, V_AS_COUNTS, DEVICE_CATALOG, V10,
    V_TAG_COUNTS, V_STATIONS, KEY_MANAGER, V_STATION_OPS, V_APPLICATIONS, V_OPERATIONS,
    V_SUPPLIERS, V_CATALOGS, V_DASHBOARD_KPIS, V_SIM_WHEEL, V_SIM_STEADY,
    V_RECEPTIONS_INLINE, V_TILE_TRIGGER, V_STATION_DOMAIN_SET_CHANGED, V_SECRETS_AT_REST,
    V_PLATFORM_RULES, V_OCC_CONTEXTS, V_NETWORK_SUBSCRIPTION_FIELDS,
]  # fmt: skip


def migrate(conn: sqlite3.Connection) -> int:
    """Run the steps not yet recorded in user_version; returns the number run."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    pending = MIGRATIONS[version:]
    if pending:
        ensure_functions(conn)  # the secrets step seals and hashes with the key file
    for number, step in enumerate(pending, start=version + 1):
        # executescript commits first, so the step and its version bump share one BEGIN.
        conn.executescript(f"BEGIN IMMEDIATE;\n{step}\nPRAGMA user_version={number};\nCOMMIT;")
    return len(pending)
