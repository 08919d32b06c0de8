"""`Latest`: only the latest request's answer is current."""

from lpwa_console.models.latest import Latest


def test_an_older_ticket_is_stale() -> None:
    latest = Latest()
    first = latest.advance()
    assert latest.is_current(first) and latest.ticket == first
    second = latest.advance()
    assert not latest.is_current(first) and latest.is_current(second)
    latest.advance()  # a new client: whatever is in flight is stale
    assert not latest.is_current(second)
