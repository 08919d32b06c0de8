"""The list-and-detail view-model of a fleet entity (devices, base stations): besides the
list (`ListDetailViewModel`), the item shown read by its reference, tags on a selection
with the rows patched in place, tag suggestions, and the saving state of its forms.

A subclass says how to read one item and the tag calls (`_get`, `_tag`,
`_tag_suggestions`), and the words of its tasks."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel
from PySide6.QtCore import Signal

from ..api import LpwaClient
from ..schema.common import ListEnvelope
from .fleet_index.query import fragment_query
from .list_detail import ListDetailViewModel
from .validation import validate

if TYPE_CHECKING:
    from .fleet_index.index import FleetIndex
    from .fleet_index.store import Kind

Call = Coroutine[Any, Any, Any]  # a client call, run as a task


class FleetListViewModel(ListDetailViewModel):
    detail_changed = Signal(object)  # the item shown | None
    detail_failed = Signal(str)  # the item could not be read (it is not shown)
    saving_changed = Signal(bool)
    saved = Signal(object)  # what the server answered to a create or an update
    save_failed = Signal(str, str)  # message, field ('' when the server names none)
    suggestions_changed = Signal(list)  # tag names
    tags_applied = Signal(str)  # what happened, in words
    retagged = Signal(object)  # a row's item, its tags changed (the fleet index follows)

    noun = "item"  # "device": tasks and messages
    plural = "items"
    suggestions_title = "Tag suggestions"
    tag_model: type[BaseModel] = BaseModel  # a tag of a row
    # What the fleet index finds for the search box (issue 23), and the list filter that
    # names items by their key (the index's answer is sent as it).
    index_kind: Kind = "device"
    key_filter = "devEUI"

    def _setup(self) -> None:
        self.detail: Any = None
        self._detail_ref = ""
        self._saving = False
        # The fleet index the search box looks fragments up in, when there is one.
        self.fragments: FleetIndex | None = None

    # --- what an entity says ------------------------------------------------------------

    def _tag(self, client: LpwaClient, name: str, keys: list[str], untag: bool) -> Call:
        raise NotImplementedError

    def _tag_suggestions(self, client: LpwaClient, query: str) -> Call:
        raise NotImplementedError

    def _forget_session(self) -> None:
        """What else belongs to the old session (the device pickers' lists)."""

    # --- the list: the search box's one seam ------------------------------------------

    def _fetcher(self) -> Any:
        """Pages as `ListDetailViewModel` asks for them, but the search box's text is any
        fragment through the fleet index when it is ready (`fragment_query`), unless the
        user named items by key already."""
        client, runner, filters = self.client, self.runner, self.filters
        assert client is not None
        title, kind, key_filter, fragments = (
            self.list_title, self.index_kind, self.key_filter, self.fragments
        )  # fmt: skip

        async def fetch(
            page: int, size: int, sort: str | None, descending: bool
        ) -> ListEnvelope[Any]:
            async def ask(keys: list[str] | None) -> ListEnvelope[Any]:
                wanted = (
                    filters
                    if keys is None
                    else filters.model_copy(update={"query": None, key_filter: keys})
                )
                call = self._list_page(client, wanted, page, size, sort, descending)
                return await runner.track(f"{title} page {page}", call)

            text = filters.query if not getattr(filters, key_filter) else None
            return await fragment_query(fragments, text, kind, ask, keep_rank=sort is None)

        return fetch

    # --- session and filters ------------------------------------------------------------

    def set_client(self, client: LpwaClient | None) -> None:
        """A new session (or none): everything shown so far belongs to the old one."""
        self.client = client
        self.select(None)  # and forget which item was shown: it belongs to the old one
        self._forget_session()
        self.client_changed.emit(client is not None)
        self.reload()

    def select(self, ref: str | None) -> None:
        raise NotImplementedError

    def select_row(self, row: int) -> None:
        """Show the item of this row (none for -1)."""
        raise NotImplementedError

    def tag(self, name: str, rows: list[int], *, untag: bool = False) -> bool:
        """Tag (or untag) the items of these rows (`_tag_rows` with the item's keys)."""
        raise NotImplementedError

    # --- the detail ---------------------------------------------------------------------

    def reload_detail(self) -> None:
        """Read the item shown again."""
        if self._detail_ref:
            self.select(self._detail_ref)

    def _set_detail(self, item: Any) -> None:
        self.detail = item
        self.detail_changed.emit(item)

    def _detail_read(self, ref: str, item: Any) -> bool:
        """The item `ref` was read: shown, if it is still the one asked for."""
        if ref != self._detail_ref:
            return False
        self._detail_task = None
        self.detail_loading.emit(False)
        self._set_detail(item)
        return True

    def _detail_failed(self, ref: str, message: str) -> None:
        """Not readable (deleted meanwhile, not allowed, no answer): what was shown before
        belongs to another row, so nothing is shown."""
        if ref != self._detail_ref:
            return
        self._detail_task = None
        self.detail_loading.emit(False)
        self._set_detail(None)
        self.detail_failed.emit(message)

    # --- saving -------------------------------------------------------------------------

    @property
    def saving(self) -> bool:
        return self._saving

    def _set_saving(self, saving: bool) -> None:
        self._saving = saving
        self.saving_changed.emit(saving)

    def _submit(
        self,
        model: type[BaseModel],
        data: dict[str, Any],
        send: Callable[[LpwaClient, Any], tuple[str, Call]],
        refusal: Callable[[BaseException, str], tuple[str, str]],
        done: Callable[[Any], None],
    ) -> bool:
        """A form's data checked by the schema, then sent (`send` names the task and makes
        the call); every refusal comes as `save_failed` (message, field or ''), the
        server's in the words `refusal` gives it; `done` takes what the server answered."""
        request, errors = validate(model, data)
        if request is None:
            for name, message in errors.items():
                self.save_failed.emit(message, name)
            return False
        if self.client is None:
            self.save_failed.emit("Not connected", "")
            return False
        self._set_saving(True)

        def failed(exc: BaseException, message: str) -> None:
            self._set_saving(False)
            self.save_failed.emit(*refusal(exc, message))

        title, call = send(self.client, request)
        self.runner.run(title, call, on_done=done, on_error=failed, quiet=True)
        return True

    # --- tags ---------------------------------------------------------------------------

    def suggest_tags(self, query: str = "") -> None:
        if self.client is None:
            return
        if not query.strip():
            # The platform suggests tags starting with a query of one character at least
            # (a 7.3 platform refuses an empty one): nothing typed, nothing suggested.
            self.suggestions_changed.emit([])
            return
        self.runner.run(
            self.suggestions_title,
            self._tag_suggestions(self.client, query),
            on_done=lambda found: self.suggestions_changed.emit([t.name for t in found.briefs]),
            quiet=True,
        )

    def _tag_rows(
        self, name: str, rows: list[int], keys: list[str], untag: bool, task_title: str
    ) -> bool:
        """Tag (or untag) the items of these rows (`keys`, as the tag call names them); the
        rows show it without a reload, and the item shown is read again if it is one."""
        name = name.strip()
        if not keys or not name or self.client is None:
            return False
        call = self._tag(self.client, name, keys, untag)

        def done(_result: object) -> None:
            self._patch_tags(rows, name, untag)
            what = "removed from" if untag else "added to"
            noun = self.noun if len(keys) == 1 else self.plural
            self.tags_applied.emit(f"Tag “{name}” {what} {len(keys):,} {noun}")
            if self.detail is not None and self.tagged_key(self.detail) in keys:
                self.reload_detail()

        self.runner.run(task_title, call, on_done=done)
        return True

    def tagged_key(self, item: Any) -> str:
        """How the tag call names an item."""
        raise NotImplementedError

    def _patch_tags(self, rows: list[int], name: str, untag: bool) -> None:
        # Patch the loaded rows instead of reloading, so the view keeps its place.
        for row in rows:
            brief = self.model.item(row)
            if brief is None:
                continue
            tags = [t for t in brief.tags if t.name != name]
            if not untag:
                tags.append(self.tag_model(name=name))
            patched = brief.model_copy(update={"tags": tags})
            self.model.replace_item(row, patched)
            self.retagged.emit(patched)
