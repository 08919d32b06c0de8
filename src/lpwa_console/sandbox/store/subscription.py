"""The subscription row behind `mine`."""

from __future__ import annotations

import sqlite3
from typing import Any

from .sql import update_versioned


def get(conn: sqlite3.Connection, subscription_id: int) -> sqlite3.Row | None:
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM subscriptions WHERE id = ?", (subscription_id,)
    ).fetchone()
    return row


def update(
    conn: sqlite3.Connection, subscription_id: int, values: dict[str, Any], *, now: int, who: str
) -> None:
    """Changes the settings and moves the occContext on (version, last update, who)."""
    update_versioned(conn, "subscriptions", "id", subscription_id, values, now=now, who=who)


def show_tag_suggestions(conn: sqlite3.Connection, subscription_id: int) -> bool:
    row = get(conn, subscription_id)
    return bool(row["show_tag_suggestions"]) if row else True


# Document 1 §2.2: with the option DEACTIVATED, root keys of LoRaWAN OTAA devices cannot be
# protected by an HSM. The reason every refusal gives, after the field it names.
HSM_DEACTIVATED = (
    "the subscription's option hsm is DEACTIVATED: root keys cannot be protected by an HSM"
)


def hsm_deactivated(conn: sqlite3.Connection, subscription_id: int) -> bool:
    row = conn.execute("SELECT hsm FROM subscriptions WHERE id = ?", (subscription_id,)).fetchone()
    return row is not None and row[0] == "DEACTIVATED"
