"""Change the support password of base stations (LRR_LINUX stations only, Document 2 §2.4).

Masked, typed twice, checked while typing (the schema's rules and the two must match),
confirmed with the stations named, then sent and followed like any command. The password is
never logged (no request body is) and not kept: the fields are cleared when it is sent and
when the dialog closes, and the run forgets its parameters once it ends. A station known to
run other software is left out, and the reason said; when none remain, the form is disabled
with that reason.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from PySide6.QtWidgets import (
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from ...models.rights import AccountRights
from ...models.station_command_answers import software_types
from ...models.station_command_catalogue import (
    StationRef,
    admin_of,
    check_parameters,
    command_spec,
    count_words,
    stations_in_words,
)
from ...models.tasks import TaskRunner
from ...schema.labels import field_words
from ...schema.station_admin import SupportPasswordChange
from ..widgets.form_parts import message_line, required_legend, words_label
from .command_run import CommandDialog

LRR_LINUX = "LRR_LINUX"
SPEC = command_spec("changeSupportPassword")


def not_lrr_reason(station: StationRef) -> str:
    return (
        f"{station.label} runs {station.software_type}: the support password is for "
        "stations running the LRR software (LRR_LINUX)"
    )


class SupportPasswordDialog(CommandDialog):
    def __init__(
        self,
        parent: QWidget | None,
        client: Any,
        stations: Sequence[StationRef],
        *,
        rights: AccountRights | None = None,
        runner: TaskRunner | None = None,
    ) -> None:
        super().__init__(parent, admin_of(client), rights=rights, runner=runner)
        self.setObjectName("supportPasswordDialog")
        self.setWindowTitle("Support password")
        self.client = client
        self.all_stations = list(stations)
        self.excluded: list[StationRef] = []
        self.stations: list[StationRef] = []
        self._lookup: asyncio.Future[Any] | None = None
        self._stack_pages(self._form_page(), self._confirm_page())
        self._sort_stations(self.all_stations)
        self.resize(560, 360)
        unknown = [s for s in self.all_stations if s.software_type is None]
        if unknown and getattr(client, "stations", None) is not None:
            self._lookup = asyncio.ensure_future(self._read_software(unknown))

    # --- which stations -------------------------------------------------------------------

    def _sort_stations(self, stations: Sequence[StationRef]) -> None:
        self.excluded = [s for s in stations if s.software_type not in (None, LRR_LINUX)]
        self.stations = [s for s in stations if s not in self.excluded]
        self.to_label.setText(
            f"Stations: {stations_in_words(self.stations)}" if self.stations else ""
        )
        reasons = [not_lrr_reason(s) for s in self.excluded[:3]]
        if len(self.excluded) > 3:
            reasons.append(f"and {len(self.excluded) - 3} more not running the LRR software")
        self.excluded_label.setText(("Left out: " if self.stations else "") + "; ".join(reasons))
        self.excluded_label.setVisible(bool(self.excluded))
        for widget in (self.password, self.again):
            widget.setEnabled(bool(self.stations))
        self._check()

    async def _read_software(self, unknown: list[StationRef]) -> None:
        """Ask the platform what the stations whose software is not known run."""
        found = await software_types(self.client, unknown)
        if found:
            updated = [
                StationRef(s.uid, s.lrr_id, s.name, found.get(s.uid, s.software_type))
                for s in self.all_stations
            ]
            self.all_stations = updated
            self._sort_stations(updated)

    # --- page 1: the password, twice -------------------------------------------------------

    def _form_page(self) -> QWidget:
        page = QWidget()
        page.setObjectName("formPage")
        self.to_label = words_label("stationsLabel")
        self.excluded_label = words_label("excludedStations", warning=True)
        words = field_words("password", SupportPasswordChange)
        self.password = QLineEdit()
        self.password.setObjectName("password")
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.password.setAccessibleName(words.label)
        self.password.setToolTip(words.help)
        self.again = QLineEdit()
        self.again.setObjectName("passwordAgain")
        self.again.setEchoMode(QLineEdit.EchoMode.Password)
        self.again.setAccessibleName("The same password again")
        self.error = message_line("passwordError")
        form = QFormLayout()
        form.addRow(f"{words.label} *", self.password)
        form.addRow("Type it again *", self.again)
        hint = QLabel(
            "The support account is used for remote sessions on the station. The password is "
            "masked, never shown again, and not kept by the console."
        )
        hint.setWordWrap(True)
        buttons = self._send_row("Change…")
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.to_label)
        layout.addWidget(self.excluded_label)
        layout.addWidget(hint)
        layout.addWidget(required_legend())
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addStretch(1)
        layout.addLayout(buttons)
        self.gate.bind(self.send_button, "station.support_password")
        self._typed = False
        self.password.textEdited.connect(self._edited)
        self.again.textEdited.connect(self._edited)
        self.send_button.clicked.connect(self._confirm)
        return page

    def _edited(self, _text: str) -> None:
        self._typed = True
        self._check()

    def problem(self) -> str:
        """What is wrong with what is typed, in words ('' when it may be sent)."""
        if not self.stations:
            return self.excluded_label.text() or "No station selected"
        if self.admin is None:
            return "Not connected to a platform that takes station commands"
        errors = check_parameters(SPEC, {"password": self.password.text()})
        if errors:
            return next(iter(errors.values()))
        if self.again.text() != self.password.text():
            return "The two passwords differ: type the same one twice"
        return ""

    def _check(self) -> None:
        problem = self.problem()
        typed = self._typed and bool(self.stations) and self.admin is not None
        self.error.setText(problem if typed or not self.stations else "")
        self.send_button.setToolTip(problem)  # disabled: why, before anything is typed
        self.gate.enable(self.send_button, not problem)

    # --- page 2: the confirmation ---------------------------------------------------------

    def _confirm_page(self) -> QWidget:
        effect = QLabel(
            "Remote sessions that use the support account need the new password from then on."
        )
        effect.setWordWrap(True)
        return self.confirm_page(effect, confirm="Change the password")

    def _confirm(self) -> None:
        self._typed = True
        self._check()
        if self.problem():
            return
        stations = self.stations
        self.confirm(SPEC, stations, f"Change the password of {count_words(len(stations))}")

    # --- page 3: sending and following ----------------------------------------------------

    def start(self) -> None:
        if self.problem() or self.admin is None:
            self.stack.setCurrentIndex(0)
            return
        if not self.allowed("station.support_password", self.error):
            return
        change = SupportPasswordChange.model_validate({"password": self.password.text()})
        self.clear_secrets()
        run = self.begin_run(SPEC.name, self.stations, change, allow_retry=False)
        del change
        # The run holds the only copy (a SecretStr) while it sends; dropped when it ends.
        run.finished.connect(self._forget)
        run.start()

    def _forget(self, _summary: str) -> None:
        if self.run is not None:
            self.run.forget()

    def clear_secrets(self) -> None:
        for field in (self.password, self.again):
            field.clear()
            field.setModified(False)

    def done(self, result: int) -> None:
        self.clear_secrets()
        if self._lookup is not None:
            self._lookup.cancel()
        super().done(result)
