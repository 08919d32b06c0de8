"""Remote administration of a base station (Document 2 §4.3): the 19 commands, the support
password, the admin settings, the last command's status and the status readings a command
dialog follows (`/partners/mine/bss/{bsUid}/admins/...`).

Every command body of the reference carries `occContext`, deprecated by Document 2: it is
accepted and ignored (read-only here), as the deprecated `force` query parameter is.
"""

from __future__ import annotations

import re
from typing import ClassVar, Literal

from pydantic import Field, SecretStr, field_validator, model_validator

from .common import ApiModel, RequestModel

OCC = frozenset({"occContext"})

CompletionStatus = Literal["COMPLETED", "ERR_NOSTART", "ERR_EXEC", "ERR_NOEND"]
CommandStatus = Literal[
    "PENDING", "PROCESSING", "COMPLETED", "ERR_NOSTART", "ERR_EXEC", "ERR_NOEND"
]
VersionStatus = Literal["OUTDATED", "UPTODATE", "DEPRECATED"]
# The command types lastCmdStatus reports (the reference's list plus CHANGE_SUPPORT_PASSWORD,
# Document 2 §4.3).
CommandType = Literal[
    "UPGRADE", "RF_START", "RF_STOP", "RF_DWSTOP", "REBOOT", "RESTART", "SSH_OPEN", "SSH_CLOSE",
    "BACKUP", "RESTORE", "RF_SCAN", "LOCATION_ADMIN", "LOCATION_GPS", "UPDATE_RF_REGION",
    "UPDATE_ANTENNA_GAIN_AND_LOSS", "UPDATE_FINE_TS_KEYS", "UPDATE_LOG", "CHANGE_SUPPORT_PASSWORD",
]  # fmt: skip
FINISHED: frozenset[str] = frozenset({"COMPLETED", "ERR_NOSTART", "ERR_EXEC", "ERR_NOEND"})

_VERSION = re.compile(r"[0-9]+(\.[0-9]+){1,3}([-_.][0-9A-Za-z]+)*")


# --- command bodies ----------------------------------------------------------------------------


class CommandBody(RequestModel):
    """A command without parameters (reboot, restart, backup, ...)."""

    read_only_fields: ClassVar[frozenset[str]] = OCC


class VersionCommand(CommandBody):
    """upgrade and downloadLrrVersion: the LRR software version to install or fetch."""

    version: str = Field(min_length=1, max_length=40)

    @field_validator("version")
    @classmethod
    def _version(cls, v: str) -> str:
        if not _VERSION.fullmatch(v):
            raise ValueError("version: a software version such as 2.4.18")
        return v


class FrequencyRange(RequestModel):
    """The band a radio scan covers: MHz from start to stop, in steps of `step` kHz."""

    start: float = Field(gt=0, le=6000)
    stop: float = Field(gt=0, le=6000)
    step: float = Field(gt=0, le=10_000)

    @model_validator(mode="after")
    def _ordered(self) -> FrequencyRange:
        if self.stop < self.start:
            raise ValueError("stop: the last frequency must not be below the first (start)")
        if (self.stop - self.start) * 1000 / self.step > 100_000:
            raise ValueError("step: more than 100,000 frequencies to scan; use a wider step")
        return self


class ScanRadioCommand(CommandBody):
    frequency: FrequencyRange | None = None


class AntennaChain(RequestModel):
    index: int = Field(ge=0, le=63)
    gain: float = Field(ge=-30, le=30, description="dBi")
    cableLoss: float = Field(ge=0, le=30, description="dB")


class AntennasGainAndLossCommand(CommandBody):
    chains: list[AntennaChain] = Field(min_length=1, max_length=64)

    @field_validator("chains")
    @classmethod
    def _distinct(cls, v: list[AntennaChain]) -> list[AntennaChain]:
        if len({c.index for c in v}) != len(v):
            raise ValueError("chains: each antenna chain index once")
        return v


class FpgaBoardKey(RequestModel):
    index: int = Field(ge=0, le=63)
    key: str = Field(pattern=r"^[0-9A-Fa-f]{32}$", description="AES-128 key, 32 hex digits")

    @field_validator("key")
    @classmethod
    def _upper(cls, v: str) -> str:
        return v.upper()


class FineTimestampKeysCommand(CommandBody):
    fpgaBoards: list[FpgaBoardKey] = Field(min_length=1, max_length=64)

    @field_validator("fpgaBoards")
    @classmethod
    def _distinct(cls, v: list[FpgaBoardKey]) -> list[FpgaBoardKey]:
        if len({b.index for b in v}) != len(v):
            raise ValueError("fpgaBoards: each board index once")
        return v


LOCATION_ADMINISTRATIVE, LOCATION_GPS = 1, 2


class UpdateLocationCommand(CommandBody):
    """locationType 1: the administrative position given (adminLat/adminLon needed);
    2: the GPS's (the administrative fields are then ignored)."""

    locationType: int = Field(ge=1, le=2)
    adminLat: float | None = Field(default=None, ge=-90, le=90)
    adminLon: float | None = Field(default=None, ge=-180, le=180)
    adminAlt: int | None = Field(default=None, ge=-500, le=10_000)

    @model_validator(mode="after")
    def _admin_position(self) -> UpdateLocationCommand:
        if self.locationType == LOCATION_ADMINISTRATIVE:
            missing = [n for n in ("adminLat", "adminLon") if getattr(self, n) is None]
            if missing:
                raise ValueError(f"{missing[0]}: needed for an administrative location")
        return self


class UpdateLogCommand(CommandBody):
    traceLevel: int = Field(ge=0, le=3, description="0: no trace .. 3")


class UpdateRfRegionCommand(CommandBody):
    rfRegionID: str = Field(min_length=1, max_length=32, pattern=r"^[a-zA-Z0-9_.-]+$")


# name -> (lastCmdType, body model, disruptive: the station stops serving for a while)
COMMANDS: dict[str, tuple[str, type[CommandBody], bool]] = {
    "backup": ("BACKUP", CommandBody, False),
    "cancelRadioScan": ("RF_SCAN", CommandBody, False),
    "closeSsh": ("SSH_CLOSE", CommandBody, False),
    "downloadLrrVersion": ("UPGRADE", VersionCommand, False),
    "openSsh": ("SSH_OPEN", CommandBody, False),
    "openTerminal": ("SSH_OPEN", CommandBody, False),
    "reboot": ("REBOOT", CommandBody, True),
    "restart": ("RESTART", CommandBody, True),
    "restore": ("RESTORE", CommandBody, True),
    "rfcDownlinkStop": ("RF_DWSTOP", CommandBody, False),
    "rfcStart": ("RF_START", CommandBody, False),
    "rfcStop": ("RF_STOP", CommandBody, False),
    "scanRadio": ("RF_SCAN", ScanRadioCommand, False),
    "updateAntennasGainAndLoss": (
        "UPDATE_ANTENNA_GAIN_AND_LOSS", AntennasGainAndLossCommand, False
    ),
    "updateFineTimestampKeys": ("UPDATE_FINE_TS_KEYS", FineTimestampKeysCommand, False),
    "updateLocation": ("LOCATION_ADMIN", UpdateLocationCommand, False),
    "updateLog": ("UPDATE_LOG", UpdateLogCommand, False),
    "updateRfRegion": ("UPDATE_RF_REGION", UpdateRfRegionCommand, True),
    "upgrade": ("UPGRADE", VersionCommand, True),
}  # fmt: skip
COMMAND_NAMES: tuple[str, ...] = tuple(COMMANDS)
DISRUPTIVE: frozenset[str] = frozenset(n for n, (_t, _m, d) in COMMANDS.items() if d)


def command_type(name: str, body: CommandBody) -> str:
    """The lastCmdType a command is reported as (a GPS location is LOCATION_GPS)."""
    kind = COMMANDS[name][0]
    if isinstance(body, UpdateLocationCommand) and body.locationType == LOCATION_GPS:
        return "LOCATION_GPS"
    return kind


def parse_command(name: str, body: object) -> CommandBody:
    """The validated body of command `name` (KeyError for an unknown command)."""
    return COMMANDS[name][1].model_validate(body if body is not None else {})


# --- support password -------------------------------------------------------------------------

PASSWORD_MIN, PASSWORD_MAX = 8, 64


class SupportPasswordChange(RequestModel):
    """The new password of the support account (LRR_LINUX stations only). A SecretStr: it
    never shows in a repr, a log line or an error message."""

    model_config = RequestModel.model_config | {"hide_input_in_errors": True}
    read_only_fields: ClassVar[frozenset[str]] = OCC

    password: SecretStr

    @field_validator("password")
    @classmethod
    def _rules(cls, v: SecretStr) -> SecretStr:
        text = v.get_secret_value()
        if not PASSWORD_MIN <= len(text) <= PASSWORD_MAX:
            raise ValueError(f"password: {PASSWORD_MIN} to {PASSWORD_MAX} characters")
        if any(not (0x20 < ord(c) < 0x7F) for c in text):
            raise ValueError("password: printable ASCII characters without spaces")
        kinds = sum(
            any(test(c) for c in text)
            for test in (str.islower, str.isupper, str.isdigit, lambda c: not c.isalnum())
        )
        if kinds < 3:
            raise ValueError(
                "password: at least three of lower case, upper case, digits and symbols"
            )
        return v

    def to_wire(self) -> dict[str, object]:
        return {"password": self.password.get_secret_value()}


class SupportPassword(ApiModel):
    """A station's `supportPassword`: when it was last changed (epoch ms), if ever."""

    lastChanged: int | None = None


# --- settings ------------------------------------------------------------------------------------


class AdminSettings(RequestModel):
    """PUT admins/settings. allowClassB and upgradePolicy are deprecated and ignored."""

    read_only_fields: ClassVar[frozenset[str]] = OCC

    activateBeaconTransmission: bool | None = None
    activateRX2Optimization: bool | None = None
    activateSupportFor802_15_4: bool | None = None
    allowClassB: bool | None = Field(default=None, deprecated="ignored, always true")
    upgradePolicy: Literal["MANUAL", "TPK_POLICY"] | None = Field(
        default=None, deprecated="the feature no longer exists"
    )


class AdminSettingsState(ApiModel):
    activateBeaconTransmission: bool = False
    activateRX2Optimization: bool = False
    activateSupportFor802_15_4: bool = False


# --- answers -------------------------------------------------------------------------------------


class CommandAccepted(ApiModel):
    """The 201 of a command: its parameters as accepted (the reference echoes the body)."""


class LastCmdStatus(ApiModel):
    now: int
    lastCmdType: str | None = None
    lastCmdID: int | None = None
    lastCmdRequestDate: int | None = None
    lastCmdCompletionStatus: CommandStatus | None = None
    lastCmdCompletionDate: int | None = None
    lastCmdData: str | None = None
    lastCmdCompletionData: str | None = None

    @property
    def finished(self) -> bool:
        return self.lastCmdCompletionStatus in FINISHED

    @property
    def succeeded(self) -> bool:
        return self.lastCmdCompletionStatus == "COMPLETED"


class CommandHistory(ApiModel):
    """The sandbox's own GET .../admins/commandHistory (the reference has none: the
    platform's lastCmdStatus keeps only the last command): the station's latest commands,
    newest first, each in the shape of lastCmdStatus."""

    now: int
    commands: list[LastCmdStatus] = []


class _Status(ApiModel):
    completionStatus: CompletionStatus | None = None


class ChainStatus(ApiModel):
    index: int | None = None
    name: str | None = None
    gain: float | None = None
    cableLoss: float | None = None


class AntennasGainAndLossStatus(_Status):
    chains: list[ChainStatus] = Field(default_factory=list)


class LrrVersion(ApiModel):
    version: str
    status: int | str | None = None
    statusInfo: str | None = None
    package: str | None = None


class AvailableLrrVersions(ApiModel):
    briefs: list[LrrVersion] = Field(default_factory=list)


class VersionInfo(ApiModel):
    version: str | None = None
    status: VersionStatus | None = None
    statusInfo: str | None = None


class BackupInfo(VersionInfo):
    date: int | None = None


class BackupSwVersion(_Status):
    backup: BackupInfo | None = None


class FpgaBoardStatus(ApiModel):
    index: int | None = None
    key: str | None = None


class FineTimestampKeysStatus(_Status):
    fpgaBoards: list[FpgaBoardStatus] = Field(default_factory=list)


class StationLocation(ApiModel):
    type: int | None = None  # 0 unknown, 1 administrative, 2 GPS
    latitude: float | None = None
    longitude: float | None = None
    altitude: int | None = None


class LocationStatus(_Status):
    location: StationLocation | None = None


class LogStatus(_Status):
    traceLevel: int | None = None
    traceSince: int | None = None
    ramDirUsed: bool | None = None


class RfRegion(ApiModel):
    ID: str | None = None
    name: str | None = None
    version: int | None = None


class RfRegionStatus(_Status):
    rfRegion: RfRegion | None = None


RFCELL_STOPPED, RFCELL_DOWNLINK_STOPPED, RFCELL_STARTED = 0, 1, 2


class RfcStatus(_Status):
    rfcellState: int | None = None  # 0 stopped, 1 downlink stopped, 2 started, null unknown


class ScanRadioStatus(_Status):
    rfScanState: int | None = None  # 0 not started, > 0 in progress


class SoftwareUptime(_Status):
    lastReboot: int | None = None


class SwVersion(_Status):
    version: VersionInfo | None = None


class SystemUptime(_Status):
    lastsystemReboot: int | None = None


STATUS_MODELS: dict[str, type[ApiModel]] = {
    "antennasGainAndLossStatus": AntennasGainAndLossStatus,
    "availableLrrVersions": AvailableLrrVersions,
    "backupSwVersion": BackupSwVersion,
    "fineTimestampKeysStatus": FineTimestampKeysStatus,
    "locationStatus": LocationStatus,
    "logStatus": LogStatus,
    "rfRegionStatus": RfRegionStatus,
    "rfcStatus": RfcStatus,
    "scanRadioStatus": ScanRadioStatus,
    "softwareUptime": SoftwareUptime,
    "swVersion": SwVersion,
    "systemUptime": SystemUptime,
}
STATUS_NAMES: tuple[str, ...] = tuple(STATUS_MODELS)


def version_key(version: str) -> tuple[int, ...]:
    """Numeric order of dotted versions ("2.10.1" after "2.9.7")."""
    head = re.match(r"[0-9]+(\.[0-9]+)*", version)
    return tuple(int(p) for p in head.group(0).split(".")) if head else ()
