"""Migration steps that give answers what the public 7.3 reference requires
(docs/reference-conformance.md)."""

from __future__ import annotations

import json

# The subscription and the partner answer an `occContext` (version, last update, who), as a
# device or a station does: a PUT moves it on. Existing rows start at version 0, last
# updated at their creation, by their own name.
V_OCC_CONTEXTS = """
ALTER TABLE subscriptions ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
ALTER TABLE subscriptions ADD COLUMN last_update INTEGER;
ALTER TABLE subscriptions ADD COLUMN who TEXT;
UPDATE subscriptions SET last_update = creation_ts, who = name;
ALTER TABLE partners ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
ALTER TABLE partners ADD COLUMN last_update INTEGER;
ALTER TABLE partners ADD COLUMN who TEXT;
UPDATE partners SET last_update = creation_ts, who = name;
"""

# The traffic regulation of the demo's LoRaWAN unicast network subscription, which the
# reference requires beside its rates (bucket sizes and what happens above them).
NETWORK_SUBSCRIPTION_REGULATION: dict[str, object] = {
    "uplinkBucketSize": 12, "uplinkRegulatorPolicy": "DROP",
    "downlinkBucketSize": 2, "downlinkRegulatorPolicy": "DROP",
}  # fmt: skip
# What the demo's network subscriptions lacked of the reference's required fields. Written
# literally here: the step below (shipped, never edited) fills them in databases made before.
NETWORK_SUBSCRIPTION_BACKFILL: dict[str, dict[str, object]] = {
    "ns-lora-unicast": NETWORK_SUBSCRIPTION_REGULATION,
    "ns-lora-multicast": {
        "supplier": {"ID": "acme-net", "commercialName": "Acme"},
        "uplinkRate": 0, "uplinkRateUnit": "DAY", "uplinkBucketSize": 0,
        "uplinkRegulatorPolicy": "DROP", "downlinkTransmission": True, "downlinkRate": 24,
        "downlinkRateUnit": "DAY", "downlinkBucketSize": 4, "downlinkRegulatorPolicy": "DROP",
        "maxDestinationPerRoute": 5, "nwGeolocalization": False,
    },
    "ns-cellular": {
        "supplier": {"ID": "acme-lte", "commercialName": "Acme LTE-M"},
        "uplinkRate": 1440, "uplinkRateUnit": "DAY", "uplinkBucketSize": 60,
        "uplinkRegulatorPolicy": "DROP", "downlinkTransmission": True, "downlinkRate": 144,
        "downlinkRateUnit": "DAY", "downlinkBucketSize": 10, "downlinkRegulatorPolicy": "DROP",
        "maxDestinationPerRoute": 3, "nwGeolocalization": False,
    },
}  # fmt: skip
# The stored body keeps what it has (json_patch: the body overrides the backfill).
V_NETWORK_SUBSCRIPTION_FIELDS = "\n".join(
    "UPDATE network_subscriptions SET body = json_patch("
    f"'{json.dumps(fields, sort_keys=True)}', body) WHERE ref = '{ref}';"
    for ref, fields in sorted(NETWORK_SUBSCRIPTION_BACKFILL.items())
)
