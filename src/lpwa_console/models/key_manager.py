"""The key manager's view-models: the lists (KM devices by state, AS keys, HSM groups, the
traffic) as `ResourceKind`s of the shared resource view-model; the states distribution, claim
and key generation (`KeyManagerViewModel`); the CSV import (`KmImportViewModel`, the device
import's machinery with the §2.11 rows).

Root keys typed in clear are encrypted here, on the workstation, with the platform's public
exchange key before they are sent (the default when the platform offers one), so a key never
leaves the laptop in clear. Generated keys live in memory only: never written, never logged.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from ..api import LpwaClient
from ..api.errors import NotFoundError
from ..schema.device_import import DeviceImportReport, SentLine, write_import_csv
from ..schema.key_manager import (
    KM_DEVICE_STATES,
    KmAsKey,
    KmAsKeyCreate,
    KmAsKeyUpdate,
    KmClaim,
    KmDevice,
    KmDeviceBrief,
    KmDeviceCreate,
    KmDeviceFilter,
    KmDeviceUpdate,
    KmHsmGroup,
    KmStatesDistribution,
    key_encoding,
)
from ..schema.km_import import KmImportRow, parse_km_import_csv, write_km_import_file
from .client_view_model import ClientViewModel
from .columns import name_and_id, time_column
from .device_import import DeviceImportViewModel, responsive_gil
from .km_crypto import PublicExchangeKey
from .paged_table import Column
from .resources import FilterControl, ResourceKind
from .tasks import TaskRunner, in_thread
from .validation import validate

STATE_WORDS = {
    "PRE_COMMISSIONED": "Pre-commissioned",
    "GENERIC": "Generic (claimed)",
    "COMMISSIONED": "Commissioned",
    "ACTIVATED": "Activated",
}
# One colour per state, shared by the counts and the chart.
STATE_COLOURS = {
    "PRE_COMMISSIONED": "#9e9e9e",
    "GENERIC": "#1e88e5",
    "COMMISSIONED": "#fb8c00",
    "ACTIVATED": "#43a047",
}


# --- keys encrypted on the workstation -----------------------------------------------------------


async def platform_exchange_key(client: LpwaClient) -> PublicExchangeKey | None:
    """The platform's public exchange key, when it offers one."""
    km = client.key_manager
    version = (await km.subscription()).platformExchangeKeyVersion
    if not version:
        return None
    for key in (await km.public_exchange_keys()).briefs:
        if key.version == version and not key.hsmGroupID:
            return PublicExchangeKey(key.version, key.pem)
    return None


def encrypt_request(
    request: KmDeviceCreate | KmDeviceUpdate, key: PublicExchangeKey
) -> KmDeviceCreate | KmDeviceUpdate:
    """The request with its clear root keys encrypted with `key` (RSA-OAEP) and
    exchangeKeyVersion set; unchanged when no key is in clear."""
    app_clear = bool(request.appKey) and key_encoding(
        request.hsmAppKeyVersion, request.exchangeKeyVersion
    ) == "CLEAR"  # fmt: skip
    nwk_clear = bool(request.nwkKey) and key_encoding(
        request.hsmNwkKeyVersion, request.exchangeKeyVersion
    ) == "CLEAR"  # fmt: skip
    if not (app_clear or nwk_clear):
        return request
    # The exchange key applies to every key without an HSM version: both must be in clear.
    wire = request.model_dump(mode="json", exclude_unset=True, by_alias=True)
    if app_clear:
        assert request.appKey is not None
        wire["appKey"] = key.encrypt_hex(request.appKey)
    if nwk_clear:
        assert request.nwkKey is not None
        wire["nwkKey"] = key.encrypt_hex(request.nwkKey)
    wire["exchangeKeyVersion"] = key.version
    rebuilt = type(request).model_validate({**wire, **request.fixed_values()})
    return rebuilt


async def _send_encrypted(client: LpwaClient, request: Any, send: Any) -> Any:
    key = await platform_exchange_key(client)
    return await send(encrypt_request(request, key) if key is not None else request)


def km_devices_kind() -> ResourceKind:
    state_choices: tuple[tuple[str, Any], ...] = (
        ("All states", None),
        *((STATE_WORDS[s], s) for s in KM_DEVICE_STATES),
    )
    return ResourceKind(
        key="km_devices",
        title="Key manager devices",
        noun="key manager device",
        columns=[
            Column("DevEUI", lambda d: d.EUI, width=150),
            Column("Name", lambda d: d.name or "", width=180),
            Column("State", lambda d: STATE_WORDS.get(d.state, d.state), width=140),
            Column("LoRaWAN", lambda d: d.lorawanVersion, width=70),
            Column("Owner", lambda d: d.ownerID or "", width=120),
            time_column("Created", "creationDate"),
        ],
        list_page=lambda c, p, s, _sort, _d, f: c.key_manager.devices(p, s, filters=f),
        filters=KmDeviceFilter(),
        filter_controls=(
            FilterControl.choice(
                "state",
                state_choices,
                tooltip="Devices in exactly this state",
            ),
        ),
        get=lambda c, d: c.key_manager.device(d.UID),
        # An EUI (what the navigator keeps) or a UID.
        get_id=lambda c, i: c.key_manager.device(i if i.isdigit() else "e" + i.upper()),
        create_model=KmDeviceCreate,
        update_model=KmDeviceUpdate,
        create=lambda c, r: _send_encrypted(c, r, c.key_manager.create_device),
        update=lambda c, d, r: _send_encrypted(
            c, r, lambda x: c.key_manager.update_device(d.UID, x)
        ),
        delete=lambda c, d: c.key_manager.delete_device(d.UID),
        label=lambda d: d.name or d.EUI,
        secret_fields=frozenset({"appKey", "nwkKey"}),
    )


def km_as_keys_kind() -> ResourceKind:
    return ResourceKind(
        key="km_as_keys",
        title="AS keys",
        noun="AS key",
        columns=[
            *name_and_id(180, 160),
            Column("HSM group", lambda k: k.hsmGroupID or "(platform)", width=150),
            Column(
                "Wrap algorithm",
                lambda k: k.hsmSecurity.asKeyWrapAlgo if k.hsmSecurity else "",
            ),
        ],
        list_page=lambda c, p, s, _sort, _d, _f: c.key_manager.as_keys(p, s),
        get=lambda c, k: c.key_manager.as_key(k.UID),
        get_id=lambda c, i: c.key_manager.as_key(f"id:{i}"),
        create_model=KmAsKeyCreate,
        update_model=KmAsKeyUpdate,
        create=lambda c, r: c.key_manager.create_as_key(r),
        update=lambda c, k, r: c.key_manager.update_as_key(k.UID, r),
        label=lambda k: k.name or k.ID,
    )


def km_hsm_groups_kind() -> ResourceKind:
    return ResourceKind(
        key="km_hsm_groups",
        title="HSM groups",
        noun="HSM group",
        columns=[
            *name_and_id(180, 150),
            Column("Exchange key version", lambda h: h.hsmExchangeKeyVersion or "", width=170),
            Column("AppKey version", lambda h: h.hsmAppKeyVersion or "", width=170),
            Column("NwkKey version", lambda h: h.hsmNwkKeyVersion or ""),
        ],
        list_page=lambda c, p, s, _sort, _d, _f: c.key_manager.hsm_groups(p, s),
    )


def km_traffic_kind() -> ResourceKind:
    return ResourceKind(
        key="km_traffic",
        title="Traffic history",
        noun="message",
        columns=[
            time_column("Time", "time", width=150),
            Column("Message", lambda f: f.type.replace("_", " ").capitalize(), width=130),
            Column("DevEUI", lambda f: f.EUI),
        ],
        list_page=lambda c, p, s, _sort, _d, _f: c.key_manager.traffic(None, p, s),
        label=lambda f: f"{f.type} {f.EUI}",
    )


def key_manager_kinds() -> list[ResourceKind]:
    return [km_devices_kind(), km_as_keys_kind(), km_hsm_groups_kind(), km_traffic_kind()]


KNOWN_TYPES = (KmDeviceBrief, KmDevice, KmAsKey, KmHsmGroup)


# --- states, claim, key generation ---------------------------------------------------------------


class KeyManagerViewModel(ClientViewModel):
    states_changed = Signal(object)  # KmStatesDistribution
    claimed = Signal(object)  # KmDevice
    claim_failed = Signal(str, str)  # message, field
    keys_generated = Signal(str, list)  # "AppKey" or "NwkKey", the keys (shown once)
    generate_failed = Signal(str)
    error = Signal(str)

    def __init__(
        self, runner: TaskRunner, client: LpwaClient | None = None, parent: QObject | None = None
    ) -> None:
        super().__init__(runner, client, parent)
        self.states = KmStatesDistribution()

    def set_client(self, client: LpwaClient | None) -> None:
        self.client = client
        self.states = KmStatesDistribution()
        self.states_changed.emit(self.states)
        if client is not None:
            self.refresh_states()

    def refresh_states(self) -> None:
        if self.client is None:
            return

        def done(states: KmStatesDistribution) -> None:
            self.states = states
            self.states_changed.emit(states)

        self.runner.run(
            "Key manager states", self.client.key_manager.states(), on_done=done,
            on_error=lambda _e, m: self.error.emit(m), quiet=True,
        )  # fmt: skip

    def check_claim(self, data: dict[str, Any]) -> dict[str, str]:
        return validate(KmClaim, data)[1]

    def claim(self, data: dict[str, Any]) -> bool:
        request, errors = validate(KmClaim, data)
        if not isinstance(request, KmClaim) or self.client is None:
            for name, message in (errors or {"": "Not connected"}).items():
                self.claim_failed.emit(message, name)
            return False

        def done(device: KmDevice) -> None:
            self.claimed.emit(device)
            self.refresh_states()

        def failed(error: BaseException, message: str) -> None:
            if isinstance(error, NotFoundError):  # the platform's words name its path ("e…")
                message = f"The key manager has no device {request.EUI} to claim"
                self.claim_failed.emit(message, "EUI")
            else:
                self.claim_failed.emit(message, "")

        self.runner.run(
            f"Claim {request.EUI}", self.client.key_manager.claim(request), on_done=done,
            on_error=failed, quiet=True,
        )  # fmt: skip
        return True

    def generate(self, kind: str, count: int) -> bool:
        """Ask the platform for `count` AppKeys or NwkKeys; `keys_generated` carries them."""
        if self.client is None:
            return False
        km = self.client.key_manager
        call = km.generate_app_keys(count) if kind == "AppKey" else km.generate_nwk_keys(count)
        self.runner.run(
            f"Generate {count} {kind}s", call,
            on_done=lambda result: self.keys_generated.emit(kind, list(result.keys)),
            on_error=lambda _e, m: self.generate_failed.emit(m), quiet=True,
        )  # fmt: skip
        return True


# --- import -------------------------------------------------------------------------------------


def read_and_parse_km(path: Path) -> list[KmImportRow]:
    """Runs in a worker thread: read the §2.11 file and validate every row."""
    text = path.read_text(encoding="utf-8-sig")
    with responsive_gil():
        return parse_km_import_csv(text)


def prepare_batch(
    rows: list[KmImportRow], key: PublicExchangeKey | None
) -> tuple[bytes, list[SentLine]]:
    """Runs in a worker thread: a batch's file (clear keys encrypted when the platform
    offers an exchange key) and where each row lands in it."""
    if key is not None:
        rows = encrypt_rows(rows, key)
    with responsive_gil():
        text, sent = write_km_import_file(rows)
        return text.encode("utf-8"), sent


def encrypt_rows(rows: list[KmImportRow], key: PublicExchangeKey) -> list[KmImportRow]:
    """Runs in a worker thread: rows whose AppKey (and NwkKey) are in clear get them
    encrypted with the platform's exchange key (columns F, U and X), as the form does."""
    out: list[KmImportRow] = []
    with responsive_gil():
        for row in rows:
            device = row.device
            if device is None or not device.appKey:
                out.append(row)
                continue
            encrypted = encrypt_request(device, key)
            if encrypted is device:
                out.append(row)
                continue
            cells = list(row.cells) + [""] * max(0, 25 - len(row.cells))
            cells[5] = encrypted.appKey or ""  # F
            if encrypted.nwkKey:
                cells[20] = encrypted.nwkKey  # U
            cells[23] = key.version  # X
            copy = KmImportRow(row.row, cells, row.operation, row.EUI, None, list(row.errors))
            out.append(copy)
    return out


class KmImportViewModel(DeviceImportViewModel):
    """The device import's view-model (parse in a thread, batches, progress, cancel, row by
    row report) with §2.11 rows; clear keys are encrypted before they leave."""

    parse_file = staticmethod(read_and_parse_km)  # type: ignore[assignment]

    def __init__(self, runner: TaskRunner, client: LpwaClient | None = None, **kw: Any) -> None:
        super().__init__(runner, client, **kw)
        self._key: PublicExchangeKey | None = None
        self._key_read = False

    def set_client(self, client: LpwaClient | None) -> None:
        super().set_client(client)
        self._key, self._key_read = None, False

    async def _km_batch(self, rows: list[KmImportRow]) -> DeviceImportReport:
        assert self.client is not None
        if not self._key_read:
            self._key = await platform_exchange_key(self.client)
            self._key_read = True
        # The keys encrypted and the file written in a worker thread: 500 rows of CSV
        # cost the UI thread a beat of its own at every batch.
        content, sent = await in_thread(prepare_batch, rows, self._key)
        return await self.client.key_manager.import_devices(content, sent=sent)

    def _upload_batch(self, rows: list[Any]) -> Any:
        if self._uploader is not None:
            return self._uploader(rows)
        return self._km_batch(rows)

    def export_failed(self, path: str | Path) -> int:
        rows = self.failed_rows()
        Path(path).write_text(write_import_csv([r.cells for r in rows]), encoding="utf-8")
        return len(rows)
