"""The fleet index in the status bar: how far the fill is ("Indexing the fleet: 12,000 of
1,100,000"), when it last matched the platform, and a button to pause and resume it."""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QToolButton, QWidget

from ..models.fleet_index.index import FleetIndex, clock_text
from ..models.fleet_index.progress import SyncProgress

KIND_WORDS = {
    "device": "devices",
    "station": "base stations",
    "multicast": "multicast groups",
    "app_server": "application servers",
}


def progress_text(progress: SyncProgress) -> str:
    """What the status bar says of the index."""
    if progress.state == "stopped":
        return ""
    if progress.state == "failed":
        return progress.message or "Fleet index: the platform did not answer"
    share = f"{progress.done:,} of {progress.total:,}" if progress.total else f"{progress.done:,}"
    if progress.state == "paused":
        return f"Fleet index paused ({share})" if not progress.built else "Fleet index paused"
    if not progress.built:
        if progress.message:  # the fill loaded: "Indexing the fleet for search: ..."
            return f"{progress.message}: {share}"
        what = KIND_WORDS.get(progress.kind or "", "the fleet")
        return f"Indexing the fleet: {share} ({what})"
    if progress.refreshed_at:
        return f"Fleet index as of {clock_text(progress.refreshed_at)}"
    return "Fleet index ready"


class FleetIndexStatus(QWidget):
    """A label and a Pause/Resume button, following a `FleetIndex`."""

    def __init__(self, index: FleetIndex, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("fleetIndexStatus")
        self.index = index
        self.label = QLabel()
        self.label.setObjectName("fleetIndexState")
        self.button = QToolButton()
        self.button.setObjectName("fleetIndexPause")
        self.button.setAutoRaise(True)
        self.button.clicked.connect(self._toggle)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.button)
        index.progress_changed.connect(self._show)
        self._show(index.progress)

    def _show(self, progress: SyncProgress) -> None:
        self.label.setText(progress_text(progress))
        self.label.setToolTip(
            "The devices and base stations of this account, kept on this computer to find"
            " them by any part of a name, DevEUI, IMEI, tag or LRR ID"
        )
        paused, failed = progress.state == "paused", progress.state == "failed"
        self.button.setText("Resume" if paused else "Retry" if failed else "Pause")
        self.button.setToolTip(
            "Go on updating the fleet index"
            if paused
            else "Update the fleet index now"
            if failed
            else "Stop updating the fleet index for now"
        )
        self.setVisible(progress.state != "stopped")

    def _toggle(self) -> None:
        if self.index.paused:
            self.index.resume()
        elif self.index.progress.state == "failed":
            self.index.refresh_now()  # (a sync whose process stopped starts again)
        else:
            self.index.pause()


def follow_search_box(index: FleetIndex, box: QLineEdit, *, fragment: str, prefix: str) -> None:
    """A list's search box says what it finds: any fragment once the index is ready, the
    platform's "starts with" until then."""
    placeholder, tooltip = box.placeholderText(), box.toolTip()

    def show(_progress: object) -> None:
        if index.ready:
            box.setPlaceholderText(f"{fragment}…  (Ctrl+F)")
            box.setToolTip(f"{fragment}: any part of it, found in the fleet index")
        else:
            box.setPlaceholderText(placeholder)
            box.setToolTip(f"{tooltip}. {prefix}")

    index.progress_changed.connect(show)
    show(None)
