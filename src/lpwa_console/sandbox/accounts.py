"""Accounts (one per role) and the subscription they act on as `mine`."""

from __future__ import annotations

import json
import secrets
import sqlite3
import time
from dataclasses import dataclass, field
from typing import Any

from ..schema.domains import DomainRestrictions
from .db.sealing import HASH_PREFIX, scrypt_matches, token_hash

READ_NODE = "LPWA_MGR::READ_NODE"
WRITE_NODE = "LPWA_MGR::WRITE_NODE"
# Updating a device's appServersRoutingProfile needs more than WRITE_NODE (Document 1 §5.4).
ADMIN_NODE = "LPWA_MGR::ADMIN_NODE"

SUBSCRIPTION_REF = "100"
FRANCE_ONLY: dict[str, Any] = {
    "and": [{"type": "PREFIX", "name": "France/", "group": {"name": "Site"}}]
}


@dataclass(frozen=True)
class Account:
    id: int
    role: str
    client_id: str
    name: str
    subscription_id: int | None
    permissions: tuple[str, ...] = ()
    rights: tuple[str, ...] = ()
    restrictions: DomainRestrictions | None = field(default=None, compare=False)
    # The network partner the account acts for (`/partners/mine`), None when none.
    partner_uid: int | None = None

    @property
    def restricted(self) -> bool:
        return self.restrictions is not None and bool(self.restrictions.and_)

    def can(self, permission: str) -> bool:
        return permission in self.permissions or permission in self.rights

    @property
    def sub(self) -> int:
        """The subscription of a subscriber's account (what `SubscriptionReader` and the
        other subscriber dependencies let through)."""
        assert self.subscription_id is not None
        return self.subscription_id


# role, client_id, display name, subscription?, permissions, rights, restrictions
DEMO_ACCOUNTS: list[tuple[str, str, str, bool, list[str], list[str], dict[str, Any] | None]] = [
    (
        "subscriber",
        "subscriber",
        "Acme Utilities (administrator)",
        True,
        ["x", "a", "ra", "rc", "s1"],
        [READ_NODE, WRITE_NODE, ADMIN_NODE],
        None,
    ),
    (
        "subscriber-restricted",
        "subscriber-france",
        "Acme Utilities (France team)",
        True,
        ["x", "a"],
        [READ_NODE, WRITE_NODE],
        FRANCE_ONLY,
    ),
    (
        "subscriber-viewer",
        "subscriber-viewer",
        "Acme Utilities (viewer)",
        True,
        ["x"],
        [READ_NODE],
        None,
    ),
    ("operator", "operator", "Demo Operator", False, [], ["OPERATOR::ADMIN"], None),
    ("supplier", "supplier", "Demo Device Supplier", False, [], ["SUPPLIER::ADMIN"], None),
    ("partner", "partner", "Demo Network Partner", False, [], ["PARTNER::ADMIN"], None),
]


def demo_secret_hash(conn: sqlite3.Connection, client_id: str) -> str:
    """What `accounts.client_secret` keeps of a demo account's secret: its SHA-256. The
    secret itself is derived from the key file beside the database (`db/sealing.py`), so
    `listing` can give it and a copy of the database alone gives nothing."""
    row = conn.execute("SELECT token_hash(demo_secret(?))", (client_id,)).fetchone()
    return HASH_PREFIX + str(row[0])


def create_demo_accounts(conn: sqlite3.Connection, now_ms: int | None = None) -> int:
    """The demo subscription and one account per role, with secrets random per database.
    Returns the subscription id."""
    now_ms = now_ms if now_ms is not None else int(time.time() * 1000)
    cur = conn.execute(
        "INSERT INTO subscriptions (ref, name, hsm, show_tag_suggestions, creation_ts)"
        " VALUES (?, ?, 'ACTIVATED', 1, ?)",
        (SUBSCRIPTION_REF, "Acme Utilities", now_ms),
    )
    subscription_id = int(cur.lastrowid or 0)
    for role, client_id, name, has_sub, permissions, rights, restrictions in DEMO_ACCOUNTS:
        conn.execute(
            "INSERT INTO accounts (role, client_id, client_secret, name, subscription_id,"
            " permissions, rights, restrictions) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                role,
                client_id,
                demo_secret_hash(conn, client_id),
                name,
                subscription_id if has_sub else None,
                json.dumps(permissions),
                json.dumps(rights),
                json.dumps(restrictions) if restrictions else None,
            ),
        )
    return subscription_id


def _account(row: sqlite3.Row) -> Account:
    restrictions = (
        DomainRestrictions.model_validate(json.loads(row["restrictions"]))
        if row["restrictions"]
        else None
    )
    return Account(
        id=row["id"],
        role=row["role"],
        client_id=row["client_id"],
        name=row["name"],
        subscription_id=row["subscription_id"],
        permissions=tuple(json.loads(row["permissions"])),
        rights=tuple(json.loads(row["rights"])),
        restrictions=restrictions,
        partner_uid=row["partner_uid"],
    )


# A supplier's service account (Document 2 §5.3): its accounts row holds no secret; the
# secret's scrypt hash is in supplier_service_accounts (store/suppliers.py).
SERVICE_ACCOUNT = "service-account"


def by_credentials(conn: sqlite3.Connection, client_id: str, secret: str) -> Account | None:
    row = conn.execute("SELECT * FROM accounts WHERE client_id = ?", (client_id,)).fetchone()
    if row is not None and row["role"] == SERVICE_ACCOUNT:
        found = conn.execute(
            "SELECT secret_hash FROM supplier_service_accounts WHERE client_id = ?", (client_id,)
        ).fetchone()
        stored = found[0] if found else None
        if not stored or not secret or not scrypt_matches(stored, secret):
            return None
        return _account(row)
    if row is None or not _demo_matches(row["client_secret"], secret):
        return None
    return _account(row)


def _demo_matches(stored: str, secret: str) -> bool:
    # Compared as bytes: compare_digest refuses str with non-ASCII characters.
    if not stored.startswith(HASH_PREFIX):
        return False  # "!" + random: an account that signs in another way
    given = HASH_PREFIX + token_hash(secret)
    return secrets.compare_digest(stored.encode(), given.encode())


def by_id(conn: sqlite3.Connection, account_id: int) -> Account | None:
    row = conn.execute("SELECT * FROM accounts WHERE id = ?", (account_id,)).fetchone()
    return _account(row) if row else None


def listing(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """What `lpwa-sandbox accounts --json` prints."""
    out: list[dict[str, Any]] = []
    for row in conn.execute(
        "SELECT *, demo_secret(client_id) AS demo_secret FROM accounts WHERE role != ? ORDER BY id",
        (SERVICE_ACCOUNT,),
    ):
        account = _account(row)
        out.append(
            {
                "role": account.role,
                "client_id": account.client_id,
                "client_secret": row["demo_secret"],
                "name": account.name,
                "grantedPermissions": list(account.permissions),
                "rights": list(account.rights),
                "domainRestrictions": json.loads(row["restrictions"])
                if row["restrictions"]
                else None,
                "hasSubscription": account.subscription_id is not None,
            }
        )
    return out
