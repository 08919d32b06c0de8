"""The operator's view of the network partners (Document 2 §4.1): the partners with their
stations used of granted, a partner's station credit transactions (each names the station
it created), and a partner's station opened in the operator view
(`/partners/{networkPartnerUid}/stations/{baseStationUid}`)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal

from ..api import LpwaClient
from ..schema.common import ListEnvelope
from ..schema.partners import Partner, StationCreditTransaction
from ..schema.stations import BaseStation, normalise_lrr_id
from .client_view_model import ClientViewModel
from .columns import time_column
from .paged_table import RIGHT, Column, PagedTableModel
from .tasks import TaskRunner

TRANSACTION_WORDS = {"STATION_CREATED": "Station created", "GRANT_CHANGED": "Grant changed"}


def partner_ref(partner: Partner) -> str:
    """How a path names this partner: its UID (from its href), else `id:sub:`/`id:sup:`."""
    if partner.href:
        tail = partner.href.rstrip("/").rsplit("/", 1)[-1]
        if tail.isdigit():
            return tail
    prefix = "id:sup:" if partner.type == "SUPPLIER" else "id:sub:"
    return prefix + partner.ID


def used_of_granted(partner: Partner) -> str:
    """ "12 of 40", or "36 (no limit)"."""
    used = f"{partner.totalBaseStationsUsed:,}"
    granted = partner.totalBaseStationsGranted
    return f"{used} (no limit)" if granted is None else f"{used} of {granted:,}"


def partner_columns() -> list[Column[Partner]]:
    return [
        Column("Partner", lambda p: p.name, width=170),
        Column("ID", lambda p: p.ID, width=110),
        Column("Kind", lambda p: "Supplier" if p.type == "SUPPLIER" else "Subscriber", width=90),
        # Used of granted in one column: seen beside the partner's name on a laptop.
        Column("Stations used", used_of_granted, alignment=RIGHT, width=130),
        time_column("Since", "creationTimestamp"),
    ]


def transaction_columns() -> list[Column[StationCreditTransaction]]:
    return [
        time_column("When", "timestamp", width=125),
        Column("What", lambda t: TRANSACTION_WORDS.get(t.type, t.type), width=120),
        Column("Station", lambda t: t.lrrID or "", width=90),
        Column("Credits", lambda t: f"{t.amount:+,}", alignment=RIGHT, width=60),
        Column("Balance", lambda t: "" if t.balance is None else f"{t.balance:,}", alignment=RIGHT),
        Column("By", lambda t: t.who or ""),
    ]


class OperatorPartnersViewModel(ClientViewModel):
    error = Signal(str)
    client_changed = Signal(bool)
    partner_changed = Signal(object)  # Partner | None
    station_changed = Signal(object)  # BaseStation | None: opened in the operator view
    station_failed = Signal(str)

    def __init__(
        self, runner: TaskRunner, client: LpwaClient | None = None, parent: QObject | None = None
    ) -> None:
        super().__init__(runner, client, parent)
        self.model: PagedTableModel[Partner] = PagedTableModel(partner_columns(), parent=self)
        self.transactions: PagedTableModel[StationCreditTransaction] = PagedTableModel(
            transaction_columns(), parent=self
        )
        self.model.error.connect(self.error)
        self.partner: Partner | None = None
        self.station: BaseStation | None = None
        self._station_task: int | None = None
        if client is not None:
            self.reload()

    def set_client(self, client: LpwaClient | None) -> None:
        self.client = client
        self.select(None)
        self.client_changed.emit(client is not None)
        self.reload()

    def reload(self) -> None:
        client = self.client
        if client is None:
            self.model.clear()
            return

        async def fetch(page: int, size: int, _s: str | None, _d: bool) -> ListEnvelope[Any]:
            return await self.runner.track(
                f"Partners page {page}", client.operator_partners.list(page, size)
            )

        self.model.set_fetcher(fetch)

    def select(self, partner: Partner | None) -> None:
        """Show this partner's credit transactions (None: none)."""
        self.partner = partner
        self.open_station(None)
        client = self.client
        if partner is None or client is None:
            self.transactions.clear()
        else:
            ref = partner_ref(partner)

            async def fetch(page: int, size: int, _s: str | None, _d: bool) -> ListEnvelope[Any]:
                call = client.operator_partners.credit_transactions(ref, page, size)
                return await self.runner.track(f"Credit transactions of {partner.ID}", call)

            self.transactions.set_fetcher(fetch)
        self.partner_changed.emit(partner)

    def open_station(self, lrr_id: str | None) -> bool:
        """Read this station of the partner shown in the operator view; False (and
        `station_failed`) when the LRR ID is not one."""
        if self._station_task is not None:
            self.runner.cancel(self._station_task)
            self._station_task = None
        if not lrr_id or self.partner is None or self.client is None:
            self.station = None
            self.station_changed.emit(None)
            return False
        try:
            lrr = normalise_lrr_id(lrr_id)
        except ValueError as exc:
            self.station_failed.emit(f"LRR ID: {exc}")
            return False
        partner = self.partner

        def done(station: BaseStation) -> None:
            self._station_task = None
            if partner is self.partner:
                self.station = station
                self.station_changed.emit(station)

        def failed(_exc: BaseException, message: str) -> None:
            self._station_task = None
            if partner is self.partner:
                self.station_failed.emit(message)

        self._station_task = self.runner.run(
            f"Station {lrr} of partner {partner.ID}",
            self.client.operator_partners.station(partner_ref(partner), "i" + lrr),
            on_done=done,
            on_error=failed,
            quiet=True,
        )
        return True
