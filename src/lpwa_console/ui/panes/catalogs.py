"""The operator's catalogs: device and base-station profiles, device and base-station vendors
and RF regions, in the language chosen at the top (items without texts in it read in the
operator's default language). A vendor's or RF region's texts are edited beside those of the
default language; a device profile in the profile editor; an RF region has a logo. The
catalog versions are compared and updated in “Catalog updates…”, a catalog file is imported
with its progress shown."""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from ...models.catalogs import (
    CATALOG_NOUNS,
    SOURCE_WORDS,
    TABLES,
    TEXT_KINDS,
    CatalogsViewModel,
    language_name,
)
from ...models.references import ReferenceListModel
from ...models.rights import AccountRights
from ...schema.catalogs import DETAIL_NAMES, CatalogVersion
from ...schema.labels import field_words
from ..connections import SignalConnections
from ..dialogs.catalogs import CatalogUpdateDialog, ProfileEditor
from ..layouts import fill
from ..pane import Pane
from ..questions import ask
from ..rights import RightsGate
from ..widgets.filter_state import FilterSet
from ..widgets.list_detail import ListDetailSplitter
from ..widgets.pane_parts import PaneMessage, TableOrEmpty, busy_bar, data_table

NOT_CONNECTED = "Not connected"


class TextsEditor(QWidget):
    """The texts of one vendor or RF region: the default language's (read only) on the
    left, the chosen language's (editable) on the right."""

    save_requested = Signal(str, str)  # name, description

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel()
        self.title.setObjectName("textsTitle")
        self.title.setWordWrap(True)
        self.default_header = QLabel()
        self.local_header = QLabel()
        self.default_name = QLineEdit()
        self.default_name.setReadOnly(True)
        self.default_name.setObjectName("defaultName")
        self.default_description = QPlainTextEdit()
        self.default_description.setReadOnly(True)
        self.default_description.setObjectName("defaultDescription")
        self.local_name = QLineEdit()
        self.local_name.setObjectName("localName")
        self.local_description = QPlainTextEdit()
        self.local_description.setObjectName("localDescription")
        for box in (self.default_description, self.local_description):
            box.setMaximumHeight(90)
        self.note = QLabel()
        self.note.setObjectName("textsNote")
        self.note.setWordWrap(True)
        self.save_button = QPushButton("Save texts")
        self.save_button.setObjectName("saveTexts")
        grid = QGridLayout()
        grid.addWidget(self.default_header, 0, 1)
        grid.addWidget(self.local_header, 0, 2)
        grid.addWidget(QLabel("Name"), 1, 0)
        grid.addWidget(self.default_name, 1, 1)
        grid.addWidget(self.local_name, 1, 2)
        grid.addWidget(QLabel("Description"), 2, 0, Qt.AlignmentFlag.AlignTop)
        grid.addWidget(self.default_description, 2, 1)
        grid.addWidget(self.local_description, 2, 2)
        grid.setColumnStretch(1, 1)
        grid.setColumnStretch(2, 1)
        row = QHBoxLayout()
        row.addWidget(self.note, 1)
        row.addWidget(self.save_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addLayout(grid)
        layout.addLayout(row)
        layout.addStretch(1)
        self.save_button.clicked.connect(
            lambda: self.save_requested.emit(
                self.local_name.text().strip(), self.local_description.toPlainText().strip()
            )
        )
        self.show_item("", "en", "en")

    def show_item(self, title: str, default: str, language: str) -> None:
        self.title.setText(title or "Select an item to see its texts.")
        self.default_header.setText(f"<b>{escape(language_name(default))}</b> (default)")
        same = language == default
        self.local_header.setText(
            f"<b>{escape(language_name(language))}</b>" + (" (default)" if same else "")
        )
        for edit in (self.default_name, self.local_name):
            edit.clear()
        for box in (self.default_description, self.local_description):
            box.clear()
        self.note.setText(
            "Choose another language at the top to translate these texts."
            if same
            else "Empty: the item reads in the default language."
        )
        enabled = bool(title)
        self.local_name.setEnabled(enabled)
        self.local_description.setEnabled(enabled)
        self.save_button.setEnabled(enabled)

    def set_texts(self, default: tuple[Any, Any], local: tuple[Any, Any]) -> None:
        self.default_name.setText(default[0] or "")
        self.default_description.setPlainText(default[1] or "")
        self.local_name.setText(local[0] or "")
        self.local_name.setPlaceholderText(default[0] or "")
        self.local_description.setPlainText(local[1] or "")
        self.local_description.setPlaceholderText(default[1] or "")


class CatalogsPane(Pane):
    title = "Catalogs"
    filter_set: FilterSet

    def __init__(
        self,
        view_model: CatalogsViewModel,
        rights: AccountRights | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.vm = view_model
        self.gate = RightsGate(rights, self)
        self.language_combo = QComboBox()
        self.language_combo.setObjectName("catalogLanguage")
        self.language_combo.setToolTip(
            "The language of names and descriptions; items without texts in it read in the"
            " operator's default language"
        )
        self.source_combo = QComboBox()
        self.source_combo.setObjectName("catalogSource")
        for value, words in SOURCE_WORDS.items():
            self.source_combo.addItem(words, value)
        self.version_label = QLabel()
        self.version_label.setObjectName("catalogVersion")
        self.busy = busy_bar()
        self.updates_button = QPushButton("Catalog updates…")
        self.updates_button.setObjectName("catalogUpdates")
        self.import_button = QPushButton("Import catalog file…")
        self.import_button.setObjectName("importCatalog")
        self.refresh_button = QPushButton("Refresh")
        self.gate.bind(self.updates_button, "catalog.update")
        self.gate.bind(self.import_button, "catalog.update")
        top = fill(
            QHBoxLayout(),
            QLabel("Language"), self.language_combo, QLabel("Show"), self.source_combo,
            self.version_label, self.busy, 1,
            self.updates_button, self.import_button, self.refresh_button,
        )  # fmt: skip

        self.progress = QProgressBar()
        self.progress.setObjectName("importProgress")
        self.progress.setRange(0, 100)
        self.progress.setVisible(False)
        self.progress_label = QLabel()
        self.progress_label.setObjectName("importProgressText")
        self.progress_label.setVisible(False)
        self.message = PaneMessage()

        self.tabs = QTabWidget()
        self.tabs.setObjectName("catalogTabs")
        self.tables: dict[str, Any] = {}
        self.stacks: dict[str, TableOrEmpty] = {}
        self.texts: dict[str, TextsEditor] = {}
        for kind, (title, _catalog) in TABLES.items():
            table = data_table(view_model.models[kind], f"{kind}Table")
            stack = TableOrEmpty(table)
            self.tables[kind] = table
            self.stacks[kind] = stack
            splitter = ListDetailSplitter(f"{kind}Splitter", stack, self._side(kind))
            self.tabs.addTab(splitter, title)
            table.selectionModel().currentRowChanged.connect(
                lambda current, _p, k=kind: self._picked(k, current)
            )
            table.doubleClicked.connect(lambda _i, k=kind: self._activated(k))

        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 4)
        layout.addLayout(top)
        layout.addWidget(self.message)
        row = QHBoxLayout()
        row.addWidget(self.progress_label)
        row.addWidget(self.progress, 1)
        layout.addLayout(row)
        layout.addWidget(self.tabs, 1)

        self.vendors = ReferenceListModel(self)
        self.update_dialog: CatalogUpdateDialog | None = None
        self.editor: ProfileEditor | None = None
        self.ask_force: QMessageBox | None = None
        self.ask_older: QMessageBox | None = None
        self._import_path: Path | None = None
        self._error_text = ""
        # Kept per account (`Pane.set_account`), like the other panes' filters.
        self.filter_set = FilterSet(
            [self.source_combo, self.language_combo], self._apply_filters, parent=self
        )
        layout.insertWidget(1, self.filter_set.bar)
        self.language_combo.currentIndexChanged.connect(self._language_picked)
        self.source_combo.currentIndexChanged.connect(lambda _i: self._apply_filters())
        self.tabs.currentChanged.connect(lambda _i: self._update())
        self.updates_button.clicked.connect(self.open_updates)
        self.import_button.clicked.connect(self.choose_import_file)
        self.refresh_button.clicked.connect(self.refresh)
        pairs: list[tuple[Any, Any]] = [
            (view_model.languages_changed, self._languages),
            (view_model.language_changed, self._language_changed),
            (view_model.client_changed, lambda _h: self._client_changed()),
            (view_model.versions_changed, self._update),
            (view_model.error, self._error),
            (view_model.texts_loaded, self._texts_loaded),
            (view_model.texts_saved, self._texts_saved),
            (view_model.texts_failed, lambda m: self.message.show_message(f"Texts: {m}")),
            (view_model.profile_saved, self._profile_saved),
            (view_model.import_progress, self._import_progress),
            (view_model.import_done, self._import_done),
            (view_model.import_failed, self._import_failed),
            (view_model.import_needs_force, self._ask_force),
            (view_model.import_needs_older, self._ask_older),
            (view_model.update_done, self._update_done),
            (view_model.logo_loaded, self._logo_loaded),
            (view_model.logo_failed, lambda m: self.message.show_message(f"Logo: {m}")),
        ]
        for model in view_model.models.values():
            pairs += [
                (model.count_changed, lambda _n: self._update()),
                (model.first_page_loaded, self._update),
                (model.loading_changed, lambda _b: self._busy()),
            ]
        pairs.append((view_model.models["deviceVendors"].first_page_loaded, self._vendors_loaded))
        self._connections = SignalConnections(*pairs)
        self._languages()
        self._update()

    # --- side panels --------------------------------------------------------------------

    def _side(self, kind: str) -> QWidget:
        side = QWidget()
        column = QVBoxLayout(side)
        column.setContentsMargins(0, 0, 0, 0)
        if kind in TEXT_KINDS:
            editor = TextsEditor()
            editor.setObjectName(f"{kind}Texts")
            self.gate.bind(editor.save_button, "catalog.edit")
            editor.save_requested.connect(lambda n, d, k=kind: self._save_texts(k, n, d))
            self.texts[kind] = editor
            column.addWidget(editor)
            if kind == "rfRegions":
                self.logo = QLabel("No logo")
                self.logo.setObjectName("rfRegionLogo")
                self.logo.setMinimumHeight(72)
                self.logo.setAlignment(Qt.AlignmentFlag.AlignCenter)
                self.logo_button = QPushButton("Upload logo…")
                self.logo_button.setObjectName("uploadLogo")
                self.logo_button.setToolTip("A PNG or JPEG image of at most 256 KB")
                self.logo_button.setEnabled(False)
                self.gate.bind(self.logo_button, "catalog.edit")
                self.logo_button.clicked.connect(self.choose_logo)
                column.addWidget(self.logo)
                column.addWidget(self.logo_button)
            column.addStretch(1)
            return side
        detail = QTextBrowser()
        detail.setObjectName(f"{kind}Detail")
        detail.setOpenLinks(False)
        column.addWidget(detail, 1)
        if kind == "deviceProfiles":
            self.profile_detail = detail
            buttons = QHBoxLayout()
            self.new_profile_button = QPushButton("New profile…")
            self.new_profile_button.setObjectName("newProfile")
            self.edit_profile_button = QPushButton("Edit…")
            self.edit_profile_button.setObjectName("editProfile")
            self.edit_profile_button.setEnabled(False)
            self.gate.bind(self.new_profile_button, "catalog.edit")
            self.gate.bind(self.edit_profile_button, "catalog.edit")
            self.new_profile_button.clicked.connect(lambda: self.open_profile_editor(None))
            self.edit_profile_button.clicked.connect(self.edit_current_profile)
            buttons.addWidget(self.new_profile_button)
            buttons.addWidget(self.edit_profile_button)
            buttons.addStretch(1)
            column.addLayout(buttons)
        else:
            self.station_detail = detail
        return side

    # --- actions ------------------------------------------------------------------------

    def refresh(self) -> None:
        self._error_text = ""
        self.vm.reload()
        self.vm.read_versions()
        self._update()

    def create_item(self) -> None:  # a new device profile, from the first tab
        if self.tabs.currentIndex() == 0:
            self.open_profile_editor(None)

    def current_kind(self) -> str:
        return list(TABLES)[self.tabs.currentIndex()]

    def current_item(self) -> tuple[str | None, str | None]:
        kind = self.current_kind()
        index = self.tables[kind].currentIndex()
        item = self.vm.models[kind].item(index.row()) if index.isValid() else None
        return (getattr(item, "ID", None), kind)

    def open_item(self, item: str | None, section: str | None = None) -> None:
        """Show the tab `section` (a kind) and select the item of that ID when listed."""
        kinds = list(TABLES)
        if section in kinds:
            self.tabs.setCurrentIndex(kinds.index(section))
        model = self.vm.models[self.current_kind()]
        for row in range(model.rowCount()):
            found = model.item(row)
            if found is not None and getattr(found, "ID", None) == item:
                self.tables[self.current_kind()].selectRow(row)
                return

    def open_updates(self) -> None:
        if not self.vm.has_client:
            return
        if self.update_dialog is not None:
            self.update_dialog.raise_()
            return
        dialog = CatalogUpdateDialog(self.vm, self)
        self.update_dialog = dialog

        def closed(_r: int) -> None:
            dialog.deleteLater()
            self.update_dialog = None

        dialog.finished.connect(closed)
        dialog.open()

    def choose_import_file(self) -> None:
        if not self.vm.has_client:
            return
        dialog = QFileDialog(self, "Import a catalog file")
        dialog.setObjectName("importCatalogDialog")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.setNameFilter("Catalog files (*.json *.json.gz *.gz)")
        dialog.fileSelected.connect(lambda path: self.import_file(Path(path)))
        dialog.finished.connect(lambda _r: dialog.deleteLater())
        dialog.open()

    def import_file(self, path: Path, *, force: bool = False, older: bool = False) -> None:
        self._import_path = path
        self.progress.setValue(0)
        self.progress.setVisible(True)
        self.progress_label.setVisible(True)
        self.import_button.setEnabled(False)
        self.vm.import_file(path, force=force, older=older)

    def open_profile_editor(self, profile: Any) -> None:
        if not self.vm.has_client or self.editor is not None:
            return
        editor = ProfileEditor(self.vm, self.vendors, profile, self)
        self.editor = editor

        def closed(_r: int) -> None:
            editor.deleteLater()
            self.editor = None

        editor.finished.connect(closed)
        editor.open()

    def edit_current_profile(self) -> None:
        index = self.tables["deviceProfiles"].currentIndex()
        profile = self.vm.models["deviceProfiles"].item(index.row()) if index.isValid() else None
        if profile is not None:
            self.open_profile_editor(profile)

    def choose_logo(self) -> None:
        region = self._current("rfRegions")
        if region is None:
            return
        dialog = QFileDialog(self, f"Logo of {region.ID}")
        dialog.setObjectName("logoDialog")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.setNameFilter("Images (*.png *.jpg *.jpeg)")
        dialog.fileSelected.connect(lambda path: self.vm.upload_logo(region.ID, Path(path)))
        dialog.finished.connect(lambda _r: dialog.deleteLater())
        dialog.open()

    # --- signals ------------------------------------------------------------------------

    def _current(self, kind: str) -> Any:
        index = self.tables[kind].currentIndex()
        return self.vm.models[kind].item(index.row()) if index.isValid() else None

    def _languages(self) -> None:
        self.language_combo.blockSignals(True)
        self.language_combo.clear()
        for tag in self.vm.languages:
            default = " (default)" if tag == self.vm.default_language else ""
            self.language_combo.addItem(language_name(tag) + default, tag)
        index = self.language_combo.findData(self.vm.language or self.vm.default_language)
        self.language_combo.setCurrentIndex(max(index, 0))
        self.language_combo.blockSignals(False)
        # A new account's language is the operator's default one.
        source_default, _language = self.filter_set.defaults
        self.filter_set.defaults = (source_default, ("data", self.vm.default_language))

    def _apply_filters(self) -> None:
        self.vm.set_source(str(self.source_combo.currentData()))
        self._language_picked(self.language_combo.currentIndex())

    def _language_picked(self, _index: int) -> None:
        tag = self.language_combo.currentData()
        if tag:
            self.vm.set_language(str(tag))

    def _language_changed(self, tag: str) -> None:
        index = self.language_combo.findData(tag)
        if index >= 0 and index != self.language_combo.currentIndex():
            self.language_combo.blockSignals(True)
            self.language_combo.setCurrentIndex(index)
            self.language_combo.blockSignals(False)
        for kind in TEXT_KINDS:
            self._picked(kind, self.tables[kind].currentIndex())

    def _picked(self, kind: str, current: QModelIndex) -> None:
        item = self.vm.models[kind].item(current.row()) if current.isValid() else None
        if kind in TEXT_KINDS:
            editor = self.texts[kind]
            language = self.vm.language or self.vm.default_language
            if item is None:
                editor.show_item("", self.vm.default_language, language)
            else:
                name = getattr(item, "commercialName", None) or getattr(item, "name", "")
                editor.show_item(f"<b>{escape(str(name))}</b> ({escape(item.ID)})",
                                 self.vm.default_language, language)  # fmt: skip
                self.vm.load_texts(kind, item.ID, language)
            if kind == "rfRegions":
                self.logo.setPixmap(QPixmap())
                self.logo.setText("No logo" if item is None or not item.logo else "Loading…")
                self.logo_button.setEnabled(item is not None)
                if item is not None and item.logo:
                    self.vm.load_logo(item.ID)
            return
        if kind == "deviceProfiles":
            self.profile_detail.setHtml(profile_html(item) if item is not None else "")
            self.edit_profile_button.setEnabled(item is not None)
        else:
            self.station_detail.setHtml(station_profile_html(item) if item is not None else "")

    def _activated(self, kind: str) -> None:
        if kind == "deviceProfiles":
            self.edit_current_profile()

    def _texts_loaded(self, kind: str, item_id: str, default: Any, local: Any) -> None:
        current = self._current(kind)
        if current is not None and item_id == current.ID:
            self.texts[kind].set_texts(default, local)

    def _save_texts(self, kind: str, name: str, description: str) -> None:
        item = self._current(kind)
        if item is not None:
            language = self.vm.language or self.vm.default_language
            self.vm.save_texts(kind, item.ID, language, name, description)

    def _texts_saved(self, _kind: str, item_id: str) -> None:
        language = language_name(self.vm.language or self.vm.default_language)
        self.message.show_message(f"Saved the {language} texts of {item_id}")

    def _profile_saved(self, profile: Any) -> None:
        self.message.show_message(f"Saved the device profile {profile.ID}")

    def _logo_loaded(self, region_id: str, data: bytes) -> None:
        current = self._current("rfRegions")
        if current is None or region_id != current.ID:
            return
        pixmap = QPixmap()
        if data and pixmap.loadFromData(data):
            self.logo.setPixmap(
                pixmap.scaled(160, 72, Qt.AspectRatioMode.KeepAspectRatio,
                              Qt.TransformationMode.SmoothTransformation)
            )  # fmt: skip
        else:
            self.logo.setText("No logo" if not data else "The logo is not an image Qt reads")

    def _vendors_loaded(self) -> None:
        model = self.vm.models["deviceVendors"]
        items = [model.item(row) for row in range(model.rowCount())]
        self.vendors.set_items((v.ID, v.commercialName or v.ID) for v in items if v is not None)

    def _import_progress(self, percent: int, text: str) -> None:
        self.progress.setValue(percent)
        self.progress_label.setText(text)

    def _import_finished(self) -> None:
        self.import_button.setEnabled(self.vm.has_client)
        self.progress.setVisible(False)
        self.progress_label.setVisible(False)

    def _import_done(self, answer: CatalogVersion) -> None:
        self._import_finished()
        words = CATALOG_NOUNS.get(answer.catalog, answer.catalog)
        self.message.show_message(
            f"Installed the {words} catalog {answer.version}:"
            f" {answer.imported or 0:,} items written, {len(answer.added):,} new"
        )

    def _import_failed(self, message: str) -> None:
        self._import_finished()
        self.message.show_message(f"Catalog not imported: {message}")

    def _ask_force(self, kind: str, version: str) -> None:
        self._import_finished()
        path = self._import_path

        def answered(install: bool) -> None:
            if install and path is not None:
                self.import_file(path, force=True)
            self.ask_force = None

        self.ask_force = ask(
            self,
            "importForceConfirm",
            "Install again?",
            f"Version {version} of the {CATALOG_NOUNS.get(kind, kind)} catalog is"
            " installed already. Install this file anyway?",
            answered,
            accept="Install anyway",
            warning=False,
        )

    def _ask_older(self, kind: str, installed: str, version: str) -> None:
        """A file older than the installed catalog: installed only when the user says so."""
        self._import_finished()
        path = self._import_path
        noun = CATALOG_NOUNS.get(kind, kind)

        def answered(install: bool) -> None:
            if install and path is not None:
                self.import_file(path, older=True)
            else:
                self.message.show_message(
                    f"Kept the {noun} catalog {installed}: version {version} was not installed"
                )
            self.ask_older = None

        self.ask_older = ask(
            self,
            "importOlderConfirm",
            "Install an older version?",
            f"This file holds version {version} of the {noun} catalog, which is older than"
            f" version {installed}, the one installed.",
            answered,
            informative=f"Install version {version} in place of version {installed}? Its items"
            " replace those of the catalog; items you created are kept.",
            accept=f"Install version {version}",
            keep=f"Keep version {installed}",
            warning=True,
        )

    def _update_done(self, answer: CatalogVersion) -> None:
        words = CATALOG_NOUNS.get(answer.catalog, answer.catalog)
        self.message.show_message(f"Installed the {words} catalog {answer.version}")

    def _error(self, message: str) -> None:
        self._error_text = message
        self._update()

    def _client_changed(self) -> None:
        self._error_text = ""
        self._languages()
        self._update()

    def _busy(self) -> None:
        self.busy.setVisible(any(m.loading for m in self.vm.models.values()))

    def _update(self) -> None:
        kind = self.current_kind()
        catalog = TABLES[kind][1]
        installed = self.vm.installed.get(catalog) if catalog else None
        if catalog and installed is not None:
            self.version_label.setText(f"Catalog {installed.version or 'not installed'}")
            offered = self.vm.comparison(catalog) == "newer"
            self.version_label.setToolTip(
                "A newer version is offered: see Catalog updates" if offered else ""
            )
        else:
            self.version_label.setText("")
        for name, stack in self.stacks.items():
            model = self.vm.models[name]
            if not self.vm.has_client:
                stack.show_empty(NOT_CONNECTED)
            elif self._error_text and model.rowCount() == 0:
                stack.show_empty(
                    f"Only an operator account reads the catalogs ({self._error_text})"
                )
            elif model.rowCount() == 0 and not model.loading and model.has_fetcher:
                noun = CATALOG_NOUNS.get(name) or TABLES[name][0].lower()
                stack.show_empty(f"No {noun} here")
            else:
                stack.show_empty("")
        connected = self.vm.has_client
        for button in (self.refresh_button, self.language_combo, self.source_combo):
            button.setEnabled(connected)
        self.gate.enable(self.updates_button, connected)
        self.gate.enable(self.import_button, connected and not self.progress.isVisible())
        if kind in ("deviceVendors", "baseStationVendors"):
            self.source_combo.setEnabled(False)
            self.source_combo.setToolTip("Vendors are listed whatever their source")
        else:
            self.source_combo.setToolTip("")

    def closeEvent(self, event: Any) -> None:
        self._connections.disconnect_all()
        super().closeEvent(event)


# --- detail texts ---------------------------------------------------------------------------


def _row(label: str, value: Any) -> str:
    if value is None or value == "" or value == []:
        return ""
    return f"<tr><td><i>{escape(label)}</i></td><td>{escape(str(value))}</td></tr>"


def profile_html(profile: Any) -> str:
    rows = [
        _row("ID", profile.ID),
        _row("Vendor", profile.vendor.commercialName or profile.vendor.ID),
        _row("Source", field_words("source").choice_words(profile.source)),
        _row("Connectivity", field_words("connectivity").choice_words(profile.connectivity)),
        _row("ISM bands", ", ".join(b.name or b.ID for b in profile.defaultIsmBands)),
        _row("LoRa Alliance IDs", ", ".join(profile.loraProfileIDs)),
    ]
    for name in DETAIL_NAMES:
        raw = value = getattr(profile, name, None)
        if isinstance(value, list):
            value = ", ".join(f"{v:g}" for v in value)
        words = field_words(name)
        if value is not None and words.choices:
            value = words.choice_words(str(value)) or value
        if value is not None:
            value = words.with_unit(raw, str(value))
        rows.append(_row(words.label, value))
    description = profile.commercialDescription or ""
    return (
        f"<h3>{escape(profile.commercialName)}</h3><p>{escape(description)}</p>"
        f"<table cellspacing='4'>{''.join(rows)}</table>"
    )


def station_profile_html(profile: Any) -> str:
    rows = [
        _row("ID", profile.ID),
        _row("Vendor", profile.vendor.commercialName or profile.vendor.ID),
        _row("Software", field_words("softwareType").choice_words(profile.softwareType or "")),
        _row("RF hardware", profile.rfHardwareConfig),
        _row("Source", field_words("source").choice_words(profile.source)),
    ]
    versions = []
    for version in profile.lrrSwVersions:
        compat = ", ".join(
            f"{'firmware' if c.criteria == 'FIRMWARE_VERSION' else 'FPGA'} {c.value}"
            for c in version.compatibilities
        )
        versions.append(f"<li>{escape(version.ID)}{': ' + escape(compat) if compat else ''}</li>")
    listed = f"<p><b>LRR software versions</b></p><ul>{''.join(versions)}</ul>" if versions else ""
    return (
        f"<h3>{escape(profile.commercialName)}</h3>"
        f"<p>{escape(profile.commercialDescription or '')}</p>"
        f"<table cellspacing='4'>{''.join(rows)}</table>{listed}"
    )
