"""The main window: navigation of the panes that exist (with Back and Forward), status bar
(with the account button), activity panel, profile switcher, subscription settings, command
palette, shortcuts, help, remembered geometry."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QSettings, Qt
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QLabel,
    QListWidget,
    QMainWindow,
    QMenu,
    QSplitter,
    QStackedWidget,
    QToolBar,
    QToolButton,
    QWidget,
)

from ..models.fleet_index.index import FleetIndex
from ..models.palette import DeviceSearchViewModel, PaletteEntry
from ..models.pane_access import PANE_ACCESS, PaneRule, visible_panes
from ..models.profiles import ProfileStore
from ..models.rights import AccountRights
from ..models.session import Session
from ..models.subscription_settings import SubscriptionSettingsViewModel
from ..models.tasks import TaskRunner
from ..schema.labels import role_words
from .dialogs.secret_storage import PassphrasePrompt
from .fleet_index_status import FleetIndexStatus
from .lazy_pane import LazyPane
from .navigator import Location, Navigator
from .palette import CommandPalette
from .pane import Pane, pane_of, title_of
from .rights import RightsGate
from .theme import apply_theme
from .widgets.activity import ActivityPanel
from .widgets.column_chooser import restore_tables, save_tables
from .widgets.list_detail import restore_splitters, save_splitters
from .widgets.pane_parts import TableOrEmpty

if TYPE_CHECKING:
    # The dialogs are imported when first opened, not at start (issue 8).
    from .account_view import AccountView
    from .dialogs.subscription_settings import SubscriptionSettingsDialog

STATE_TEXT = {
    "disconnected": "Disconnected",
    "connecting": "Connecting…",
    "connected": "Connected",
    "failed": "Connection failed",
}


DEFAULT_SIZE = (1280, 800)

# What Ctrl+N (View > New) makes on each pane that makes something: the action's words
# there, the rights action guarding it, and what the shortcut list says of it.
NEW_ITEMS: dict[str, tuple[str, str, str]] = {
    "devices": ("New device", "device.create", "a device"),
    "stations": ("New base station", "station.create", "a base station"),
    "catalogs": ("New device profile", "catalog.edit", "a device profile"),
}
IMPORT_WORDS = ("Import devices from a file", "Import works on the Devices and Key manager panes")
EXPORT_WORDS = ("Export the rows of this view to a file", "Export works on the Devices pane")
NEW_NONE = "Nothing to create on this pane (Ctrl+N makes a device, a station, a profile on theirs)"


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
        rights: AccountRights | None = None,
        pane_keys: list[str] | None = None,
        device_search: DeviceSearchViewModel | None = None,
        data_dir: Path | None = None,
        pane_access: dict[str, PaneRule] | None = None,
        fleet_index: FleetIndex | None = None,
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.subscription = subscription
        self.rights = rights
        self.gate = RightsGate(rights, self)
        self.data_dir = data_dir
        self.account_view: AccountView | None = None
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
            self.navigation.addItem(title_of(pane))
            self.stack.addWidget(pane)
        self.navigation.currentRowChanged.connect(self.stack.setCurrentIndex)
        # Panes by key ("devices", "alarms"...): what links and history name them by.
        self.pane_keys = pane_keys or [title_of(p).lower().replace(" ", "_") for p in panes]
        # Which panes the signed-in account sees (models/pane_access.py): the others stay in
        # the stack, hidden from the side list, the View menu, the keys and the palette.
        self.pane_access = PANE_ACCESS if pane_access is None else pane_access
        self.visible_keys = visible_panes(self.pane_keys, self._access_role(), self.pane_access)
        for row, key in enumerate(self.pane_keys):
            self.navigation.item(row).setHidden(key not in self.visible_keys)
        self.navigator = Navigator(dict(zip(self.pane_keys, panes, strict=True)), self.show_pane)
        self._remember_picks = False  # the window's own picks (start, sign-in) are not
        self.navigation.currentRowChanged.connect(self._pane_picked)
        self.navigation.currentRowChanged.connect(lambda _r: self.update_new_actions())
        self.account_key = ""  # profile and account signed in: each keeps its filters
        for pane in panes:
            if isinstance(pane, Pane | LazyPane):
                pane.navigate.connect(self.navigator.go)
            if isinstance(pane, LazyPane):
                # A pane made later gets the list-and-detail split the user left it with.
                pane.made.connect(lambda made: restore_splitters(made, self.settings))
                pane.made.connect(self._pane_made)
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
        self.account_button = QToolButton()
        self.account_button.setObjectName("accountButton")
        self.account_button.setAutoRaise(True)
        self.account_button.setToolTip("Who is signed in, and what the account may do")
        self.account_button.clicked.connect(self.open_account_view)
        self.tasks_label = QLabel()
        self.statusBar().addWidget(self.state_label, 1)
        if fleet_index is not None:
            self.fleet_index_status = FleetIndexStatus(fleet_index)
            self.statusBar().addPermanentWidget(self.fleet_index_status)
        self.statusBar().addPermanentWidget(self.tasks_label)
        self.statusBar().addPermanentWidget(self.account_button)

        self.device_search = device_search or DeviceSearchViewModel(runner, parent=self)
        self.command_palette = CommandPalette(self.palette_entries, self.device_search, self)
        self.command_palette.chosen.connect(self._palette_chosen)
        self._palette_actions: dict[str, QAction] = {}

        self._build_menus()
        self._build_toolbar()
        self._progress = ""
        session.state_changed.connect(self._state_changed)
        session.progress_changed.connect(self._progress_changed)
        # The passphrase of the secrets file, when a connect needs one of its secrets.
        self.passphrase_prompt = PassphrasePrompt(session, self)
        session.account_changed.connect(self._account_changed)
        session.profile_changed.connect(lambda _n: self._fill_profile_menu())
        session.profile_changed.connect(lambda _n: self.apply_pane_access())
        profiles.changed.connect(self._fill_profile_menu)
        runner.busy_changed.connect(self._busy)
        self._state_changed(session.state)
        self._account_changed(session.account_name, session.role)
        if self.visible_keys:
            self.navigation.setCurrentRow(self.pane_keys.index(self.visible_keys[0]))
        self.restore_layout()
        self.update_new_actions()
        self.navigator.forget()  # the way starts where the window opens
        # From here a pane the user picks is remembered at once, not only at a clean quit:
        # a laptop whose battery dies reopens where its user was.
        self._remember_picks = True

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
        if self.session.field is not None:  # field mode (models/field_offline)
            connection.addSeparator()
            self.take_offline_action = connection.addAction("Take offline…")
            self.take_offline_action.triggered.connect(self.take_offline)
            self.offline_edits_action = connection.addAction("Offline edits…")
            self.offline_edits_action.triggered.connect(self.open_offline_edits)
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
        view.setToolTipsVisible(True)
        self.refresh_action = self._action(
            view, "Refresh", "F5", self._pane_call(lambda pane: pane.refresh())
        )
        self.find_action = self._action(
            view, "Find", "Ctrl+F", self._pane_call(lambda pane: pane.focus_filter())
        )
        # Ctrl+N: what the pane shown makes (NEW_ITEMS), named after it; the shortcut list
        # says what it makes on each pane.
        self.new_action = self._action(
            view, "New device", "Ctrl+N", self._pane_call(lambda pane: pane.create_item())
        )
        self.new_action.setObjectName("newAction")
        self.import_action = self._action(
            view, "Import devices…", "Ctrl+I", self._pane_call(lambda pane: pane.import_devices())
        )
        self.gate.bind(self.new_action, "device.create")
        # Ctrl+N on the base stations pane makes a station (its `create_item`); from anywhere
        # else (the palette), this goes there and opens the form.
        self.new_station_action = view.addAction("New base station…")
        self.new_station_action.setObjectName("newStationAction")
        self.new_station_action.setToolTip("Create a base station")
        self.new_station_action.triggered.connect(lambda _c=False: self.new_station())
        self.gate.bind(self.new_station_action, "station.create")
        view.aboutToShow.connect(self.update_new_actions)
        self.new_station_action.setVisible("stations" in self.visible_keys)
        self.gate.bind(self.import_action, "device.import")
        self.export_action = self._action(
            view,
            "Export this view…",
            "Ctrl+E",
            self._pane_call(lambda pane: pane.choose_export_file()),
        )
        view.addSeparator()
        self.view_menu = view
        self.pane_actions: list[QAction] = []
        self._after_pane_actions = view.addSeparator()
        self._build_pane_actions()
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

        go = bar.addMenu("&Go")
        self.back_action = self._action(go, "Back", "Alt+Left", self.navigator.back)
        self.back_action.setObjectName("backAction")
        self.forward_action = self._action(go, "Forward", "Alt+Right", self.navigator.forward)
        self.forward_action.setObjectName("forwardAction")
        go.addSeparator()
        self.palette_action = self._action(go, "Command palette…", "Ctrl+K", self.open_palette)
        self.palette_action.setObjectName("paletteAction")
        self.account_action = go.addAction("Account…")
        self.account_action.triggered.connect(self.open_account_view)
        self.navigator.changed.connect(self._history_changed)
        self._history_changed()

        help_menu = bar.addMenu("&Help")
        self.shortcuts_action = self._action(
            help_menu, "Keyboard shortcuts", "F1", self.open_shortcuts
        )
        about = help_menu.addAction("About LPWA Console")
        about.setObjectName("aboutAction")
        about.triggered.connect(self.open_about)

    def _build_pane_actions(self) -> None:
        """One View menu item per visible pane, with Ctrl+1..9 in the order shown."""
        for action in self.pane_actions:
            self.view_menu.removeAction(action)
            action.deleteLater()
        self.pane_actions = []
        panes = dict(zip(self.pane_keys, self.panes, strict=False))
        for index, key in enumerate(self.visible_keys[:9]):
            title = title_of(panes[key], f"Pane {index + 1}")
            action = QAction(title, self)
            action.setShortcut(QKeySequence(f"Ctrl+{index + 1}"))
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            # `triggered` passes `checked`: taken by its own parameter, not by `key`.
            action.triggered.connect(lambda _c=False, k=key: self.navigator.open(k))
            action.setObjectName(f"go_{key}")
            self.view_menu.insertAction(self._after_pane_actions, action)
            self.pane_actions.append(action)

    def _access_role(self) -> str:
        """The role the panes are chosen for: the signed-in account's, else the one the
        current profile signs in as."""
        profile = self.session.profile
        return self.session.role or (profile.role if profile is not None else "")

    def apply_pane_access(self) -> None:
        """Show the panes the account may use, and only those: the side list, the View
        menu and its keys, the palette (which reads `visible_keys`). The pane shown stays
        when it is still visible, else the first visible one is shown."""
        visible = visible_panes(self.pane_keys, self._access_role(), self.pane_access)
        if visible == self.visible_keys:
            return
        self.visible_keys = visible
        for row, key in enumerate(self.pane_keys):
            self.navigation.item(row).setHidden(key not in visible)
        self.new_station_action.setVisible("stations" in visible)
        self._build_pane_actions()
        self.update_new_actions()
        row = self.navigation.currentRow()
        current = self.pane_keys[row] if 0 <= row < len(self.pane_keys) else None
        if current not in visible and visible:
            # The pane this account had open last time (restore_layout ran before anyone
            # was signed in, when it was not on the list yet), else the first one.
            remembered = self._remembered_key()
            key = remembered if remembered in visible else visible[0]
            with self._not_remembered():
                self.navigation.setCurrentRow(self.pane_keys.index(key))

    @contextlib.contextmanager
    def _not_remembered(self) -> Iterator[None]:
        """A pane the window shows by itself (the account cannot see the one shown) does
        not replace the one its user picked last."""
        remember, self._remember_picks = self._remember_picks, False
        try:
            yield
        finally:
            self._remember_picks = remember

    def _remembered_key(self) -> str | None:
        """The key of the pane saved as shown last (`save_layout`), if it still exists."""
        title = str(self.settings.value("window/pane_title", ""))
        for row, key in enumerate(self.pane_keys):
            if self.navigation.item(row).text() == title:
                return key
        return None

    def _build_toolbar(self) -> None:
        bar = QToolBar("Navigation", self)
        bar.setObjectName("navigationToolbar")
        bar.setMovable(False)
        for action, tip in (
            (self.back_action, "Back (Alt+Left)"),
            (self.forward_action, "Forward (Alt+Right)"),
            (self.palette_action, "Go to a pane, run an action, find a device (Ctrl+K)"),
        ):
            action.setToolTip(tip)
            bar.addAction(action)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, bar)
        self.toolbar = bar

    def _action(self, menu: object, text: str, shortcut: str, slot: object) -> QAction:
        action = QAction(text, self)
        action.setShortcut(QKeySequence(shortcut))
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.triggered.connect(lambda _c=False: slot())  # type: ignore[operator]
        menu.addAction(action)  # type: ignore[attr-defined]
        return action

    def _pane_call(self, method: Callable[[Pane], None]) -> object:
        """A menu action's slot: `method` of the pane shown (a placeholder has none)."""

        def call() -> None:
            host = self.stack.currentWidget()
            pane = pane_of(host) if host is not None else None
            if pane is not None:
                method(pane)

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
        from .dialogs.profiles import ProfilesDialog

        dialog = ProfilesDialog(self.profiles, self.session, self)
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()

    def open_subscription_settings(self) -> None:
        if self.subscription is None or not self.subscription.can_write:
            return
        if self.subscription_dialog is not None:
            self.subscription_dialog.raise_()
            return
        from .dialogs.subscription_settings import SubscriptionSettingsDialog

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
        action = self.subscription_action
        reason = self.subscription.reason
        action.setToolTip(reason or "Name, tag suggestions and HSM protection of the subscription")
        action.setStatusTip(reason)
        # The account's rights, when known, disable it with their own reason.
        self.gate.bind(action, "subscription.edit")
        self.gate.enable(action, self.subscription.can_write)

    def set_theme(self, choice: str) -> None:
        self.settings.setValue("appearance/theme", choice)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            apply_theme(app, choice)  # type: ignore[arg-type]
        for pane in self.panes:
            pane.update()

    def current_pane(self) -> QWidget | None:
        return self.stack.currentWidget()

    # --- navigation ---------------------------------------------------------------------

    def show_pane(self, key: str) -> None:
        """The navigator's way of showing a pane (not one this account may not use)."""
        if key not in self.visible_keys:
            return
        row = self.pane_keys.index(key)
        if self.navigation.currentRow() != row:
            self.navigation.setCurrentRow(row)

    def new_station(self) -> None:
        """Show the base stations pane and its new-station form."""
        if "stations" not in self.visible_keys:
            return
        self.navigator.open("stations")
        pane = pane_of(dict(zip(self.pane_keys, self.panes, strict=False))["stations"])
        if pane is not None:
            pane.create_item()

    def current_key(self) -> str | None:
        row = self.navigation.currentRow()
        return self.pane_keys[row] if 0 <= row < len(self.pane_keys) else None

    def _station_refusal(self) -> str:
        """Why the stations pane refuses a new station now (its partner's grant used up,
        its permissions): '' when it may, or while the pane is not made (nothing read yet:
        the pane itself says so when asked)."""
        if "stations" not in self.pane_keys:
            return ""
        host = self.panes[self.pane_keys.index("stations")]
        if isinstance(host, LazyPane) and not host.is_made:
            return ""
        pane = pane_of(host)
        return pane.create_refusal() if pane is not None else ""

    def update_new_actions(self) -> None:
        """Ctrl+N's words, rights and reason for the pane shown; New base station refused
        with the pane's reason, as its button is."""
        if not hasattr(self, "new_station_action"):
            return  # the menus are not built yet
        key = self.current_key() or ""
        text, action, _what = NEW_ITEMS.get(key, ("New…", "", ""))
        refusal = self._station_refusal()
        self.new_action.setText(text)
        self.new_action.setWhatsThis(self.new_words())
        if action:
            self.gate.bind(self.new_action, action)
            tip = refusal if key == "stations" and refusal else ""
            self.new_action.setToolTip(tip or text)
            self.gate.enable(self.new_action, not tip)
        else:
            self.gate.unbind(self.new_action)
            self.new_action.setToolTip(NEW_NONE)
            self.new_action.setStatusTip(NEW_NONE)
            self.new_action.setEnabled(False)
        self.new_station_action.setToolTip(refusal or "Create a base station")
        self.gate.enable(self.new_station_action, not refusal)
        # Import and export work on the panes that have them; elsewhere they say where.
        for menu_item, does, (tip, elsewhere) in (
            (self.import_action, lambda pane: pane.imports, IMPORT_WORDS),
            (self.export_action, lambda pane: pane.exports, EXPORT_WORDS),
        ):
            here = self._pane_does(does)
            menu_item.setToolTip(tip if here else elsewhere)
            self.gate.enable(menu_item, here)

    def _pane_does(self, does: Callable[[Pane], bool]) -> bool:
        """Whether the pane shown does this (a pane not made yet is given the benefit)."""
        host = self.stack.currentWidget()
        if host is None or (isinstance(host, LazyPane) and not host.is_made):
            return True
        pane = pane_of(host)
        return pane is not None and does(pane)

    def new_words(self) -> str:
        """Ctrl+N in the shortcut list: what it makes on each pane this account sees."""
        parts = [
            f"{NEW_ITEMS[key][2]} on {self._title_of(key)}"
            for key in NEW_ITEMS
            if key in self.visible_keys
        ]
        return "New: " + "; ".join(parts) if parts else "New"

    def _title_of(self, key: str) -> str:
        return title_of(self.panes[self.pane_keys.index(key)], key)

    def _pane_picked(self, row: int) -> None:
        if 0 <= row < len(self.pane_keys):
            self.navigator.pane_shown(self.pane_keys[row])
            if self._remember_picks:
                self.settings.setValue("window/pane_title", self.navigation.item(row).text())

    def _history_changed(self) -> None:
        self.back_action.setEnabled(self.navigator.can_go_back)
        self.forward_action.setEnabled(self.navigator.can_go_forward)

    # --- command palette, account, help -------------------------------------------------

    def open_palette(self) -> None:
        self.command_palette.popup()

    def palette_entries(self) -> list[PaletteEntry]:
        """The panes, then every menu action with a name (the profile list excepted)."""
        self.update_new_actions()
        entries = []
        panes = dict(zip(self.pane_keys, self.panes, strict=False))
        for index, key in enumerate(self.visible_keys):
            title = title_of(panes[key], key)
            keys = f"Ctrl+{index + 1}" if index < 9 else ""
            entries.append(PaletteEntry("pane", title, key, detail=keys, keywords="pane go"))
        self._palette_actions = {}
        top = {a.menu() for a in self.menuBar().actions()}
        for menu in self.menuBar().findChildren(QMenu):
            if not isinstance(menu, QMenu) or menu is self.profile_menu:
                continue
            for action in menu.actions():
                text = action.text().replace("&", "")
                if menu not in top and text:  # a submenu's item: "Theme: Dark"
                    text = f"{menu.title().replace('&', '')}: {text}"
                if action.isSeparator() or action.menu() is not None or not text:
                    continue
                if not action.isVisible():
                    continue
                if action in self.pane_actions or action is self.palette_action:
                    continue
                if action is self.new_station_action and self.current_key() == "stations":
                    continue  # Ctrl+N's own item says it on this pane
                if action is self.new_action and not action.isEnabled() and action.text() == "New…":
                    continue  # nothing to create here

                key = f"action{len(self._palette_actions)}"
                self._palette_actions[key] = action
                shortcut = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
                entries.append(
                    PaletteEntry(
                        "action",
                        text.rstrip("…"),
                        key,
                        detail=shortcut,
                        keywords=menu.title().replace("&", ""),
                        enabled=action.isEnabled(),
                        reason=action.statusTip() or action.toolTip(),
                    )
                )
        return entries

    def _palette_chosen(self, entry: PaletteEntry) -> None:
        if entry.kind == "pane":
            self.navigator.open(entry.key)
        elif entry.kind == "device":
            self.navigator.go(Location("devices", entry.key))
        elif entry.kind == "station":
            self.navigator.go(Location("stations", entry.key))
        else:
            action = self._palette_actions.get(entry.key)
            if action is not None and action.isEnabled():
                action.trigger()

    def open_account_view(self) -> None:
        if self.account_view is not None:
            self.account_view.raise_()
            return
        from .account_view import AccountView

        view = AccountView(self.session, self.rights, self)
        self.account_view = view

        def closed(_result: int) -> None:
            view.deleteLater()
            self.account_view = None

        view.finished.connect(closed)
        view.open()

    def all_actions(self) -> list[QAction]:
        """Every action of the menus, in menu order (the shortcut list reads them)."""
        out: list[QAction] = []
        for top in self.menuBar().actions():
            menu = top.menu()
            if not isinstance(menu, QMenu):
                continue
            for action in menu.actions():
                if not action.isSeparator() and action.menu() is None:
                    out.append(action)
        return out

    def open_shortcuts(self) -> None:
        from .help import ShortcutsDialog

        dialog = ShortcutsDialog(self.all_actions(), self)
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()

    def open_about(self) -> None:
        from .account_view import platform_text
        from .help import about_box

        box = about_box(platform_text(self.session), self.data_dir, self)
        box.finished.connect(box.deleteLater)
        box.open()

    # --- field mode ---------------------------------------------------------------------

    def take_offline(self) -> None:
        """The "Take offline" dialog, its box the map's view when the map was opened."""
        from .dialogs.field_offline import TakeOfflineDialog

        field = self.session.field
        assert field is not None
        box = None
        map_host = dict(zip(self.pane_keys, self.panes, strict=False)).get("map")
        if map_host is not None and (not isinstance(map_host, LazyPane) or map_host.is_made):
            view = getattr(pane_of(map_host), "view", None)
            geo = view.visible_box() if view is not None else None
            if geo is not None:
                box = (geo.min_lat, geo.min_lon, geo.max_lat, geo.max_lon)
        dialog = TakeOfflineDialog(field, self.session, self.settings, box, self)
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()

    def open_offline_edits(self) -> None:
        from .dialogs.field_offline import OfflineEditsDialog

        field = self.session.field
        assert field is not None
        dialog = OfflineEditsDialog(field, self.session, self)
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()

    # --- session ------------------------------------------------------------------------

    def _progress_changed(self, _text: str) -> None:
        self._state_changed(self.session.state)

    def show_progress(self, text: str) -> None:
        """What the console does after signing in ("Loading devices…"), in the status bar
        in place of "Connected"; "" when done."""
        self._progress = text
        self._state_changed(self.session.state)

    def _state_changed(self, state: str) -> None:
        text = STATE_TEXT.get(state, state)
        profile = self.session.profile.name if self.session.profile else ""
        # While connecting, the step under way ("Starting the local sandbox…") is said in
        # the status bar and by the panes that would say "Not connected".
        offline = self.session.progress if state == "connecting" else ""
        for stack in self.findChildren(TableOrEmpty):
            stack.set_offline_text(offline)
        if offline:
            text = offline
        elif state == "connected" and self.session.offline_text:
            text = self.session.offline_text  # "Offline, data as of 10:42"
        elif self._progress and state == "connected":
            text = self._progress
        if state == "failed" and self.session.asking_passphrase:
            text = self.session.message  # a dialog asks it: not a failure, no error to show
        elif state == "failed":
            text = f"{text}: {self.session.message}"
            self.activity_dock.show()
        elif profile:
            text = f"{text} · {profile}"
        self.state_label.setText(text)
        self._fill_profile_menu()

    def _account_changed(self, name: str, role: str) -> None:
        # "Acme Utilities (subscriber)"; a name with brackets of its own takes a dot instead
        # of a second pair: "Acme Utilities (administrator) · subscriber".
        words = role_words(role)
        role_text = f" · {words}" if name.endswith(")") else f" ({words})"
        self.account_button.setText(f"{name}{role_text}" if name else "Not signed in")
        self.apply_pane_access()
        if name:  # signed in (signing out keeps each pane's filters for the next account)
            profile = self.session.profile
            self.account_key = f"{profile.name if profile else ''}\n{name}\n{role}"
            for host in self.panes:
                made = not isinstance(host, LazyPane) or host.is_made
                pane = pane_of(host) if made else None
                if pane is not None:
                    pane.set_account(self.account_key)

    def _pane_made(self, pane: QWidget) -> None:
        """A pane made late starts with the filters of the account signed in."""
        if isinstance(pane, Pane) and self.account_key:
            pane.set_account(self.account_key)

    def _busy(self, busy: bool) -> None:
        self.tasks_label.setText("Working…" if busy else "")

    # --- layout memory ------------------------------------------------------------------

    def restore_layout(self) -> None:
        geometry = self.settings.value("window/geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        else:
            # A laptop's 1280x720 screen (less the task bar) holds the whole window.
            screen = self.screen()
            area = screen.availableGeometry() if screen is not None else None
            width, height = DEFAULT_SIZE
            if area is not None and not area.isEmpty():
                width, height = min(width, area.width()), min(height, area.height())
            self.resize(width, height)
        state = self.settings.value("window/state")
        if isinstance(state, QByteArray) and not state.isEmpty():
            self.restoreState(state)
        restore_tables(self, self.settings)
        restore_splitters(self, self.settings)
        # By title: an index would point at another pane once a version adds one.
        titles = [self.navigation.item(row).text() for row in range(self.navigation.count())]
        title = self.settings.value("window/pane_title", "")
        hidden = {
            self.navigation.item(row).text()
            for row in range(self.navigation.count())
            if self.navigation.item(row).isHidden()
        }
        if title in hidden:
            pass
        elif title in titles:
            self.navigation.setCurrentRow(titles.index(str(title)))
        else:
            pane = self.settings.value("window/pane", 0)  # what older versions saved
            with contextlib.suppress(TypeError, ValueError):
                self.navigation.setCurrentRow(min(int(str(pane)), max(0, len(self.panes) - 1)))
        row = self.navigation.currentRow()
        off_list = 0 <= row < len(self.pane_keys) and self.pane_keys[row] not in self.visible_keys
        if off_list and self.visible_keys:
            self.navigation.setCurrentRow(self.pane_keys.index(self.visible_keys[0]))

    def save_layout(self) -> None:
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        save_tables(self, self.settings)
        save_splitters(self, self.settings)
        current = self.navigation.currentItem()
        self.settings.setValue("window/pane_title", current.text() if current else "")
        self.settings.remove("window/pane")
        self.settings.sync()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.save_layout()
        super().closeEvent(event)
