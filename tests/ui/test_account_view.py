"""The account view asks the application scope when it opens: the console's application, the
user's identity (UID, platform ID, OpenID sub), contexts, the permissions and domain
restrictions authenticate gives, in words; a platform without the scope gets a clear line."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from lpwa_console.schema.applications import CONSOLE_APPLICATION_ID
from lpwa_console.ui.account_view import AccountView

from .conftest import OpenConsole


def _open(console: Any, qtbot: Any) -> AccountView:
    window = console.window
    qtbot.waitUntil(lambda: console.session.client is not None, timeout=10_000)
    QTest.mouseClick(window.account_button, Qt.MouseButton.LeftButton)
    view = window.account_view
    assert view is not None and view.isVisible()
    qtbot.waitUntil(lambda: view.scope.state in ("loaded", "failed"), timeout=10_000)
    return view


def test_a_restricted_user_sees_its_identity_and_contexts(
    open_console: OpenConsole, qtbot: Any
) -> None:
    console = open_console("subscriber-restricted")
    view = _open(console, qtbot)
    scope = view.scope.scope
    assert scope is not None and scope.user is not None
    text = view.text.text()
    assert f"({CONSOLE_APPLICATION_ID})" in text
    user = scope.user
    assert f"UID {user.UID}" in text
    assert f"platform ID {user.platformID}" in text and f"OpenID sub {user.oidcSub}" in text
    assert "Permissions granted for this application" in text
    assert "x: read the subscription" in text and "rc:" not in text
    assert "Subscription Acme Utilities (100): permissions x, a; only resources" in text
    assert text.count("whose name starts with “France/”") >= 3  # rights, scope, context
    view.reject()
    qtbot.waitUntil(lambda: console.window.account_view is None)


def test_a_platform_without_the_application_says_so(open_console: OpenConsole, qtbot: Any) -> None:
    console = open_console("subscriber-viewer")
    view = _open(console, qtbot)
    assert "Contexts (where this user acts)" in view.text.text()
    # A platform that does not know the console's application answers 404: one clear line.
    view.scope.application_id = "no/such-app"
    view.scope.load()
    assert "Asking the platform…" in view.text.text()
    qtbot.waitUntil(lambda: view.scope.state == "loaded", timeout=10_000)
    text = view.text.text()
    assert "This platform does not offer the application scope" in text
    assert "no/such-app" in text and "Contexts" not in text
    view.reject()
