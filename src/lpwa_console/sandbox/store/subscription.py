"""The subscription row behind `mine`."""

from __future__ import annotations

import sqlite3
from typing import Any


def get(conn: sqlite3.Connection, subscription_id: int) -> sqlite3.Row | None:
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM subscriptions WHERE id = ?", (subscription_id,)
    ).fetchone()
    return row


def update(
    conn: sqlite3.Connection, subscription_id: int, values: dict[str, Any], *, now: int, who: str
) -> None:
    """Changes the settings and moves the occContext on (version, last update, who)."""
    values = values | {"last_update": now, "who": who}
    sets = ", ".join(f"{column} = ?" for column in values)
    conn.execute(
        f"UPDATE subscriptions SET {sets}, version = version + 1 WHERE id = ?",
        [*values.values(), subscription_id],
    )


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
