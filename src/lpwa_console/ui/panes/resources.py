"""A pane over one or more resource lists (multicast groups; application servers; network
contexts, AS transport keys, HSM groups and network subscriptions): a filter bar per section
(filters apply on the server), a lazy table, the selected item's detail (security, metrics,
exchange key when the kind has them), create, edit, delete, and the parts of an item edited on
their own (an application server's security)."""

from __future__ import annotations

import re
from html import escape
from typing import Any

from pydantic import BaseModel
from PySide6.QtCore import QItemSelectionModel, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ...models.formatting import format_time
from ...models.forms import SECRET_WORDS
from ...models.references import reference_text
from ...models.resources import FilterControl, ResourceViewModel
from ...models.rights import ACTIONS, AccountRights
from ...schema.durations import duration_words
from ...schema.labels import code_words, field_words, is_hidden, label_of
from ..connections import SignalConnections
from ..dialogs.app_server_security import AppServerSecurityDialog
from ..dialogs.resource_form import ResourceFormDialog
from ..first_page import first_page_of
from ..layouts import PANE, fill
from ..navigator import link, location_of
from ..pane import Pane
from ..questions import ask
from ..rights import RightsGate
from ..selection_gate import a_noun
from ..widgets.filter_state import FilterSet
from ..widgets.list_detail import ListDetailSplitter
from ..widgets.pane_parts import (
    KeptDialog,
    PaneMessage,
    TableOrEmpty,
    busy_bar,
    data_table,
    tab_order,
)

MASK = "•••• (hidden)"
FILTER_DEBOUNCE_MS = 300
# The dialog of each part of an item edited on its own, by the part's key.
PART_DIALOGS: dict[str, type[AppServerSecurityDialog]] = {"Security": AppServerSecurityDialog}


_REFERENCE_KEYS = {"ID", "name", "href", "commercialName"}


# Fields whose values are the platform's codes in capitals, shown as words.
CODE_FIELDS = frozenset({"state", "healthState", "status", "value"})


def _is_reference(value: Any) -> bool:
    """A dict that names another resource: its ID and name (and href) only."""
    return isinstance(value, dict) and "ID" in value and set(value) <= _REFERENCE_KEYS


def _reference(value: dict[str, Any]) -> str:
    return reference_text(
        str(value["ID"]), str(value.get("name") or value.get("commercialName") or "")
    )


def _flatten(
    prefix: str,
    value: Any,
    secret: frozenset[str],
    out: list[tuple[str, str]],
    owner: type | None = None,
) -> None:
    """(API path, text) rows of an item: internals left out (occContext), secrets masked,
    references as "name (ID)", choices and durations in words, units after the value."""
    if isinstance(value, BaseModel):
        owner = owner or type(value)
        value = value.model_dump(exclude_none=True, by_alias=True)
    leaf = prefix.rsplit(".", 1)[-1]
    if prefix and is_hidden(leaf):
        return
    if isinstance(value, dict) and not _is_reference(value):
        named = prefix and "ID" in value and (value.get("name") or value.get("commercialName"))
        if named:  # a resource with more to say: "name (ID)", then the rest
            out.append((prefix, _reference(value)))
        for key, inner in value.items():
            if named and key in _REFERENCE_KEYS:
                continue
            _flatten(f"{prefix}.{key}" if prefix else str(key), inner, secret, out, owner)
        return
    hidden = leaf in secret or (
        isinstance(value, str)
        and any(w in leaf.lower() for w in SECRET_WORDS)
        and not leaf.endswith(("ID", "Version", "Name"))
        and leaf not in ("kid", "kty")
    )
    words = field_words(leaf, owner if "." not in prefix else None)
    if leaf.endswith(("Date", "Timestamp", "lastUpdate")) and isinstance(value, int):
        value = format_time(value) or ""
    elif re.fullmatch(r"alarm\d", leaf) and not value:
        return  # per-severity counters: only those that count
    if _is_reference(value):
        text = _reference(value)
    elif isinstance(value, list):
        text = ", ".join(_item_text(v) for v in value)
    elif isinstance(value, bool):
        text = "yes" if value else "no"
    elif words.choices and value != "":
        text = words.choice_words(value)
    elif words.duration and isinstance(value, str):
        text = duration_words(value)
    elif isinstance(value, str) and leaf in CODE_FIELDS:
        text = code_words(value)  # "ACTIVE" -> "Active": no platform code in a detail
    else:
        text = str(value)
    if not isinstance(value, list):
        text = words.with_unit(value, text)
    if text != "":
        out.append((prefix, MASK if hidden else text))


def _item_text(value: Any) -> str:
    """One item of a list: a reference as "name (ID)", a named item by its name; an object
    without either (an HTTP destination) as `label: value` pairs, secrets left out."""
    if not isinstance(value, dict):
        return str(value)
    if _is_reference(value):
        return _reference(value)
    if value.get("name"):
        group = value.get("group")
        prefix = f"{group.get('name')}: " if isinstance(group, dict) and group.get("name") else ""
        return prefix + str(value["name"])
    pairs = [
        f"{label_of(k)}: {', '.join(map(str, v)) if isinstance(v, list) else field_words(k).choice_words(v)}"
        for k, v in value.items()
        if v not in (None, "", []) and not any(w in k.lower() for w in SECRET_WORDS)
    ]
    return "(" + "; ".join(pairs) + ")"


def path_label(path: str, owner: type | None = None) -> str:
    """A field path in words: downlinkSecurity.maxTimestampDeviation -> "Downlink security
    > Maximum clock difference" (with a single right-pointing angle quotation mark)."""
    parts = path.split(".")
    words = [field_words(parts[0], owner).label] + [label_of(p) for p in parts[1:]]
    return " \u203a ".join(words)


def _breakable(text: str) -> str:
    """A label, escaped: labels are words, so a long one wraps at its spaces and never
    pushes the values out of a narrow panel. Values are left whole: they are copied."""
    return escape(text)


# Fields that name an item of another pane: field -> (pane, section).
REFERENCES: dict[str, tuple[str, str | None]] = {
    "appServers": ("app_servers", None),
    "networkSubscription": ("network", "network_subscriptions"),
    "networkSubscriptionID": ("network", "network_subscriptions"),
    "hsmGroupID": ("network", "hsm_groups"),
    "asTransportKeyID": ("network", "as_transport_keys"),
    "networkContextID": ("network", "network_contexts"),
    "asKey": ("key_manager", "km_as_keys"),
}


def references(item: Any) -> list[tuple[str, str]]:
    """(text, href) of the items this one names that other panes show."""
    out: list[tuple[str, str]] = []
    for name, (pane, section) in REFERENCES.items():
        value = getattr(item, name, None)
        for ref in value if isinstance(value, list) else [value]:
            ref_id = ref if isinstance(ref, str) else getattr(ref, "ID", None)
            if ref_id:
                text = getattr(ref, "name", None) or getattr(ref, "commercialName", None)
                out.append((str(text or ref_id), link(pane, str(ref_id), section)))
    return out


def detail_html(vm: ResourceViewModel, item: Any, extras: dict[str, Any]) -> str:
    if item is None:
        return "<p style='opacity:.6'>Select a row to see its details.</p>"
    noun = vm.kind.noun
    sections = [(noun[:1].upper() + noun[1:], item), *extras.items()]
    parts = [f"<h3 style='margin:0'>{escape(vm.kind.label(item))}</h3>"]
    for title, model in sections:
        rows: list[tuple[str, str]] = []
        owner = type(model) if isinstance(model, BaseModel) else None
        _flatten("", model, vm.kind.secret_fields, rows, owner)
        body = "".join(
            f"<tr><td style='padding:2px 12px 2px 0;opacity:.7'>"
            f"<span title='{escape(k)}'>{_breakable(path_label(k, owner))}</span></td>"
            f"<td>{escape(v[:300])}</td></tr>"
            for k, v in rows
        )
        parts.append(f"<h4 style='margin:10px 0 4px 0'>{escape(title)}</h4><table>{body}</table>")
    related = references(item)
    if related:
        links = ", ".join(f"<a href='{escape(h)}'>{escape(t)}</a>" for t, h in related)
        parts.append(f"<h4 style='margin:10px 0 4px 0'>Open</h4><p>{links}</p>")
    return "".join(parts)


class FilterBar(QWidget):
    """The filters of one section: a line edit per search or list of IDs (applied after a
    pause in typing, or on Enter, which also hands the keyboard to the list), a combo per
    choice (applied at once)."""

    submitted = Signal()  # Enter in a search box

    def __init__(self, vm: ResourceViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.vm = vm
        self.setObjectName(f"{vm.kind.key}Filters")
        self.inputs: dict[str, QLineEdit | QComboBox] = {}
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(FILTER_DEBOUNCE_MS)
        self._timer.timeout.connect(self.apply)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        outer.addLayout(row)
        for control in vm.kind.filter_controls:
            widget = self._input(control)
            widget.setObjectName(f"{control.name}Filter")
            widget.setToolTip(control.tooltip)
            widget.setAccessibleName(control.label)
            self.inputs[control.name] = widget
            row.addWidget(widget, 0 if control.kind == "choice" else 1)
        if not any(isinstance(w, QLineEdit) for w in self.inputs.values()):
            row.addStretch(1)  # combos keep their size; line edits take the room
        # Kept per account, set aside to show an item they would hide (filter_state.py).
        search = next(
            (self.inputs[c.name] for c in vm.kind.filter_controls if c.kind == "search"), None
        )
        self.state = FilterSet(
            list(self.inputs.values()),
            self.apply,
            search=search if isinstance(search, QLineEdit) else None,
            parent=self,
        )
        outer.addWidget(self.state.bar)

    def _input(self, control: FilterControl) -> QLineEdit | QComboBox:
        if control.kind == "choice":
            combo = QComboBox()
            combo.addItems([label for label, _value in control.choices])
            combo.currentIndexChanged.connect(lambda _i: self.apply())
            return combo
        edit = QLineEdit()
        edit.setPlaceholderText(control.label)
        edit.setClearButtonEnabled(True)
        edit.setMinimumWidth(180)
        edit.textChanged.connect(lambda _t: self._timer.start())
        edit.returnPressed.connect(self.apply)
        edit.returnPressed.connect(self.submitted)
        return edit

    def narrow(self, names: tuple[str, ...]) -> None:
        """The text inputs of `names` sized for a number, not a name."""
        for name in names:
            edit = self.inputs.get(name)
            if isinstance(edit, QLineEdit):
                edit.setMinimumWidth(70)
                edit.setMaximumWidth(100)

    def values(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for control in self.vm.kind.filter_controls:
            widget = self.inputs[control.name]
            if isinstance(widget, QComboBox):
                out[control.name] = control.choices[max(widget.currentIndex(), 0)][1]
                continue
            text = widget.text().strip()
            if control.kind == "ids":
                out[control.name] = [p.strip() for p in text.split(",") if p.strip()]
            else:
                out[control.name] = text or None
        return out

    def apply(self) -> None:
        self._timer.stop()
        if self.inputs:
            self.vm.update_filters(**self.values())

    def focus_first(self) -> bool:
        edits = [w for w in self.inputs.values() if isinstance(w, QLineEdit)]
        if not edits:
            return False
        edits[0].setFocus()
        edits[0].selectAll()
        return True


def action_name(vm: ResourceViewModel, verb: str) -> str:
    """The rights action of a verb on this kind ("app_servers.create"). A kind nobody
    declared in models/rights.py is not guarded (a later pane declares its own)."""
    return f"{vm.kind.key}.{verb}"


def _lower(title: str) -> str:
    """A title inside a sentence: "SIM cards" stays "SIM cards" (not "sim cards"),
    "Network contexts" becomes "network contexts"."""
    return " ".join(w if w.isupper() or w[1:2].isupper() else w.lower() for w in title.split())


class ResourcesPane(Pane, KeptDialog):
    def __init__(
        self,
        title: str,
        view_models: list[ResourceViewModel],
        parent: QWidget | None = None,
        *,
        rights: AccountRights | None = None,
    ) -> None:
        super().__init__(parent)
        self.gate = RightsGate(rights, self)
        self.title = title
        self.setObjectName(f"{view_models[0].kind.key}Pane")
        self.vms = view_models
        self.vm = view_models[0]
        self.dialog: QDialog | None = None

        self.section = QComboBox()
        self.section.setObjectName("section")
        for vm in view_models:
            self.section.addItem(vm.kind.title)
        self.section.setVisible(len(view_models) > 1)
        self.count_label = QLabel()
        self.count_label.setObjectName("countLabel")
        self.count_label.setMinimumWidth(140)
        self.busy = busy_bar()
        self.new_button = QPushButton("New")
        self.edit_button = QPushButton("Edit")
        self.delete_button = QPushButton("Delete")
        self.refresh_button = QPushButton("Refresh")
        self.part_buttons: dict[str, QPushButton] = {}
        for vm in view_models:
            for part in vm.kind.parts:
                if part.key not in self.part_buttons:
                    button = QPushButton(part.action)
                    button.setObjectName(f"edit{part.key.replace(' ', '')}")
                    button.clicked.connect(lambda _c=False, k=part.key: self.edit_part(k))
                    self.part_buttons[part.key] = button
        self.button_bar = bar = QHBoxLayout()
        bar.addWidget(self.section)
        bar.addWidget(self.count_label)
        bar.addWidget(self.busy)
        bar.addStretch(1)
        for button in (
            self.new_button,
            self.edit_button,
            *self.part_buttons.values(),
            self.delete_button,
            self.refresh_button,
        ):
            bar.addWidget(button)

        self.filter_bars = QStackedWidget()
        self.filter_bars.setObjectName("filterBars")
        self.filters: list[FilterBar] = []
        for vm in view_models:
            self.filters.append(FilterBar(vm))
            self.filter_bars.addWidget(self.filters[-1])
            self.filters[-1].submitted.connect(self.focus_results)

        self.tables = QStackedWidget()
        self.views: list[QTableView] = []
        for vm in view_models:
            self.views.append(self._table(vm))
            self.tables.addWidget(self.views[-1])
        self.stack = TableOrEmpty(self.tables)
        self.empty = self.stack.empty
        self.detail = QLabel()
        self.detail.setObjectName("resourceDetail")
        self.detail.setTextFormat(Qt.TextFormat.RichText)
        self.detail.setWordWrap(True)
        self.detail.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.detail.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.LinksAccessibleByMouse
            | Qt.TextInteractionFlag.LinksAccessibleByKeyboard
        )
        self.detail.linkActivated.connect(self.follow)
        self.detail.setMargin(10)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.detail)
        scroll.setMinimumWidth(260)
        self.splitter = ListDetailSplitter("networkSplitter", self.stack, scroll)
        self.detail_area = scroll
        self.message = PaneMessage()
        self._show_message = self.message.show_message
        self.column = fill(
            QVBoxLayout(self), bar, self.filter_bars, self.message, (self.splitter, 1), margins=PANE
        )

        self.section.currentIndexChanged.connect(self.show_section)
        self.new_button.clicked.connect(self.new_item)
        self.edit_button.clicked.connect(self.edit_item)
        self.delete_button.clicked.connect(self.delete_item)
        self.refresh_button.clicked.connect(self.refresh)
        self._connections = SignalConnections()
        for vm in view_models:
            self._connections.connect_all(
                (vm.count_changed, lambda _c, v=vm: self._update(v)),
                (vm.first_page_loaded, lambda _ms, v=vm: self._first_page(v)),
                (vm.loading_changed, lambda on, v=vm: self._loading(v, on)),
                (vm.error, lambda m, v=vm: self._error(v, m)),
                (vm.not_offered, lambda _m, v=vm: self._update(v)),
                (vm.detail_changed, lambda i, e, v=vm: self._detail(v, i, e)),
                (vm.client_changed, lambda _h, v=vm: self._client_changed(v)),
                (vm.deleted, self._show_message),
                (vm.saved, lambda i, v=vm: self._saved(v, i)),
                (vm.part_saved, lambda k, _r, v=vm: self._part_saved(v, k)),
                (vm.filters_changed, lambda _f, v=vm: self._filters_changed(v)),
            )
        self._errors: dict[str, str] = {}
        self._pending_select: tuple[ResourceViewModel, str] | None = None  # opened, not listed
        self._creating = False  # the form open makes a new item
        filter_inputs = [w for bar in self.filters for w in bar.inputs.values()]
        tab_order(
            self.section,
            self.new_button,
            self.edit_button,
            *self.part_buttons.values(),
            self.delete_button,
            self.refresh_button,
            *filter_inputs,
            *self.views,
        )
        self.show_section(0)

    def _table(self, vm: ResourceViewModel) -> QTableView:
        table = data_table(vm.model, f"{vm.kind.key}Table")
        table.selectionModel().currentRowChanged.connect(
            lambda current, _prev, v=vm: v.select_row(current.row())
        )
        table.doubleClicked.connect(lambda _i: self.edit_item())
        return table

    # --- actions ----------------------------------------------------------------------

    def focus_results(self) -> None:
        """Enter in a search box: the list takes the keyboard (on its first row)."""
        table = self.views[self.vms.index(self.vm)]
        table.setFocus()
        if not table.currentIndex().isValid() and self.vm.model.rowCount() > 0:
            table.setCurrentIndex(self.vm.model.index(0, 0))

    # --- navigation ---------------------------------------------------------------------

    def open_item(self, item_id: str | None, section: str | None = None) -> None:
        """Show this section (a kind's key) and the item with this ID (or EUI) in it."""
        keys = [vm.kind.key for vm in self.vms]
        index = keys.index(section) if section in keys else 0
        if self.section.currentIndex() != index:
            self.section.setCurrentIndex(index)
        else:
            self.show_section(index)
        vm = self.vms[index]
        if not item_id:
            return
        row = vm.row_of(item_id)
        table = self.views[index]
        if row >= 0:
            flags = (
                QItemSelectionModel.SelectionFlag.ClearAndSelect
                | QItemSelectionModel.SelectionFlag.Rows
            )
            table.selectionModel().setCurrentIndex(vm.model.index(row, 0), flags)
            table.scrollTo(vm.model.index(row, 0))
            return
        table.selectionModel().clearSelection()
        state = self.filters[index].state
        if state.search is not None or not state.is_default():
            # Not among the rows loaded: the list narrowed to it (its search finds names
            # and IDs from their start), the filters set aside and said; its row selected
            # when it comes (`_select_pending`).
            self._pending_select = (vm, item_id)
            state.set_aside(item_id, item_id)
        if not vm.open_id(item_id):
            self._show_message(f"No {vm.kind.noun} {item_id} among those loaded")

    def set_account(self, key: str) -> None:
        """Each account keeps its own filters, in every section."""
        for bar in self.filters:
            bar.state.switch_account(key)

    def follow(self, href: str) -> None:
        location = location_of(href)
        if location is not None:
            self.navigate.emit(location)

    def current_item(self) -> tuple[str | None, str | None]:
        item = self.vm.detail
        item_id = getattr(item, "EUI", None) or getattr(item, "ID", None) if item else None
        return item_id, self.vm.kind.key

    def _guarded(self, vm: ResourceViewModel, verb: str) -> bool:
        """Whether the account may do this to this kind; if not, the pane says why."""
        name = action_name(vm, verb)
        if name not in ACTIONS:
            return True
        verdict = self.gate.check(name)
        if not verdict.allowed:
            self._show_message(verdict.reason)
        return verdict.allowed

    def _enable(self, button: QPushButton, vm: ResourceViewModel, verb: str, wanted: bool) -> None:
        """Enable a button shared by the sections for the current one's action; one that
        acts on the item shown says so while none is."""
        name = action_name(vm, verb)
        why = ""
        if not vm.has_client:
            why = "Not connected"
        elif verb != "create" and vm.detail is None:
            why = f"Select {a_noun(vm.kind.noun)} first"
        self.gate.bind(button, name if name in ACTIONS else None)
        self.gate.enable(button, wanted, why)

    def show_section(self, index: int) -> None:
        self.vm = self.vms[index]
        self.tables.setCurrentIndex(index)
        self.filter_bars.setCurrentIndex(index)
        self.filter_bars.setVisible(bool(self.filters[index].inputs))
        if self.isVisible():
            self.vm.ensure_loaded()
        self.busy.setVisible(self.vm.model.loading)
        self._detail(self.vm, self.vm.detail, self.vm.extras)
        self._update(self.vm)

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        self.vm.ensure_loaded()
        self._update(self.vm)

    def refresh(self) -> None:
        self._errors.pop(self.vm.kind.key, None)
        self.vm.reload()
        self._update(self.vm)

    async def first_page(self) -> dict[str, Any]:
        """Each section's first page, shown in turn, by the section's key."""
        sections: dict[str, Any] = {}
        for index, vm in enumerate(self.vms):
            self.section.setCurrentIndex(index)
            sections[vm.kind.key] = await first_page_of(vm.kind.key, vm.model)
        return sections

    def focus_filter(self) -> None:
        """Ctrl+F: the current section's first search box."""
        self.filters[self.vms.index(self.vm)].focus_first()

    def new_item(self) -> None:
        if self.vm.has_client and self.vm.can_create and self._guarded(self.vm, "create"):
            self._open(None)

    def edit_item(self) -> None:
        if self.vm.can_edit(self.vm.detail) and self._guarded(self.vm, "edit"):
            self._open(self.vm.detail)

    def edit_part(self, key: str) -> None:
        """Open the dialog of a part of the shown item (an application server's security)."""
        item = self.vm.detail
        dialog_type = PART_DIALOGS.get(key)
        if dialog_type is None or not self.vm.can_edit_part(key, item):
            return
        if not self._guarded(self.vm, key.lower()):
            return
        if self.dialog is not None:
            self.dialog.raise_()
            return
        self._show_dialog(dialog_type(self.vm, item, self))

    def _open(self, item: Any) -> None:
        if self.dialog is not None:
            self.dialog.raise_()
            return
        self._creating = item is None
        self._show_dialog(ResourceFormDialog(self.vm, item, self))

    def _saved(self, vm: ResourceViewModel, item: Any) -> None:
        created, self._creating = self._creating, False
        self._show_message(f"{'Created' if created else 'Saved'} {vm.kind.label(item)}")
        state = self.filters[self.vms.index(vm)].state
        item_id = getattr(item, "EUI", None) or getattr(item, "ID", None)
        if created and item_id and not state.is_default():
            # A new item the filters may hide: listed (the search narrowed to it, the
            # filters set aside and said) and selected when the list comes.
            self._pending_select = (vm, str(item_id))
            state.set_aside(vm.kind.label(item), str(item_id))

    def add_heading(self, heading: QWidget) -> None:
        """A line above the pane's buttons (a kind of pane's own words about the account)."""
        self.column.insertWidget(0, heading)

    def add_item_button(self, button: QPushButton) -> None:
        """An action on the selected item of a kind of pane, among the pane's buttons (before
        Delete)."""
        self.button_bar.insertWidget(self.button_bar.indexOf(self.delete_button), button)

    def delete_item(self) -> None:
        item = self.vm.detail
        if not self.vm.can_delete(item) or not self._guarded(self.vm, "delete"):
            return
        vm = self.vm
        noun = vm.kind.noun

        def answered(yes: bool) -> None:
            if yes:
                vm.delete(item)

        ask(
            self,
            "confirmDelete",
            f"Delete {noun}",
            f"Delete {noun} “{vm.kind.label(item)}”? This cannot be undone.",
            answered,
            accept="Delete",
            informative=vm.kind.in_use(item),  # what still uses it, said before it goes
            destructive=True,
        )

    # --- signals ----------------------------------------------------------------------

    def _update(self, vm: ResourceViewModel) -> None:
        if vm is not self.vm:
            return
        rows = vm.model.rowCount()
        error = self._errors.get(vm.kind.key, "")
        if not vm.has_client:
            text, empty = "", "Not connected"
        elif vm.not_offered_reason:
            text, empty = "", vm.not_offered_reason
        elif vm.model.loading and rows == 0:
            text, empty = "Loading…", ""
        elif error and rows == 0:
            text, empty = "", f"Could not load {_lower(vm.kind.title)}: {error}"
        elif rows == 0 and vm.loaded and vm.filtered:
            text, empty = "", f"No {_lower(vm.kind.title)} match these filters"
        elif rows == 0 and vm.loaded:
            text, empty = "", vm.kind.empty_text or f"No {_lower(vm.kind.title)} yet"
        else:
            text, empty = f"{rows:,} {_lower(vm.kind.title) if rows != 1 else vm.kind.noun}", ""
        self.count_label.setText(text)
        self.stack.show_empty(empty)
        self._enable(self.new_button, vm, "create", vm.has_client and vm.can_create)
        self.new_button.setVisible(vm.can_create)
        self.edit_button.setVisible(vm.kind.update is not None)
        self.delete_button.setVisible(vm.kind.delete is not None)
        self._enable(self.edit_button, vm, "edit", vm.can_edit(vm.detail))
        self._enable(self.delete_button, vm, "delete", vm.can_delete(vm.detail))
        self.refresh_button.setEnabled(vm.has_client)
        owned = {part.key for part in vm.kind.parts}
        for key, button in self.part_buttons.items():
            button.setVisible(key in owned)
            wanted = key in owned and vm.can_edit_part(key, vm.detail)
            self._enable(button, vm, key.lower(), wanted)

    def _first_page(self, vm: ResourceViewModel) -> None:
        self._update(vm)
        pending = self._pending_select
        if pending is None or pending[0] is not vm:
            return
        self._pending_select = None
        row = vm.row_of(pending[1])
        if row >= 0:  # the item opened, now listed: its row selected
            table = self.views[self.vms.index(vm)]
            flags = (
                QItemSelectionModel.SelectionFlag.ClearAndSelect
                | QItemSelectionModel.SelectionFlag.Rows
            )
            table.selectionModel().setCurrentIndex(vm.model.index(row, 0), flags)

    def _loading(self, vm: ResourceViewModel, loading: bool) -> None:
        if vm is self.vm:
            self.busy.setVisible(loading)
            self._update(vm)

    def _error(self, vm: ResourceViewModel, message: str) -> None:
        self._errors[vm.kind.key] = message
        if vm is self.vm:
            self._show_message(f"{vm.kind.title}: {message}")
        self._update(vm)

    def _detail(self, vm: ResourceViewModel, item: Any, extras: dict[str, Any]) -> None:
        if vm is self.vm:
            self.detail.setText(detail_html(vm, item, extras))
            self.detail_area.verticalScrollBar().setValue(0)  # an item shows from its top
            state = self.filters[self.vms.index(vm)].state
            if item is not None and state.aside:
                state.rename(vm.kind.label(item))
            self._update(vm)

    def _part_saved(self, vm: ResourceViewModel, key: str) -> None:
        if vm.detail is not None:
            self._show_message(f"Saved {key.lower()} of {vm.kind.label(vm.detail)}")

    def _filters_changed(self, vm: ResourceViewModel) -> None:
        self._errors.pop(vm.kind.key, None)
        self._update(vm)

    def _client_changed(self, vm: ResourceViewModel) -> None:
        self._errors.pop(vm.kind.key, None)
        if vm is self.vm and self.isVisible() and vm.has_client:
            vm.ensure_loaded()
        self._update(vm)

    def closeEvent(self, event: Any) -> None:
        self._connections.disconnect_all()
        super().closeEvent(event)


class ListsHost(Pane):
    """A pane built around a ResourcesPane (`lists`): the window's and the navigator's calls
    go to its lists (each account keeps its own filters)."""

    lists: ResourcesPane

    def open_item(self, item_id: str | None, section: str | None = None) -> None:
        self.lists.open_item(item_id, section)

    def current_item(self) -> tuple[str | None, str | None]:
        return self.lists.current_item()

    def set_account(self, key: str) -> None:
        self.lists.set_account(key)
