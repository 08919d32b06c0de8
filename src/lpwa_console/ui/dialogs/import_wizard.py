"""Import devices from a CSV file: choose, preview with per-row validation, upload with
progress and cancel, then a per-row report and the failed rows to export, fix and retry.
Nothing here blocks: reading, checking and uploading run as tasks of the view-model."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from ...models.device_import import (
    CellErrorRole,
    DeviceImportViewModel,
    ImportPreviewModel,
    RowStatusRole,
)
from ...schema.device_import import DeviceImportReport
from ..connections import SignalConnections
from ..layouts import fill
from ..widgets.import_format import ImportFormatGuide
from ..widgets.job_progress import JobBar
from ..widgets.pane_parts import SeverityDelegate, row_table

FIXED_COLUMNS = len(ImportPreviewModel.FIXED)
STATUS_LEVEL = {
    "Invalid": 6, "Refused": 5, "Unknown": 4, "Warning": 3, "Imported": 1, "Valid": 0,
}  # fmt: skip


def status_level(index: QModelIndex | QPersistentModelIndex) -> int:
    """The status column coloured by outcome."""
    if index.column() != 1:
        return 0
    return STATUS_LEVEL.get(str(index.data(RowStatusRole)), 0)


def refused_cell(index: QModelIndex | QPersistentModelIndex) -> bool:
    """Only the file's cells (after Line, Status, Problems) can be refused: the others are
    not asked, a few hundred calls less per frame."""
    return index.column() >= FIXED_COLUMNS and bool(index.data(CellErrorRole))


class ImportWizard(QDialog):
    def __init__(
        self,
        view_model: DeviceImportViewModel,
        parent: QWidget | None = None,
        *,
        title: str = "Import devices",
        show_guide: bool = True,
    ) -> None:
        super().__init__(parent)
        self.vm = view_model
        self.setWindowTitle(title)
        self.setObjectName("importWizard")
        self.resize(980, 620)

        # --- choose ---
        self.path = QLineEdit()
        self.path.setObjectName("importPath")
        self.path.setPlaceholderText("A device import CSV (one device per line, no header)")
        self.browse_button = QPushButton("Browse…")
        self.read_button = QPushButton("Check file")
        self.read_button.setObjectName("readButton")
        choose_row = QHBoxLayout()
        choose_row.addWidget(self.path, 1)
        choose_row.addWidget(self.browse_button)
        choose_row.addWidget(self.read_button)
        self.summary = QLabel(
            "Choose a file: every line is checked with the same rules as the device form "
            "before anything is sent."
        )
        self.summary.setObjectName("importSummary")
        self.summary.setWordWrap(True)

        # --- preview / report ---
        self.table = row_table(view_model.preview, "importTable")
        self.table.setShowGrid(True)  # a file's cells, each checked on its own
        self.table.horizontalHeader().setStretchLastSection(False)
        self._delegate = SeverityDelegate(
            self.table, status_level, bold=False, refused=refused_cell
        )
        self.table.setItemDelegate(self._delegate)
        self.empty = QLabel("No file read yet")
        self.empty.setObjectName("importEmpty")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self.table)

        # --- progress and actions ---
        self.progress = JobBar("importProgress", "%v / %m rows", hide_idle=True, every_ms=0)
        self.upload_button = QPushButton("Import")
        self.upload_button.setObjectName("uploadButton")
        self.cancel_button = QPushButton("Cancel")
        self.export_button = QPushButton("Export failed rows…")
        self.export_button.setObjectName("exportFailed")
        self.close_button = QPushButton("Close")
        actions = QHBoxLayout()
        actions.addWidget(self.progress, 1)
        actions.addStretch(0)
        actions.addWidget(self.export_button)
        actions.addWidget(self.cancel_button)
        actions.addWidget(self.upload_button)
        actions.addWidget(self.close_button)

        # Before a file is read: what the file should hold, and templates.
        self.guide = ImportFormatGuide()
        self.guide.template_saved.connect(self._template_saved)
        self.guide.save_failed.connect(self.summary.setText)
        # The guide describes the device import's columns (another import has its own).
        self._show_guide = show_guide
        self.guide.setVisible(show_guide)

        fill(QVBoxLayout(self), choose_row, self.summary, (self.guide, 3), (self.stack, 1), actions)

        self.browse_button.clicked.connect(self.browse)
        self.read_button.clicked.connect(self.read_file)
        self.path.returnPressed.connect(self.read_file)
        # Methods, not lambdas that hold `self`: a connection held by a child must not keep
        # the wizard's Python object alive (see `done`).
        self.path.textChanged.connect(self._path_changed)
        self.upload_button.clicked.connect(self.vm.upload)
        self.cancel_button.clicked.connect(self.vm.cancel)
        self.progress.shown.connect(self._progress_shown)
        self.export_button.clicked.connect(self.choose_failed_file)
        self.close_button.clicked.connect(self.reject)
        self._connections = SignalConnections(
            (view_model.state_changed, self._state),
            (view_model.parsed, self._parsed),
            (view_model.parse_failed, self._parse_failed),
            (view_model.progress, self._progress),
            (view_model.finished, self._finished),
            (view_model.upload_failed, self._upload_failed),
        )
        self._state(view_model.state)

    # --- actions ----------------------------------------------------------------------

    def browse(self) -> None:
        dialog = QFileDialog(self, "Choose a device import file")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.setNameFilters(["CSV files (*.csv)", "All files (*)"])
        dialog.fileSelected.connect(self._chosen)
        dialog.finished.connect(lambda _r: dialog.deleteLater())
        dialog.open()

    def _chosen(self, path: str) -> None:
        self.path.setText(path)
        self.read_file()

    def read_file(self) -> None:
        path = self.path.text().strip()
        if path:
            self.vm.load(path)

    def choose_failed_file(self) -> None:
        dialog = QFileDialog(self, "Save the failed rows")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setNameFilter("CSV files (*.csv)")
        dialog.setDefaultSuffix("csv")
        dialog.selectFile("failed-devices.csv")
        dialog.fileSelected.connect(self.export_failed)
        dialog.finished.connect(lambda _r: dialog.deleteLater())
        dialog.open()

    def export_failed(self, path: str) -> int:
        try:
            count = self.vm.export_failed(path)
        except OSError as exc:
            self.summary.setText(f"Could not write {path}: {exc.strerror or exc}")
            return 0
        self.summary.setText(
            f"{count:,} failed row{'s' if count != 1 else ''} written to {path}: "
            "fix them and import that file again."
        )
        return count

    def _template_saved(self, path: str) -> None:
        self.summary.setText(
            f"Template saved to {path}: add one line per device (the example shows how), "
            "then choose that file here."
        )

    # --- view-model signals -----------------------------------------------------------

    def _path_changed(self, _text: str) -> None:
        self._update()

    def _state(self, _state: str) -> None:
        self._update()

    def _update(self) -> None:
        state = self.vm.state
        busy = state in ("parsing", "uploading")
        valid = len(self.vm.valid_rows)
        self.path.setEnabled(not busy)
        self.browse_button.setEnabled(not busy)
        self.read_button.setEnabled(not busy and bool(self.path.text().strip()))
        self.upload_button.setEnabled(state == "parsed" and valid > 0)
        self.upload_button.setText(f"Import {valid:,} valid rows" if valid else "Import")
        self.cancel_button.setVisible(busy)
        if not busy:
            self.progress.finish()
        elif state == "parsing" or not self.progress.isVisible():
            self.progress.busy()
        if state == "parsing":
            self.summary.setText(f"Checking {self.vm.path.name if self.vm.path else ''}…")
        report = self.vm.report
        has_failed = (state == "parsed" and self.vm.invalid_count > 0) or (
            state == "done"
            and report is not None
            and (report.errorCount or report.unknownCount or report.notSentCount) > 0
        )
        self.export_button.setVisible(has_failed)
        self.close_button.setEnabled(not busy)
        # The guide while there is nothing else to show; the rows once a file is read.
        self.guide.setVisible(self._show_guide and self.stack.currentWidget() is self.empty)

    def _parsed(self, valid: int, invalid: int) -> None:
        total = valid + invalid
        if total == 0:
            self.empty.setText("This file has no device line")
            self.stack.setCurrentWidget(self.empty)
        else:
            self.stack.setCurrentWidget(self.table)
            self.table.setColumnWidth(0, 50)
            self.table.setColumnWidth(1, 70)
            self.table.setColumnWidth(2, 320)
            self.table.setColumnWidth(3, 110)
            if self.vm.preview.columnCount() > 4:
                self.table.setColumnWidth(4, 150)
        text = f"{total:,} device line{'s' if total != 1 else ''}: {valid:,} valid"
        if invalid:
            text += f", {invalid:,} with errors (red cells; they will not be sent)"
        self.summary.setText(text)
        self._update()

    def _parse_failed(self, message: str) -> None:
        self.summary.setText(f"Could not read the file: {message}")
        self.empty.setText("No file read")
        self.stack.setCurrentWidget(self.empty)
        self._update()

    def _progress(self, done: int, total: int) -> None:
        self.progress.advance(done, total)

    def _progress_shown(self, done: int, total: int) -> None:
        if self.vm.state == "uploading":
            self.summary.setText(f"Importing… {done:,} of {total:,} rows sent")

    def _finished(self, report: DeviceImportReport) -> None:
        text = f"Done: {report.okCount:,} imported, {report.errorCount:,} failed"
        if report.unknownCount:
            text += (
                f", {report.unknownCount:,} with an unknown outcome (the platform's answer did"
                " not say: check those devices before retrying them)"
            )
        if report.notSentCount:
            text += f", {report.notSentCount:,} not sent (cancelled)"
        if report.errorCount or report.unknownCount or report.notSentCount:
            text += " (see the Problems column; export the failed rows to fix and retry)"
        self.summary.setText(text)
        self._update()

    def _upload_failed(self, message: str) -> None:
        self.summary.setText(f"Import failed: {message}")
        self._update()

    def done(self, result: int) -> None:
        """Closing stops the work and lets go of the view-model (which outlives the wizard).
        A wizard without a parent then deletes itself: nothing else would, and a top-level
        widget left for PySide to delete at interpreter exit may be deleted twice there
        ("shared QObject was deleted directly", exit code 134)."""
        if self.vm.busy:
            self.vm.cancel()
        self._connections.disconnect_all()
        super().done(result)
        if self.parent() is None:
            self.deleteLater()
