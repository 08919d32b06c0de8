"""The command palette's brains: ranking what matches the typed text, and finding devices on
the server (by name, DevEUI or IMEI) while the user types.

With the fleet index ready (issue 23), devices and base stations are found in it by any
fragment of a name, DevEUI/lrrID, IMEI or tag, ranked, at each keystroke; until then on the
server from the start of the text, and `note` says so.

`rank(query, entries)` orders the panes, actions and devices by how well their words match:
the whole text, then its start, then the start of a word, then anywhere, then letters in
order (initials: "ndev" finds "New device"). Every word typed must match.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from PySide6.QtCore import QObject, QTimer, Signal

from ..api import LpwaClient
from ..schema.devices import DeviceBrief, DeviceFilter
from .latest import Latest
from .tasks import TaskRunner

if TYPE_CHECKING:
    from .fleet_index.index import FleetIndex
    from .fleet_index.store import IndexItem

SEARCH_DEBOUNCE_MS = 250
DEVICE_RESULTS = 8  # devices asked for per search (a palette is not a list)
IMEI_PATTERN = re.compile(r"\d{14,15}")

EntryKind = Literal["pane", "action", "device", "station"]
INDEX_DEBOUNCE_MS = 0  # the index answers in milliseconds: every keystroke is searched


@dataclass(frozen=True)
class PaletteEntry:
    kind: EntryKind
    title: str  # what the row says
    key: str  # a pane key, an action's object name, a DevEUI
    detail: str = ""  # the second line: a shortcut, an EUI, a reason
    keywords: str = ""  # more words it is found by
    enabled: bool = True
    reason: str = ""  # why it is disabled


_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def _word_score(word: str, text: str) -> float | None:
    if text == word:
        return 100.0
    if text.startswith(word):
        return 90.0 - min(len(text) - len(word), 20) * 0.1
    words = _WORD.findall(text)
    if any(w.startswith(word) for w in words):
        return 75.0
    position = text.find(word)
    if position >= 0:
        return 60.0 - min(position, 40) * 0.1
    # Letters in order, fewer gaps first (initials of words count as no gap).
    at, gaps = 0, 0
    for char in word:
        found = text.find(char, at)
        if found < 0:
            return None
        if found != at and not (found > 0 and not text[found - 1].isalnum()):
            gaps += 1
        at = found + 1
    return max(10.0, 40.0 - gaps * 3)


def score(query: str, entry: PaletteEntry) -> float | None:
    """How well the query matches the entry (None: not at all). The title counts more than
    the detail and keywords."""
    words = query.casefold().split()
    if not words:
        return 0.0
    title = entry.title.casefold()
    rest = f"{entry.detail} {entry.keywords}".casefold()
    total = 0.0
    for word in words:
        best = _word_score(word, title)
        other = _word_score(word, rest)
        if other is not None:
            other -= 15  # found by its EUI or a keyword, not its name
        candidates = [s for s in (best, other) if s is not None]
        if not candidates:
            return None
        total += max(candidates)
    return total / len(words)


def rank(query: str, entries: list[PaletteEntry], limit: int = 50) -> list[PaletteEntry]:
    """The entries that match, best first; equal scores keep their given order."""
    scored = [(s, i, e) for i, e in enumerate(entries) if (s := score(query, e)) is not None]
    scored.sort(key=lambda t: (-t[0], t[1]))
    return [e for _s, _i, e in scored[:limit]]


def device_entry(device: DeviceBrief) -> PaletteEntry:
    connectivity = "IMEI" if device.connectivity == "CELLULAR" else "DevEUI"
    return PaletteEntry(
        "device",
        device.name or device.EUI,
        device.EUI,
        detail=f"Device · {connectivity} {device.EUI}",
        keywords=device.lastIMEI or "",
    )


def index_entry(item: IndexItem) -> PaletteEntry:
    """A device or base station found in the fleet index (the index has ranked it)."""
    if item.kind == "station":
        return PaletteEntry(
            "station", item.name or item.ident, item.key, detail=f"Base station · {item.ident}"
        )
    label = "IMEI" if item.imei and item.imei == item.ident else "DevEUI"
    return PaletteEntry(
        "device",
        item.name or item.ident,
        item.key,
        detail=f"Device · {label} {item.ident}",
        keywords=f"{item.imei} {item.tags}".strip(),
    )


class DeviceSearchViewModel(QObject):
    """Devices whose name, DevEUI or IMEI starts with the typed text, from the server, a
    moment after the typing stops; with a fleet index ready, devices and stations by any
    fragment, from the index, at each keystroke. A newer text makes an older answer stale."""

    results_changed = Signal(list)  # list[PaletteEntry], for the text of `query`
    searching_changed = Signal(bool)
    failed = Signal(str)

    def __init__(
        self,
        runner: TaskRunner,
        client: LpwaClient | None = None,
        *,
        debounce_ms: int = SEARCH_DEBOUNCE_MS,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.runner = runner
        self.client = client
        self.index: FleetIndex | None = None
        self.note = ""  # what the results say of where they come from
        self.query = ""
        self.results: list[PaletteEntry] = []
        self.searches = 0  # sent to the server
        self._latest = Latest()
        self._task: int | None = None
        self._debounce_ms = debounce_ms
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(debounce_ms)
        self._timer.timeout.connect(self._search_now)

    @property
    def searching(self) -> bool:
        return self._timer.isActive() or self._task is not None

    def set_client(self, client: LpwaClient | None) -> None:
        self.client = client
        self.search("")

    def search(self, text: str) -> None:
        """Look for this text once the typing pauses ('' clears the results at once)."""
        self.query = text.strip()
        self._cancel()
        indexed = self.index is not None and self.index.ready
        if not self.query or (self.client is None and not indexed):
            self._set_results([])
            self.searching_changed.emit(False)
            return
        self._timer.setInterval(INDEX_DEBOUNCE_MS if indexed else self._debounce_ms)
        self._timer.start()
        self.searching_changed.emit(True)

    def _cancel(self) -> None:
        self._latest.advance()
        self._timer.stop()
        if self._task is not None:
            self.runner.cancel(self._task)
            self._task = None

    def _search_now(self) -> None:
        index = self.index
        if index is not None and index.ready:
            self._search_index(index)
            return
        client, text, generation = self.client, self.query, self._latest.ticket
        if client is None or not text:
            return
        self.searches += 1
        self.note = index.note() if index is not None else ""

        async def find() -> list[DeviceBrief]:
            lookups: list[Any] = [
                client.devices.list(1, DEVICE_RESULTS, filters=DeviceFilter(query=text))
            ]
            if IMEI_PATTERN.fullmatch(text):
                # A cellular device's last IMEI may differ from the IMEI it is known by.
                lookups.append(
                    client.devices.list(1, DEVICE_RESULTS, filters=DeviceFilter(imei=text))
                )
            pages = await asyncio.gather(*lookups)
            found: dict[str, DeviceBrief] = {}
            for page in pages:
                for brief in page.briefs:
                    found.setdefault(brief.EUI, brief)
            return list(found.values())

        def done(devices: list[DeviceBrief]) -> None:
            if not self._latest.is_current(generation):
                return
            self._task = None
            self._set_results([device_entry(d) for d in devices])
            self.searching_changed.emit(False)

        def failed(_exc: BaseException, message: str) -> None:
            self._search_failed(generation, message)

        self._task = self.runner.run(
            f"Find devices “{text}”", find(), on_done=done, on_error=failed, quiet=True
        )

    def _search_failed(self, generation: int, message: str) -> None:
        """A search (on the server or the fleet index) failed: no results, the message
        shown; nothing when a newer search has started since."""
        if not self._latest.is_current(generation):
            return
        self._task = None
        self._set_results([])
        self.searching_changed.emit(False)
        self.failed.emit(message)

    def _search_index(self, index: FleetIndex) -> None:
        text, generation = self.query, self._latest.ticket

        def done(items: list[IndexItem]) -> None:
            if not self._latest.is_current(generation):
                return
            self._task = None
            self.note = index.note()
            self._set_results([index_entry(item) for item in items])
            self.searching_changed.emit(False)

        def failed(_exc: BaseException, message: str) -> None:
            self._search_failed(generation, message)

        self._task = self.runner.run(
            f"Find “{text}” in the fleet index",
            index.search(text, limit=DEVICE_RESULTS * 2),
            on_done=done,
            on_error=failed,
            quiet=True,
        )

    def _set_results(self, results: list[PaletteEntry]) -> None:
        self.results = results
        self.results_changed.emit(results)
