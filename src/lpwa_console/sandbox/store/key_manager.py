"""The key manager's keys: RSA exchange key pairs (the platform's and each HSM group's), the HSM
groups' AES keys, AS keys, and opening the root keys a request sends (clear, AES-wrapped or
RSA-encrypted). Private halves stay in this database; answers carry public keys only."""

from __future__ import annotations

import base64
import sqlite3
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ...schema.key_manager import KmAsKeyCreate, KmAsKeyUpdate, key_encoding
from ...schema.network import rsa_public_key_pem
from .. import km_crypto
from ..db.sealing import seal
from ..errors import UNKNOWN_REFERENCE, bad_request
from .sql import Where, select_page
from .sql import count as count_rows
from .subscription import HSM_DEACTIVATED, hsm_deactivated

ListPage = tuple[list[dict[str, Any]], bool]


def km_base(sub_uid: int) -> str:
    return f"/kmSubscriptions/{sub_uid}"


# --- key pairs -----------------------------------------------------------------------------------


def ensure_exchange_keys(conn: sqlite3.Connection, now: int) -> int:
    """Give every exchange key without a private half a real RSA key pair (the platform's key
    of step 7 and the HSM groups' keys of older demos were stand-in moduli), and every HSM
    group its AES keys. Returns how many keys were made."""
    made = 0
    for (kid,) in conn.execute(
        "SELECT kid FROM platform_exchange_keys WHERE private_pem IS NULL"
    ).fetchall():
        pem, n, e = km_crypto.new_rsa_pair()
        conn.execute(
            "UPDATE platform_exchange_keys SET n_hex = ?, e_hex = ?, private_pem = seal(?)"
            " WHERE kid = ?",
            (f"{n:X}", f"{e:06X}", pem, kid),
        )
        made += 1
    groups = conn.execute(
        "SELECT id, ref, exchange_key_version FROM hsm_groups"
        " WHERE exchange_key_private_pem IS NULL"
    ).fetchall()
    for gid, _ref, version in groups:
        pem, n, e = km_crypto.new_rsa_pair()
        conn.execute(
            "UPDATE hsm_groups SET exchange_key_version = ?, exchange_key_n = ?,"
            " exchange_key_e = ?, exchange_key_private_pem = seal(?) WHERE id = ?",
            (version or 1, _b64url(n), _b64url(e), pem, gid),
        )
        made += 1
    for gid, ref in conn.execute(
        "SELECT id, ref FROM hsm_groups g WHERE NOT EXISTS"
        " (SELECT 1 FROM hsm_keys k WHERE k.hsm_group_id = g.id)"
    ).fetchall():
        conn.executemany(
            "INSERT INTO hsm_keys VALUES (?, ?, ?, seal(?), ?)",
            [
                (f"{ref}-app-v1", gid, "APP", km_crypto.new_aes_key(), now),
                (f"{ref}-nwk-v1", gid, "NWK", km_crypto.new_aes_key(), now),
            ],
        )
        made += 2
    return made


def _b64url(value: int) -> str:
    raw = value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _b64url_int(text: str) -> int:
    return int.from_bytes(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)), "big")


def platform_key_version(conn: sqlite3.Connection) -> str | None:
    row = conn.execute(
        "SELECT kid FROM platform_exchange_keys ORDER BY created DESC, kid DESC LIMIT 1"
    ).fetchone()
    return str(row[0]) if row else None


def public_exchange_keys(
    conn: sqlite3.Connection, sub: int, hsm_group: str | None
) -> list[dict[str, Any]]:
    """The public exchange keys: the platform's and each HSM group's, or one group's."""
    keys: list[dict[str, Any]] = []
    if hsm_group is None:
        for kid, n_hex, e_hex in conn.execute(
            "SELECT kid, n_hex, e_hex FROM platform_exchange_keys ORDER BY created DESC, kid DESC"
        ).fetchall():
            keys.append({"version": kid, "pem": rsa_public_key_pem(int(n_hex, 16), int(e_hex, 16))})
    w = Where(["subscription_id = ?", "exchange_key_n IS NOT NULL"], [sub])
    if hsm_group is not None:
        w.add("ref = ?", hsm_group)
    for ref, version, n, e in conn.execute(
        "SELECT ref, exchange_key_version, exchange_key_n, exchange_key_e FROM hsm_groups"
        f" WHERE {w.sql()} ORDER BY ref",
        w.params,
    ).fetchall():
        keys.append(
            {
                "version": f"{ref}-v{version}",
                "pem": rsa_public_key_pem(_b64url_int(n), _b64url_int(e)),
                "hsmGroupID": ref,
            }
        )
    return keys


def _exchange_private(conn: sqlite3.Connection, sub: int, version: str) -> str | None:
    row = conn.execute(
        "SELECT unseal(private_pem) FROM platform_exchange_keys WHERE kid = ?", (version,)
    ).fetchone()
    if row is not None:
        return str(row[0]) if row[0] else None
    ref, _, number = version.rpartition("-v")
    row = conn.execute(
        "SELECT unseal(exchange_key_private_pem) FROM hsm_groups"
        " WHERE subscription_id = ? AND ref = ?"
        " AND CAST(exchange_key_version AS TEXT) = ?",
        (sub, ref, number),
    ).fetchone()
    return row[0] if row is not None else None


def _platform_version(conn: sqlite3.Connection, version: str) -> bool:
    """Is `version` one of the platform's exchange keys (rather than an HSM group's)?"""
    found = conn.execute("SELECT 1 FROM platform_exchange_keys WHERE kid = ?", (version,))
    return found.fetchone() is not None


def _hsm_key(conn: sqlite3.Connection, sub: int, version: str, kind: str) -> str | None:
    row = conn.execute(
        "SELECT unseal(k.key_hex) FROM hsm_keys k JOIN hsm_groups g ON g.id = k.hsm_group_id"
        " WHERE k.version = ? AND k.kind = ? AND g.subscription_id = ?",
        (version, kind, sub),
    ).fetchone()
    return row[0] if row is not None else None


def hsm_key_hex(conn: sqlite3.Connection, sub: int, version: str) -> str | None:
    """An HSM AES key in clear, for tests and the demo (never served)."""
    row = conn.execute(
        "SELECT unseal(k.key_hex) FROM hsm_keys k JOIN hsm_groups g ON g.id = k.hsm_group_id"
        " WHERE k.version = ? AND g.subscription_id = ?",
        (version, sub),
    ).fetchone()
    return row[0] if row is not None else None


class KeyOpener:
    """Opens the root keys of requests against this subscription's keys, keeping the keys it
    read (an import opens thousands with the same few)."""

    def __init__(self, conn: sqlite3.Connection, sub: int) -> None:
        self.conn = conn
        self.sub = sub
        self.hsm_off = hsm_deactivated(conn, sub)
        self._rsa: dict[str, str | None] = {}
        self._aes: dict[tuple[str, str], str | None] = {}
        # (version, ciphertext) -> plaintext, or the reason it does not open.
        self._opened: dict[tuple[str, str], bytes | str] = {}

    def _private(self, version: str) -> str | None:
        if version not in self._rsa:
            self._rsa[version] = _exchange_private(self.conn, self.sub, version)
        return self._rsa[version]

    def predecrypt(self, items: Iterable[tuple[str, str]]) -> None:
        """Decrypt many RSA ciphertexts ahead, on two threads (the library releases the GIL
        while it computes): an import of thousands of encrypted keys spends its time here."""
        work = [(v, c) for v, c in set(items) if self._private(v) is not None]

        def one(item: tuple[str, str]) -> bytes | str:
            private = self._rsa[item[0]]
            assert private is not None
            try:
                return km_crypto.rsa_decrypt(private, item[1])
            except km_crypto.KeyUnreadable as exc:
                return str(exc)

        with ThreadPoolExecutor(max_workers=2) as pool:
            for item, result in zip(work, pool.map(one, work), strict=True):
                self._opened[item] = result

    def open_sealed(self, field: str, text: str, **how: Any) -> str:
        """`open`, the key then sealed for storage (`db/sealing.py`): kept, never in clear."""
        sealed = seal(self.conn, self.open(field, text, **how))
        assert sealed is not None
        return sealed

    def open(
        self,
        field: str,
        text: str,
        *,
        hsm_version: str | None,
        exchange_version: str | None,
        kind: str,
        hsm_field: str,
    ) -> str:
        """The key in clear (32 upper-case hex digits); 400 naming the field when the version
        is unknown or the key does not open with it."""
        encoding = key_encoding(hsm_version, exchange_version)
        if encoding == "CLEAR":
            return text.upper()
        if encoding == "HSM":
            assert hsm_version is not None
            if self.hsm_off:
                raise bad_request(f"{hsm_field}: {HSM_DEACTIVATED}")
            key = (hsm_version, kind)
            if key not in self._aes:
                self._aes[key] = _hsm_key(self.conn, self.sub, hsm_version, kind)
            kek = self._aes[key]
            if kek is None:
                raise bad_request(
                    f"{hsm_field}: no HSM {kind.lower()} key of version {hsm_version}",
                    UNKNOWN_REFERENCE,
                )
            try:
                raw = km_crypto.aes_unwrap(kek, text)
            except km_crypto.KeyUnreadable as exc:
                raise bad_request(f"{field}: {exc}") from None
        else:
            assert exchange_version is not None
            private = self._private(exchange_version)
            if (
                self.hsm_off
                and private is not None
                and not _platform_version(self.conn, exchange_version)
            ):
                # An HSM group's exchange key: the key would be the HSM's to open.
                raise bad_request(f"exchangeKeyVersion: {HSM_DEACTIVATED}")
            if private is None:
                raise bad_request(
                    f"exchangeKeyVersion: no exchange key of version {exchange_version}",
                    UNKNOWN_REFERENCE,
                )
            found = self._opened.pop((exchange_version, text), None)
            if found is None:
                try:
                    found = km_crypto.rsa_decrypt(private, text)
                except km_crypto.KeyUnreadable as exc:
                    found = str(exc)
            if isinstance(found, str):
                raise bad_request(f"{field}: {found}")
            raw = found
        if len(raw) != 16:
            raise bad_request(f"{field}: decrypted to {len(raw)} bytes, a root key has 16")
        return raw.hex().upper()


# --- KM subscription, customers, HSM groups ------------------------------------------------------


def subscription(conn: sqlite3.Connection, sub: int) -> dict[str, Any] | None:
    row = conn.execute(
        "SELECT id, ref, name, hsm FROM subscriptions WHERE id = ?", (sub,)
    ).fetchone()
    if row is None:
        return None
    return {
        "ID": row["ref"],
        "name": row["name"],
        "hsm": row["hsm"],
        "platformExchangeKeyVersion": platform_key_version(conn),
        "href": km_base(row["id"]),
    }


def subscription_uid_of_ref(conn: sqlite3.Connection, ref: str) -> int | None:
    row = conn.execute("SELECT id FROM subscriptions WHERE ref = ?", (ref,)).fetchone()
    return int(row[0]) if row else None


def hsm_groups(conn: sqlite3.Connection, sub: int, offset: int, limit: int) -> ListPage:
    found = select_page(
        conn,
        "SELECT g.id, g.ref, g.name, g.exchange_key_version,"
        " (SELECT version FROM hsm_keys k WHERE k.hsm_group_id = g.id AND kind = 'APP'"
        "  ORDER BY created DESC, version DESC LIMIT 1) AS app_version,"
        " (SELECT version FROM hsm_keys k WHERE k.hsm_group_id = g.id AND kind = 'NWK'"
        "  ORDER BY created DESC, version DESC LIMIT 1) AS nwk_version FROM hsm_groups g",
        Where(["g.subscription_id = ?"], [sub]),
        "g.ref",
        offset=offset,
        limit=limit,
    )
    items = [
        {
            "ID": r["ref"],
            "name": r["name"],
            "hsmExchangeKeyVersion": (
                f"{r['ref']}-v{r['exchange_key_version']}"
                if r["exchange_key_version"] is not None
                else None
            ),
            "hsmAppKeyVersion": r["app_version"],
            "hsmNwkKeyVersion": r["nwk_version"],
            "href": f"{km_base(sub)}/hsmGroups/{r['ref']}",
        }
        for r in found.rows
    ]
    return items, found.more


def hsm_groups_count(conn: sqlite3.Connection, sub: int) -> int:
    return count_rows(conn, "hsm_groups", Where(["subscription_id = ?"], [sub]))


def hsm_group_id(conn: sqlite3.Connection, sub: int, ref: str) -> int | None:
    row = conn.execute(
        "SELECT id FROM hsm_groups WHERE subscription_id = ? AND ref = ?", (sub, ref)
    ).fetchone()
    return int(row[0]) if row else None


# --- AS keys -------------------------------------------------------------------------------------

_AS_KEY_SELECT = (
    "SELECT a.uid, a.subscription_id, a.ref, a.name, a.key_label, a.wrap_algo, g.ref AS hsm"
    " FROM km_as_keys a LEFT JOIN hsm_groups g ON g.id = a.hsm_group_id"
)


def _as_key(row: sqlite3.Row) -> dict[str, Any]:
    security: dict[str, Any] = {"asKeyWrapAlgo": row["wrap_algo"]}
    if row["key_label"]:
        security["asKeyLabel"] = row["key_label"]
    return {
        "UID": row["uid"],
        "ID": row["ref"],
        "name": row["name"],
        "hsmGroupID": row["hsm"],
        "hsmSecurity": security,
        "href": f"{km_base(row['subscription_id'])}/asKeys/{row['uid']}",
    }


def as_keys(conn: sqlite3.Connection, sub: int, offset: int, limit: int) -> ListPage:
    found = select_page(
        conn, _AS_KEY_SELECT, Where(["a.subscription_id = ?"], [sub]), "a.ref",
        offset=offset, limit=limit,
    )  # fmt: skip
    return [_as_key(r) for r in found.rows], found.more


def as_keys_count(conn: sqlite3.Connection, sub: int) -> int:
    return count_rows(conn, "km_as_keys", Where(["subscription_id = ?"], [sub]))


def find_as_key(
    conn: sqlite3.Connection, sub: int, *, uid: int | None = None, ref: str | None = None
) -> dict[str, Any] | None:
    column, value = ("a.uid", uid) if uid is not None else ("a.ref", ref)
    row = conn.execute(
        f"{_AS_KEY_SELECT} WHERE a.subscription_id = ? AND {column} = ?", (sub, value)
    ).fetchone()
    return _as_key(row) if row else None


def as_key_exists(conn: sqlite3.Connection, sub: int, ref: str) -> bool:
    return find_as_key(conn, sub, ref=ref) is not None


def create_as_key(conn: sqlite3.Connection, sub: int, body: KmAsKeyCreate, now: int) -> int:
    """A new AS key (AES-128) generated by the HSM group or the platform; 400 on an unknown
    HSM group, the caller checks duplicates first."""
    group = None
    if body.hsmGroupID:
        if hsm_deactivated(conn, sub):
            raise bad_request(f"hsmGroupID: {HSM_DEACTIVATED}")
        group = hsm_group_id(conn, sub, body.hsmGroupID)
        if group is None:
            raise bad_request(f"hsmGroupID: no HSM group {body.hsmGroupID}", UNKNOWN_REFERENCE)
    security = body.hsmSecurity
    cur = conn.execute(
        "INSERT INTO km_as_keys (subscription_id, ref, name, hsm_group_id, key_label, wrap_algo,"
        " key_hex, created, updated) VALUES (?, ?, ?, ?, ?, ?, seal(?), ?, ?)",
        (sub, body.ID, body.name, group, security.asKeyLabel if security else None,
         security.asKeyWrapAlgo if security else "AES_CBC", km_crypto.new_aes_key(), now, now),
    )  # fmt: skip
    return int(cur.lastrowid or 0)


def update_as_key(
    conn: sqlite3.Connection, uid: int, current: dict[str, Any], body: KmAsKeyUpdate, now: int
) -> None:
    sets: dict[str, Any] = {}
    if "name" in body.model_fields_set:
        sets["name"] = body.name
    if "hsmSecurity" in body.model_fields_set:
        security = body.hsmSecurity
        if (
            security is not None
            and security.asKeyWrapAlgo == "RFC_3394"
            and not current.get("hsmGroupID")
        ):
            raise bad_request(
                "hsmSecurity.asKeyWrapAlgo: RFC_3394 needs a key generated by an HSM group"
                " (this key was generated by the platform)"
            )
        # A PUT keeps what it does not name, inside hsmSecurity too: `{"asKeyWrapAlgo": ...}`
        # keeps the label; `hsmSecurity: null` names both and resets them.
        named = (
            security.model_fields_set if security is not None else {"asKeyLabel", "asKeyWrapAlgo"}
        )
        if "asKeyLabel" in named:
            sets["key_label"] = security.asKeyLabel if security else None
        if "asKeyWrapAlgo" in named:
            sets["wrap_algo"] = security.asKeyWrapAlgo if security else "AES_CBC"
    if not sets:
        return
    sets["updated"] = now
    assignments = ", ".join(f"{k} = ?" for k in sets)
    conn.execute(f"UPDATE km_as_keys SET {assignments} WHERE uid = ?", [*sets.values(), uid])
