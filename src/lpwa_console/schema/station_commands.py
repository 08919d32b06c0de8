"""The parameters of the base station admin commands (Document 2 §4.3; shapes from the
reference's request bodies of `/partners/mine/bss/{bsUid}/admins/{command}`).

One request model per kind of body. `occContext` is deprecated for commands (Document 2
§4.3): accepted and dropped, never required. The console's command dialogs build their forms
from these models, so a rule written here is the rule checked while typing.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar, Literal

from pydantic import ConfigDict, Field, field_validator, model_validator

from .common import RequestModel

RF_REGION_ID_PATTERN = r"^[a-zA-Z0-9_.-]+$"
# A software version as the platform names them ("2.2.64", "2.2.64-rc1").
VERSION_PATTERN = r"^[0-9A-Za-z][0-9A-Za-z._-]{0,63}$"
AES128_KEY = re.compile(r"[0-9A-Fa-f]{32}")


class CommandParameters(RequestModel):
    """A command's body. `occContext` (deprecated for commands) is accepted and dropped."""

    read_only_fields: ClassVar[frozenset[str]] = frozenset({"occContext"})


class NoParameters(CommandParameters):
    """reboot, restart, restore, backup, cancelRadioScan, rfcStart, rfcStop,
    rfcDownlinkStop, closeSsh, openTerminal: nothing to give."""


class VersionParameters(CommandParameters):
    """downloadLrrVersion and upgrade: the LRR software version to fetch or install."""

    version: str = Field(min_length=1, max_length=64, pattern=VERSION_PATTERN)


class ScanFrequency(RequestModel):
    """The frequencies a radio scan covers: `start` to `stop` in MHz, in steps of `step`
    kHz (precision 0.000001 MHz and 0.001 kHz)."""

    start: float = Field(gt=0, le=10_000)
    stop: float = Field(gt=0, le=10_000)
    step: float = Field(gt=0, le=1_000_000)

    @model_validator(mode="after")
    def _ordered(self) -> ScanFrequency:
        if self.stop <= self.start:
            raise ValueError("stop must be higher than start")
        if self.step / 1000 > self.stop - self.start:
            raise ValueError("step is wider than the band from start to stop")
        return self


class ScanRadioParameters(CommandParameters):
    """scanRadio: the frequencies to scan (the station's whole band when not given)."""

    frequency: ScanFrequency | None = None


class RfRegionParameters(CommandParameters):
    """updateRfRegion: the RF region provisioning ID to apply."""

    rfRegionID: str = Field(min_length=1, max_length=32, pattern=RF_REGION_ID_PATTERN)


class OpenSshParameters(CommandParameters):
    """openSsh: the port of the reverse SSH tunnel."""

    reverseSshPort: int = Field(ge=1, le=65535)


class AntennaChain(RequestModel):
    index: int = Field(ge=0, le=63)
    gain: float = Field(ge=-20, le=50)
    cableLoss: float = Field(ge=0, le=50)


class AntennasGainAndLossParameters(CommandParameters):
    """updateAntennasGainAndLoss: gain and cable loss of each antenna chain."""

    chains: list[AntennaChain] = Field(min_length=1, max_length=64)

    @field_validator("chains")
    @classmethod
    def _distinct(cls, chains: list[AntennaChain]) -> list[AntennaChain]:
        seen: set[int] = set()
        for chain in chains:
            if chain.index in seen:
                raise ValueError(f"chains: antenna chain {chain.index} is given twice")
            seen.add(chain.index)
        return chains


class FpgaBoardKey(RequestModel):
    index: int = Field(ge=0, le=63)
    key: str

    @field_validator("key")
    @classmethod
    def _aes128(cls, key: str) -> str:
        if not AES128_KEY.fullmatch(key):
            raise ValueError("an AES 128 key has 32 hexadecimal digits")
        return key.upper()


class FineTimestampKeysParameters(CommandParameters):
    """updateFineTimestampKeys: the fine-timestamp decryption key of each FPGA board."""

    fpgaBoards: list[FpgaBoardKey] = Field(min_length=1, max_length=64)

    @field_validator("fpgaBoards")
    @classmethod
    def _distinct(cls, boards: list[FpgaBoardKey]) -> list[FpgaBoardKey]:
        indexes = [b.index for b in boards]
        twice = sorted({i for i in indexes if indexes.count(i) > 1})
        if twice:
            raise ValueError(f"fpgaBoards: FPGA board {twice[0]} is given twice")
        return boards


def _int_choice(value: Any) -> Any:
    """A choice typed in a form arrives as text ("1"): the wire wants the number."""
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return value


class LocationParameters(CommandParameters):
    """updateLocation: the location the station uses, administrative (typed here) or GPS."""

    locationType: Literal[1, 2]
    adminLat: float | None = Field(default=None, ge=-90, le=90)
    adminLon: float | None = Field(default=None, ge=-180, le=180)
    adminAlt: int | None = Field(default=None, ge=-500, le=9000)

    _number = field_validator("locationType", mode="before")(_int_choice)

    @model_validator(mode="after")
    def _administrative_needs_position(self) -> LocationParameters:
        if self.locationType == 1 and (self.adminLat is None or self.adminLon is None):
            raise ValueError("adminLat and adminLon are required for an administrative location")
        return self


class LogParameters(CommandParameters):
    """updateLog: the LRR trace level (0: no trace)."""

    traceLevel: Literal[0, 1, 2, 3]

    _number = field_validator("traceLevel", mode="before")(_int_choice)


# Document 2 does not show the body of changeSupportPassword; the password field is named as
# the station's `supportPassword` object suggests.
SUPPORT_PASSWORD_MIN = 8
SUPPORT_PASSWORD_MAX = 64


class SupportPasswordParameters(CommandParameters):
    """changeSupportPassword: the support account's new password (LRR_LINUX stations)."""

    # A password is taken as typed: spaces are refused, never trimmed away unseen.
    model_config = ConfigDict(**{**RequestModel.model_config, "str_strip_whitespace": False})

    password: str = Field(min_length=SUPPORT_PASSWORD_MIN, max_length=SUPPORT_PASSWORD_MAX)

    @field_validator("password")
    @classmethod
    def _printable(cls, password: str) -> str:
        if any(not (" " < c <= "~") for c in password):
            raise ValueError("use visible ASCII characters only (no spaces or accents)")
        return password
