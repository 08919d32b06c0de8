"""Admin commands for base stations: one dialog per family of commands (Document 2 §4.3).

`open_station_command(parent, client, stations, command)` is what the base stations pane,
its context menu and the map's selection call. The dialog shows the family's commands (all of
them when `command` is None), the chosen command's parameters as a form derived from its
request model (required fields marked, checked while typing), then, for a command that
disrupts the stations' service, a confirmation that names them, then the progress: a line that
follows one station to its outcome, or for several a table of per-station results with a
progress bar, Stop, and Retry failed (`command_run.py`). The support password has a dialog of its own
(`ui/dialogs/support_password.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QComboBox,
    QCompleter,
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QVBoxLayout,
    QWidget,
)

from ...models.forms import (
    FormField,
    Raw,
    form_data,
    form_fields,
    raw_of,
    typed_fields,
)
from ...models.rights import AccountRights
from ...models.station_command_answers import CurrentValues
from ...models.station_command_catalogue import (
    COMMANDS,
    FAMILIES,
    CommandSpec,
    StationCommandClient,
    StationRef,
    admin_of,
    check_parameters,
    command_spec,
    count_words,
    family_commands,
    request_body,
    stations_in_words,
)
from ...models.tasks import TaskRunner
from ..theme import severity_color
from ..widgets.fields_form import FieldsForm
from ..widgets.form_parts import fit_dialog, form_scroll, message_line, screen_area, words_label
from .command_run import CommandDialog

SUPPORT = "changeSupportPassword"


def action_of(spec: CommandSpec) -> str:
    """The rights action (models/rights.py) that guards sending this command."""
    if spec.name == SUPPORT:
        return "station.support_password"
    if spec.name == "updateLocation":
        return "station.locate"  # the one command queued offline (models/field_offline)
    return "station.command.disruptive" if spec.disruptive else "station.command"


# --- the parameters of one command ----------------------------------------------------------


def as_choice(spec: FormField) -> FormField:
    """A number whose values have words (the location source 1 or 2, the trace level 0 to
    3) is picked by its words: what is sent is still the number."""
    words = spec.about.choices
    if spec.kind == "int" and words:
        return replace(spec, kind="choice", choices=tuple(words))
    return spec


class ParametersForm(FieldsForm):
    """A command's parameters (`FieldsForm`, numbers with words picked by their words);
    every edit is checked by the command's request model and errors show next to their
    field."""

    def __init__(
        self,
        spec: CommandSpec,
        parent: QWidget | None = None,
        *,
        initial: dict[str, Raw] | None = None,
    ) -> None:
        fields, _skipped = form_fields(spec.parameters)
        chosen = [as_choice(f) for f in typed_fields(fields)]
        given = initial or {}
        starts = {f.name: given.get(f.name, raw_of(f, None)) for f in chosen}
        super().__init__(chosen, starts, parent=parent)
        self.spec = spec
        if not self.fields:
            none = QLabel("This command takes no parameters.")
            none.setObjectName("noParameters")
            self.column.addWidget(none)
        self.dirty = False

    def data(self) -> dict[str, Any]:
        return form_data(self.fields, self.raws())

    def check(self) -> dict[str, str]:
        """The errors of what is typed; shown once the user has typed something."""
        data = self.data()
        errors = check_parameters(self.spec, data)
        self.show_errors(errors, data, self.dirty)
        return errors


# --- the dialog -----------------------------------------------------------------------------


MOVED_EVERY_MS = 2000  # stations whose state may have changed, told at most this often


class StationCommandDialog(CommandDialog):
    """Parameters, confirmation (disruptive commands), progress: three pages."""

    # The UIDs of the stations of a run that ended: whoever lists them reads them again.
    run_finished = Signal(list)
    # Stations whose command started running or ended meanwhile (at most every 2 s).
    stations_moved = Signal(list)

    def __init__(
        self,
        parent: QWidget | None,
        admin: StationCommandClient | None,
        stations: Sequence[StationRef],
        command: str | None = None,
        *,
        rights: AccountRights | None = None,
        runner: TaskRunner | None = None,
    ) -> None:
        super().__init__(parent, admin, rights=rights, runner=runner)
        self.setObjectName("stationCommandDialog")
        self.stations = list(stations)
        # One station: its forms start from what it has now (log level, RF region, ...).
        self.current = (
            CurrentValues(admin, self.stations[0].uid, self)
            if admin is not None and len(self.stations) == 1
            else None
        )
        if self.current is not None:
            self.current.loaded.connect(self._current_loaded)
        family = command_spec(command).family if command else None
        self.setWindowTitle(
            f"{FAMILIES[family]}: {count_words(len(self.stations))}"
            if family
            else f"Command for {count_words(len(self.stations))}"
        )
        self._stack_pages(self._form_page(family, command), self._confirm_page())
        self._pick()
        self.fit()

    # --- page 1: which command, with what ------------------------------------------------

    def _form_page(self, family: str | None, command: str | None) -> QWidget:
        page = QWidget()
        page.setObjectName("formPage")
        self.to_label = words_label("stationsLabel", f"To: {stations_in_words(self.stations)}")
        self.picker = QComboBox()
        self.picker.setObjectName("commandPicker")
        self.picker.setAccessibleName("Command")
        families = [family] if family else [f for f in FAMILIES if f != "support"]
        for name in families:
            specs = family_commands(name)
            if not family:  # every family: a title before its commands
                self.picker.addItem(FAMILIES[name], None)
                item = self.picker.model().index(self.picker.count() - 1, 0)
                self.picker.model().setData(item, 0, Qt.ItemDataRole.UserRole - 1)  # disabled
                bold = self.picker.font()
                bold.setBold(True)
                self.picker.model().setData(item, bold, Qt.ItemDataRole.FontRole)
            for spec in specs:
                self.picker.addItem(spec.title, spec.name)
        index = self.picker.findData(command) if command else 1 if not family else 0
        self.picker.setCurrentIndex(max(index, 0))
        self.help = words_label("commandHelp")
        self.warning = words_label("disruptiveWarning", warning=True)
        self.versions = QLabel()
        self.versions.setObjectName("currentValues")
        self.versions.setWordWrap(True)
        self.versions.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.form_holder = QVBoxLayout()
        self.form: ParametersForm | None = None
        body = QWidget()
        column = QVBoxLayout(body)
        column.addWidget(self.help)
        column.addWidget(self.warning)
        column.addLayout(self.form_holder)
        column.addWidget(self.versions)
        column.addStretch(1)
        self.scroll_area = form_scroll(body)
        self.form_error = message_line("formError")
        buttons = self._send_row()
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.to_label)
        row = QHBoxLayout()
        row.addWidget(QLabel("Command"))
        row.addWidget(self.picker, 1)
        layout.addLayout(row)
        layout.addWidget(self.scroll_area, 1)
        layout.addWidget(self.form_error)
        layout.addLayout(buttons)
        self.picker.currentIndexChanged.connect(lambda _i: self._pick())
        self.send_button.clicked.connect(self._send_clicked)
        self.gate.bind(self.send_button, "station.command")
        return page

    @property
    def spec(self) -> CommandSpec:
        return command_spec(str(self.picker.currentData()))

    def _pick(self) -> None:
        """Another command: its help, its warning, its parameters."""
        spec = self.spec
        self._show_form(spec, {})
        self.versions.setText("")
        if self.current is not None and self.current.ask(spec.name):
            self.versions.setText("Reading what the station has now…")

    def _current_loaded(self, command: str, values: dict[str, Raw], versions: list[str]) -> None:
        if command != self.spec.name or self.form is None:
            return
        self.versions.setText("")
        if values and not self.form.dirty:
            self._show_form(self.spec, values)
        if versions:
            self.versions.setText("Versions this station may take: " + ", ".join(versions[:8]))
            editor = self.form.editors.get("version")
            line = getattr(editor, "input", None)
            if isinstance(line, QLineEdit):
                completer = QCompleter(versions, line)
                completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
                line.setCompleter(completer)
                if not line.text():
                    line.setPlaceholderText(versions[0])
        elif command in ("upgrade", "downloadLrrVersion"):
            self.versions.setText("No newer version is available for this station")

    def _show_form(self, spec: CommandSpec, initial: dict[str, Raw]) -> None:
        self.help.setText(spec.help)
        warnings = []
        if spec.disruptive:
            warnings.append(f"Disrupts service: {spec.disruptive}. You will be asked to confirm.")
        other = [s for s in self.stations if s.software_type not in (None, "LRR_LINUX")]
        if spec.lrr_only and other:
            warnings.append(
                f"Only for stations running the LRR software: {stations_in_words(other, 3)}"
                f" {'runs' if len(other) == 1 else 'run'} other software, so the platform"
                f" will refuse it {'there' if len(other) == 1 else 'on those'}."
            )
        self.warning.setText(" ".join(warnings))
        self.warning.setVisible(bool(warnings))
        if self.form is not None:
            self.form.setParent(None)
            self.form.deleteLater()
        self.form = ParametersForm(spec, initial=initial)
        self.form_holder.addWidget(self.form)
        for editor in self.form.editors.values():
            editor.edited.connect(self._edited)
        self.send_button.setText(
            f"{spec.title}…"
            if spec.disruptive
            else spec.title
            if len(self.stations) == 1
            else f"Send to {count_words(len(self.stations))}"
        )
        self.gate.bind(self.send_button, action_of(spec))
        self._check()
        if self.isVisible():  # another form: as tall as it needs, once it is laid out
            QTimer.singleShot(0, self.fit)

    def _edited(self) -> None:
        assert self.form is not None
        self.form.dirty = True
        self._check()

    def _check(self) -> dict[str, str]:
        assert self.form is not None
        errors = self.form.check()
        known = {f.name for f in self.form.fields}
        whole = " ".join(m for n, m in errors.items() if n not in known)
        self.form_error.setText(whole if self.form.dirty else "")
        ready = not errors and self.admin is not None and bool(self.stations)
        # Disabled, it says why before anything is typed (the fields say it once touched).
        why = (
            "Not connected to a platform that takes station commands"
            if self.admin is None
            else "No station to send it to"
            if not self.stations
            else "; ".join(list(errors.values())[:3])
        )
        self.send_button.setToolTip("" if ready else why)
        self.gate.enable(self.send_button, ready)
        if self.admin is None:
            self.form_error.setText("Not connected to a platform that takes station commands")
        return errors

    def _send_clicked(self) -> None:
        assert self.form is not None
        self.form.dirty = True
        if self._check():
            return
        if self.spec.disruptive:
            self._show_confirmation()
        else:
            self.start()

    # --- page 2: the confirmation -------------------------------------------------------

    def _confirm_page(self) -> QWidget:
        self.confirm_effect = words_label("confirmEffect")
        # Every station, when the sentence cannot name them all.
        self.confirm_list = QListWidget()
        self.confirm_list.setObjectName("confirmStations")
        self.confirm_list.setUniformItemSizes(True)
        page = self.confirm_page(self.confirm_effect, (self.confirm_list, 1))
        font = self.confirm_text.font()
        font.setBold(True)
        self.confirm_text.setFont(font)
        self.confirm_button.setStyleSheet(f"color: {severity_color(6).name()}")
        return page

    def _show_confirmation(self) -> None:
        spec = self.spec
        many = len(self.stations) > 1
        self.confirm_effect.setText(
            f"For {'each of these stations' if many else 'this station'}: {spec.disruptive}."
        )
        many_names = len(self.stations) > 8
        self.confirm_list.clear()
        if many_names:
            self.confirm_list.addItems([station.label for station in self.stations])
        self.confirm_list.setVisible(many_names)
        self.confirm(spec, self.stations)

    # --- page 3: the progress ------------------------------------------------------------

    def start(self) -> None:
        """Send the command to every station and show its progress."""
        assert self.form is not None and self.admin is not None
        spec = self.spec
        if not self.allowed(action_of(spec), self.form_error):
            return
        run = self.begin_run(spec.name, self.stations, request_body(spec, self.form.data()))
        uids = [station.uid for station in self.stations]
        run.finished.connect(lambda _summary: self.run_finished.emit(uids))
        self._moved: set[str] = set()
        self._moved_timer = QTimer(self)
        self._moved_timer.setSingleShot(True)
        self._moved_timer.setInterval(MOVED_EVERY_MS)
        self._moved_timer.timeout.connect(self._tell_moved)
        run.station_moved.connect(self._station_moved)
        if len(self.stations) > 1:  # room for the table, within the screen
            area = screen_area(self)
            self.setMaximumHeight(area.height() - 40)
            self.resize(min(960, area.width() - 40), min(640, area.height() - 40))
            # grown: keep it on the screen
            x = min(max(area.left(), self.x()), area.right() - self.width() - 20)
            y = min(max(area.top(), self.y()), area.bottom() - self.height() - 30)
            self.move(max(area.left(), x), max(area.top(), y))
        run.start()

    def _station_moved(self, uid: str) -> None:
        self._moved.add(uid)
        if not self._moved_timer.isActive():
            self._moved_timer.start()

    def _tell_moved(self) -> None:
        moved, self._moved = sorted(self._moved), set()
        if moved:
            self.stations_moved.emit(moved)

    def fit(self) -> None:
        fit_dialog(self, self.scroll_area, screen_area(self), min_width=560, max_width=900)

    def done(self, result: int) -> None:
        # Closing stops sending and following; what was sent stays sent.
        if self.current is not None:
            self.current.cancel()
        super().done(result)


def open_station_command(
    parent: QWidget | None,
    client: Any,
    stations: Sequence[StationRef],
    command: str | None = None,
    *,
    rights: AccountRights | None = None,
    runner: TaskRunner | None = None,
) -> QDialog:
    """The command dialog for these stations (the support password's own dialog for
    changeSupportPassword), shown without blocking; returned for whoever wants to watch it."""
    dialog: QDialog
    if command == SUPPORT:
        from .support_password import SupportPasswordDialog

        dialog = SupportPasswordDialog(parent, client, stations, rights=rights, runner=runner)
    else:
        if command is not None and command not in COMMANDS:
            raise KeyError(command)
        dialog = StationCommandDialog(
            parent, admin_of(client), stations, command, rights=rights, runner=runner
        )
    dialog.show()
    return dialog
