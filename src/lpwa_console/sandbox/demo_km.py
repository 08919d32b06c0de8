"""The key manager's demo part: real exchange key pairs and HSM AES keys, two AS keys, and
KM devices in every state, made through the store as a client's requests would be."""

from __future__ import annotations

import random
import sqlite3

from ..schema.common import accepting_deprecated_fields
from ..schema.key_manager import KmAsKeyCreate, KmDeviceCreate
from .store import key_manager as key_store
from .store import km_devices as device_store

HOME_NET_ID = "000013"
HOME_NSID = "70B3D57ED0000001"
SECURE_ELEMENT = "ATECC608B-TNGLORA"


def seed_key_manager(conn: sqlite3.Connection, sub: int, *, seed: int, now: int) -> None:
    key_store.ensure_exchange_keys(conn, now)
    rng = random.Random(seed * 7 + 11)
    with accepting_deprecated_fields():
        if not key_store.as_key_exists(conn, sub, "as-key-platform"):
            key_store.create_as_key(
                conn, sub, KmAsKeyCreate(ID="as-key-platform", name="Platform AS key"), now
            )
        hsm_there = key_store.hsm_group_id(conn, sub, "hsm-eu-west-1") is not None
        if hsm_there and not key_store.as_key_exists(conn, sub, "as-key-hsm"):
            key_store.create_as_key(
                conn, sub,
                KmAsKeyCreate.model_validate({
                    "ID": "as-key-hsm", "name": "HSM AS key", "hsmGroupID": "hsm-eu-west-1",
                    "hsmSecurity": {"asKeyLabel": "acme-as", "asKeyWrapAlgo": "RFC_3394"},
                }),
                now,
            )  # fmt: skip
        # Network devices of the demo that the key manager holds the keys of: those with a
        # home network are COMMISSIONED and become ACTIVATED when the simulator hears them.
        euis = [
            r[0]
            for r in conn.execute(
                "SELECT eui FROM devices WHERE subscription_id = ? AND connectivity = 'LORAWAN'"
                " AND activation = 'OTAA' ORDER BY uid LIMIT 48",
                (sub,),
            ).fetchall()
        ]
        opener = key_store.KeyOpener(conn, sub)
        joined: list[tuple[int, int]] = []
        for i, eui in enumerate(euis):
            if device_store.find_uid(conn, sub, eui=eui) is not None:
                continue
            kind = i % 4
            body: dict[str, object] = {"EUI": eui, "name": f"KM {eui[-6:]}"}
            if kind == 0:
                body |= {"state": "PRE_COMMISSIONED",
                         "secureElement": {"tkmInfo": f"{SECURE_ELEMENT}:{rng.getrandbits(64):016X}"}}  # fmt: skip
            else:
                body["appKey"] = f"{rng.getrandbits(128):032X}"
                if kind >= 2:
                    body |= {"homeNsNetID": HOME_NET_ID, "homeNsNSID": HOME_NSID,
                             "asKey": {"ID": "as-key-platform"}}  # fmt: skip
            uid, _ = device_store.create(
                conn, sub, KmDeviceCreate.model_validate(body), now, opener
            )
            if kind == 3:
                joined.append((uid, sub))
        device_store.record_joins(conn, joined, now - 3_600_000)
