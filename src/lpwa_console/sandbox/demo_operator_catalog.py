"""The demo's operator catalogs (demo part "operator-catalogs"): the installed versions, the
base-station vendors and profiles (those the demo stations use) with LRR software versions,
RF regions, texts in French, German and Spanish for every item with words, the LoRaWAN details of the
generic profiles, and a newer version of each catalog in the repository `selfUpdate` reads.

Small on purpose (a new database is made at the console's first start): the bench makes its
own big catalog (bench/catalogs.py)."""

from __future__ import annotations

import json
import sqlite3

from ..schema.catalogs import CATALOG_FORMAT
from .demo_catalog import PROFILES
from .store import catalogs as store
from .store.stations import STATION_MODELS

INSTALLED = "2026.10"
OFFERED = "2026.11"
LRR_VERSIONS = {
    "LRR_LINUX": [("2.6.20", "FIRMWARE_VERSION", "3.1"), ("2.8.4", "FIRMWARE_VERSION", "4.0")],
    "BASIC_STATION_LINUX": [("2.0.6", "FIRMWARE_VERSION", "5.2")],
    "LRR_FREERTOS": [("1.2.0", "FPGA_VERSION", "0x31")],
}
RF_REGIONS = [
    ("EU868_DEFAULT", "EU868 default", "Europe, 8 channels", "eu868"),
    ("US915_SB2", "US915 sub-band 2", "North America, channels 8-15", "us915"),
    ("AS923_1", "AS923-1", "Asia (923 MHz, group 1)", "as923"),
    ("IN865_DEFAULT", "IN865 default", "India", "in865"),
]
LORA_VENDOR_IDS = {"abeeway": "0x0200", "adeunis": "0x0100", "elsys": "0x0500"}
# The demo catalog is complete in its languages (issue 20: "classe A" beside "class A"):
# every item whose name or description has words has them in each language; brand and
# product names (Itron Cyble 5, Nedap SENSIT 3...) read the same in all of them.
LANGUAGES = ("fr", "de", "es")
VENDOR_TEXTS: dict[str, tuple[tuple[str, str], tuple[str, str], tuple[str, str]]] = {
    "generic": (
        ("Générique", "Équipements LoRaWAN génériques"),
        ("Generisch", "Generische LoRaWAN-Geräte"),
        ("Genérico", "Dispositivos LoRaWAN genéricos"),
    ),
    "itron": (
        ("Itron", "Comptage d'eau, de gaz et d'électricité"),
        ("Itron", "Wasser-, Gas- und Stromzähler"),
        ("Itron", "Medición de agua, gas y electricidad"),
    ),
    "sensus": (
        ("Sensus", "Comptage d'eau"),
        ("Sensus", "Wasserzähler"),
        ("Sensus", "Medición de agua"),
    ),
    "nedap": (
        ("Nedap", "Stationnement et identification"),
        ("Nedap", "Parken und Identifikation"),
        ("Nedap", "Aparcamiento e identificación"),
    ),
    "adeunis": (
        ("Adeunis", "Capteurs pour le bâtiment et l'industrie"),
        ("Adeunis", "Gebäude- und Industriesensoren"),
        ("Adeunis", "Sensores para edificios e industria"),
    ),
    "elsys": (
        ("Elsys", "Capteurs d'environnement intérieur"),
        ("Elsys", "Sensoren für das Raumklima"),
        ("Elsys", "Sensores de ambiente interior"),
    ),
    "abeeway": (
        ("Abeeway", "Traceurs d'actifs"),
        ("Abeeway", "Objekt-Tracker"),
        ("Abeeway", "Rastreadores de activos"),
    ),
    "quectel": (
        ("Quectel", "Modules IoT cellulaires"),
        ("Quectel", "Mobilfunk-IoT-Module"),
        ("Quectel", "Módulos IoT celulares"),
    ),
    "nordic": (
        ("Nordic Semiconductor", "Systèmes en boîtier IoT cellulaires"),
        ("Nordic Semiconductor", "Mobilfunk-IoT-System-in-Package"),
        ("Nordic Semiconductor", "Sistemas en encapsulado IoT celulares"),
    ),
    "watteco": (
        ("Watteco", "Capteurs de comptage et pour le bâtiment"),
        ("Watteco", "Zähler- und Gebäudesensoren"),
        ("Watteco", "Sensores de medición y para edificios"),
    ),
}
CLASS_WORD = {"fr": "classe", "de": "Klasse", "es": "clase"}
US_WORD = {"fr": "(États-Unis)", "de": "(USA)", "es": "(EE. UU.)"}
RF_REGION_TEXTS: dict[str, tuple[tuple[str, str], tuple[str, str], tuple[str, str]]] = {
    "EU868_DEFAULT": (
        ("EU868 par défaut", "Europe, 8 canaux"),
        ("EU868 Standard", "Europa, 8 Kanäle"),
        ("EU868 predeterminada", "Europa, 8 canales"),
    ),
    "US915_SB2": (
        ("US915 sous-bande 2", "Amérique du Nord, canaux 8 à 15"),
        ("US915 Teilband 2", "Nordamerika, Kanäle 8-15"),
        ("US915 subbanda 2", "Norteamérica, canales 8 a 15"),
    ),
    "AS923_1": (
        ("AS923-1", "Asie (923 MHz, groupe 1)"),
        ("AS923-1", "Asien (923 MHz, Gruppe 1)"),
        ("AS923-1", "Asia (923 MHz, grupo 1)"),
    ),
    "IN865_DEFAULT": (
        ("IN865 par défaut", "Inde"),
        ("IN865 Standard", "Indien"),
        ("IN865 predeterminada", "India"),
    ),
}


def generic_profile_name(name: str, lang: str) -> str:
    """A generic profile's name in `lang`: "LoRaWAN 1.1 - class A" -> "LoRaWAN 1.1 - Klasse A"."""
    return name.replace("class ", f"{CLASS_WORD[lang]} ").replace("(US)", US_WORD[lang])


def _texts() -> dict[tuple[str, str, str], tuple[str, str | None]]:
    """(kind, ref, language) -> (name, description): every item with words, every language."""
    texts: dict[tuple[str, str, str], tuple[str, str | None]] = {}
    for ref, per_language in VENDOR_TEXTS.items():
        for lang, pair in zip(LANGUAGES, per_language, strict=True):
            texts["dv", ref, lang] = pair
    for profile in PROFILES:  # a brand's product name is its own in every language
        for lang in LANGUAGES:
            texts["dp", profile.ref, lang] = (generic_profile_name(profile.name, lang), None)
    for ref, per_language in RF_REGION_TEXTS.items():
        for lang, pair in zip(LANGUAGES, per_language, strict=True):
            texts["rf", ref, lang] = pair
    return texts


TEXTS = _texts()

# The LoRaWAN details of the generic profiles (what a real catalog ships).
GENERIC_DETAILS = {
    "LORA/GenericA.1.0.2a_ETSI": {"regionalParameterVersion": "B", "macMaxTxEIRP": [16.0]},
    "LORA/GenericA.1.0.3a_ETSI": {"regionalParameterVersion": "A", "macMaxTxEIRP": [16.0]},
    "LORA/GenericA.1.0.4a_ETSI": {
        "regionalParameterVersion": "E", "macMaxTxEIRP": [16.0], "allowedABPAutomaticReset": 0,
        "devNonceCounterBased": 1, "maxRedundancyForConfirmedUL": 0, "permanentlyListening": 0,
    },
    "LORA/GenericA.1.1a_ETSI": {
        "regionalParameterVersion": "B", "macMaxTxEIRP": [16.0], "allowedABPAutomaticReset": 0,
        "devNonceCounterBased": 1, "maxRedundancyForConfirmedUL": 0, "permanentlyListening": 0,
    },
}  # fmt: skip
LORA_PROFILE_IDS = {
    "LORA/GenericA.1.0.2a_ETSI": ["0x00000001"],
    "LORA/GenericA.1.0.3a_ETSI": ["0x00000002"],
    "LORA/GenericA.1.0.4a_ETSI": ["0x00000003"],
    "ABEE/DEABE003-167EU.1.0.2b_ETSI_Rx2-SF12": ["0x02000001", "0x02000002"],
}


def _offered_files() -> dict[str, dict[str, object]]:
    """The newer version of each catalog the repository offers (new items only: an import
    adds and replaces, it removes nothing)."""
    base = {"format": CATALOG_FORMAT, "version": OFFERED, "languages": ["en", "fr", "de", "es"]}
    return {
        "deviceProfiles": base
        | {
            "catalog": "deviceProfiles",
            "vendors": [
                {
                    "ID": "milesight",
                    "commercialName": "Milesight",
                    "commercialDescription": "Environment sensors",
                    "loraVendorID": "0x0800",
                    "locals": {
                        "fr": {"commercialDescription": "Capteurs d'environnement"},
                        "de": {"commercialDescription": "Umweltsensoren"},
                        "es": {"commercialDescription": "Sensores ambientales"},
                    },
                }
            ],
            "profiles": [
                {
                    "ID": "MILE/AM307.1.0.4_ETSI",
                    "commercialName": "AM307 ambience monitor",
                    "vendorID": "milesight",
                    "macMinorVersion": 6,
                    "regionalParameterVersion": "E",
                    "defaultIsmBands": ["eu868"],
                    "loraProfileIDs": ["0x08000001"],
                    "locals": {
                        "fr": {"commercialName": "Moniteur d'ambiance AM307"},
                        "de": {"commercialName": "AM307 Raumklimamonitor"},
                        "es": {"commercialName": "Monitor de ambiente AM307"},
                    },
                },
                {
                    "ID": "MILE/EM300-TH.1.0.3_AS923",
                    "commercialName": "EM300 temperature",
                    "vendorID": "milesight",
                    "macMinorVersion": 5,
                    "regionalParameterVersion": "A",
                    "defaultIsmBands": ["as923"],
                    "uplinkDwellTime": 1,
                    "downlinkDwellTime": 1,
                    "locals": {
                        "fr": {"commercialName": "EM300 température"},
                        "de": {"commercialName": "EM300 Temperatur"},
                        "es": {"commercialName": "EM300 temperatura"},
                    },
                },
            ],
        },
        "baseStationProfiles": base
        | {
            "catalog": "baseStationProfiles",
            "vendors": [{"ID": "MILESIGHT", "commercialName": "Milesight"}],
            "baseStationProfiles": [
                {
                    "ID": "MILESIGHT_UG65",
                    "commercialName": "Milesight UG65",
                    "vendorID": "MILESIGHT",
                    "softwareType": "BASIC_STATION_LINUX",
                    "rfHardwareConfig": "S1_A1_B1",
                    "lrrSwVersions": [
                        {
                            "ID": "2.1.0",
                            "compatibilities": [
                                {"criteria": "FIRMWARE_VERSION", "value": "60.0.0.41"}
                            ],
                        }
                    ],
                },
            ],
        },
        "rfRegions": base
        | {
            "catalog": "rfRegions",
            "rfRegions": [
                {
                    "ID": "AU915_SB2",
                    "name": "AU915 sub-band 2",
                    "ismBand": "au915",
                    "commercialDescription": "Australia, channels 8-15",
                    "locals": {
                        "fr": {
                            "name": "AU915 sous-bande 2",
                            "commercialDescription": "Australie, canaux 8 à 15",
                        },
                        "de": {
                            "name": "AU915 Teilband 2",
                            "commercialDescription": "Australien, Kanäle 8-15",
                        },
                        "es": {
                            "name": "AU915 subbanda 2",
                            "commercialDescription": "Australia, canales 8 a 15",
                        },
                    },
                },
            ],
        },
    }


def seed_operator_catalogs(conn: sqlite3.Connection, now: int) -> None:
    vendors = sorted({(m[1], m[2]) for m in STATION_MODELS.values()})
    conn.executemany("INSERT OR IGNORE INTO bs_vendors (ref, name) VALUES (?, ?)", vendors)
    for ref, (name, vendor, _v, software, config) in STATION_MODELS.items():
        uid = store.write_bs_profile(
            conn,
            {"ID": ref, "commercialName": name, "vendor": vendor, "softwareType": software,
             "rfHardwareConfig": config},
            source="CATALOG",
        )  # fmt: skip
        for version, criteria, value in LRR_VERSIONS[software]:
            store.put_lrr_version(conn, uid, version, [{"criteria": criteria, "value": value}])
    conn.executemany(
        "INSERT OR IGNORE INTO rf_regions (ref, name, description, ism_band) VALUES (?, ?, ?, ?)",
        RF_REGIONS,
    )
    conn.executemany(
        "UPDATE device_vendors SET lora_vendor_id = ? WHERE ref = ?",
        [(v, k) for k, v in LORA_VENDOR_IDS.items()],
    )
    for ref, details in GENERIC_DETAILS.items():
        conn.execute(
            "UPDATE device_models SET details = ? WHERE ref = ?", (json.dumps(details), ref)
        )
    conn.executemany(
        "INSERT OR IGNORE INTO device_model_lora_ids (lora_id, model_id)"
        " SELECT ?, id FROM device_models WHERE ref = ?",
        [(lid, ref) for ref, ids in LORA_PROFILE_IDS.items() for lid in ids],
    )
    tables = {"dv": "device_vendors", "dp": "device_models", "rf": "rf_regions"}
    for kind in ("dv", "dp", "rf"):
        conn.executemany(
            "INSERT OR IGNORE INTO catalog_texts (kind, lang, item_id, name, description)"
            f" SELECT ?, ?, id, ?, ? FROM {tables[kind]} WHERE ref = ?",
            [(k, lang, n, d, ref) for (k, ref, lang), (n, d) in TEXTS.items() if k == kind],
        )
    conn.executemany(
        "INSERT OR IGNORE INTO catalog_versions (catalog, version, installed_at) VALUES (?, ?, ?)",
        [(kind, INSTALLED, now) for kind in ("deviceProfiles", "baseStationProfiles", "rfRegions")],
    )
    for kind, content in _offered_files().items():
        store.offer(conn, kind, OFFERED, json.dumps(content).encode())
