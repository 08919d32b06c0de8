"""The network partner of the account: how many base stations it uses of those granted
(`GET /partners/mine`), read once per session and again on refresh (and after a station is
created), and whether it may create one more (`create_refusal`)."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from ..api import LpwaClient
from ..schema.partners import Partner
from .client_view_model import ClientViewModel
from .latest import Latest
from .tasks import TaskRunner


class PartnerViewModel(ClientViewModel):
    changed = Signal()  # `partner` or `error` changed

    def __init__(
        self, runner: TaskRunner, client: LpwaClient | None = None, parent: QObject | None = None
    ) -> None:
        super().__init__(runner, client, parent)
        self.partner: Partner | None = None
        self.error = ""
        self._latest = Latest()
        if client is not None:
            self.load()

    def set_client(self, client: LpwaClient | None) -> None:
        self.client = client
        self.partner = None
        self.error = ""
        self._latest.advance()
        self.changed.emit()
        if client is not None:
            self.load()

    def load(self) -> None:
        if self.client is None:
            return
        generation = self._latest.advance()

        def done(partner: Partner) -> None:
            if self._latest.is_current(generation):
                self.partner, self.error = partner, ""
                self.changed.emit()

        def failed(_exc: BaseException, message: str) -> None:
            if self._latest.is_current(generation):
                self.partner, self.error = None, message
                self.changed.emit()

        self.runner.run(
            "Read the network partner",
            self.client.partners.get("mine"),
            on_done=done,
            on_error=failed,
            quiet=True,
        )

    def usage_text(self) -> str:
        """ "12 of 50 stations used", "12 stations (no limit)", or ''."""
        partner = self.partner
        if partner is None:
            return ""
        used = partner.totalBaseStationsUsed
        granted = partner.totalBaseStationsGranted
        if granted is None:
            return f"{used:,} station{'' if used == 1 else 's'} used (no limit)"
        return f"{used:,} of {granted:,} stations used"

    def usage_tooltip(self) -> str:
        partner = self.partner
        if partner is None:
            return self.error and f"Partner not readable: {self.error}"
        left = partner.stations_left
        more = "no limit on new stations" if left is None else f"{left:,} more may be created"
        return f"Network partner {partner.name} ({partner.ID}): {more}"

    def create_refusal(self) -> str:
        """Why no base station can be created now, in words ('' when one can, or when the
        partner is not known: the server judges). The partner's own permissions, when it
        lists them, and its grant: "12 of 12 granted base stations are used"."""
        partner = self.partner
        if partner is None:
            return ""
        permissions = partner.permissions
        if permissions and "a" not in permissions:
            return (
                "Your account may not create base stations: it lacks the network partner's"
                " write permission ('a')"
            )
        granted = partner.totalBaseStationsGranted
        used = partner.totalBaseStationsUsed
        if granted is not None and used >= granted:
            return (
                f"No more base stations may be created: {used:,} of {granted:,} granted"
                " base stations are used"
            )
        return ""

    def create_note(self) -> str:
        """What the new-station form says of the grant: "3 more may be created (9 of 12
        used)", '' when not known."""
        partner = self.partner
        if partner is None:
            return ""
        left = partner.stations_left
        if left is None:
            return f"{partner.name} has {partner.totalBaseStationsUsed:,} base stations (no limit)"
        used, granted = partner.totalBaseStationsUsed, partner.totalBaseStationsGranted
        more = "1 more base station" if left == 1 else f"{left:,} more base stations"
        return f"{partner.name} may create {more} ({used:,} of {granted:,} granted are used)"
