"""The demo's device catalog: vendors and device profiles (every profile the demo devices
use, plus the generic LoRaWAN profiles and a few common devices), so the device form has a
realistic list to pick from."""

from __future__ import annotations

import sqlite3

from .store import device_profiles as store
from .store.device_profiles import ProfileSeed, VendorSeed

EU = ("eu868",)
EU_WIDE = ("eu868", "in865", "ru864")
US = ("us915", "au915")

VENDORS = [
    VendorSeed("generic", "Generic", "LoRaWAN generic devices"),
    VendorSeed("itron", "Itron", "Water, gas and electricity metering"),
    VendorSeed("sensus", "Sensus", "Water metering"),
    VendorSeed("nedap", "Nedap", "Parking and identification"),
    VendorSeed("adeunis", "Adeunis", "Building and industrial sensors"),
    VendorSeed("elsys", "Elsys", "Indoor environment sensors"),
    VendorSeed("abeeway", "Abeeway", "Asset trackers"),
    VendorSeed("quectel", "Quectel", "Cellular IoT modules"),
    VendorSeed("nordic", "Nordic Semiconductor", "Cellular IoT systems-in-package"),
    VendorSeed("watteco", "Watteco", "Metering and building sensors"),
]

PROFILES = [
    # The profiles the demo devices use (sandbox/demo.py MODELS).
    ProfileSeed("itron-cyble-lw", "Itron Cyble 5 LoRaWAN", "itron", "LORAWAN", "LoRaMAC", 4, EU),
    ProfileSeed("sensus-iperl-lw", "Sensus iPERL LoRaWAN", "sensus", "LORAWAN", "LoRaMAC", 4, EU),
    ProfileSeed("itron-gas-lw", "Itron Gallus LoRaWAN", "itron", "LORAWAN", "LoRaMAC", 4, EU),
    ProfileSeed("nedap-sensit-lw", "Nedap SENSIT 3", "nedap", "LORAWAN", "LoRaMAC", 5, EU_WIDE),
    ProfileSeed("adeunis-temp-lw", "Adeunis Temp 4", "adeunis", "LORAWAN", "LoRaMAC", 5, EU),
    ProfileSeed("adeunis-door-lw", "Adeunis Dry Contacts", "adeunis", "LORAWAN", "LoRaMAC", 5, EU),
    ProfileSeed("elsys-ers-co2-lw", "Elsys ERS CO2", "elsys", "LORAWAN", "LoRaMAC", 5, EU_WIDE),
    ProfileSeed(
        "abeeway-micro-lw", "Abeeway Micro Tracker", "abeeway", "LORAWAN", "LoRaMAC", 4, EU,
        "WALKING_SPEED",
    ),
    ProfileSeed("quectel-bg95-cell", "Quectel BG95 NB-IoT/LTE-M", "quectel", "CELLULAR", None, None, ()),
    ProfileSeed("nordic-9160-cell", "Nordic nRF9160 LTE-M", "nordic", "CELLULAR", None, None, ()),
    # Generic profiles by LoRaWAN version and class, as platforms ship them.
    ProfileSeed("LORA/GenericA.1.0.2a_ETSI", "LoRaWAN 1.0.2 - class A", "generic", "LORAWAN", "LoRaMAC", 4, EU),
    ProfileSeed("LORA/GenericA.1.0.3a_ETSI", "LoRaWAN 1.0.3 - class A", "generic", "LORAWAN", "LoRaMAC", 5, EU),
    ProfileSeed("LORA/GenericC.1.0.3a_ETSI", "LoRaWAN 1.0.3 - class C", "generic", "LORAWAN", "LoRaMAC", 5, EU),
    ProfileSeed("LORA/GenericA.1.0.4a_ETSI", "LoRaWAN 1.0.4 - class A", "generic", "LORAWAN", "LoRaMAC", 6, EU),
    ProfileSeed("LORA/GenericA.1.1a_ETSI", "LoRaWAN 1.1 - class A", "generic", "LORAWAN", "LoRaMAC", 10, EU),
    ProfileSeed("LORA/GenericA.1.0.3a_FCC", "LoRaWAN 1.0.3 - class A (US)", "generic", "LORAWAN", "LoRaMAC", 5, US),
    # Some common devices.
    ProfileSeed(
        "ABEE/DEABE003-167EU.1.0.2b_ETSI_Rx2-SF12", "Micro-Tracker", "abeeway", "LORAWAN",
        "LoRaMAC", 4, EU_WIDE, "WALKING_SPEED",
    ),
    ProfileSeed(
        "ABEE/DEABE202-152EU.1.0.2b_ETSI_Rx2-SF12", "Master-Tracker", "abeeway", "LORAWAN",
        "LoRaMAC", 4, EU_WIDE, "VEHICLE_SPEED",
    ),
    ProfileSeed("ADRF/ComfortB.1.0.2_ETSI", "Comfort 2", "adeunis", "LORAWAN", "LoRaMAC", 4, EU),
    ProfileSeed("ELSY/ERSEye.1.0.3_ETSI", "ERS Eye", "elsys", "LORAWAN", "LoRaMAC", 5, EU_WIDE),
    ProfileSeed("WATT/Flasho.3.1_ETSI", "Flash'O (Watteco MAC)", "watteco", "LORAWAN", "WattecoMAC_3.1", None, EU),
    ProfileSeed("QUEC/BG77", "Quectel BG77 NB-IoT/LTE-M", "quectel", "CELLULAR", None, None, ()),
]  # fmt: skip


def seed_device_catalog(conn: sqlite3.Connection) -> None:
    store.seed(conn, VENDORS, PROFILES)
