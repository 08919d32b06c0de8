"""What the platform answers about a station command, in words: the completion states, a
status endpoint's answer in a sentence, the values a station has now (`CurrentValues`, what
a command's dialog starts from) and the software each station runs."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from PySide6.QtCore import QObject, Signal

from ..api import APIError
from .forms import Rows
from .station_command_catalogue import StationRef, count_words

# --- what the platform answers, in words ----------------------------------------------------

COMPLETION_WORDS = {
    "PENDING": "Waiting for the station to take it",
    "PROCESSING": "The station is carrying it out",
    "COMPLETED": "Completed",
    "ERR_NOSTART": "The station did not start the command",
    "ERR_EXEC": "The command failed on the station",
    "ERR_NOEND": "The station did not report the end (no answer within 10 minutes)",
}
FAILED_COMPLETIONS = frozenset({"ERR_NOSTART", "ERR_EXEC", "ERR_NOEND"})
RF_CELL_WORDS = {
    0: "RF cell stopped",
    1: "Downlinks stopped, uplinks received",
    2: "RF cell started",
}


def value_of(obj: Any, name: str) -> Any:
    """A field of an answer: a mapping's key, a model's attribute (by its wire name or its
    snake_case name)."""
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    found = getattr(obj, name, None)
    if found is None:
        snake = "".join("_" + c.lower() if c.isupper() else c for c in name).lstrip("_")
        found = getattr(obj, snake, None)
    return found


def _when(ms: Any) -> str:
    if not isinstance(ms, int | float):
        return ""
    return datetime.fromtimestamp(ms / 1000).strftime("%Y-%m-%d %H:%M")


def result_words(status_name: str, status: Any) -> str:
    """What a status endpoint says, in a short sentence ('' when nothing useful). Secrets
    (fine-timestamp keys) are counted, never shown."""
    get = value_of
    if status_name == "rfcStatus":
        state = get(status, "rfcellState")
        return RF_CELL_WORDS.get(state, "RF cell state unknown (station disconnected)")
    if status_name == "scanRadioStatus":
        state = get(status, "rfScanState")
        return "A scan is in progress" if isinstance(state, int) and state > 0 else "No scan"
    if status_name == "swVersion":
        version = get(get(status, "version"), "version")
        return f"Running LRR {version}" if version else ""
    if status_name == "backupSwVersion":
        backup = get(status, "backup")
        version, date = get(backup, "version"), _when(get(backup, "date"))
        return f"Backup: LRR {version} of {date}" if version else ""
    if status_name == "systemUptime":
        since = _when(get(status, "lastsystemReboot"))
        return f"Up since {since}" if since else ""
    if status_name == "softwareUptime":
        since = _when(get(status, "lastReboot"))
        return f"Software running since {since}" if since else ""
    if status_name == "rfRegionStatus":
        region = get(status, "rfRegion")
        ident, version = get(region, "ID"), get(region, "version")
        return f"RF region {ident}, version {version}" if ident else ""
    if status_name == "locationStatus":
        where = get(status, "location")
        lat, lon = get(where, "latitude"), get(where, "longitude")
        kind = {1: "administrative", 2: "GPS"}.get(get(where, "type"), "unknown source")
        return f"Position {lat:.5f}, {lon:.5f} ({kind})" if lat is not None and lon else ""
    if status_name == "logStatus":
        level = get(status, "traceLevel")
        return "No trace" if level == 0 else f"Trace level {level}" if level is not None else ""
    if status_name == "antennasGainAndLossStatus":
        chains = get(status, "chains") or []
        parts = [
            f"{get(c, 'name') or get(c, 'index')}: {get(c, 'gain')} dBi, {get(c, 'cableLoss')} dB"
            for c in chains
        ]
        return "; ".join(parts)
    if status_name == "fineTimestampKeysStatus":
        boards = get(status, "fpgaBoards") or []
        return f"Keys of {count_words(len(boards), 'FPGA board', 'FPGA boards')} in place"
    return ""


# --- what a station has now, to start the form from -----------------------------------------

# The status endpoint whose answer fills a command's form for one station.
CURRENT_STATUS = {
    "updateLog": "logStatus",
    "updateRfRegion": "rfRegionStatus",
    "updateLocation": "locationStatus",
    "updateAntennasGainAndLoss": "antennasGainAndLossStatus",
    "upgrade": "availableLrrVersions",
    "downloadLrrVersion": "availableLrrVersions",
}


def _number_text(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return "" if value is None else str(value)


def values_from_status(command: str, status: Any) -> dict[str, Any]:
    """What a command's form starts from, read from the station's current status (the form's
    raw values: texts, or rows for a table). Secrets (fine-timestamp keys) never."""
    get = value_of
    if command == "updateLog":
        level = get(status, "traceLevel")
        return {"traceLevel": str(level)} if isinstance(level, int) else {}
    if command == "updateRfRegion":
        ident = get(get(status, "rfRegion"), "ID")
        return {"rfRegionID": ident} if ident else {}
    if command == "updateLocation":
        where = get(status, "location")
        kind = get(where, "type")
        values = {
            "adminLat": _number_text(get(where, "latitude")),
            "adminLon": _number_text(get(where, "longitude")),
            "adminAlt": _number_text(get(where, "altitude")),
        }
        if kind in (1, 2):
            values["locationType"] = str(kind)
        return {k: v for k, v in values.items() if v}
    if command == "updateAntennasGainAndLoss":
        rows = [
            {
                "index": _number_text(get(c, "index")),
                "gain": _number_text(get(c, "gain")),
                "cableLoss": _number_text(get(c, "cableLoss")),
            }
            for c in get(status, "chains") or []
        ]
        return {"chains": Rows(rows)} if rows else {}
    return {}


def versions_from_status(status: Any) -> list[str]:
    """The LRR versions a station may take (availableLrrVersions), newest first."""
    briefs = value_of(status, "briefs") or []
    versions = {str(v) for b in briefs if (v := value_of(b, "version"))}
    return sorted(versions, key=_version_key, reverse=True)


def _version_key(version: str) -> tuple[int, ...]:
    parts = []
    for part in version.replace("-", ".").split("."):
        if not part.isdigit():
            break
        parts.append(int(part))
    return tuple(parts)


class CurrentValues(QObject):
    """Reads what one station has now for the command a dialog shows (its log level, RF
    region, location, antennas, the versions it may take): `loaded(command, values,
    versions)`. A newer question drops the older one's answer."""

    loaded = Signal(str, dict, list)

    def __init__(self, admin: Any, bs_uid: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.admin = admin
        self.bs_uid = bs_uid
        self._task: asyncio.Future[Any] | None = None

    def ask(self, command: str) -> bool:
        """Start reading for `command`; False when it has nothing to read."""
        self.cancel()
        status = CURRENT_STATUS.get(command)
        if status is None or self.admin is None:
            return False
        self._task = asyncio.ensure_future(self._read(command, status))
        return True

    async def _read(self, command: str, status_name: str) -> None:
        try:
            status = await self.admin.status(self.bs_uid, status_name)
        except APIError:
            return  # the form starts empty; sending says what is wrong, if anything
        if status_name == "availableLrrVersions":
            self.loaded.emit(command, {}, versions_from_status(status))
        else:
            self.loaded.emit(command, values_from_status(command, status), [])

    def cancel(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
        self._task = None


async def software_types(client: Any, stations: Sequence[StationRef]) -> dict[str, str]:
    """The software (model.softwareType) each of `stations` runs, asked of the platform;
    a station it cannot tell is left out (the server judges at sending time)."""
    found: dict[str, str] = {}
    for station in stations:
        try:
            item = await client.stations.get(station.uid)
        except Exception:
            continue
        kind = value_of(value_of(item, "model"), "softwareType")
        if isinstance(kind, str):
            found[station.uid] = kind
    return found
