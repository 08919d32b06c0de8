"""One paginator for every list of the API (the Stainless-style SDKs' recipe): a resource
says how to GET one page for some query parameters, and `Paginator` does the rest: one page
(`page()`), every page (`pages()`) or every item (`async for`), by index
(`pageIndex`/`pageSize` until no `more`) or by cursor (`pageAfter=<cursors.last>` until none).

Each page is one GET through the client, so the client's retry rules hold unchanged: a GET
is retried where safe; a paginator never POSTs."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Generic, TypeVar

from ..schema.common import ListEnvelope

T = TypeVar("T")

Params = list[tuple[str, str]]
FetchPage = Callable[[Params], Awaitable[ListEnvelope[T]]]


def page_params(page_index: int, page_size: int) -> Params:
    """The query parameters of page `page_index` (from 1) of `page_size` items."""
    return [("pageIndex", str(page_index)), ("pageSize", str(page_size))]


def sort_params(sort: str | None, descending: bool) -> Params:
    """`sort=<criterion>,asc|desc`, or nothing without a criterion."""
    return [("sort", f"{sort},{'desc' if descending else 'asc'}")] if sort else []


class Paginator(Generic[T]):
    """The pages of one list query. `fetch` GETs one page for the query parameters it is
    given (the query's own `params` plus the page's); `by_cursor` walks by `pageAfter` (the
    list must be sorted by its cursor criterion, which `params` says), else by `pageIndex`.
    `count` is the first page's count once it has been read."""

    def __init__(
        self,
        fetch: FetchPage[T],
        params: Sequence[tuple[str, str]] = (),
        *,
        page_size: int = 500,
        by_cursor: bool = False,
        max_pages: int = 100_000,
    ) -> None:
        self._fetch = fetch
        self._params = list(params)
        self.page_size = page_size
        self.by_cursor = by_cursor
        self._max_pages = max_pages
        self.count: int | None = None

    async def page(
        self, page_index: int = 1, page_size: int | None = None, *, after: str | None = None
    ) -> ListEnvelope[T]:
        """One page: by index, or (with `after`, a `cursors.last`) the page after a cursor."""
        size = page_size or self.page_size
        if after is not None or self.by_cursor:
            paging = [("pageSize", str(size))] + ([("pageAfter", after)] if after else [])
        else:
            paging = page_params(page_index, size)
        return await self._fetch(paging + self._params)

    async def pages(self) -> AsyncIterator[ListEnvelope[T]]:
        cursor: str | None = None
        for index in range(1, self._max_pages + 1):
            page = await self.page(index, after=cursor)
            if index == 1:
                self.count = page.count
            yield page
            if not page.briefs:
                return
            if self.by_cursor:
                cursor = page.next_cursor
                if not cursor:
                    return
            elif not page.more:
                return

    async def __aiter__(self) -> AsyncIterator[T]:
        async for page in self.pages():
            for item in page.briefs:
                yield item
