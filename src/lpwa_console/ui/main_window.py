"""The main window: navigation of the panes that exist, status bar, activity panel,
profile switcher, subscription settings, shortcuts, remembered geometry."""

from __future__ import annotations

import contextlib
from typing import Protocol

from PySide6.QtCore import QByteArray, QSettings, Qt
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QLabel,
    QListWidget,
    QMainWindow,
    QSplitter,
    QStackedWidget,
    QWidget,
)

from ..models.profiles import ProfileStore
from ..models.session import Session
from ..models.subscription_settings import SubscriptionSettingsViewModel
from ..models.tasks import TaskRunner
from .dialogs.profiles import ProfilesDialog
from .dialogs.subscription_settings import SubscriptionSettingsDialog
from .theme import apply_theme
from .widgets.activity import ActivityPanel

STATE_TEXT = {
    "disconnected": "Disconnected",
    "connecting": "Connecting…",
    "connected": "Connected",
    "failed": "Connection failed",
}


class Pane(Protocol):
    title: str

    def refresh(self) -> None: ...


class MainWindow(QMainWindow):
    def __init__(
        self,
        session: Session,
        runner: TaskRunner,
        profiles: ProfileStore,
        panes: list[QWidget],
        settings: QSettings,
        parent: QWidget | None = None,
        *,
        subscription: SubscriptionSettingsViewModel | None = None,
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.subscription = subscription
        self.subscription_dialog: SubscriptionSettingsDialog | None = None
        self.runner = runner
        self.profiles = profiles
        self.settings = settings
        self.panes = panes
        self.setWindowTitle("LPWA Console")
        self.setObjectName("mainWindow")

        self.navigation = QListWidget()
        self.navigation.setObjectName("navigation")
        self.navigation.setMaximumWidth(180)
        self.stack = QStackedWidget()
        for pane in panes:
            self.navigation.addItem(str(getattr(pane, "title", pane.objectName())))
            self.stack.addWidget(pane)
        self.navigation.currentRowChanged.connect(self.stack.setCurrentIndex)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setObjectName("mainSplitter")
        splitter.addWidget(self.navigation)
        splitter.addWidget(self.stack)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([150, 1000])
        splitter.setChildrenCollapsible(False)
        self.setCentralWidget(splitter)

        self.activity = ActivityPanel(runner)
        self.activity_dock = QDockWidget("Activity", self)
        self.activity_dock.setObjectName("activityDock")
        self.activity_dock.setWidget(self.activity)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.activity_dock)
        self.activity_dock.hide()

        self.state_label = QLabel()
        self.state_label.setObjectName("connectionState")
        self.account_label = QLabel()
        self.account_label.setObjectName("accountLabel")
        self.tasks_label = QLabel()
        self.statusBar().addWidget(self.state_label, 1)
        self.statusBar().addPermanentWidget(self.tasks_label)
        self.statusBar().addPermanentWidget(self.account_label)

        self._build_menus()
        session.state_changed.connect(self._state_changed)
        session.account_changed.connect(self._account_changed)
        session.profile_changed.connect(lambda _n: self._fill_profile_menu())
        profiles.changed.connect(self._fill_profile_menu)
        runner.busy_changed.connect(self._busy)
        self._state_changed(session.state)
        self._account_changed(session.account_name, session.role)
        if panes:
            self.navigation.setCurrentRow(0)
        self.restore_layout()

    # --- menus and shortcuts ------------------------------------------------------------

    def _build_menus(self) -> None:
        bar = self.menuBar()
        connection = bar.addMenu("&Connection")
        self.profile_menu = connection.addMenu("Switch profile")
        self.profile_group = QActionGroup(self)
        manage = connection.addAction("Manage profiles…")
        manage.triggered.connect(self.manage_profiles)
        reconnect = connection.addAction("Reconnect")
        reconnect.triggered.connect(self.session.reconnect)
        self.subscription_action: QAction | None = None
        if self.subscription is not None:
            connection.addSeparator()
            self.subscription_action = connection.addAction("Subscription settings…")
            self.subscription_action.setObjectName("subscriptionSettingsAction")
            self.subscription_action.triggered.connect(self.open_subscription_settings)
            self.subscription.availability_changed.connect(self._subscription_availability)
            self._subscription_availability()
        connection.addSeparator()
        quit_action = connection.addAction("Quit")
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.close)
        self._fill_profile_menu()

        view = bar.addMenu("&View")
        self.refresh_action = self._action(view, "Refresh", "F5", self._pane_call("refresh"))
        self.find_action = self._action(view, "Find", "Ctrl+F", self._pane_call("focus_filter"))
        self.new_action = self._action(view, "New device", "Ctrl+N", self._pane_call("new_device"))
        self.import_action = self._action(
            view, "Import devices…", "Ctrl+I", self._pane_call("import_devices")
        )
        self.export_action = self._action(
            view, "Export this view…", "Ctrl+E", self._pane_call("choose_export_file")
        )
        view.addSeparator()
        for index, pane in enumerate(self.panes[:9]):
            title = str(getattr(pane, "title", f"Pane {index + 1}"))
            self._action(
                view, title, f"Ctrl+{index + 1}", lambda i=index: self.navigation.setCurrentRow(i)
            )
        view.addSeparator()
        view.addAction(self.activity_dock.toggleViewAction())
        theme = view.addMenu("Theme")
        group = QActionGroup(self)
        current = str(self.settings.value("appearance/theme", "system"))
        for choice in ("system", "light", "dark"):
            action = theme.addAction(choice.title())
            action.setCheckable(True)
            action.setChecked(choice == current)
            group.addAction(action)
            action.triggered.connect(lambda _c=False, ch=choice: self.set_theme(ch))

    def _action(self, menu: object, text: str, shortcut: str, slot: object) -> QAction:
        action = QAction(text, self)
        action.setShortcut(QKeySequence(shortcut))
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.triggered.connect(slot)
        menu.addAction(action)  # type: ignore[attr-defined]
        return action

    def _pane_call(self, method: str) -> object:
        def call() -> None:
            pane = self.stack.currentWidget()
            fn = getattr(pane, method, None)
            if callable(fn):
                fn()

        return call

    def _fill_profile_menu(self) -> None:
        self.profile_menu.clear()
        for action in self.profile_group.actions():
            self.profile_group.removeAction(action)
        current = self.session.profile.name if self.session.profile else ""
        for profile in self.profiles.profiles():
            action = self.profile_menu.addAction(profile.name)
            action.setCheckable(True)
            action.setChecked(profile.name == current)
            self.profile_group.addAction(action)
            action.triggered.connect(lambda _c=False, p=profile: self.session.open(p))

    def manage_profiles(self) -> None:
        dialog = ProfilesDialog(self.profiles, self.session, self)
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()

    def open_subscription_settings(self) -> None:
        if self.subscription is None or not self.subscription.can_write:
            return
        if self.subscription_dialog is not None:
            self.subscription_dialog.raise_()
            return
        dialog = SubscriptionSettingsDialog(self.subscription, self)
        self.subscription_dialog = dialog

        def closed(_result: int) -> None:
            dialog.deleteLater()
            self.subscription_dialog = None

        dialog.finished.connect(closed)
        dialog.open()

    def _subscription_availability(self) -> None:
        if self.subscription is None or self.subscription_action is None:
            return
        self.subscription_action.setEnabled(self.subscription.can_write)
        reason = self.subscription.reason
        self.subscription_action.setToolTip(
            reason or "Name, tag suggestions and HSM protection of the subscription"
        )
        self.subscription_action.setStatusTip(reason)

    def set_theme(self, choice: str) -> None:
        self.settings.setValue("appearance/theme", choice)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            apply_theme(app, choice)  # type: ignore[arg-type]
        for pane in self.panes:
            pane.update()

    def current_pane(self) -> QWidget | None:
        return self.stack.currentWidget()

    # --- session ------------------------------------------------------------------------

    def _state_changed(self, state: str) -> None:
        text = STATE_TEXT.get(state, state)
        profile = self.session.profile.name if self.session.profile else ""
        if state == "failed":
            text = f"{text}: {self.session.message}"
            self.activity_dock.show()
        elif profile:
            text = f"{text} · {profile}"
        self.state_label.setText(text)
        self._fill_profile_menu()

    def _account_changed(self, name: str, role: str) -> None:
        self.account_label.setText(f"{name} ({role})" if name else "")

    def _busy(self, busy: bool) -> None:
        self.tasks_label.setText("Working…" if busy else "")

    # --- layout memory ------------------------------------------------------------------

    def restore_layout(self) -> None:
        geometry = self.settings.value("window/geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        else:
            self.resize(1280, 800)
        state = self.settings.value("window/state")
        if isinstance(state, QByteArray) and not state.isEmpty():
            self.restoreState(state)
        # By title: an index would point at another pane once a version adds one.
        titles = [self.navigation.item(row).text() for row in range(self.navigation.count())]
        title = self.settings.value("window/pane_title", "")
        if title in titles:
            self.navigation.setCurrentRow(titles.index(str(title)))
        else:
            pane = self.settings.value("window/pane", 0)  # what older versions saved
            with contextlib.suppress(TypeError, ValueError):
                self.navigation.setCurrentRow(min(int(str(pane)), max(0, len(self.panes) - 1)))

    def save_layout(self) -> None:
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        current = self.navigation.currentItem()
        self.settings.setValue("window/pane_title", current.text() if current else "")
        self.settings.remove("window/pane")
        self.settings.sync()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.save_layout()
        super().closeEvent(event)
