"""Issue 20, words: what users read is words, never the platform's codes or slugs."""

from __future__ import annotations

from typing import Any

from lpwa_console.models.resources import ResourceViewModel, app_servers_kind
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.schema.labels import code_words, role_words
from lpwa_console.ui.account_view import account_html
from lpwa_console.ui.panes.resources import ResourcesPane
from tests.ui.conftest import OpenConsole


def test_app_servers_read_in_words(qtbot: Any, client: Any) -> None:
    kind = app_servers_kind()
    vm = ResourceViewModel(TaskRunner(), kind, page_size=50)
    pane = ResourcesPane(kind.title, [vm])
    qtbot.addWidget(pane)
    pane.resize(1200, 600)
    with qtbot.waitSignal(vm.first_page_loaded, timeout=10000):
        vm.set_client(client)
        pane.show()
    headers = [c.header for c in vm.model.columns]
    rows = range(vm.model.rowCount())
    types = {vm.model.index(r, headers.index("Type")).data() for r in rows}
    states = {vm.model.index(r, headers.index("State")).data() for r in rows}
    assert "HTTP (cellular)" in types and not any("_" in t for t in types)
    assert "Active" in states and "ACTIVE" not in states
    assert "Select an application server first" in pane.edit_button.toolTip()


def test_roles_and_codes_in_words() -> None:
    assert role_words("subscriber-restricted") == "Subscriber, restricted to some domains"
    assert code_words("ACTIVE") == "Active" and code_words("NOT_STARTED") == "Not started"


def test_the_account_view_of_an_operator_says_why_no_rights_are_listed(
    open_console: OpenConsole, qtbot: Any
) -> None:
    console = open_console("operator")
    text = account_html(console.session, console.window.rights)
    assert "Not known yet" not in text and "operator" not in text.split("Role")[1][:40]
    assert "Operator" in text and "no subscription" in text
    assert "Operator" in console.window.account_button.text()
