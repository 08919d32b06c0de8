"""Where "Show on map" goes: a place and, when known, the device or base station there.

The navigator carries a pane's item as text; the map's is "lat,lon" or "lat,lon,kind:id"
(kind `device` with its EUI, `station` with its LRR ID). Stdlib only: every pane with a
"Show on map" imports it, the map itself only when first shown.
"""

from __future__ import annotations

from dataclasses import dataclass

DEVICE, STATION = "device", "station"


@dataclass(frozen=True)
class MapPlace:
    lat: float
    lon: float
    kind: str = ""  # DEVICE, STATION or '' (a bare place)
    ident: str = ""  # the device's EUI, the station's LRR ID

    def item(self) -> str:
        """The navigator's item text for this place."""
        where = f"{self.lat},{self.lon}"
        return f"{where},{self.kind}:{self.ident}" if self.kind and self.ident else where

    @classmethod
    def parse(cls, text: str | None) -> MapPlace | None:
        parts = (text or "").split(",", 2)
        if len(parts) < 2:
            return None
        try:
            lat, lon = float(parts[0]), float(parts[1])
        except ValueError:
            return None
        kind, _, ident = parts[2].partition(":") if len(parts) == 3 else ("", "", "")
        if kind not in (DEVICE, STATION) or not ident:
            kind = ident = ""
        return cls(lat, lon, kind, ident)


def device_place(lat: float, lon: float, eui: str) -> str:
    return MapPlace(lat, lon, DEVICE, eui).item()


def station_place(lat: float, lon: float, lrr_id: str) -> str:
    return MapPlace(lat, lon, STATION, lrr_id).item()
