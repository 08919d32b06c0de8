"""The key manager pane: the devices' states with counts and a distribution chart (a state
picks the list's filter), the shared resource lists (KM devices, AS keys, HSM groups, traffic
history) with their forms, and the key manager's own actions: claim, key generation (shown
once, copyable, never written anywhere) and the CSV import (the device import's wizard)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from ...models.key_manager import (
    STATE_COLOURS,
    STATE_WORDS,
    KeyManagerViewModel,
    KmImportViewModel,
)
from ...models.resources import ResourceViewModel
from ...models.rights import AccountRights
from ...schema.key_manager import (
    KM_DEVICE_STATES,
    MAX_GENERATED_KEYS,
    KmClaim,
    KmStatesDistribution,
)
from ..connections import SignalConnections
from ..dialogs.import_wizard import ImportWizard
from ..dialogs.resource_form import SchemaFormDialog
from ..rights import RightsGate
from ..widgets.form_parts import close_buttons
from ..widgets.pane_parts import KeptDialog
from .resources import ListsHost, ResourcesPane


class StatesChart(QWidget):
    """Counts per state as buttons (a click filters the list) and a bar chart."""

    state_picked = Signal(object)  # a state, or None for all

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("kmStates")
        row = QHBoxLayout()
        self.all_button = QPushButton("All")
        self.all_button.setObjectName("kmStateAll")
        self.all_button.clicked.connect(lambda: self.state_picked.emit(None))
        row.addWidget(self.all_button)
        self.buttons: dict[str, QPushButton] = {}
        for state in KM_DEVICE_STATES:
            button = QPushButton(STATE_WORDS[state])
            button.setObjectName(f"kmState{state}")
            button.setStyleSheet(f"border-left: 6px solid {STATE_COLOURS[state]};")
            button.setToolTip(f"Show only the {STATE_WORDS[state].lower()} devices")
            button.clicked.connect(lambda _c=False, s=state: self.state_picked.emit(s))
            row.addWidget(button)
            self.buttons[state] = button
        row.addStretch(1)
        self._plot: Any = None
        self._bars: Any = None
        self.chart_holder = QVBoxLayout()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addLayout(self.chart_holder)
        self.counts: dict[str, int] = {}

    def _chart(self) -> Any:
        if self._plot is None:
            import pyqtgraph as pg

            plot = pg.PlotWidget()
            plot.setObjectName("kmStatesChart")
            plot.setFixedHeight(110)
            plot.setBackground(None)  # the theme's, light or dark
            item = plot.getPlotItem()
            item.setMenuEnabled(False)
            item.hideAxis("left")
            item.getViewBox().setMouseEnabled(x=False, y=False)
            axis = item.getAxis("bottom")
            axis.setTicks([[(i, STATE_WORDS[s]) for i, s in enumerate(KM_DEVICE_STATES)]])
            self._bars = pg.BarGraphItem(
                x=list(range(len(KM_DEVICE_STATES))), height=[0] * len(KM_DEVICE_STATES),
                width=0.6, brushes=[STATE_COLOURS[s] for s in KM_DEVICE_STATES],
            )  # fmt: skip
            item.addItem(self._bars)
            self._plot = plot
            self.chart_holder.addWidget(plot)
        return self._plot

    def set_states(self, states: KmStatesDistribution) -> None:
        self.counts = {s: states.count(s) for s in KM_DEVICE_STATES}
        self.all_button.setText(f"All ({states.total:,})")
        for state, button in self.buttons.items():
            button.setText(f"{STATE_WORDS[state]} ({self.counts[state]:,})")
        self._chart()
        self._bars.setOpts(height=[self.counts[s] for s in KM_DEVICE_STATES])
        self._plot.getPlotItem().setYRange(0, max([1, *self.counts.values()]) * 1.1)


class GeneratedKeysDialog(QDialog):
    """Asks the platform for keys and shows them once: copyable, never saved, cleared when
    the dialog closes."""

    def __init__(self, vm: KeyManagerViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.vm = vm
        self.setWindowTitle("Generate keys")
        self.setObjectName("kmKeysDialog")
        self.kind = QComboBox()
        self.kind.addItems(["AppKey", "NwkKey"])
        self.count = QSpinBox()
        self.count.setRange(1, MAX_GENERATED_KEYS)
        self.count.setValue(1)
        self.generate_button = QPushButton("Generate")
        self.generate_button.setObjectName("kmGenerate")
        self.keys = QPlainTextEdit()
        self.keys.setObjectName("kmGeneratedKeys")
        self.keys.setReadOnly(True)
        self.keys.setPlaceholderText("Keys appear here once: copy them now, they are not kept")
        self.copy_button = QPushButton("Copy")
        self.copy_button.setEnabled(False)
        self.message = QLabel(" ")
        self.message.setWordWrap(True)
        top = QHBoxLayout()
        for widget in (QLabel("Key"), self.kind, QLabel("How many"), self.count):
            top.addWidget(widget)
        top.addStretch(1)
        top.addWidget(self.generate_button)
        buttons = close_buttons(self, self.copy_button)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.keys, 1)
        layout.addWidget(self.message)
        layout.addWidget(buttons)
        self.generate_button.clicked.connect(self.generate)
        self.copy_button.clicked.connect(self.copy)
        self._connections = SignalConnections()
        self._connections.connect_all(
            (vm.keys_generated, self.show_keys),
            (vm.generate_failed, self.message.setText),
        )
        self.resize(520, 360)

    def generate(self) -> None:
        self.message.setText("Generating…")
        self.vm.generate(self.kind.currentText(), self.count.value())

    def show_keys(self, kind: str, keys: list[str]) -> None:
        self.keys.setPlainText("\n".join(keys))
        self.copy_button.setEnabled(bool(keys))
        self.message.setText(f"{len(keys):,} {kind}{'s' if len(keys) != 1 else ''}: shown once")

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self.keys.toPlainText())
        self.message.setText("Copied to the clipboard")

    def done(self, result: int) -> None:
        self.keys.clear()  # the keys live nowhere once the dialog is gone
        self._connections.disconnect_all()
        super().done(result)


class KeyManagerPane(ListsHost, KeptDialog):
    imports = True

    def __init__(
        self,
        view_models: list[ResourceViewModel],
        km: KeyManagerViewModel,
        importer: KmImportViewModel,
        parent: QWidget | None = None,
        *,
        rights: AccountRights | None = None,
    ) -> None:
        super().__init__(parent)
        self.title = "Key manager"
        self.setObjectName("keyManagerPane")
        self.km = km
        self.importer = importer
        self.gate = RightsGate(rights, self)
        self.lists = ResourcesPane("Key manager", view_models, rights=rights)
        self.vms = self.lists.vms
        self.section = self.lists.section
        self.lists.navigate.connect(self.navigate)
        self.states = StatesChart()
        self.claim_button = QPushButton("Claim…")
        self.claim_button.setObjectName("kmClaim")
        self.keys_button = QPushButton("Generate keys…")
        self.keys_button.setObjectName("kmKeys")
        self.import_button = QPushButton("Import…")
        self.import_button.setObjectName("kmImport")
        self.gate.bind(self.claim_button, "km_devices.claim")
        self.gate.bind(self.keys_button, "km.generate_keys")
        self.gate.bind(self.import_button, "km_devices.import")
        actions = QHBoxLayout()
        actions.addWidget(self.states, 1)
        for button in (self.claim_button, self.keys_button, self.import_button):
            actions.addWidget(button, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 0)
        layout.addLayout(actions)
        layout.addWidget(self.lists, 1)
        self.dialog: QDialog | None = None
        self.states.state_picked.connect(self.show_state)
        self.claim_button.clicked.connect(self.claim)
        self.keys_button.clicked.connect(self.generate_keys)
        self.import_button.clicked.connect(self.import_devices)
        devices = self.vms[0]
        self._connections = SignalConnections()
        self._connections.connect_all(
            (km.states_changed, self.states.set_states),
            (devices.saved, lambda _i: km.refresh_states()),
            (devices.deleted, lambda _m: km.refresh_states()),
            (devices.client_changed, self._connected),
            (importer.finished, lambda _r: self._imported()),
        )
        self._connected(devices.has_client)

    def _connected(self, connected: bool) -> None:
        for button in (self.claim_button, self.keys_button, self.import_button):
            self.gate.enable(button, connected)

    # --- navigator ------------------------------------------------------------------------

    async def first_page(self) -> dict[str, Any]:
        return await self.lists.first_page()

    def refresh(self) -> None:
        self.lists.refresh()
        self.km.refresh_states()

    # --- actions -------------------------------------------------------------------------

    def show_state(self, state: str | None) -> None:
        self.lists.show_section(0)
        self.section.setCurrentIndex(0)
        self.vms[0].update_filters(state=state)

    def claim(self) -> None:
        dialog = SchemaFormDialog(
            KmClaim, None, title="Claim a device", checker=self.km.check_claim,
            submit=self.km.claim, changes_only=False, parent=self,
            intro="A pre-commissioned device becomes yours (GENERIC): its DevEUI, your owner "
            "ID and, without a secure element, the owner token you decrypted.",
        )  # fmt: skip
        dialog.setObjectName("kmClaimDialog")
        self.km.claimed.connect(dialog.saved)
        self.km.claim_failed.connect(dialog.failed)

        def disconnect(_r: int) -> None:
            self.km.claimed.disconnect(dialog.saved)
            self.km.claim_failed.disconnect(dialog.failed)
            self.vms[0].reload()

        dialog.finished.connect(disconnect)
        self._show_dialog(dialog)

    def generate_keys(self) -> None:
        self._show_dialog(GeneratedKeysDialog(self.km, self))

    def import_devices(self) -> None:
        wizard = ImportWizard(
            self.importer, self, title="Import key manager devices", show_guide=False
        )
        self._show_dialog(wizard)

    def _imported(self) -> None:
        self.vms[0].reload()
        self.km.refresh_states()

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        if self.km.client is not None and not self.states.counts:
            self.km.refresh_states()

    def closeEvent(self, event: Any) -> None:
        self._connections.disconnect_all()
        super().closeEvent(event)
