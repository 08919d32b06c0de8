"""The device import format in words, per operation, with a template to start from.

Everything shown comes from the import column table of the schema, so the guide, the
template and the wizard's checks cannot disagree."""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import cast, get_args

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from ...schema.device_import import (
    OPERATION_HELP,
    ImportOperation,
    format_rows,
    import_template,
)

OPERATIONS: tuple[ImportOperation, ...] = get_args(ImportOperation)


class ImportFormatGuide(QWidget):
    template_saved = Signal(str)  # path
    save_failed = Signal(str)  # message

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("importFormatGuide")
        intro = QLabel(
            "The file has one device per line and no header line. Column A says what to do "
            "with the device; the other columns are read by their spreadsheet letter. Lines "
            "starting with # are comments. The console's “Export this view for re-import” "
            "writes this format."
        )
        intro.setWordWrap(True)
        self.operation = QComboBox()
        self.operation.setObjectName("importFormatOperation")
        for op in OPERATIONS:
            self.operation.addItem(f"{op}: {OPERATION_HELP[op]}", op)
        self.save_button = QPushButton("Save template…")
        self.save_button.setObjectName("importTemplateButton")
        self.save_button.setToolTip("A file with this format in comments and an example line")
        row = QHBoxLayout()
        row.addWidget(QLabel("Columns of"))
        row.addWidget(self.operation, 1)
        row.addWidget(self.save_button)
        self.columns = QTextBrowser()
        self.columns.setObjectName("importFormatColumns")
        self.columns.setOpenLinks(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(intro)
        layout.addLayout(row)
        layout.addWidget(self.columns, 1)
        self.operation.currentIndexChanged.connect(self._show)
        self.save_button.clicked.connect(self.choose_template_file)
        self._show()

    @property
    def current(self) -> ImportOperation:
        return cast(ImportOperation, self.operation.currentData())

    def _show(self) -> None:
        rows = "".join(
            f"<tr><td><b>{escape(letter)}</b></td><td>{escape(label)}"
            f"{' <i>(required)</i>' if required else ''}</td><td>{escape(hint)}</td></tr>"
            for letter, label, hint, required in format_rows(self.current)
        )
        self.columns.setHtml(
            '<table cellspacing="0" cellpadding="3">'
            "<tr><th align=left>Column</th><th align=left>Field</th>"
            f"<th align=left>Holds</th></tr>{rows}</table>"
        )

    def choose_template_file(self) -> None:
        dialog = QFileDialog(self, "Save an import template")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setNameFilter("CSV files (*.csv)")
        dialog.setDefaultSuffix("csv")
        dialog.selectFile(f"template-{self.current.lower()}.csv")
        dialog.fileSelected.connect(self.save_template)
        dialog.finished.connect(lambda _r: dialog.deleteLater())
        dialog.open()

    def save_template(self, path: str) -> bool:
        try:
            Path(path).write_text(import_template(self.current), encoding="utf-8", newline="")
        except OSError as exc:
            self.save_failed.emit(f"Could not write {path}: {exc.strerror or exc}")
            return False
        self.template_saved.emit(path)
        return True
