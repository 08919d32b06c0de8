"""The statements creating and dropping a named set of triggers or indexes: the migrations
create them, and bulk seeding drops them and creates them again."""

from __future__ import annotations

from collections.abc import Iterable, Mapping


def create_triggers(triggers: Mapping[str, str]) -> list[str]:
    """`triggers`: name -> what follows the name (event, condition and body)."""
    return [f"CREATE TRIGGER IF NOT EXISTS {n} {body};" for n, body in triggers.items()]


def drop_triggers(names: Iterable[str]) -> list[str]:
    return [f"DROP TRIGGER IF EXISTS {name};" for name in names]


def create_indexes(indexes: Mapping[str, str]) -> list[str]:
    """`indexes`: name -> its table and columns, `table(a, b)`."""
    return [f"CREATE INDEX IF NOT EXISTS {n} ON {target};" for n, target in indexes.items()]


def drop_indexes(names: Iterable[str]) -> list[str]:
    return [f"DROP INDEX IF EXISTS {name};" for name in names]
