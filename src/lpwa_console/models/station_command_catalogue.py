"""The base station admin commands (Document 2 §4.3), as a catalogue: the stations a command
goes to, and for each command its family (one dialog per family), its parameters (a request
model of schema/station_admin.py, so a form checks the schema's rules), whether it disrupts
the station's service (a confirmation names the stations), which `lastCmdType` values report
it and which status endpoint describes its result; and what a run needs of the client."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from ..schema.common import RequestModel
from ..schema.station_admin import (
    AntennasGainAndLossCommand,
    CommandBody,
    FineTimestampKeysCommand,
    ScanRadioCommand,
    SupportPasswordChange,
    UpdateLocationCommand,
    UpdateLogCommand,
    UpdateRfRegionCommand,
    VersionCommand,
)
from .validation import validate

# --- the stations a command goes to ---------------------------------------------------------


@dataclass(frozen=True)
class StationRef:
    """A base station as the command dialogs name it: "North Tower (0A1B2C3D)".

    `software_type` (model.softwareType) when the caller knows it: the support password is
    for LRR_LINUX stations only. None: not known (the dialog reads the station)."""

    uid: str
    lrr_id: str
    name: str
    software_type: str | None = field(default=None, compare=False)

    @property
    def label(self) -> str:
        return f"{self.name} ({self.lrr_id})" if self.name else self.lrr_id


def stations_in_words(stations: Sequence[StationRef], limit: int = 8) -> str:
    """ "North Tower (0A1B2C3D), Harbour (0A1B2C3E) and 3 more"."""
    names = [s.label for s in stations[:limit]]
    more = len(stations) - len(names)
    if more > 0:
        return ", ".join(names) + f" and {more} more"
    return ", ".join(names)


def count_words(count: int, one: str = "station", many: str = "stations") -> str:
    return f"{count} {one if count == 1 else many}"


# --- the catalogue --------------------------------------------------------------------------

FAMILIES: dict[str, str] = {
    "power": "Restart, reboot and backup",
    "software": "Software",
    "radio": "Radio",
    "remote": "Remote access",
    "configuration": "Configuration updates",
    "support": "Support password",
}

# How an outcome is followed: through lastCmdStatus, through the command's own status
# endpoint, or not at all (the platform reports nothing more than its 201).
Follow = Literal["last_command", "status", "accepted"]


@dataclass(frozen=True)
class CommandSpec:
    name: str  # the path segment: /admins/{name}
    title: str  # "Reboot"
    family: str  # a key of FAMILIES
    help: str  # one sentence: what it does
    parameters: type[RequestModel] = CommandBody
    disruptive: str = ""  # what the station's users lose, for the confirmation ('' if nothing)
    command_types: tuple[str, ...] = ()  # lastCmdType values that report it
    follow: Follow = "last_command"
    status: str = ""  # the status endpoint that describes the result ('' none)
    done_words: str = "Done"  # the outcome in words when the status says nothing more
    timeout_s: float = 300.0
    lrr_only: bool = True  # LRR_LINUX stations only (the reference's condition)
    confirm: str = ""  # the confirmation's words, "{stations}" the count: "Reboot {stations}"

    @property
    def family_title(self) -> str:
        return FAMILIES[self.family]

    @property
    def has_parameters(self) -> bool:
        return bool(self.parameters.model_fields)


_MIN = 60.0
SUPPORT_PASSWORD = "changeSupportPassword"  # its own client method and dialog
COMMANDS: dict[str, CommandSpec] = {
    spec.name: spec
    for spec in (
        # --- restart, reboot, backup, restore ---------------------------------------------
        CommandSpec(
            "restart",
            "Restart the LRR software",
            "power",
            "Restarts the station's LRR software; the radio stops for a minute or so.",
            disruptive="its devices are not heard while the software restarts",
            command_types=("RESTART",),
            status="softwareUptime",
            done_words="Software restarted",
            confirm="Restart the LRR software of {stations}",
        ),
        CommandSpec(
            "reboot",
            "Reboot",
            "power",
            "Reboots the whole station; it disconnects and comes back after a few minutes.",
            disruptive="it disconnects and its devices are not heard until it is back",
            command_types=("REBOOT",),
            status="systemUptime",
            done_words="Rebooted",
            timeout_s=15 * _MIN,
            confirm="Reboot {stations}",
        ),
        CommandSpec(
            "backup",
            "Back up the configuration",
            "power",
            "Saves the current LRR software configuration, replacing the previous backup.",
            command_types=("BACKUP",),
            status="backupSwVersion",
            done_words="Configuration backed up",
        ),
        CommandSpec(
            "restore",
            "Restore the backup",
            "power",
            "Replaces the current LRR software configuration by the backup.",
            disruptive="its current configuration is replaced and the software restarts",
            command_types=("RESTORE",),
            status="backupSwVersion",
            done_words="Backup restored",
            timeout_s=15 * _MIN,
            confirm="Restore the backup on {stations}",
        ),
        # --- software -------------------------------------------------------------------
        CommandSpec(
            "downloadLrrVersion",
            "Download an LRR version",
            "software",
            "Fetches an LRR software package onto the station, ready for an upgrade.",
            VersionCommand,
            follow="accepted",
            done_words="Download requested",
        ),
        CommandSpec(
            "upgrade",
            "Upgrade the LRR software",
            "software",
            "Installs another LRR software version; the station restarts its software.",
            VersionCommand,
            disruptive="its software is replaced and restarts; an upgrade can fail",
            command_types=("UPGRADE",),
            status="swVersion",
            done_words="Upgraded",
            timeout_s=30 * _MIN,
            confirm="Upgrade the LRR software of {stations}",
        ),
        # --- radio ----------------------------------------------------------------------
        CommandSpec(
            "scanRadio",
            "Scan the radio spectrum",
            "radio",
            "Analyses the radio spectrum; a scan takes several minutes.",
            ScanRadioCommand,
            command_types=("RF_SCAN",),
            status="scanRadioStatus",
            done_words="Scan finished",
            timeout_s=60 * _MIN,
        ),
        CommandSpec(
            "cancelRadioScan",
            "Cancel the radio scan",
            "radio",
            "Stops a radio scan in progress; no report is made.",
            follow="status",
            status="scanRadioStatus",
            done_words="No scan in progress",
            timeout_s=5 * _MIN,
        ),
        CommandSpec(
            "rfcStart",
            "Start the RF cell",
            "radio",
            "Starts the radio cell: uplinks and downlinks.",
            command_types=("RF_START",),
            status="rfcStatus",
            done_words="RF cell started",
        ),
        CommandSpec(
            "rfcStop",
            "Stop the RF cell",
            "radio",
            "Stops the radio cell: no uplink and no downlink.",
            disruptive="its devices are neither heard nor reached until the cell starts again",
            command_types=("RF_STOP",),
            status="rfcStatus",
            done_words="RF cell stopped",
            confirm="Stop the RF cell of {stations}",
        ),
        CommandSpec(
            "rfcDownlinkStop",
            "Stop the downlinks",
            "radio",
            "Stops sending downlinks; uplinks are still received.",
            disruptive="its devices get no downlink until the cell starts again",
            command_types=("RF_DWSTOP",),
            status="rfcStatus",
            done_words="Downlinks stopped",
            confirm="Stop the downlinks of {stations}",
        ),
        CommandSpec(
            "updateRfRegion",
            "Change the RF region",
            "radio",
            "Applies another RF region (channels, power, duty cycle) to the station.",
            UpdateRfRegionCommand,
            disruptive="its radio restarts with other channels; devices may lose it",
            command_types=("UPDATE_RF_REGION",),
            status="rfRegionStatus",
            done_words="RF region applied",
            lrr_only=False,
            confirm="Change the RF region of {stations}",
        ),
        # --- remote access --------------------------------------------------------------
        CommandSpec(
            "openSsh",
            "Open a reverse SSH tunnel",
            "remote",
            "Opens a reverse SSH tunnel from the station for a remote session.",
            command_types=("SSH_OPEN",),
            done_words="Tunnel open",
        ),
        CommandSpec(
            "closeSsh",
            "Close the reverse SSH tunnel",
            "remote",
            "Closes the station's reverse SSH tunnel.",
            command_types=("SSH_CLOSE",),
            done_words="Tunnel closed",
        ),
        CommandSpec(
            "openTerminal",
            "Open a terminal session",
            "remote",
            "Opens a terminal session on the station (the platform issues an access token).",
            follow="accepted",
            done_words="Terminal session granted",
        ),
        # --- configuration updates ------------------------------------------------------
        CommandSpec(
            "updateAntennasGainAndLoss",
            "Update antenna gain and cable loss",
            "configuration",
            "Sends the gain and cable loss of each antenna chain to the station.",
            AntennasGainAndLossCommand,
            command_types=("UPDATE_ANTENNA_GAIN_AND_LOSS",),
            status="antennasGainAndLossStatus",
            done_words="Antennas updated",
        ),
        CommandSpec(
            "updateFineTimestampKeys",
            "Update fine-timestamp keys",
            "configuration",
            "Sends the fine-timestamp decryption key of each FPGA board to the station.",
            FineTimestampKeysCommand,
            command_types=("UPDATE_FINE_TS_KEYS",),
            status="fineTimestampKeysStatus",
            done_words="Keys updated",
        ),
        CommandSpec(
            "updateLocation",
            "Update the location",
            "configuration",
            "Sets where the station takes its position from: typed here, or its GPS.",
            UpdateLocationCommand,
            command_types=("LOCATION_ADMIN", "LOCATION_GPS"),
            status="locationStatus",
            done_words="Location updated",
            lrr_only=False,
        ),
        CommandSpec(
            "updateLog",
            "Change the log level",
            "configuration",
            "Sets how much the LRR software writes to its log.",
            UpdateLogCommand,
            command_types=("UPDATE_LOG",),
            status="logStatus",
            done_words="Log level changed",
        ),
        # --- support password -----------------------------------------------------------
        CommandSpec(
            "changeSupportPassword",
            "Change the support password",
            "support",
            "Sets the password of the support account used for remote sessions.",
            SupportPasswordChange,
            command_types=("CHANGE_SUPPORT_PASSWORD",),
            done_words="Support password changed",
        ),
    )
}


def command_spec(name: str) -> CommandSpec:
    """The spec of a command; KeyError for a name not in §4.3."""
    return COMMANDS[name]


def family_commands(family: str) -> list[CommandSpec]:
    return [spec for spec in COMMANDS.values() if spec.family == family]


def check_parameters(spec: CommandSpec, data: dict[str, Any]) -> dict[str, str]:
    """The schema's errors for a command's form data, by field ('' for the form as a
    whole), in words that name the field by its label."""
    _request, errors = validate(spec.parameters, data)
    return errors


def request_body(spec: CommandSpec, data: dict[str, Any]) -> RequestModel:
    """The validated request of a command for the form's data (ValueError otherwise): what
    a run sends to every station (a password stays a SecretStr inside it)."""
    return spec.parameters.model_validate(data)


def admin_of(client: Any) -> StationCommandClient | None:
    """The client's admin commands (`client.station_admin`), None when it has none."""
    return getattr(client, "station_admin", None) if client is not None else None


def confirmation_text(spec: CommandSpec, stations: Sequence[StationRef]) -> str:
    """ "Reboot 3 stations: North Tower (0A1B2C3D), ..."."""
    template = spec.confirm or spec.title + " on {stations}"
    return template.format(stations=count_words(len(stations))) + f": {stations_in_words(stations)}"


# --- who sends the commands -----------------------------------------------------------------


class StationCommandClient(Protocol):
    """What a run needs of the client (`client.station_admin`)."""

    async def command(self, bs_uid: str, name: str, params: Any) -> Any: ...

    async def change_support_password(self, bs_uid: str, change: Any) -> Any: ...

    async def status(self, bs_uid: str, name: str) -> Any: ...

    async def last_command_status(self, bs_uid: str) -> Any: ...
