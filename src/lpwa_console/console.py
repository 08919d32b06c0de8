"""What the composition root (`app.py`) builds, as one object: the window, its panes by key,
the session and what they share. Tests and the diagnostics reach the console through it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QWidget

from .models.devices import DevicesViewModel
from .models.embedded import EmbeddedSandbox
from .models.fleet_index.index import FleetIndex
from .models.profiles import Profile, ProfileStore
from .models.session import Session
from .models.subscription_settings import SubscriptionSettingsViewModel
from .models.tasks import TaskRunner
from .ui.lazy_pane import LazyPane, real_pane
from .ui.main_window import MainWindow


class Panes(Mapping[str, QWidget]):
    """The window's panes by key. Reading one gives the pane itself (made now if it was
    not yet); `hosts()` gives what the window's stack holds."""

    def __init__(self, made: dict[str, QWidget]) -> None:
        self._widgets: dict[str, QWidget] = dict(made)

    def add(self, host: LazyPane) -> None:
        self._widgets[host.key] = host

    def hosts(self) -> list[QWidget]:
        return list(self._widgets.values())

    def __getitem__(self, key: str) -> QWidget:
        return real_pane(self._widgets[key])

    def __iter__(self) -> Iterator[str]:
        return iter(self._widgets)

    def __len__(self) -> int:
        return len(self._widgets)


@dataclass
class Console:
    """Everything the composition root built, so tests and the self-test can reach it."""

    settings: QSettings
    runner: TaskRunner
    profiles: ProfileStore
    embedded: EmbeddedSandbox
    session: Session
    devices: DevicesViewModel
    window: MainWindow
    panes: Panes
    subscription: SubscriptionSettingsViewModel | None = None
    fleet_index: FleetIndex | None = None

    async def aclose(self) -> None:
        self.window.save_layout()
        # Hidden now, while its panes' view-models live: a window still shown at exit (a
        # screenshot or timing run) was hidden during the interpreter's shutdown instead,
        # when a pane's hide handler found its view-model's timer deleted already.
        self.window.hide()
        self.runner.cancel_all()
        if self.fleet_index is not None:
            await self.fleet_index.aclose()
        await self.session.aclose()
        if self.session.field is not None:
            self.session.field.close()
        self.embedded.stop()

    def choose_profile(self, name: str | None) -> Profile:
        """The profile named (refused when there is none), else the last one opened."""
        if name:
            profile = self.profiles.get(name)
            if profile is None:
                raise SystemExit(f"lpwa-console: no profile named {name!r}")
            return profile
        return self.profiles.last_profile()

    def select_pane(self, name: str) -> None:
        """Show this pane (a key of `panes`)."""
        names = list(self.panes)
        if name not in names:
            raise SystemExit(f"lpwa-console: no pane named {name!r} (one of {', '.join(names)})")
        self.window.navigation.setCurrentRow(names.index(name))
