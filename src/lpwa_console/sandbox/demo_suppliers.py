"""The demo supplier (demo part "supplier"): the supplier the supplier account acts for, with
service account groups, modules, custom field sets, categories, a few applications (manifest,
options), 50 devices sold (some with versions) and orders. A few hundred rows: a few ms."""

from __future__ import annotations

import random
import sqlite3
from typing import Any

from .store import suppliers as store

SUPPLIER_ID = "demo-supplier"
DAY_MS = 86_400_000

_APPS = [
    ("Water meter reading", "APP-WATER", "Daily index and leak alarms from water meters",
     [("readings", "Read meter indexes", True), ("alarms", "Receive leak alarms", False)],
     [("Hourly readings", "OPT-WATER-H"), ("Leak report", "OPT-WATER-LEAK")]),
    ("Asset tracking", "APP-TRACK", "Positions and geofences of tracked assets",
     [("positions", "Read positions", True), ("geofences", "Manage geofences", False)],
     [("Geofencing", "OPT-TRACK-GEO")]),
    ("Building comfort", "APP-COMFORT", "Temperature, humidity and CO2 of rooms",
     [("sensors", "Read room sensors", True)],
     [("CO2 alerts", "OPT-COMFORT-CO2"), ("Energy report", "OPT-COMFORT-NRG")]),
    ("Smart parking", "APP-PARK", "Occupancy of parking spaces", [], []),
]  # fmt: skip

_FAMILIES = [
    ("Water meter", "WM", "itron", 89.0),
    ("Gas meter", "GM", "itron", 119.0),
    ("Tracker", "TR", "abeeway", 149.0),
    ("Room sensor", "RS", "elsys", 59.0),
    ("Parking sensor", "PS", "nedap", 79.0),
    ("Industrial sensor", "IS", "adeunis", 199.0),
    ("Pulse counter", "PC", "watteco", 69.0),
]
_STATUSES = ("IN_STOCK", "IN_STOCK", "IN_STOCK", "P7D", "P15D", "P1M", "RESTOCKING", "SOLD_OUT")
PRODUCTS = 50


def _stock(rnd: random.Random) -> tuple[int, str]:
    status = rnd.choice(_STATUSES)
    return (rnd.randrange(5, 2000) if status == "IN_STOCK" else 0), status


def seed_supplier(conn: sqlite3.Connection, *, seed: int, now: int) -> int:
    """The demo supplier and everything it sells; returns its UID."""
    rnd = random.Random(seed * 7919 + 11)
    sup = store.create_supplier(
        conn, SUPPLIER_ID, "Demo Device Supplier", now=now - 400 * DAY_MS,
        email="sales@supplier.example", description="Sensors and meters for utilities",
        validation_state="VALIDATED", cfs_id="supplier-contact",
        custom_fields={"contact": "Jane Doe", "region": "EMEA"},
    )  # fmt: skip
    row = conn.execute("SELECT id FROM accounts WHERE role = 'supplier'").fetchone()
    if row is not None:
        store.link_account(conn, row[0], sup)
    store.create_custom_field_set(
        conn, sup, "suppliers", "supplier-contact", "Supplier contact",
        [{"name": "contact", "label": "Contact"}, {"name": "region", "label": "Region"}],
    )  # fmt: skip
    store.create_custom_field_set(
        conn, sup, "applications", "app-support", "Application support",
        [{"name": "supportEmail", "label": "Support e-mail", "required": True}],
    )  # fmt: skip
    store.create_custom_field_set(
        conn, sup, "devices", "radio", "Radio characteristics",
        [{"name": "band", "label": "Band", "required": True}, {"name": "battery", "label": "Battery"}],
    )  # fmt: skip
    store.create_custom_field_set(
        conn, sup, "devices", "metering", "Metering",
        [{"name": "pipeSize", "label": "Pipe size"}],
    )  # fmt: skip
    for ref, name, kind in (
        ("metering", "Metering", "SELLING"), ("tracking", "Tracking", "SELLING"),
        ("building", "Building", "SELLING"), ("internal", "Internal", "INTERNAL"),
        ("partners", "Partners", "MARKETING"),
    ):  # fmt: skip
        store.create_category(conn, ref, name, kind)
    groups = {
        ref: store.create_group(conn, sup, ref, name, text)
        for ref, name, text in (
            ("integration", "Integrations", "Accounts of connected systems"),
            ("factory", "Factory", "Accounts of the production line"),
        )
    }
    for name, group in (("ERP connector", "integration"), ("Provisioning line", "factory")):
        store.create_service_account(
            conn, sup, SUPPLIER_ID, name, f"{name} of the demo", groups[group],
            now=now - 30 * DAY_MS,
        )  # fmt: skip
    store.create_module(conn, sup, "portal", "Supplier portal", "OIDC",
                        "https://portal.supplier.example")  # fmt: skip
    store.create_module(conn, sup, "legacy-admin", "Legacy admin", "SMP",
                        "https://admin.supplier.example")  # fmt: skip
    for index, (name, sku, text, permissions, options) in enumerate(_APPS):
        manifest: dict[str, Any] = {
            "version": f"1.{index}",
            "description": f"What {name} needs",
            "permissions": [
                {"ID": ref, "name": words, "mandatory": mandatory}
                for ref, words, mandatory in permissions
            ],
        }
        app = store.create_application(
            conn, sup,
            {"name": name, "SKU": sku, "description": text, "validationState": "VALIDATED",
             "customFieldSet": "app-support",
             "customFields": {"supportEmail": "support@supplier.example"}},
            {}, now=now - (200 - index) * DAY_MS, manifest=manifest,
        )  # fmt: skip
        for option_name, option_sku in options:
            store.create_option(
                conn, app, {"name": option_name, "SKU": option_sku}, {}, now=now - 100 * DAY_MS
            )
    for index in range(PRODUCTS):
        family, code, vendor, price = _FAMILIES[index % len(_FAMILIES)]
        number = index // len(_FAMILIES) + 1
        has_versions = index % 5 == 0
        stock, status = _stock(rnd)
        values: dict[str, Any] = {
            "name": f"{family} {code}-{number:02d}",
            "SKU": f"{code}-{number:03d}",
            "description": f"{family}, generation {number}",
            "validationState": rnd.choice(
                ("VALIDATED", "VALIDATED", "VALIDATED", "VALIDATING", "SUSPENDED")
            ),
            "customFieldSet": "metering" if code in ("WM", "GM", "PC") else "radio",
            "customFields": {"band": "EU868"} if code not in ("WM", "GM", "PC") else {},
            "pricePlan": {"ID": f"PP-{code}", "name": f"{family} plan", "version": 1},
            "upfrontPrice": round(price + rnd.randrange(-10, 40), 2),
        }
        if not has_versions:
            values |= {"stock": stock, "status": status}
        uid = store.create_product(
            conn, sup, values, {}, now=now - (150 - index) * DAY_MS, vendor=vendor
        )
        if has_versions:
            for version in range(1, rnd.randrange(2, 4)):
                v_stock, v_status = _stock(rnd)
                store.create_version(
                    conn, uid,
                    {"name": f"v{version}.0", "description": f"Hardware revision {version}",
                     "stock": v_stock, "status": v_status},
                    now=now - (120 - version * 10) * DAY_MS,
                )  # fmt: skip
    products = conn.execute(
        "SELECT id, name, sku, upfront_price FROM supplier_products WHERE supplier_uid = ?"
        " ORDER BY uid",
        (sup,),
    ).fetchall()
    orders = []
    for index in range(20):
        lines = []
        for product in rnd.sample(products, rnd.randrange(1, 4)):
            price = float(product["upfront_price"] or 0)
            lines.append(
                {
                    "ID": product["id"],
                    "name": product["name"],
                    "SKU": product["sku"],
                    "quantity": rnd.randrange(1, 50),
                    "upfrontPrice": price,
                    "upfrontTax": round(price * 0.2, 2),
                    "pricePlanVersion": 1,
                    "currency": "EUR",
                }
            )
        context = {
            "shippingMode": {
                "ID": "standard",
                "name": "Standard delivery",
                "supplierUpfrontTax": 4.5,
            },
            "products": {"product": lines},
        }
        state = rnd.choice(("PENDING", "ACCEPTED", "SHIPPED", "DELIVERED"))
        orders.append((sup, state, "100", "Acme Utilities", context,
                       now - (60 - index * 2) * DAY_MS))  # fmt: skip
    store.create_orders(conn, orders)
    return sup
