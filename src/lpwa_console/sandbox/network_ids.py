"""The sandbox network's identifiers, as the reference's answers carry them."""

from __future__ import annotations

# The operator's LoRaWAN NetID: its devices' (roaming or not) and its base stations'. The key
# manager's demo devices name it as their home network (demo_km.HOME_NET_ID).
NET_ID = "000013"
