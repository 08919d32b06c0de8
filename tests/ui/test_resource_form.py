"""The resource form's nested fields: tables of nested objects (application server
destinations, headers, domains) and sub-forms (downlink security), driven with the keyboard,
checked live, saved to the sandbox and pre-filled from what it stored."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QDialogButtonBox, QLineEdit

from lpwa_console.api import LpwaClient
from lpwa_console.models.resources import ResourceViewModel, app_servers_kind, multicast_kind
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.schema.app_servers import AppServer, AppServerCreate, AppServerUpdate
from lpwa_console.ui.dialogs.resource_form import ResourceFormDialog
from lpwa_console.ui.widgets.nested_editor import (
    ERROR_ROLE,
    ObjectEditor,
    TableEditor,
    input_text,
    set_input_text,
)
from tests.helpers import refusal, run


def open_form(qtbot: Any, vm: ResourceViewModel, item: Any = None) -> ResourceFormDialog:
    dialog = ResourceFormDialog(vm, item)
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def table(dialog: ResourceFormDialog, name: str) -> TableEditor:
    editor = dialog.editors[name]
    assert isinstance(editor, TableEditor)
    return editor


def cell_editor(editor: TableEditor) -> QLineEdit | QComboBox:
    widget = editor.table.indexWidget(editor.table.currentIndex())
    assert isinstance(widget, QLineEdit | QComboBox), "no cell is being edited"
    return widget


def type_row(qtbot: Any, editor: TableEditor, *cells: str) -> None:
    """Insert a row and fill it from the keyboard: text, Tab to the next cell; a choice is
    picked with the arrow keys."""
    qtbot.keyClick(editor.table, Qt.Key.Key_Insert)
    for text in cells:
        widget = cell_editor(editor)
        if isinstance(widget, QComboBox):
            while input_text(widget) != text:
                qtbot.keyClick(widget, Qt.Key.Key_Down)
        else:
            qtbot.keyClicks(widget, text)
        qtbot.keyClick(widget, Qt.Key.Key_Tab)
    qtbot.wait(1)  # the last editor closes


def headers(editor: TableEditor) -> list[str]:
    model, across = editor.table.model(), Qt.Orientation.Horizontal
    return [model.headerData(c, across) for c in range(model.columnCount())]


def cells(editor: TableEditor) -> list[list[str]]:
    model = editor.table.model()
    rows, columns = model.rowCount(), model.columnCount()
    return [[model.index(r, c).data() for c in range(columns)] for r in range(rows)]


def marked(editor: TableEditor, row: int, column: int) -> bool:
    return bool(editor.table.model().index(row, column).data(ERROR_ROLE))


def put(widget: QLineEdit | QComboBox, text: str) -> None:
    set_input_text(widget, text)


def save_button(dialog: ResourceFormDialog) -> Any:
    return dialog.buttons.button(QDialogButtonBox.StandardButton.Save)


def test_destinations_typed_in_a_table_and_checked_live(qtbot: Any) -> None:
    dialog = open_form(qtbot, ResourceViewModel(TaskRunner(), app_servers_kind()))
    dest = table(dialog, "destinations")
    assert headers(dest) == ["Addresses *", "Ports", "Strategy *"]
    assert dest.kind.isHidden() is False and dest.kind.currentText() == "HTTP destination"
    put(dialog.inputs["name"], "Plant")

    type_row(qtbot, dest, "a.example, b.example", "99999", "BLAST")
    assert dest.error.text().startswith("Destination 1: Ports: 99999 is not a port")
    assert marked(dest, 0, 1) and not marked(dest, 0, 0)
    assert not save_button(dialog).isEnabled()

    dest.table.setCurrentCell(0, 1)
    qtbot.keyClick(dest.table, Qt.Key.Key_F2)
    cell_editor(dest).clear()
    qtbot.keyClicks(cell_editor(dest), "8000-8010")
    assert not dest.error.text() and not marked(dest, 0, 1)
    assert save_button(dialog).isEnabled()
    qtbot.keyClick(cell_editor(dest), Qt.Key.Key_Return)
    qtbot.wait(1)

    type_row(qtbot, dest, "10.0.0.8", "443", "SEQUENTIAL")
    assert cells(dest) == [
        ["a.example, b.example", "8000-8010", "BLAST"],
        ["10.0.0.8", "443", "SEQUENTIAL"],
    ]
    assert dialog.data()["destinations"] == [
        {"addresses": ["a.example", "b.example"], "ports": "8000-8010", "strategy": "BLAST"},
        {"addresses": ["10.0.0.8"], "ports": "443", "strategy": "SEQUENTIAL"},
    ]
    # A row with a missing port, for an HTTP server: the whole request's rule names it.
    type_row(qtbot, dest, "c.example", "", "BLAST")
    assert "an HTTP destination needs its ports" in dest.error.text()
    dest.table.selectRow(2)
    qtbot.keyClick(dest.table, Qt.Key.Key_Delete)
    assert dest.table.rowCount() == 2 and not dest.error.text()
    assert save_button(dialog).isEnabled()


def test_the_server_type_picks_the_destination_columns(qtbot: Any) -> None:
    dialog = open_form(qtbot, ResourceViewModel(TaskRunner(), app_servers_kind()))
    dest = table(dialog, "destinations")
    put(dialog.inputs["name"], "Broker")
    put(dialog.inputs["type"], "KAFKA")
    assert dest.kind.currentText() == "Kafka destination"
    assert headers(dest) == ["Kafka broker *", "Topic *"]
    type_row(qtbot, dest, "broker-1", "uplinks")
    assert dialog.data()["destinations"] == [{"brokerID": "broker-1", "topicName": "uplinks"}]
    assert dialog.check() == {}
    dest.kind.setCurrentIndex(0)  # HTTP columns for a KAFKA server: the schema says no
    type_row(qtbot, dest, "h.example", "80", "BLAST")
    assert "Destinations: a KAFKA server takes Kafka broker and Topic" in dest.error.text()
    dest.kind.setCurrentIndex(1)  # what was typed in the Kafka columns is still there
    assert cells(dest)[0] == ["broker-1", "uplinks"]
    # Headers and domains are tables too; one kind of item, no choice of kind.
    headers_table = table(dialog, "customHttpHeaders")
    assert headers_table.kind.isHidden()
    type_row(qtbot, headers_table, "X Bad", "v")
    assert headers_table.error.text().startswith("Custom HTTP header 1: Header: a header name")
    type_row(qtbot, table(dialog, "domains"), "France/Paris", "Site")
    assert dialog.data()["domains"] == [{"name": "France/Paris", "group": {"name": "Site"}}]


def test_a_sub_form_shows_errors_next_to_its_fields(qtbot: Any) -> None:
    dialog = open_form(qtbot, ResourceViewModel(TaskRunner(), app_servers_kind()))
    security = dialog.editors["downlinkSecurity"]
    assert isinstance(security, ObjectEditor)
    put(dialog.inputs["name"], "Secure")
    qtbot.keyClicks(security.fields["maxTimestampDeviation"].input, "-5")
    assert security.fields["status"].error.text() == "Status: required"
    assert (
        "Maximum clock difference: at least 0"
        in security.fields["maxTimestampDeviation"].error.text()
    )
    assert not security.fields["asID"].error.text() and not security.error.text()
    key = security.fields["downlinkAsKey"].input
    assert isinstance(key, QLineEdit) and key.echoMode() == QLineEdit.EchoMode.Password
    assert not save_button(dialog).isEnabled()
    put(security.fields["status"].input, "NONE")
    put(security.fields["maxTimestampDeviation"].input, "30")
    assert save_button(dialog).isEnabled()
    assert dialog.data()["downlinkSecurity"] == {"status": "NONE", "maxTimestampDeviation": 30}


def test_multicast_domains(qtbot: Any) -> None:
    dialog = open_form(qtbot, ResourceViewModel(TaskRunner(), multicast_kind()))
    domains = table(dialog, "domains")
    type_row(qtbot, domains, "France/Paris", "Site")
    type_row(qtbot, domains, "France/Lyon", "Site")
    assert "at most one domain per group; repeated: Site" in domains.error.text()


def test_app_server_created_and_edited_on_the_sandbox(
    qtbot: Any, client: LpwaClient, runner: TaskRunner
) -> None:
    vm = ResourceViewModel(runner, app_servers_kind(), client)
    dialog = open_form(qtbot, vm)
    put(dialog.inputs["name"], "Nested form plant")
    put(dialog.inputs["type"], "HTTP")
    dest = table(dialog, "destinations")
    type_row(qtbot, dest, "https://a.example/up, https://b.example/up", "443", "BLAST")
    type_row(qtbot, dest, "10.0.0.8", "8000-8010", "SEQUENTIAL")
    type_row(qtbot, table(dialog, "customHttpHeaders"), "X-Site", "north")
    with qtbot.waitSignal(vm.saved, timeout=10000) as saved:
        dialog.save()
    created = saved.args[0]
    stored = run(qtbot, client.app_servers.get(created.path_ref))
    assert [d.model_dump(exclude_none=True) for d in stored.destinations] == [
        {"addresses": ["https://a.example/up", "https://b.example/up"], "ports": "443", "strategy": "BLAST"},
        {"addresses": ["10.0.0.8"], "ports": "8000-8010", "strategy": "SEQUENTIAL"},
    ]  # fmt: skip
    assert [(h.name, h.value) for h in stored.customHttpHeaders] == [("X-Site", "north")]

    # Edit: pre-filled from the stored server; remove the first destination.
    dialog = open_form(qtbot, vm, stored)
    dest = table(dialog, "destinations")
    assert cells(dest) == [
        ["https://a.example/up, https://b.example/up", "443", "BLAST"],
        ["10.0.0.8", "8000-8010", "SEQUENTIAL"],
    ]
    assert cells(table(dialog, "customHttpHeaders")) == [["X-Site", "north"]]
    assert "destinations" not in dialog.data()  # as stored: not sent again
    dest.table.selectRow(0)
    qtbot.keyClick(dest.table, Qt.Key.Key_Delete)
    with qtbot.waitSignal(vm.saved, timeout=10000):
        dialog.save()
    stored = run(qtbot, client.app_servers.get(created.path_ref))
    assert [d.addresses for d in stored.destinations] == [["10.0.0.8"]]

    # Kafka destinations on an HTTP server: the form says so before anything is sent.
    dialog = open_form(qtbot, vm, stored)
    dest = table(dialog, "destinations")
    assert "type" not in dialog.inputs  # an update never sends it: not a field of the form
    dest.kind.setCurrentIndex(1)
    dest.table.setCurrentCell(0, 0)
    qtbot.keyClicks(dest.table, "b")  # typing starts editing the cell
    qtbot.keyClicks(cell_editor(dest), "roker-1")
    qtbot.keyClick(cell_editor(dest), Qt.Key.Key_Tab)
    qtbot.keyClicks(cell_editor(dest), "uplinks")
    assert "HTTP server takes addresses" in dialog.check()["destinations"]
    assert cells(dest) == [["broker-1", "uplinks"]]
    dest.kind.setCurrentIndex(0)
    assert cells(dest) == [["10.0.0.8", "8000-8010", "SEQUENTIAL"]]
    assert dialog.check() == {}

    # Someone else changes the server meanwhile: the sandbox refuses the stale edit, the
    # dialog says why and keeps what was typed.
    put(dialog.inputs["name"], "Mine")
    run(qtbot, client.app_servers.update(created.path_ref, AppServerUpdate(name="Theirs")))
    with qtbot.waitSignal(vm.save_failed, timeout=10000) as failed:
        dialog.save()
    assert failed.args[0].startswith("Someone else changed this application server")
    assert dialog.isVisible() and dialog.inputs["name"].text() == "Mine"
    assert run(qtbot, client.app_servers.get(created.path_ref)).name == "Theirs"
    assert isinstance(stored, AppServer)
    dialog.reject()


# --- occContext: never typed, sent from the item as it was read ------------------------------


class FakeServers:
    def __init__(self) -> None:
        self.sent: list[AppServerUpdate] = []
        self.refuse: Exception | None = None
        self.gets = 0

    async def get(self, _ref: str) -> AppServer:
        self.gets += 1
        return AppServer.model_validate(
            {"ID": "as-1", "name": "Theirs", "scope": "SUBSCRIPTION", "occContext": {"version": 8}}
        )

    async def update(self, _ref: str, request: AppServerUpdate) -> AppServer:
        self.sent.append(request)
        if self.refuse is not None:
            raise self.refuse
        return AppServer.model_validate(
            {
                "ID": "as-1",
                "name": request.name,
                "scope": "SUBSCRIPTION",
                "occContext": {"version": 8},
            }
        )

    async def security(self, _ref: str) -> Any:
        raise RuntimeError("not here")

    async def iot_flow_connector_metrics(self, _ref: str) -> Any:
        raise RuntimeError("not here")


def test_the_version_is_sent_not_typed(qtbot: Any, qloop: Any, runner: TaskRunner) -> None:
    servers = FakeServers()
    vm = ResourceViewModel(runner, app_servers_kind(), SimpleNamespace(app_servers=servers))  # type: ignore[arg-type]
    item = AppServer.model_validate(
        {"ID": "as-1", "name": "Mine", "scope": "SUBSCRIPTION", "occContext": {"version": 7}}
    )
    dialog = open_form(qtbot, vm, item)
    assert "occContext" not in dialog.editors and "occContext" not in dialog.data()
    put(dialog.inputs["name"], "Mine, renamed")
    with qtbot.waitSignal(vm.saved, timeout=5000):
        dialog.save()
    (sent,) = servers.sent
    assert sent.to_wire() == {"name": "Mine, renamed", "occContext": {"version": 7}}


@pytest.mark.parametrize(
    "refused",
    [
        refusal(409, "the application server was modified"),
        refusal(400, "occContext: stale version 7 (current 8)"),
    ],
)
def test_a_concurrent_change_is_refused_clearly(
    qtbot: Any, qloop: Any, runner: TaskRunner, refused: Exception
) -> None:
    servers = FakeServers()
    servers.refuse = refused
    vm = ResourceViewModel(runner, app_servers_kind(), SimpleNamespace(app_servers=servers))  # type: ignore[arg-type]
    item = AppServer.model_validate(
        {"ID": "as-1", "name": "Mine", "scope": "SUBSCRIPTION", "occContext": {"version": 7}}
    )
    vm._set_detail(item, {})  # shown in the pane: read again after the refusal
    dialog = open_form(qtbot, vm, item)
    put(dialog.inputs["name"], "Mine, renamed")
    with qtbot.waitSignal(vm.save_failed, timeout=5000):
        dialog.save()
    assert dialog.form_error.text().startswith(
        "Someone else changed this application server since you opened it"
    )
    assert dialog.isVisible() and dialog.inputs["name"].text() == "Mine, renamed"  # type: ignore[union-attr]
    assert not dialog.errors["name"].text()
    qtbot.waitUntil(lambda: vm.detail.name == "Theirs", timeout=5000)  # their change, loaded
    assert vm.detail.occContext.version == 8
    dialog.reject()


def test_the_sandbox_gets_the_version_it_gave(
    qtbot: Any, client: LpwaClient, runner: TaskRunner
) -> None:
    created = run(qtbot, client.app_servers.create(AppServerCreate(name="Versioned plant")))
    resource = client.app_servers
    sent: list[AppServerUpdate] = []
    real = resource.update

    async def spy(server: str | int, update: AppServerUpdate) -> AppServer:
        sent.append(update)
        return await real(server, update)

    resource.update = spy  # type: ignore[method-assign]
    vm = ResourceViewModel(runner, app_servers_kind(), client)
    for name in ("Versioned plant 2", "Versioned plant 3"):
        stored = run(qtbot, client.app_servers.get(created.path_ref))
        dialog = open_form(qtbot, vm, stored)
        put(dialog.inputs["name"], name)
        with qtbot.waitSignal(vm.saved, timeout=10000) as saved:
            dialog.save()
        assert sent[-1].to_wire()["occContext"] == {"version": stored.occContext.version}
        assert saved.args[0].occContext.version == stored.occContext.version + 1
