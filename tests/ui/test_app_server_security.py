"""An application server's security, edited on its own dialog (PUT /appServers/{id}/security):
pre-filled without its key, checked live by the schema, sent with the version it was read at,
refusals shown with what was typed kept; then the detail shows the new security again."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from PySide6.QtWidgets import QDialogButtonBox, QLineEdit

from lpwa_console.api import LpwaClient
from lpwa_console.api.errors import APIStatusError
from lpwa_console.models.resources import ResourceViewModel, app_servers_kind
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.schema.app_servers import (
    AppServer,
    AppServerCreate,
    AppServerIotFlowConnectorMetrics,
    AppServerPage,
    SecurityAppServer,
    SecurityAppServerUpdate,
)
from lpwa_console.ui.dialogs.app_server_security import AppServerSecurityDialog
from lpwa_console.ui.panes.resources import ResourcesPane
from lpwa_console.ui.widgets.nested_editor import ObjectEditor, input_text, set_input_text
from tests.helpers import refusal, run, shot

KEY = "2B7E151628AED2A6ABF7158809CF4F3C"


class FakeServers:
    """One SUBSCRIPTION and one OPERATOR server; update_security answers or refuses."""

    def __init__(self) -> None:
        self.version = 4
        self.security_status = "NONE"
        self.sent: list[SecurityAppServerUpdate] = []
        self.refuse: APIStatusError | None = None
        self.gets = 0
        self.servers = [
            {"ID": "as-1", "name": "Plant", "scope": "SUBSCRIPTION"},
            {"ID": "op-1", "name": "Operator bus", "scope": "OPERATOR"},
        ]

    async def list(self, page: int, size: int, **_kw: Any) -> AppServerPage:
        return AppServerPage(briefs=self.servers, count=2)

    async def get(self, ref: str) -> AppServer:
        self.gets += 1
        data = next(s for s in self.servers if ref.endswith(s["ID"]))
        return AppServer.model_validate({**data, "occContext": {"version": self.version}})

    async def security(self, _ref: str) -> SecurityAppServer:
        return SecurityAppServer.model_validate(
            {
                "downlinkSecurity": {"status": self.security_status, "asID": "as-old"},
                "occContext": {"version": self.version},
            }
        )

    async def update_security(
        self, _ref: str, request: SecurityAppServerUpdate
    ) -> SecurityAppServer:
        self.sent.append(request)
        if self.refuse is not None:
            raise self.refuse
        self.version += 1
        self.security_status = request.downlinkSecurity.status
        return await self.security(_ref)

    async def iot_flow_connector_metrics(self, _ref: str) -> AppServerIotFlowConnectorMetrics:
        zero = dict.fromkeys(AppServerIotFlowConnectorMetrics.model_fields, 0)
        return AppServerIotFlowConnectorMetrics.model_validate(zero)


def pane_on(qtbot: Any, client: Any, runner: TaskRunner) -> ResourcesPane:
    vm = ResourceViewModel(runner, app_servers_kind(), client)
    pane = ResourcesPane("App servers", [vm])
    qtbot.addWidget(pane)
    pane.resize(1100, 650)
    with qtbot.waitSignal(vm.first_page_loaded, timeout=10000):
        pane.show()
    return pane


def select(qtbot: Any, pane: ResourcesPane, item: Any) -> None:
    pane.vm.select(item)
    qtbot.waitUntil(lambda: "Security" in pane.vm.extras, timeout=10000)


def open_security(qtbot: Any, pane: ResourcesPane) -> AppServerSecurityDialog:
    button = pane.part_buttons["Security"]
    assert button.isVisible() and button.isEnabled()
    button.click()
    dialog = pane.dialog
    assert isinstance(dialog, AppServerSecurityDialog)
    return dialog


def sub_form(dialog: AppServerSecurityDialog) -> ObjectEditor:
    editor = dialog.editors["downlinkSecurity"]
    assert isinstance(editor, ObjectEditor)
    return editor


def put(editor: ObjectEditor, name: str, text: str) -> None:
    widget = editor.fields[name].input
    if isinstance(widget, QLineEdit):
        widget.setText(text)
    else:
        set_input_text(widget, text)


def save_button(dialog: AppServerSecurityDialog) -> Any:
    return dialog.buttons.button(QDialogButtonBox.StandardButton.Save)


def test_security_checked_live_and_sent_with_its_version(
    qtbot: Any, qloop: Any, runner: TaskRunner
) -> None:
    servers = FakeServers()
    pane = pane_on(qtbot, SimpleNamespace(app_servers=servers), runner)
    select(qtbot, pane, pane.vm.model.item(0))
    dialog = open_security(qtbot, pane)
    assert set(dialog.editors) == {"downlinkSecurity"}  # occContext is never typed
    security = sub_form(dialog)
    assert input_text(security.fields["status"].input) == "NONE"
    key = security.fields["downlinkAsKey"].input
    assert isinstance(key, QLineEdit) and key.text() == ""
    assert key.echoMode() == QLineEdit.EchoMode.Password

    put(security, "status", "DOWNLINK_AS_KEY")
    assert not save_button(dialog).isEnabled()
    assert "DOWNLINK_AS_KEY needs AS identifier and Downlink AS key" in security.error.text()
    put(security, "downlinkAsKey", "12")
    assert security.fields["downlinkAsKey"].error.text()  # the schema's rule, next to it
    put(security, "downlinkAsKey", KEY)
    put(security, "asID", "as-new")
    assert save_button(dialog).isEnabled() and not security.error.text()
    with qtbot.waitSignal(pane.vm.part_saved, timeout=5000):
        dialog.save()
    (sent,) = servers.sent
    assert sent.occContext is not None and sent.occContext.version == 4  # as it was read
    assert sent.downlinkSecurity.downlinkAsKey == KEY
    assert not dialog.isVisible()
    qtbot.waitUntil(
        lambda: (
            pane.vm.extras.get("Security") is not None
            and pane.vm.extras["Security"].downlinkSecurity.status == "DOWNLINK_AS_KEY"
        ),
        timeout=5000,
    )
    assert pane.vm.detail.occContext.version == 5 and "Metrics" in pane.vm.extras
    assert "Signed with an AS key" in pane.detail.text() and KEY not in pane.detail.text()
    assert pane.message.text() == "Saved security of Plant"


def test_a_refusal_keeps_what_was_typed(qtbot: Any, qloop: Any, runner: TaskRunner) -> None:
    servers = FakeServers()
    pane = pane_on(qtbot, SimpleNamespace(app_servers=servers), runner)
    select(qtbot, pane, pane.vm.model.item(0))
    dialog = open_security(qtbot, pane)
    security = sub_form(dialog)
    put(security, "status", "DOWNLINK_AS_KEY")
    put(security, "asID", "as-new")
    put(security, "downlinkAsKey", KEY)

    servers.refuse = refusal(400, "downlinkSecurity: unknown asID as-new")
    with qtbot.waitSignal(pane.vm.part_failed, timeout=5000):
        dialog.save()
    # Under its group, the refusal leaves out the group's API name.
    assert security.error.text() == "Unknown asID as-new"
    assert dialog.isVisible() and dialog.buttons.isEnabled()
    assert security.raw() == {
        "status": "DOWNLINK_AS_KEY", "asID": "as-new", "downlinkAsKey": KEY,
        "maxTimestampDeviation": "",
    }  # fmt: skip

    # Someone else changed the server meanwhile: the stale version is refused.
    servers.refuse = refusal(409, "occContext: version 4 is not the current version 5")
    gets = servers.gets
    with qtbot.waitSignal(pane.vm.part_failed, timeout=5000):
        dialog.save()
    assert dialog.form_error.text().startswith("Someone else changed this application server")
    assert "reopen" in dialog.form_error.text()
    assert security.raw()["asID"] == "as-new" and dialog.isVisible()
    qtbot.waitUntil(lambda: servers.gets > gets, timeout=5000)  # the detail is read again
    shot(dialog, "security-conflict.png")
    dialog.reject()


def test_operator_servers_have_no_security_to_edit(
    qtbot: Any, qloop: Any, runner: TaskRunner
) -> None:
    pane = pane_on(qtbot, SimpleNamespace(app_servers=FakeServers()), runner)
    pane.vm.select(pane.vm.model.item(1))
    qtbot.waitUntil(lambda: getattr(pane.vm.detail, "ID", "") == "op-1", timeout=5000)
    assert pane.part_buttons["Security"].isVisible()
    assert not pane.part_buttons["Security"].isEnabled()
    pane.edit_part("Security")
    assert pane.dialog is None


def test_security_round_trip_on_the_sandbox(
    qtbot: Any, client: LpwaClient, runner: TaskRunner
) -> None:
    created = run(qtbot, client.app_servers.create(AppServerCreate(name="Security plant")))
    pane = pane_on(qtbot, client, runner)
    select(qtbot, pane, created)
    dialog = open_security(qtbot, pane)
    security = sub_form(dialog)
    assert input_text(security.fields["status"].input) == "NONE"
    put(security, "status", "DOWNLINK_AS_KEY")
    put(security, "asID", "as-key-7")
    put(security, "downlinkAsKey", KEY)
    put(security, "maxTimestampDeviation", "30")
    with qtbot.waitSignal(pane.vm.part_saved, timeout=10000):
        dialog.save()
    stored = run(qtbot, client.app_servers.security(created.path_ref))
    assert stored.downlinkSecurity.status == "DOWNLINK_AS_KEY"
    assert stored.downlinkSecurity.asID == "as-key-7"
    assert stored.downlinkSecurity.maxTimestampDeviation == 30
    assert stored.occContext.version == created.occContext.version + 1
    qtbot.waitUntil(
        lambda: (
            pane.vm.extras.get("Security") is not None
            and pane.vm.extras["Security"].downlinkSecurity.asID == "as-key-7"
            and "Metrics" in pane.vm.extras
        ),
        timeout=10000,
    )
    text = pane.detail.text()
    assert "as-key-7" in text and "Metrics" in text and KEY not in text
    # Opened again: pre-filled from what is stored, the key still not shown.
    again = open_security(qtbot, pane)
    fields = sub_form(again).fields
    assert fields["asID"].input.text() == "as-key-7"  # type: ignore[union-attr]
    assert fields["downlinkAsKey"].input.text() == ""  # type: ignore[union-attr]
    again.reject()
