"""The words of the API's fields, for people: one label per field, its unit, a line of help,
its values in words, and what kind of thing it is (a duration, another resource, an internal
the user never sees). Every form and detail view reads its labels here, so a field is called
the same everywhere; the API name stays available (tooltips) for people who script.

Keyed by the wire name, with per-model overrides where one name means different things
(`EUI` of a device or of a multicast group). A name with no entry gets a label made from its
camelCase (`pingSlotPeriod` -> "Ping slot period"), so nothing shows raw.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from types import MappingProxyType

from .durations import duration_words, format_duration

_NO_CHOICES: Mapping[str, str] = MappingProxyType({})

SEVERITY_WORDS: Mapping[str, str] = MappingProxyType(
    {
        "1": "Cleared",
        "2": "Indeterminate",
        "3": "Warning",
        "4": "Minor",
        "5": "Major",
        "6": "Critical",
    }
)


@dataclass(frozen=True)
class FieldWords:
    """What people read about one field."""

    label: str
    help: str = ""
    unit: str = ""  # shown after the input and the value: "s", "MHz", "°"
    # wire value -> words, in order (a factory: 3.11 refuses a mapping as a dataclass default)
    choices: Mapping[str, str] = field(default_factory=lambda: _NO_CHOICES)
    duration: bool = False  # an ISO 8601 duration: edited as a number and a unit
    hidden: bool = False  # an internal (optimistic concurrency version): never shown
    reference: str = ""  # the kind of resource it names (REFERENCE_NOUNS), picked by name
    expected: str = ""  # what a valid value looks like, for messages: "8 hexadecimal digits"

    def choice_words(self, value: object) -> str:
        """A value in words (the value itself when it has none)."""
        text = str(value)
        return self.choices.get(text, text)

    def with_unit(self, value: object, text: str) -> str:
        """`text`, the value as shown, with its unit: "868.1 MHz", "45.2°"; a number of
        seconds from two minutes up in words first: "16 hours 40 minutes (60,000 s)"."""
        if not self.unit or not text:
            return text
        if self.unit == "°":
            return f"{text}°"
        if self.unit == "s" and type(value) is int and value >= 120:
            words = duration_words(format_duration(timedelta(seconds=value)))
            return f"{words} ({value:,} s)"
        return f"{text} {self.unit}"


# The kinds of resource a field may name, in words (plural).
REFERENCE_NOUNS: Mapping[str, str] = MappingProxyType(
    {
        "deviceProfiles": "device models",
        "appServers": "application servers",
        "asTransportKeys": "AS transport keys",
        "networkContexts": "network contexts",
        "hsmGroups": "HSM groups",
        "routingProfiles": "AS routing profiles",
        "kmAsKeys": "AS keys",
        "serviceAccountGroups": "service account groups",
        "applicationFieldSets": "custom field sets of applications",
        "deviceFieldSets": "custom field sets of devices",
        "stationModels": "base station models",
    }
)


def _choices(**pairs: str) -> Mapping[str, str]:
    return MappingProxyType(dict(pairs))


# A device's and a base station's health in words: the one vocabulary of their lists, details,
# filters and forms (short enough for a table column).
DEVICE_HEALTH_WORDS = _choices(
    ACTIVE="Active",
    INIT="Init",
    RF_CNX_ERROR="RF error",
    SUSPENDED="Suspended",
    ERROR="Error",
    DEACTIVATED="Deactivated",
)
STATION_HEALTH_WORDS = _choices(
    INIT="Never communicated",
    ACTIVE="Active",
    BACKHAUL_CNX_ERROR="Backhaul error",
    RF_ERROR="RF error",
    SUSPENDED="Suspended",
)

# The accounts' roles (the sandbox's demo roles, a profile's kind of account) in words: a
# slug such as "subscriber-restricted" never reaches the user.
ROLE_WORDS: Mapping[str, str] = MappingProxyType(
    {
        "subscriber": "Subscriber",  # also the kind of a remote profile: no more said
        "subscriber-restricted": "Subscriber, restricted to some domains",
        "subscriber-viewer": "Subscriber, read only",
        "operator": "Operator",
        "supplier": "Device supplier",
        "partner": "Network partner",
        "partner-restricted": "Network partner, restricted",
    }
)


def role_words(role: str) -> str:
    """A role in words (one nobody named: its slug made readable)."""
    return ROLE_WORDS.get(role) or role.replace("-", " ").replace("_", " ").capitalize()


# The operator's queues (schema/operations.py) in words.
PROV_TYPE_WORDS = _choices(
    DEVICE="Device", BASE_STATION="Base station", ROUTING_PROFILE="Routing profile",
    SERVICE_PROFILE="Service profile", DEVICE_PROFILE="Device profile", HSM_GROUP="HSM group",
    BASE_STATION_GROUP="Base station group", FLEET="Fleet", NETWORK_CONTEXT="Network context",
    ENFORCEMENT_PROFILE="Enforcement profile", MICROFLOW_PROFILE="Microflow profile",
    RF_REGION="RF region",
)  # fmt: skip
PROV_ACTION_WORDS = _choices(
    CREATION="Creation", UPDATE="Update", DELETION="Deletion", ACTIVATION="Activation",
    DEACTIVATION="Deactivation",
)  # fmt: skip
SUB_SYSTEM_WORDS = _choices(
    LRC="LRC (LoRaWAN network core)", SPR="SPR (subscriber profiles)",
    HSS_SPR="HSS/SPR (cellular subscribers)", PGW="PGW (packet gateway)",
)  # fmt: skip
PROV_STATE_WORDS = _choices(PENDING="Waiting", DONE="Done")
COMMAND_STATE_WORDS = _choices(
    PENDING="Waiting", PROCESSING="Running", COMPLETED="Completed",
    ERR_NOSTART="Failed (not started)", ERR_EXEC="Failed (on the station)",
    ERR_NOEND="Failed (no end reported)",
)  # fmt: skip


# Shapes many fields share: a catalog flag written 0 or 1, a transmit power bound, an AS923
# dwell time, and one field's words given to sibling models (create and update, a request
# and its answer).
_NO_YES = _choices(**{"0": "No", "1": "Yes"})


def _yes_no(label: str, help: str = "") -> FieldWords:
    return FieldWords(label, help, choices=_NO_YES)


def _tx_power(label: str) -> FieldWords:
    return FieldWords(label, "Values from 0 to 36", unit="dBm")


def _dwell_time(label: str) -> FieldWords:
    return FieldWords(label, "AS923 only", choices=_choices(**{"0": "No limit", "1": "400 ms"}))


def _siblings(name: str, words: FieldWords, *models: str) -> dict[tuple[str, str], FieldWords]:
    return {(model, name): words for model in models}


_HEX16 = "16 hexadecimal digits"
_HEX32 = "32 hexadecimal digits"

# The LoRaWAN regional bands a station's `ismBand` names, in words (another ID reads as is).
ISM_BAND_WORDS = _choices(
    eu868="Europe 863-870 MHz", us915="US 902-928 MHz", as923="Asia 923 MHz",
    au915="Australia 915-928 MHz", kr920="Korea 920-923 MHz", in865="India 865-867 MHz",
    cn470="China 470-510 MHz", ru864="Russia 864-870 MHz", eu433="Europe 433 MHz",
)  # fmt: skip

FIELD_WORDS: Mapping[str, FieldWords] = MappingProxyType(
    {
        # --- devices and groups -------------------------------------------------------------
        "EUI": FieldWords("DevEUI", "The device's unique identifier", expected=_HEX16),
        "name": FieldWords("Name"),
        "connectivity": FieldWords(
            "Connectivity", choices=_choices(LORAWAN="LoRaWAN", CELLULAR="Cellular")
        ),
        "activation": FieldWords(
            "Activation",
            "How the device gets its session keys",
            choices=_choices(OTAA="Over the air (OTAA)", ABP="Personalised (ABP)"),
        ),
        "model": FieldWords(
            "Device model",
            "The device profile: radio parameters and LoRaWAN version of the device",
            reference="deviceProfiles",
        ),
        "nwAddress": FieldWords(
            "Network address (DevAddr)",
            "Given by the network at join for OTAA; set by you for ABP",
            expected="8 hexadecimal digits",
        ),
        "appEUI": FieldWords("Join server (JoinEUI/AppEUI)", expected=_HEX16),
        "appKey": FieldWords("Root key (AppKey)", "Secret: never shown again", expected=_HEX32),
        "appSKey": FieldWords(
            "Application session key (AppSKey)", "Secret: never shown again", expected=_HEX32
        ),
        "nwKey": FieldWords(
            "Network session key (NwkSKey)", "Secret: never shown again", expected=_HEX32
        ),
        "asTransportKey": FieldWords(
            "AS transport key",
            "Protects the keys sent to the application servers",
            reference="asTransportKeys",
        ),
        "hsmGroupID": FieldWords(
            "HSM group", "The hardware security module that holds the keys", reference="hsmGroups"
        ),
        "networkContextID": FieldWords(
            "Network context", "Cellular network settings (APN, PLMN)", reference="networkContexts"
        ),
        "appServers": FieldWords(
            "Application servers", "Where the device's data goes", reference="appServers"
        ),
        "appServersRoutingProfile": FieldWords("AS routing profile", reference="routingProfiles"),
        "imsi": FieldWords("SIM identity (IMSI)", expected="6 to 15 digits"),
        "iccid": FieldWords("SIM card number (ICCID)", expected="18 to 22 digits"),
        "eid": FieldWords("eSIM identity (EID)"),
        "lastIMEI": FieldWords("Last IMEI"),
        "tags": FieldWords("Tags", "Free words to find devices by"),
        "domains": FieldWords("Domains", "One domain per group, e.g. Site: France/Paris"),
        "group": FieldWords("Group"),
        "adminLat": FieldWords("Latitude", "Where the device is installed", unit="°"),
        "adminLon": FieldWords("Longitude", "Where the device is installed", unit="°"),
        "lat": FieldWords("Latitude", unit="°"),
        "lon": FieldWords("Longitude", unit="°"),
        "customerAdminData": FieldWords("Notes", "Free text, up to 1024 characters"),
        "healthState": FieldWords("Health", choices=DEVICE_HEALTH_WORDS),
        "alarmLevel": FieldWords(
            "Highest alarm severity", choices=MappingProxyType({"0": "None", **SEVERITY_WORDS})
        ),
        "alarmCount": FieldWords("Alarms"),
        "alarmsConfiguration": FieldWords("Alarm thresholds"),
        "creationDate": FieldWords("Created"),
        "lastUpTimestamp": FieldWords("Last uplink"),
        "lastDwTimestamp": FieldWords("Last downlink"),
        "firstDwTimestamp": FieldWords("First downlink"),
        "lastSF": FieldWords("Last spreading factor"),
        "lastRSSI": FieldWords("Last RSSI", unit="dBm"),
        "lastSNR": FieldWords("Last SNR", unit="dB"),
        "avgSNR": FieldWords("Average SNR", unit="dB"),
        "lastBatLevel": FieldWords("Battery", unit="%"),
        "lastFCntDn": FieldWords("Last downlink counter (FCntDn)"),
        "class": FieldWords(
            "Device class",
            choices=_choices(B="Class B (ping slots)", C="Class C (always listening)"),
        ),
        "downlinkDataRate": FieldWords(
            "Downlink data rate", "LoRaWAN data rate index, 0 to 15", unit="DR"
        ),
        "downlinkFrequency": FieldWords("Downlink frequency", "433 to 928", unit="MHz"),
        "pingSlotPeriod": FieldWords(
            "Ping slot period", "Class B: time between two receive slots, 1 to 128", unit="s"
        ),
        "networkSubscriptionID": FieldWords("Network subscription"),
        "networkSubscription": FieldWords("Network subscription"),
        "bss": FieldWords("Base stations"),
        "historyUpDaily": FieldWords("Uplink history"),
        "historyDwDaily": FieldWords("Downlink history"),
        "val": FieldWords("Counts per period, oldest first"),
        "multicastMaxLrrCells": FieldWords("Most base stations per group"),
        "communicationType": FieldWords(
            "Communication", choices=_choices(UNICAST="Unicast", MULTICAST="Multicast")
        ),
        # --- application servers ------------------------------------------------------------
        "type": FieldWords(
            "Type",
            choices=_choices(HTTP="HTTP", HTTP_CELLULAR="HTTP (cellular)", KAFKA="Kafka bus"),
        ),
        "scope": FieldWords(
            "Scope", choices=_choices(SUBSCRIPTION="Subscription", OPERATOR="Operator")
        ),
        "contentType": FieldWords(
            "Content type",
            "How uplinks are encoded",
            choices=_choices(xml="XML", json="JSON", jsontyped="JSON with types"),
        ),
        "destinations": FieldWords("Destinations", "Where the server receives the data"),
        "addresses": FieldWords("Addresses", "URLs or host:port, comma-separated"),
        "ports": FieldWords("Ports", "Device ports routed here, e.g. 1-10, 20"),
        "strategy": FieldWords(
            "Strategy",
            choices=_choices(SEQUENTIAL="First that answers", BLAST="All of them"),
        ),
        "brokerID": FieldWords("Kafka broker"),
        "topicName": FieldWords("Topic"),
        "customHttpHeaders": FieldWords("Custom HTTP headers"),
        "value": FieldWords("Value"),
        "downlinkSecurity": FieldWords("Downlink security"),
        "status": FieldWords(
            "Status",
            choices=_choices(
                DOWNLINK_AS_KEY="Signed with an AS key",
                NONE="None",
                ENABLE="Enabled",
                DISABLE="Disabled",
            ),
        ),
        "asID": FieldWords("AS identifier"),
        "downlinkAsKey": FieldWords("Downlink AS key", "Secret: never shown again"),
        "maxTimestampDeviation": FieldWords(
            "Maximum clock difference", "How old a signed downlink may be", unit="s"
        ),
        "flowMatcherTags": FieldWords("Flow matcher tags", "Comma-separated"),
        "state": FieldWords("State", choices=_choices(ACTIVE="Active", DEACTIVATED="Deactivated")),
        "validationState": FieldWords(
            "Validation",
            choices=_choices(
                VALIDATING="Being validated", VALIDATED="Validated", SUSPENDED="Suspended"
            ),
        ),
        "deviceCount": FieldWords("Devices"),
        "multicastGroupCount": FieldWords("Multicast groups"),
        # --- network resources --------------------------------------------------------------
        "ID": FieldWords("ID", "Letters, digits, dots, dashes or underscores; cannot change"),
        "apn": FieldWords("Access point name (APN)"),
        "plmnID": FieldWords("Operator network (PLMN ID)", "Country and network code, 5-6 digits"),
        "ipVersion": FieldWords(
            "IP version", choices=_choices(IPV4="IPv4", IPV6="IPv6", IPV4V6="IPv4 and IPv6")
        ),
        "description": FieldWords("Description"),
        "hsmExchangeKeyVersion": FieldWords("Exchange key version"),
        # --- the subscription -------------------------------------------------------------
        "showTagSuggestionsWhenDomainRestrictions": FieldWords(
            "Tag suggestions", "Whether users restricted to some domains get tag suggestions"
        ),
        "hsm": FieldWords(
            "HSM protection",
            "Whether OTAA root keys may be protected by a hardware security module",
            choices=_choices(ACTIVATED="Activated", DEACTIVATED="Deactivated"),
        ),
        # --- alarm 004 ----------------------------------------------------------------------
        "level": FieldWords("Severity", choices=SEVERITY_WORDS),
        "duration": FieldWords("After no uplink for", duration=True),
        # --- base stations and partners (Document 2 §2.4) --------------------------------------
        "lrrID": FieldWords(
            "LRR ID",
            "The base station's identifier; given by the platform when left empty",
            expected="8 hexadecimal digits, not 00000000, FFFE... or FFFF...",
        ),
        "lrrUUID": FieldWords("LRR UUID", expected="6 hexadecimal digits, '-', 2 to 48 more"),
        "cnxState": FieldWords(
            "Connection",
            choices=_choices(
                NEVERCNX="Never connected", CNX="Connected", DISC="Disconnected", UNKNOWN="Unknown"
            ),
        ),
        "cnxStateSince": FieldWords("Connection state since"),
        "rfProbe": FieldWords("RF probe", "Records the radio traffic the station hears"),
        "enabled": FieldWords("Enabled"),
        "ismBand": FieldWords(
            "ISM band",
            "The radio band the station works in, by its ID: eu868, us915, as923...",
            choices=ISM_BAND_WORDS,
            expected="a band ID such as eu868, us915, as923",
        ),
        "rfRegionID": FieldWords("RF region"),
        "bsSecurity": FieldWords("Backhaul security"),
        "contactInfo": FieldWords("Site contact"),
        "staticAddress": FieldWords("Static IP address"),
        "smn": FieldWords("Serial number (SMN)"),
        "rfCoverageType": FieldWords(
            "Coverage",
            choices=_choices(
                PERMANENT="Permanent",
                TEMPORARY_MOBILE="Temporary, mobile",
                TEMPORARY_STATIONARY="Temporary, stationary",
            ),
        ),
        "rfHardwareConfig": FieldWords(
            "RF hardware configuration",
            "Sectors, antennas and radio boards",
            choices=_choices(
                S1_A1_B1="1 sector, 1 antenna, 1 board",
                S1_A2_B1="1 sector, 2 antennas, 1 board",
                S1_A2_B2="1 sector, 2 antennas, 2 boards",
                S1_A1_B4="1 sector, 1 antenna, 4 boards",
                S3_A3_B3="3 sectors, 3 antennas, 3 boards",
            ),
        ),
        "gpsReceiverConfig": FieldWords(
            "GPS receiver", choices=_choices(PRESENT="Present", ABSENT="Absent")
        ),
        "alarm102": FieldWords(
            "Connection lost (alarm 102)",
            "At most one threshold; CRITICAL after 30 seconds by default",
        ),
        "alarm103": FieldWords(
            "No uplink (alarm 103)",
            "At most two thresholds; the second one longer and more severe",
        ),
        "severity": FieldWords("Severity", choices=SEVERITY_WORDS),
        "minRC": FieldWords("Lowest remaining capacity", unit="%"),
        "lastReboot": FieldWords("Last reboot"),
        "lastUpFrameDate": FieldWords("Last uplink"),
        "lastDwFrameDate": FieldWords("Last downlink"),
        "customVersion": FieldWords("Custom version"),
        "totalBaseStationsUsed": FieldWords("Base stations used"),
        "totalBaseStationsGranted": FieldWords("Base stations granted", "Empty: no limit"),
        # --- the key manager ----------------------------------------------------------------
        "homeNsNetID": FieldWords(
            "Home network (NetID)",
            "The home network server's NetID",
            expected="6 hexadecimal digits",
        ),
        "homeNsNSID": FieldWords("Home network server (NSID)", "Its IEEE EUI-64", expected=_HEX16),
        "hsmAppKeyVersion": FieldWords(
            "HSM AppKey version", "Set when the AppKey is wrapped with this HSM key (RFC 3394)"
        ),
        "hsmNwkKeyVersion": FieldWords(
            "HSM NwkKey version", "Set when the NwkKey is wrapped with this HSM key (RFC 3394)"
        ),
        "exchangeKeyVersion": FieldWords(
            "Exchange key version",
            "Set when the keys are RSA-encrypted with this exchange key; left empty, keys typed"
            " in clear are encrypted here with the platform's key before they are sent",
        ),
        "rsaPublicKey": FieldWords(
            "Owner's RSA public key (PEM)", "Encrypts the owner token of a pre-commissioned device"
        ),
        "tkmInfo": FieldWords("Secure element information", "Model, ':' and the element's data"),
        "lorawanVersion": FieldWords(
            "LoRaWAN version", choices=_choices(**{"1.0": "1.0", "1.1": "1.1"})
        ),
        "ownerID": FieldWords("Owner"),
        "ownerToken": FieldWords("Owner token", "Decrypted with the owner's private key"),
        "asKeyLabel": FieldWords("AS key label"),
        "asKeyWrapAlgo": FieldWords(
            "AppSKey wrap algorithm",
            "RFC 3394 only for a key an HSM group generates",
            choices=_choices(AES_CBC="AES-CBC", RFC_3394="RFC 3394 key wrap"),
        ),
        "hsmSecurity": FieldWords("HSM security"),
        "secureElement": FieldWords("Secure element"),
        # --- operator catalogs (Document 2 §2.2) --------------------------------------------
        "commercialName": FieldWords("Name", "The name people read, in the catalog's language"),
        "commercialDescription": FieldWords("Description"),
        "loraProfileIDs": FieldWords(
            "LoRa Alliance profile IDs",
            "The alliance's identifiers this profile covers",
            expected="comma-separated IDs",
        ),
        "loraVendorID": FieldWords(
            "LoRa Alliance vendor ID", "The identifier the LoRa Alliance gave the vendor"
        ),
        "defaultIsmBands": FieldWords(
            "ISM bands",
            "The bands the device works in (AS923 allows dwell times)",
            expected="band IDs such as eu868, as923",
        ),
        "typeMAC": FieldWords("MAC layer", "LoRaMAC for LoRaWAN devices"),
        "macMinorVersion": FieldWords(
            "LoRaWAN version",
            "1.0.4 and 1.1 force the ABP reset, DevNonce, redundancy and listening fields",
            choices=_choices(
                **{
                    "0": "LoRaWAN 0.9",
                    "3": "LoRaWAN 1.0.0 or 1.0.1",
                    "4": "LoRaWAN 1.0.2",
                    "5": "LoRaWAN 1.0.3",
                    "6": "LoRaWAN 1.0.4",
                    "10": "LoRaWAN 1.1",
                }
            ),
        ),
        "regionalParameterVersion": FieldWords(
            "Regional parameters",
            choices=_choices(
                A="Revision A",
                B="Revision B",
                C="Revision C",
                D="RP 2-1.0.1 (D)",
                E="RP 2-1.0.2 or 2-1.0.3 (E)",
            ),
        ),
        "canOperateAsRelay": _yes_no(
            "Can act as a relay", "Forwards frames between trusted devices and the network"
        ),
        "defaultRelayActivation": _yes_no("Relay on at boot"),
        "macNotifyNewEndDeviceReqExSupport": _yes_no(
            "Extended NotifyNewEndDeviceReq", "A proprietary relay MAC command"
        ),
        "macMaxTxEIRP": _tx_power("Max TX EIRP"),
        "macMaxTxPower": _tx_power("Max TX power"),
        "macMinTxEIRP": _tx_power("Min TX EIRP"),
        "macMinTxPower": _tx_power("Min TX power"),
        "downlinkDwellTime": _dwell_time("Downlink dwell time"),
        "uplinkDwellTime": _dwell_time("Uplink dwell time"),
        "allowedABPAutomaticReset": _yes_no("ABP automatic reset allowed"),
        "devNonceCounterBased": _yes_no(
            "DevNonce is a counter", "The network then uses it to detect replayed joins"
        ),
        "maxRedundancyForConfirmedUL": FieldWords(
            "Max redundancy of confirmed uplinks", "0: as many as for unconfirmed ones"
        ),
        "permanentlyListening": _yes_no("Permanently listening (deprecated)"),
        "motionModelIndicator": FieldWords("Motion", "The node's highest speed"),
        "mtcLteCategory": FieldWords(
            "LTE-M / NB-IoT category",
            choices=_choices(
                CAT_M1="LTE-M (Cat-M1)",
                CAT_NB1="NB-IoT (Cat-NB1)",
                CAT_M2="LTE-M (Cat-M2)",
                CAT_NB2="NB-IoT (Cat-NB2)",
            ),
        ),
        "softwareType": FieldWords(
            "Software",
            choices=_choices(
                LRR_LINUX="LRR on Linux",
                BASIC_STATION_LINUX="Basic Station on Linux",
                LRR_FREERTOS="LRR on FreeRTOS",
            ),
        ),
        "catalogVersion": FieldWords("Catalog version"),
        "source": FieldWords(
            "Source", choices=_choices(CATALOG="From the catalog", CUSTOM="Created by the operator")
        ),
        # --- internals ----------------------------------------------------------------------
        "occContext": FieldWords("Version", hidden=True),
        "href": FieldWords("Address", hidden=True),
        "ref": FieldWords("Reference", hidden=True),
        "now": FieldWords("Server time", hidden=True),
    }
)

# Where one wire name means something else in one model: (model class name, wire name).

# A product's inventory status (Document 2 §3), in words; OUT_STOCK is a list filter only.
STOCK_WORDS: Mapping[str, str] = MappingProxyType(
    {
        "IN_STOCK": "In stock",
        "P7D": "Out of stock for 7 days",
        "P15D": "Out of stock for 15 days",
        "P1M": "Out of stock for a month",
        "RESTOCKING": "Restocking",
        "SOLD_OUT": "Sold out",
    }
)
_SKU = FieldWords("SKU", "Stock keeping unit: the reference orders and invoices use")
_STOCK = FieldWords("Stock", "Units available; for a device with versions, set per version")
_STATUS = FieldWords("Availability", choices=STOCK_WORDS)
_CFS = FieldWords("Custom field set", "The set of custom fields this item fills")
_CUSTOM = FieldWords("Custom fields", "Values of the custom field set's fields, by name")
_SUPPLIER_WORDS: dict[tuple[str, str], FieldWords] = {
    **{
        (model, name): words
        for model in (
            "_Sellable",
            "_ApplicationWritable",
            "_OptionWritable",
            "_ProductWritable",
            "_VersionWritable",
            "ProductVersion",
            "Supplier",
            "SupplierUpdate",
            "OrderProduct",
        )
        for name, words in (
            ("SKU", _SKU),
            ("stock", _STOCK),
            ("status", _STATUS),
            ("customFieldSet", _CFS),
            ("customFields", _CUSTOM),
        )
    },
    ("ApplicationBrief", "state"): FieldWords("State", choices=_choices(ACTIVE="Active")),
    **_siblings(
        "upfrontPrice",
        FieldWords("Price", "Price per unit, paid once"),
        "_Sellable",
        "_ProductWritable",
    ),
    ("ProductBrief", "versionCount"): FieldWords("Versions"),
    ("ProductBrief", "vendor"): FieldWords("Vendor"),
    **_siblings("pricePlan", FieldWords("Price plan"), "_ProductWritable", "Product"),
    ("ServiceAccount", "ID"): FieldWords("Client ID", "What the service account signs in with"),
    ("ServiceAccount", "secretDate"): FieldWords("Secret made"),
    ("ServiceAccount", "group"): FieldWords("Group"),
    ("GroupInput", "ID"): FieldWords("Group ID"),
    ("CustomFieldSetRef", "ID"): FieldWords("Custom field set ID"),
    ("SupplierModule", "authentication"): FieldWords(
        "Authentication", choices=_choices(SMP="SMP", OIDC="OpenID Connect (OIDC)")
    ),
    ("ManifestPermissionInput", "mandatory"): FieldWords(
        "Mandatory", "The application cannot run without it"
    ),
    ("OrderShippingMode", "supplierUpfrontTax"): FieldWords("Shipping tax (supplier)"),
    ("OrderProduct", "upfrontTax"): FieldWords("Tax per unit"),
    ("OrderProduct", "pricePlanVersion"): FieldWords("Price plan version"),
    **_siblings(
        "group",
        FieldWords(
            "Group", "The service account group it belongs to", reference="serviceAccountGroups"
        ),
        "ServiceAccountCreate",
        "ServiceAccountUpdate",
    ),
    ("_ApplicationWritable", "customFieldSet"): FieldWords(
        "Custom field set",
        "The set of custom fields this item fills",
        reference="applicationFieldSets",
    ),
    ("_ProductWritable", "customFieldSet"): FieldWords(
        "Custom field set",
        "The set of custom fields this item fills",
        reference="deviceFieldSets",
    ),
    ("ProductFilter", "minUpfrontPrice"): FieldWords("Price from"),
    ("ProductFilter", "maxUpfrontPrice"): FieldWords("Price to"),
    ("ProductFilter", "minStock"): FieldWords("Stock from"),
    ("ProductFilter", "maxStock"): FieldWords("Stock to"),
}

# A station's backhaul protection (`bsSecurity.type`).
_SECURITY_WORDS = _choices(IPSEC_X509="IPsec with X.509 certificates", DISABLE="None")

MODEL_WORDS: Mapping[tuple[str, str], FieldWords] = MappingProxyType(
    {
        # --- base station configuration (schema/stations.py) -----------------------------
        ("RfProbeSetting", "enabled"): FieldWords("RF probe on"),
        ("_StationWritable", "state"): FieldWords(
            "Admin state",
            choices=_choices(
                INIT="Init", VALIDATING="Validating", ACTIVE="Active", SUSPENDED="Suspended"
            ),
        ),
        ("_StationWritable", "alarmsConfiguration"): FieldWords(
            "Alarm thresholds",
            "Connection lost (102): at most 1; no uplink activity (103): at most 2, the"
            " second longer and more severe",
        ),
        ("MulticastGroupCreate", "EUI"): FieldWords(
            "Group EUI", "The multicast group's identifier", expected=_HEX16
        ),
        ("MulticastGroupCreate", "nwAddress"): FieldWords(
            "Group network address (McAddr)", expected="8 hexadecimal digits"
        ),
        ("_MulticastGroupFields", "EUI"): FieldWords("Group EUI"),
        ("_MulticastGroupFields", "nwAddress"): FieldWords("Group network address (McAddr)"),
        ("Domain", "name"): FieldWords("Domain", "Parts separated by /, e.g. France/Paris"),
        ("CustomHttpHeaderRequest", "name"): FieldWords("Header"),
        ("AppServerCreate", "name"): FieldWords("Name", "Required"),
        # --- operator operations (schema/operations.py) --------------------------------
        ("ProvisioningQueueItem", "type"): FieldWords("What", choices=PROV_TYPE_WORDS),
        ("ProvisioningQueueItem", "action"): FieldWords("Action", choices=PROV_ACTION_WORDS),
        ("ProvisioningQueueItem", "subSystem"): FieldWords("Subsystem", choices=SUB_SYSTEM_WORDS),
        ("ProvisioningQueueItem", "state"): FieldWords("State", choices=PROV_STATE_WORDS),
        ("ProvisioningQueueItem", "entityID"): FieldWords(
            "Concerns", "The DevEUI or IMEI, LRR ID, or profile or group ID"
        ),
        ("ProvisioningQueueItem", "entityUID"): FieldWords("Its UID"),
        ("ProvisioningQueueItem", "lastUpdateTimestamp"): FieldWords("Last change"),
        ("CommandQueueItem", "type"): FieldWords("Command type"),
        ("CommandQueueItem", "command"): FieldWords("Sent as"),
        ("CommandQueueItem", "state"): FieldWords("State", choices=COMMAND_STATE_WORDS),
        **_siblings(
            "creationTimestamp", FieldWords("Queued"), "ProvisioningQueueItem", "CommandQueueItem"
        ),
        ("CommandQueueItem", "startTimestamp"): FieldWords("Started"),
        ("CommandQueueItem", "endTimestamp"): FieldWords("Ended"),
        ("CommandQueueItem", "data"): FieldWords("Command data"),
        ("CommandQueueItem", "completionData"): FieldWords("Result data"),
        ("CommandQueueItem", "who"): FieldWords("Sent by"),
        ("OperatorDevice", "imei"): FieldWords("IMEI (first 14 digits)"),
        ("OperatorDevice", "devAddr"): FieldWords("Address", "LoRaWAN DevAddr or cellular IP"),
        ("OperatorDevice", "lorawanDebug"): FieldWords("LoRaWAN debugging"),
        ("OperatorDevice", "lorawanDebugSince"): FieldWords("LoRaWAN debugging changed"),
        ("SimCard", "creationTimestamp"): FieldWords("Since"),
        ("SimCard", "IMEI"): FieldWords("Device IMEI"),
        ("OperatorHsmGroupCreate", "ID"): FieldWords(
            "HSM group ID", "Letters, digits, . _ -, at most 40; it cannot change later"
        ),
        ("OperatorHsmGroupCreate", "subscriberID"): FieldWords(
            "Subscriber ID", "The subscription whose devices' keys this group protects"
        ),
        ("OperatorHsmGroupCreate", "hsmNwkKeyVersion"): FieldWords(
            "First network key version", "Leave empty for <ID>-nwk-v1"
        ),
        ("OperatorHsmGroupUpdate", "hsmNwkKeyVersion"): FieldWords(
            "Network key version",
            "A version the group has becomes current again; a new one makes the HSM generate"
            " a new network key",
        ),
        # --- base station commands (schema/station_admin.py) --------------------------
        ("VersionCommand", "version"): FieldWords(
            "LRR software version", "The version to fetch or install, e.g. 2.2.64"
        ),
        ("ScanRadioCommand", "frequency"): FieldWords(
            "Frequencies to scan", "Leave empty to scan the station's whole band"
        ),
        ("FrequencyRange", "start"): FieldWords("From", "First frequency scanned", unit="MHz"),
        ("FrequencyRange", "stop"): FieldWords("To", "Last frequency scanned", unit="MHz"),
        ("FrequencyRange", "step"): FieldWords("Step", "Width of each step", unit="kHz"),
        ("UpdateRfRegionCommand", "rfRegionID"): FieldWords(
            "RF region", "The RF region's provisioning ID: letters, digits, . _ -, at most 32"
        ),
        ("AntennasGainAndLossCommand", "chains"): FieldWords(
            "Antenna chains", "Gain and cable loss of each antenna chain"
        ),
        ("AntennaChain", "index"): FieldWords("Chain", "Antenna chain index, from 0"),
        ("AntennaChain", "gain"): FieldWords("Gain", unit="dBi"),
        ("AntennaChain", "cableLoss"): FieldWords("Cable loss", unit="dB"),
        ("FineTimestampKeysCommand", "fpgaBoards"): FieldWords(
            "FPGA boards", "The fine-timestamp decryption key of each board"
        ),
        ("FpgaBoardKey", "index"): FieldWords("Board", "FPGA board index, from 0"),
        ("FpgaBoardKey", "key"): FieldWords(
            "Decryption key", "AES 128 key: secret, never shown again", expected=_HEX32
        ),
        ("UpdateLocationCommand", "locationType"): FieldWords(
            "Location source",
            "Where the station takes its position from",
            choices=_choices(**{"1": "Administrative (typed here)", "2": "GPS"}),
        ),
        ("UpdateLocationCommand", "adminLat"): FieldWords(
            "Latitude", "Required for an administrative location", unit="°"
        ),
        ("UpdateLocationCommand", "adminLon"): FieldWords(
            "Longitude", "Required for an administrative location", unit="°"
        ),
        ("UpdateLocationCommand", "adminAlt"): FieldWords("Altitude", unit="m"),
        ("UpdateLogCommand", "traceLevel"): FieldWords(
            "Trace level",
            "How much the LRR software writes to its log",
            choices=_choices(
                **{"0": "No trace", "1": "Level 1", "2": "Level 2", "3": "Level 3 (most)"}
            ),
        ),
        ("SupportPasswordChange", "password"): FieldWords(
            "New support password", "Secret: never shown, logged or kept"
        ),
        ("ModelRef", "ID"): FieldWords(
            "Model",
            "What kind of base station it is; cannot change later",
            reference="stationModels",
        ),
        ("ModelRef", "ismBands"): FieldWords(
            "Model's ISM bands", "The ISM bands of the model this station uses (IDs)"
        ),
        ("BaseStationCreate", "model"): FieldWords(
            "Base station model", "The station's make and model, from the operator's catalog"
        ),
        ("BaseStationCreate", "lrrID"): FieldWords(
            "LRR ID",
            "The base station's identifier, on its label; allocated by the network when left"
            " empty. It cannot change later",
            expected="8 hexadecimal digits, not 00000000, FFFE... or FFFF...",
        ),
        ("_StationWritable", "name"): FieldWords("Name", "The LRR ID stands for it when empty"),
        ("_StationFields", "model"): FieldWords("Base station model"),
        ("_StationFields", "healthState"): FieldWords("Health", choices=STATION_HEALTH_WORDS),
        ("_StationFields", "version"): FieldWords("Software version"),
        **_siblings(
            "type",
            FieldWords("Protection", choices=_SECURITY_WORDS),
            "BsSecurityRequest",
            "BsSecurity",
        ),
        **_siblings(
            "duration", FieldWords("After", duration=True), "AlarmThreshold", "AlarmThresholdView"
        ),
        ("_KeyFields", "asKey"): FieldWords(
            "AS key",
            "Protects the device's AppSKeys to its application server",
            reference="kmAsKeys",
        ),
        ("_KeyFields", "nwkKey"): FieldWords(
            "Network root key (NwkKey)", "LoRaWAN 1.1 only; secret", expected=_HEX32
        ),
        ("KmDeviceCreate", "state"): FieldWords(
            "State",
            "Pre-commissioned: to be claimed by its owner; otherwise commissioned when a home"
            " network is set",
            choices=_choices(
                PRE_COMMISSIONED="Pre-commissioned", GENERIC="Generic", COMMISSIONED="Commissioned"
            ),
        ),
        ("KmAsKeyCreate", "ID"): FieldWords("ID"),
        ("KmClaim", "EUI"): FieldWords("DevEUI", expected=_HEX16),
        # --- the supplier interface -----------------------------------------------------------
        **_SUPPLIER_WORDS,
    }
)


def words_from_name(name: str) -> str:
    """A label from a camelCase API name: `pingSlotPeriod` -> "Ping slot period"; the last
    part of a dotted path only; acronyms kept (`plmnID` -> "Plmn ID")."""
    leaf = name.rsplit(".", 1)[-1]
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", leaf)
    words = [w if w.isupper() and len(w) > 1 else w.lower() for w in spaced.split()]
    text = " ".join(words)
    return text[:1].upper() + text[1:]


def field_words(name: str, model: type | str | None = None) -> FieldWords:
    """The words of field `name` (wire name) of `model` (a class, or its name): the model's
    own (or a base class's) override first, then the field's, then words from the name."""
    names: list[str] = []
    if isinstance(model, str):
        names = [model]
    elif model is not None:
        names = [klass.__name__ for klass in model.__mro__]
    for model_name in names:
        found = MODEL_WORDS.get((model_name, name))
        if found is not None:
            return found
    return FIELD_WORDS.get(name) or FieldWords(words_from_name(name))


def code_words(code: str) -> str:
    """A platform code nobody named in words, made readable: "ACTIVE" -> "Active",
    "NOT_STARTED" -> "Not started" (a list never shows the code itself)."""
    if not code or not code.replace("_", "").isupper():
        return code
    return code.replace("_", " ").lower().capitalize()


def value_words(name: str, value: object, model: type | str | None = None) -> str:
    """A field's value as a list or a detail shows it: its choice's words, else the code
    made readable ('' for None)."""
    if value is None:
        return ""
    words = field_words(name, model)
    text = str(value)
    return words.choices[text] if text in words.choices else code_words(text)


def label_of(name: str, model: type | str | None = None) -> str:
    return field_words(name, model).label


def is_hidden(name: str) -> bool:
    """An internal no form or detail shows (a dotted path inside one is hidden too)."""
    return any(field_words(part).hidden for part in name.split("."))
