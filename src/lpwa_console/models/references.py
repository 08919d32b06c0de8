"""The resources a field may name (device models, application servers, AS transport keys,
network contexts, HSM groups, AS routing profiles, base station models), listed for pickers: one list model per
kind, read as "name (ID)", and the one way to load them (`list_references`, `ReferenceLists`).

The kinds are those of schema.labels.REFERENCE_NOUNS; a field says which one it names
(`FieldWords.reference`)."""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable, Iterable
from functools import partial
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, Qt, Signal

from ..api import FeatureNotOffered, LpwaClient
from ..schema.common import ListEnvelope
from ..schema.labels import REFERENCE_NOUNS
from .item_index import Index
from .tasks import TaskRunner

if TYPE_CHECKING:
    from ..schema.device_profiles import DeviceProfile

MAX_REFERENCES = 2000  # a picker, not a browser: stop after this many
REFERENCE_PAGE = 500
ID_ROLE = Qt.ItemDataRole.UserRole
DETAIL_ROLE = Qt.ItemDataRole.UserRole + 1  # the whole brief (a device profile's MAC layer)
_TRAILING_ID = re.compile(r"\(([^()]+)\)\s*$")


def reference_text(ident: str, name: str) -> str:
    """How a reference reads everywhere: "Kafka bus (as-2)"; the ID alone without a name."""
    return f"{name} ({ident})" if name and name != ident else ident


class ReferenceListModel(QAbstractListModel):
    """IDs and names of one kind of resource. Display and Edit roles read "name (ID)" (what
    a picker lists, shows once picked, and what completion matches, by name or ID); ID_ROLE
    is the ID; DETAIL_ROLE the brief it came from (when loaded with one)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.items: list[tuple[str, str]] = []
        self.details: dict[str, Any] = {}
        self.loaded = False
        self.loaded_at = 0.0  # time.monotonic() of the last successful load
        self.error = ""

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.items)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.items):
            return None
        ident, name = self.items[index.row()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return reference_text(ident, name)
        if role == ID_ROLE:
            return ident
        if role == DETAIL_ROLE:
            return self.details.get(ident)
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"ID: {ident}"
        return None

    def ids(self) -> list[str]:
        return [ident for ident, _name in self.items]

    def name_of(self, ident: str) -> str:
        return next((name for i, name in self.items if i == ident), "")

    def text_of(self, ident: str) -> str:
        """ "name (ID)" for a known ID, the ID as it is otherwise."""
        return reference_text(ident, self.name_of(ident))

    def id_of(self, text: str) -> str:
        """The ID a text names: an item's "name (ID)", an item's name, or (typed by hand,
        or not in the list) the text itself, or what it holds in its trailing brackets."""
        text = text.strip()
        for ident, name in self.items:
            if text in (ident, reference_text(ident, name)) or (name and text == name):
                return ident
        match = _TRAILING_ID.search(text)
        return match.group(1).strip() if match else text

    def set_items(
        self,
        items: Iterable[tuple[str, str] | tuple[str, str, Any]],
        error: str = "",
    ) -> None:
        """(ID, name) pairs, or (ID, name, brief) triples; kept in the order given."""
        self.beginResetModel()
        self.items = []
        self.details = {}
        for item in items:
            self.items.append((item[0], item[1]))
            if len(item) > 2:
                self.details[item[0]] = item[2]
        self.loaded = not error
        self.error = error
        if not error:
            self.loaded_at = time.monotonic()
        self.endResetModel()

    def clear(self) -> None:
        """Nothing loaded (another session)."""
        self.set_items([])
        self.loaded = False


async def _all_pages(fetch: Callable[[int, int], Awaitable[ListEnvelope[Any]]]) -> list[Any]:
    """Every item of an index-paged list, up to MAX_REFERENCES."""
    items: list[Any] = []
    total: int | None = None  # comes with the first page only
    index = 1
    while len(items) < MAX_REFERENCES:
        page = await fetch(index, REFERENCE_PAGE)
        items.extend(page.briefs)
        total = page.count if index == 1 else total
        if not page.briefs:
            break
        if total is not None and len(items) >= total:
            break
        if total is None and not page.more:
            break
        index += 1
    return items[:MAX_REFERENCES]


def _named(items: list[Any]) -> list[tuple[str, str, Any]]:
    triples = [(str(i.ID), str(getattr(i, "name", None) or ""), i) for i in items]
    return sorted(triples, key=lambda t: (t[1] or t[0]).casefold())


async def list_references(client: LpwaClient, kind: str) -> list[tuple[str, str, Any]]:
    """(ID, name, brief) of every resource of `kind` (REFERENCE_NOUNS), sorted by name.
    Device models read "Vendor name, LoRaWAN version" and are sorted by it."""
    if kind == "deviceProfiles":
        profiles: list[DeviceProfile] = await _all_pages(
            lambda i, n: client.device_profiles.list(i, n)
        )
        return sorted(((p.ID, p.label, p) for p in profiles), key=lambda t: t[1].casefold())
    if kind == "appServers":
        from ..schema.app_servers import ALL_SCOPES  # not imported at start (issue 8)

        servers = client.app_servers
        return _named(await _all_pages(lambda i, n: servers.list(i, n, filters=ALL_SCOPES)))
    features = {
        "asTransportKeys": "as_transport_keys",
        "networkContexts": "network_contexts",
        "hsmGroups": "hsm_groups",
    }
    if kind in features:
        lister = getattr(client, features[kind]).list
        try:
            return _named(await _all_pages(lister))
        except FeatureNotOffered:
            return []  # the platform has none of them to choose from
    if kind == "kmAsKeys":
        return _named(await _all_pages(client.key_manager.as_keys))
    if kind == "serviceAccountGroups":
        return _named(await _all_pages(client.suppliers.service_account_groups))
    if kind == "operatorPartners":  # the operator's subscribers and suppliers, by name
        partners = await _all_pages(client.operator_partners.list)
        return sorted(
            ((p.partner.ID, p.partner.name or "", p) for p in partners),
            key=lambda t: (t[1] or t[0]).casefold(),
        )
    if kind == "stationModels":
        return _named(await _all_pages(client.stations.models))
    if kind in ("applicationFieldSets", "deviceFieldSets"):
        target = "applications" if kind == "applicationFieldSets" else "devices"
        return _named(
            await _all_pages(lambda i, n: client.suppliers.custom_field_sets(target, i, n))
        )
    raise ValueError(f"no list of {kind}")


class ReferenceLists(QObject):
    """The lists a form's pickers read, by kind, loaded in the background on demand (a
    kind that fails keeps its error: the picker then takes an ID as typed)."""

    changed = Signal(str)  # kind

    def __init__(
        self, runner: TaskRunner, client: LpwaClient | None, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.runner = runner
        self.client = client
        self.models: dict[str, ReferenceListModel] = {}
        self._tasks: dict[str, int] = {}

    def model(self, kind: str) -> ReferenceListModel:
        if kind not in REFERENCE_NOUNS:
            raise KeyError(kind)
        if kind not in self.models:
            self.models[kind] = ReferenceListModel(self)
        return self.models[kind]

    def load(self, kinds: Iterable[str]) -> None:
        for kind in kinds:
            model = self.model(kind)
            if self.client is None or kind in self._tasks or model.loaded:
                continue
            self._tasks[kind] = self.runner.run(
                f"List {REFERENCE_NOUNS[kind]}",
                list_references(self.client, kind),
                on_done=partial(self._done, kind),
                on_error=partial(self._failed_with, kind),
                quiet=True,
            )

    def _done(self, kind: str, items: list[tuple[str, str, Any]]) -> None:
        self._tasks.pop(kind, None)
        self.model(kind).set_items(items)
        self.changed.emit(kind)

    def _failed_with(self, kind: str, _exc: BaseException, message: str) -> None:
        self._failed(kind, message)

    def _failed(self, kind: str, message: str) -> None:
        self._tasks.pop(kind, None)
        model = self.model(kind)
        model.set_items(model.items, error=message or "could not load")
        self.changed.emit(kind)

    def cancel(self) -> None:
        for task in self._tasks.values():
            self.runner.cancel(task)
        self._tasks.clear()
