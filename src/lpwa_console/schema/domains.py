"""Domains and domain restrictions (Document 1 §2.2.1), with the matching rules as one
pure function used by the sandbox to enforce and by the console to explain."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import Field, field_validator

from .common import ApiModel

DOMAIN_NAME_PATTERN = (
    r"^((?!\x20)[^\x00-\x1F\x2F\x3A\x3C\x3E\x7F]{1,20}(?<!\x20)\/){0,4}"
    r"(?!\x20)[^\x00-\x1F\x2F\x3A\x3C\x3E\x7F]{1,20}(?<!\x20)$"
)
GROUP_NAME_PATTERN = r"^(?!\x20)[^\x00-\x1F\x3A\x3C\x3E\x7F]{1,20}(?<!\x20)$"


class DomainGroup(ApiModel):
    name: str = Field(pattern=GROUP_NAME_PATTERN)


class Domain(ApiModel):
    """A domain a resource belongs to, e.g. `France/Paris` in group `Site`."""

    name: str = Field(pattern=DOMAIN_NAME_PATTERN)
    group: DomainGroup


def parse_domain_filter(value: str) -> tuple[str, str]:
    """A `domain` list filter, `group:name` (e.g. `Site:France/Caen`), as (group, name).
    Neither part may hold a colon, so the first one separates them."""
    group, sep, name = value.strip().partition(":")
    if not (sep and group and name) or ":" in name:
        raise ValueError(f"{value!r} is not group:name (e.g. Site:France/Caen)")
    return group, name


def check_domain_filter(values: list[str]) -> list[str]:
    """A list's repeatable `domain` filter (devices, base stations): each `group:name`."""
    for value in values:
        parse_domain_filter(value)
    return [v.strip() for v in values]


def domain_filter_groups(values: Iterable[str]) -> dict[str, list[str]]:
    """A `domain` filter as {group: [names]}: an item matches when, for every group named,
    it is in one of the group's domains given."""
    groups: dict[str, list[str]] = {}
    for value in values:
        group, name = parse_domain_filter(value)
        groups.setdefault(group, []).append(name)
    return groups


def check_one_domain_per_group(domains: list[Domain] | None) -> list[Domain] | None:
    if domains:
        groups = [d.group.name for d in domains]
        duplicate = sorted({g for g in groups if groups.count(g) > 1})
        if duplicate:
            raise ValueError(f"at most one domain per group; repeated: {', '.join(duplicate)}")
    return domains


class RestrictionGroup(ApiModel):
    name: str


class DomainRestriction(ApiModel):
    type: Literal["FULL", "PREFIX"]
    name: str
    group: RestrictionGroup


class DomainRestrictions(ApiModel):
    and_: list[DomainRestriction] = Field(default_factory=list, alias="and")

    @field_validator("and_", mode="before")
    @classmethod
    def _none_is_empty(cls, value: object) -> object:
        return [] if value is None else value


def _matches_item(domains: Iterable[tuple[str, str]], item: DomainRestriction) -> bool:
    """Rule 4: some domain of the resource, in the item's group, matches name or prefix."""
    for group_name, domain_name in domains:
        if group_name != item.group.name:
            continue
        if item.type == "FULL" and domain_name == item.name:
            return True
        if item.type == "PREFIX" and domain_name.startswith(item.name):
            return True
    return False


def domain_matches(
    resource_domains: Iterable[tuple[str, str]],
    restrictions: DomainRestrictions | None,
) -> bool:
    """May a user with `restrictions` access a resource in `resource_domains`?

    `resource_domains` are (group name, domain name) pairs.
      1. No restrictions: everything is accessible.
      2. Otherwise cross-domain resources (no domain at all) are accessible, and
         domain-specific ones only when they match.
      3. A resource matches when it matches every item of `and`.
      4. See `_matches_item`.
    """
    if restrictions is None or not restrictions.and_:
        return True
    domains = list(resource_domains)
    if not domains:
        return True
    return all(_matches_item(domains, item) for item in restrictions.and_)


def leaves_domains(
    before: Iterable[tuple[str, str]],
    after: Iterable[tuple[str, str]],
    restrictions: DomainRestrictions | None,
) -> bool:
    """Would a change of a resource's domains from `before` to `after` take it out of the
    caller's domains? A restricted caller may only leave an item inside its own domains:
    `after` must match its restrictions, and may be empty (cross-domain, seen by every
    restricted account) only when the item already was."""
    if restrictions is None or not restrictions.and_:
        return False
    after = list(after)
    if not after:
        return bool(list(before))
    return not domain_matches(after, restrictions)
