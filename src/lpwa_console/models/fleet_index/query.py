"""The list filters' one seam: where the text typed in a list's search box becomes the
list's query. With the index ready, the text is looked up in it (any fragment of a name,
DevEUI/lrrID, IMEI or tag) and the list asks the platform for the items found, by their
keys (exact DevEUIs or lrrIDs); the platform still applies every other filter and the sort.
Without an index, the text goes to the platform as typed (its prefix match)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from ...schema.common import ListEnvelope

if TYPE_CHECKING:  # the lists import this at start: neither Qt's index nor SQLite then
    from .index import FleetIndex
    from .store import Kind

P = TypeVar("P", bound=ListEnvelope[Any])

# Keys sent as a filter (a repeated query parameter): the platform takes at most 100 values
# of one; the best 100 matches are listed (a page of the list holds as many).
MAX_KEYS = 100


async def fragment_query(
    index: FleetIndex | None,
    text: str | None,
    kind: Kind,
    ask: Callable[[list[str] | None], Awaitable[P]],
    *,
    keep_rank: bool,
) -> P | ListEnvelope[Any]:
    """`ask(keys)` fetches a page: with `keys` None, the text as typed; else those items.
    `keep_rank`: the list has no sort of its own, so a page holding every match shows them
    in the index's order (best first)."""
    if index is None or not index.ready or not text or not text.strip():
        return await ask(None)
    keys = await index.keys(text, kind, MAX_KEYS + 1)
    if not keys:
        return ListEnvelope[Any](briefs=[], count=0, more=False)
    # More matches than one request may name: the best ones are listed, and the count is
    # not the platform's (it counted only those named): "100+ devices", not "100 devices".
    capped = len(keys) > MAX_KEYS
    keys = keys[:MAX_KEYS]
    page = await ask(keys)
    if capped and page.count is not None:
        page = page.model_copy(update={"count": None})
    if keep_rank and not page.more:
        order = {key: n for n, key in enumerate(keys)}
        attribute = "EUI" if kind == "device" else "lrrID"
        page.briefs.sort(key=lambda b: order.get(str(getattr(b, attribute, "")), len(order)))
    return page


def with_note(count_text: str, index: FleetIndex | None, text: str | None) -> str:
    """A list's count, and what it says of a search by its box: the index's age past a few
    minutes, or that the platform's "starts with" search is used until the index is ready."""
    if index is None or not text or not text.strip():
        return count_text
    if index.ready:
        stale = index.note()  # "Fleet index as of 10:42", or ""
        note = stale[:1].lower() + stale[1:]
    else:
        note = "matched from the start: the fleet index is not ready"
    return f"{count_text} · {note}" if note else count_text


# What a list's empty state says its search box finds: with the index, then without.
NO_MATCH = {
    "device": (
        "No devices match these filters. The search finds devices whose name, DevEUI, IMEI"
        " or tag contains “{}” (fleet index)",
        "No devices match these filters. The search finds devices whose name or DevEUI"
        " starts with “{}” (not text in the middle)",
    ),
    "station": (
        "No base station matches these filters. The search finds stations whose name, LRR"
        " ID or tag contains “{}” (fleet index)",
        "No base station matches these filters. The search finds stations whose name, LRR"
        " ID or UUID starts with “{}”",
    ),
}


def no_match_text(index: FleetIndex | None, text: str, kind: Kind) -> str:
    indexed, prefix = NO_MATCH[kind]
    return (indexed if index is not None and index.ready else prefix).format(text)
