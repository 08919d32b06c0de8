"""Walking lists page by page: by index (`pageIndex`/`pageSize`/`more`) or by cursor
(`pageAfter`/`cursors.last`). Both are async iterators over items; `.pages()` gives pages."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Generic, TypeVar

from ..schema.common import ListEnvelope

T = TypeVar("T")

FetchByIndex = Callable[[int, int], Awaitable[ListEnvelope[T]]]
FetchByCursor = Callable[[str | None, int], Awaitable[ListEnvelope[T]]]


class IndexPaginator(Generic[T]):
    """Pages 1, 2, ... until the server says there are no `more`."""

    def __init__(self, fetch: FetchByIndex[T], page_size: int = 100, max_pages: int = 100_000):
        self._fetch = fetch
        self.page_size = page_size
        self._max_pages = max_pages
        self.count: int | None = None

    async def pages(self) -> AsyncIterator[ListEnvelope[T]]:
        for index in range(1, self._max_pages + 1):
            page = await self._fetch(index, self.page_size)
            if index == 1:
                self.count = page.count
            yield page
            if not page.more or not page.briefs:
                return

    async def __aiter__(self) -> AsyncIterator[T]:
        async for page in self.pages():
            for item in page.briefs:
                yield item


class CursorPaginator(Generic[T]):
    """First page, then `pageAfter=<cursors.last>` until no cursor comes back."""

    def __init__(self, fetch: FetchByCursor[T], page_size: int = 100, max_pages: int = 100_000):
        self._fetch = fetch
        self.page_size = page_size
        self._max_pages = max_pages
        self.count: int | None = None

    async def pages(self) -> AsyncIterator[ListEnvelope[T]]:
        cursor: str | None = None
        for index in range(self._max_pages):
            page = await self._fetch(cursor, self.page_size)
            if index == 0:
                self.count = page.count
            yield page
            cursor = page.next_cursor
            if not cursor or not page.briefs:
                return

    async def __aiter__(self) -> AsyncIterator[T]:
        async for page in self.pages():
            for item in page.briefs:
                yield item
