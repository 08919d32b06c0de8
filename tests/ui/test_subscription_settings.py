"""Subscription settings from the main window's menu: offered only when connected with an
account that may change them, pre-filled from GET /subscriptions/mine, saved to the sandbox
and read back; a refusal of the server shown in the dialog with what was typed kept."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings

from lpwa_console.api import Credentials, LpwaClient
from lpwa_console.models.devices import DevicesViewModel
from lpwa_console.models.profiles import MemorySecretStore, ProfileStore
from lpwa_console.models.session import Session
from lpwa_console.models.subscription_settings import SubscriptionSettingsViewModel
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.schema.subscription import (
    Subscription,
    SubscriptionOptionsUpdate,
    SubscriptionUpdate,
)
from lpwa_console.ui.dialogs.subscription_settings import SubscriptionSettingsDialog
from lpwa_console.ui.main_window import MainWindow
from lpwa_console.ui.panes.devices import DevicesPane
from tests.helpers import run, shot


@pytest.fixture
def viewer(sandbox: Any, qloop: Any, qtbot: Any) -> Iterator[LpwaClient]:
    account = sandbox.account("subscriber-viewer")
    client = LpwaClient(
        sandbox.base_url,
        Credentials(sandbox.token_url, account["client_id"], account["client_secret"]),
    )
    yield client
    task = asyncio.ensure_future(client.aclose())
    qtbot.waitUntil(task.done, timeout=5000)


def window_with(
    qtbot: Any, tmp_path: Path, runner: TaskRunner, vm: SubscriptionSettingsViewModel
) -> MainWindow:
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    profiles = ProfileStore(settings, MemorySecretStore())
    session = Session(profiles, runner, None)
    pane = DevicesPane(DevicesViewModel(runner))
    window = MainWindow(session, runner, profiles, [pane], settings, subscription=vm)
    qtbot.addWidget(window)
    return window


def connect(qtbot: Any, vm: SubscriptionSettingsViewModel, client: LpwaClient | None) -> None:
    vm.set_client(client)
    qtbot.waitUntil(lambda: not vm.runner.busy, timeout=10000)


def test_settings_saved_to_the_sandbox(
    qtbot: Any, tmp_path: Path, client: LpwaClient, runner: TaskRunner
) -> None:
    vm = SubscriptionSettingsViewModel(runner)
    window = window_with(qtbot, tmp_path, runner, vm)
    action = window.subscription_action
    assert action is not None and action.text() == "Subscription settings…"
    assert not action.isEnabled() and action.toolTip() == "Not connected"
    connect(qtbot, vm, client)
    assert action.isEnabled()

    original = run(qtbot, client.subscription.get())
    try:
        with qtbot.waitSignal(vm.loaded, timeout=10000):
            action.trigger()
        dialog = window.subscription_dialog
        assert isinstance(dialog, SubscriptionSettingsDialog) and dialog.isVisible()
        assert dialog.name.text() == original.name
        assert dialog.tags.isChecked() is original.showTagSuggestionsWhenDomainRestrictions
        assert dialog.hsm.currentData() == original.options.hsm
        assert dialog.name.isEnabled() and not dialog.save_button.isEnabled()  # unchanged yet
        shot(dialog, "subscription-settings.png")

        dialog.name.setText("")
        assert dialog.name_error.text() == "The subscription needs a name"
        assert not dialog.save_button.isEnabled()
        dialog.name.setText("Acme Utilities (renamed)")
        dialog.tags.setChecked(not original.showTagSuggestionsWhenDomainRestrictions)
        dialog.hsm.setCurrentIndex(dialog.hsm.findData("ACTIVATED"))
        assert dialog.save_button.isEnabled()
        with qtbot.waitSignal(vm.saved, timeout=10000):
            dialog.save_button.click()
        assert not dialog.isVisible()
        stored = run(qtbot, client.subscription.get())
        assert stored.name == "Acme Utilities (renamed)"
        assert stored.options.hsm == "ACTIVATED"
        assert (
            stored.showTagSuggestionsWhenDomainRestrictions
            is not original.showTagSuggestionsWhenDomainRestrictions
        )
        qtbot.waitUntil(lambda: window.subscription_dialog is None, timeout=3000)
    finally:  # the sandbox is shared by the session: put it back
        run(
            qtbot,
            client.subscription.update(
                SubscriptionUpdate(
                    name=original.name,
                    showTagSuggestionsWhenDomainRestrictions=(
                        original.showTagSuggestionsWhenDomainRestrictions
                    ),
                    options=SubscriptionOptionsUpdate(hsm=original.options.hsm),
                )
            ),
        )
    connect(qtbot, vm, None)
    assert not action.isEnabled()


def test_a_viewer_cannot_and_the_servers_403_shows(
    qtbot: Any, tmp_path: Path, viewer: LpwaClient, runner: TaskRunner
) -> None:
    vm = SubscriptionSettingsViewModel(runner)
    window = window_with(qtbot, tmp_path, runner, vm)
    connect(qtbot, vm, viewer)
    action = window.subscription_action
    assert action is not None and not action.isEnabled()
    assert "can read the subscription but not change it" in action.toolTip()
    window.open_subscription_settings()
    assert window.subscription_dialog is None

    # A platform that does not say the account's permissions (it need not): the console
    # offers the settings, the server refuses, the dialog says so.
    resource = viewer.subscription
    real_get = resource.get

    async def get_without_permissions() -> Subscription:
        found = await real_get()
        found.subscription.grantedPermissions = []
        found.subscription.rights = None
        return found

    resource.get = get_without_permissions  # type: ignore[method-assign]
    connect(qtbot, vm, viewer)
    assert action.isEnabled()
    with qtbot.waitSignal(vm.loaded, timeout=10000):
        action.trigger()
    dialog = window.subscription_dialog
    assert isinstance(dialog, SubscriptionSettingsDialog) and dialog.name.isEnabled()
    dialog.name.setText("Not mine to rename")
    with qtbot.waitSignal(vm.save_failed, timeout=10000):
        dialog.save()
    text = dialog.form_error.text()
    assert text.startswith("The server refused: this account may not change")
    assert "permission 'a'" in text and dialog.form_error.isVisible()
    assert dialog.isVisible() and dialog.name.text() == "Not mine to rename"
    assert dialog.buttons.isEnabled()
    shot(dialog, "subscription-refused.png")
    assert run(qtbot, real_get()).name != "Not mine to rename"
    dialog.reject()


def test_a_dialog_opened_for_a_reader_is_read_only(
    qtbot: Any, viewer: LpwaClient, runner: TaskRunner
) -> None:
    vm = SubscriptionSettingsViewModel(runner)
    connect(qtbot, vm, viewer)
    dialog = SubscriptionSettingsDialog(vm)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(lambda: dialog.before is not None, timeout=10000)
    assert not dialog.name.isEnabled() and not dialog.save_button.isEnabled()
    assert "not change it" in dialog.form_error.text()
