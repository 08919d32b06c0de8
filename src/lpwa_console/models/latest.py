"""Ignoring stale answers: a view-model asks again before the last answer came (the view
moved, the filter changed, another client signed in), and only the latest request's answer
may be shown."""

from __future__ import annotations


class Latest:
    """The latest request of one kind.

        ticket = self._clusters.advance()   # asking anew: what is in flight is stale
        ...                                 # later, with the answer:
        if not self._clusters.is_current(ticket):
            return                          # an older request's answer: dropped

    `ticket` is the current one, for code that asks without making the others stale.
    """

    __slots__ = ("_count",)

    def __init__(self) -> None:
        self._count = 0

    def advance(self) -> int:
        """Make every request in flight stale; the ticket of the next one."""
        self._count += 1
        return self._count

    @property
    def ticket(self) -> int:
        return self._count

    def is_current(self, ticket: int) -> bool:
        return ticket == self._count
