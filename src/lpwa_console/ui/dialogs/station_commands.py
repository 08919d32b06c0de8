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
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from ...models.forms import (
    NESTED_KINDS,
    FormField,
    Raw,
    form_data,
    form_fields,
    nested_errors,
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
    confirmation_text,
    count_words,
    family_commands,
    request_body,
    stations_in_words,
)
from ...models.station_command_run import BulkCommandRun
from ...models.tasks import TaskRunner
from ..theme import severity_color
from ..widgets.form_parts import fit_dialog, message_line, required_legend, screen_area, words_label
from ..widgets.nested_editor import Editor, editor_for, field_label
from .command_run import CommandDialog, RunView

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


class ParametersForm(QWidget):
    """A command's parameters: flat fields in a form, nested ones in a group each; every
    edit is checked by the command's request model and errors show next to their field."""

    def __init__(
        self,
        spec: CommandSpec,
        parent: QWidget | None = None,
        *,
        initial: dict[str, Raw] | None = None,
    ) -> None:
        super().__init__(parent)
        self.spec = spec
        initial = initial or {}
        fields, _skipped = form_fields(spec.parameters)
        self.fields = [as_choice(f) for f in typed_fields(fields)]
        self.fields.sort(key=lambda f: (f.kind in NESTED_KINDS, not f.required))
        self.editors: dict[str, Editor] = {}
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        if any(f.required for f in self.fields):
            column.addWidget(required_legend())
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        column.addLayout(form)
        for spec_field in self.fields:
            start = initial.get(spec_field.name, raw_of(spec_field, None))
            editor = editor_for(spec_field, start)
            self.editors[spec_field.name] = editor
            if spec_field.kind in NESTED_KINDS:
                group = QGroupBox(spec_field.marked_label)
                group.setToolTip(spec_field.tooltip)
                QVBoxLayout(group).addWidget(editor)
                column.addWidget(group)
            else:
                form.addRow(field_label(spec_field), editor)
        if not self.fields:
            none = QLabel("This command takes no parameters.")
            none.setObjectName("noParameters")
            column.addWidget(none)
        self.dirty = False

    def raws(self) -> dict[str, Raw]:
        return {name: editor.raw() for name, editor in self.editors.items()}

    def data(self) -> dict[str, Any]:
        return form_data(self.fields, self.raws())

    def check(self) -> dict[str, str]:
        """The errors of what is typed; shown once the user has typed something."""
        data = self.data()
        errors = check_parameters(self.spec, data)
        for spec_field in self.fields:
            editor = self.editors[spec_field.name]
            nested = (
                nested_errors(spec_field, editor.raw())
                if self.dirty and spec_field.name in data
                else []
            )
            editor.show_errors(errors.get(spec_field.name, "") if self.dirty else "", nested)
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
        self.run_view: RunView | None = None
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
        self.scroll_area = QScrollArea()
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QScrollArea.Shape.NoFrame)
        self.scroll_area.setWidget(body)
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
        page = QWidget()
        page.setObjectName("confirmPage")
        self.confirm_text = QLabel()
        self.confirm_text.setObjectName("confirmText")
        self.confirm_text.setWordWrap(True)
        font = self.confirm_text.font()
        font.setBold(True)
        self.confirm_text.setFont(font)
        self.confirm_effect = QLabel()
        self.confirm_effect.setObjectName("confirmEffect")
        self.confirm_effect.setWordWrap(True)
        # Every station, when the sentence cannot name them all.
        self.confirm_list = QListWidget()
        self.confirm_list.setObjectName("confirmStations")
        self.confirm_list.setUniformItemSizes(True)
        buttons = self._confirm_row()
        self.confirm_button.setStyleSheet(f"color: {severity_color(6).name()}")
        layout = QVBoxLayout(page)
        layout.addWidget(self.confirm_text)
        layout.addWidget(self.confirm_effect)
        layout.addWidget(self.confirm_list, 1)
        layout.addStretch(1)
        layout.addLayout(buttons)
        return page

    def _show_confirmation(self) -> None:
        spec = self.spec
        self.confirm_text.setText(confirmation_text(spec, self.stations))
        many = len(self.stations) > 1
        self.confirm_effect.setText(
            f"For {'each of these stations' if many else 'this station'}: {spec.disruptive}."
        )
        many_names = len(self.stations) > 8
        self.confirm_list.clear()
        if many_names:
            self.confirm_list.addItems([station.label for station in self.stations])
        self.confirm_list.setVisible(many_names)
        label = confirmation_text(spec, self.stations).split(":", 1)[0]
        self.confirm_button.setText(label)
        self.stack.setCurrentIndex(1)
        self.back_button.setFocus()  # the safe answer is the one Enter gives

    # --- page 3: the progress ------------------------------------------------------------

    def start(self) -> None:
        """Send the command to every station and show its progress."""
        assert self.form is not None and self.admin is not None
        spec = self.spec
        verdict = self.gate.check(action_of(spec))
        if not verdict.allowed:
            self.form_error.setText(verdict.reason)
            self.stack.setCurrentIndex(0)
            return
        body = request_body(spec, self.form.data())
        self.run = BulkCommandRun(self.admin, spec.name, self.stations, body, runner=self.runner)
        self.run.setParent(self)
        uids = [station.uid for station in self.stations]
        self.run.finished.connect(lambda _summary: self.run_finished.emit(uids))
        self._moved: set[str] = set()
        self._moved_timer = QTimer(self)
        self._moved_timer.setSingleShot(True)
        self._moved_timer.setInterval(MOVED_EVERY_MS)
        self._moved_timer.timeout.connect(self._tell_moved)
        self.run.station_moved.connect(self._station_moved)
        self.run_view = self.show_run(self.run)
        if len(self.stations) > 1:  # room for the table, within the screen
            area = screen_area(self)
            self.setMaximumHeight(area.height() - 40)
            self.resize(min(960, area.width() - 40), min(640, area.height() - 40))
            # grown: keep it on the screen
            x = min(max(area.left(), self.x()), area.right() - self.width() - 20)
            y = min(max(area.top(), self.y()), area.bottom() - self.height() - 30)
            self.move(max(area.left(), x), max(area.top(), y))
        self.run.start()

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
