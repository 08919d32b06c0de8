"""Domain restriction matching, Document 1 §2.2.1 rules 1-4, as a table of cases."""

import pytest

from lpwa_console.schema.domains import Domain, DomainRestrictions, domain_matches

PARIS = ("Site", "France/Paris")
LYON = ("Site", "France/Lyon")
BERLIN = ("Site", "Germany/Berlin")
METERING = ("Vertical", "Metering")


def restrictions(*items: tuple[str, str, str]) -> DomainRestrictions:
    return DomainRestrictions.model_validate(
        {"and": [{"type": t, "name": n, "group": {"name": g}} for t, g, n in items]}
    )


CASES = [
    # rule 1: no restrictions, everything is visible
    ("no restrictions, domain-specific", None, [PARIS], True),
    ("empty and-list, domain-specific", restrictions(), [BERLIN], True),
    # rule 2: cross-domain resources always visible
    ("cross-domain resource", restrictions(("FULL", "Site", "France/Paris")), [], True),
    # rule 4: FULL is an exact name in the same group
    ("full match", restrictions(("FULL", "Site", "France/Paris")), [PARIS], True),
    ("full, other name", restrictions(("FULL", "Site", "France/Paris")), [LYON], False),
    ("full is not a prefix", restrictions(("FULL", "Site", "France")), [PARIS], False),
    ("full, wrong group", restrictions(("FULL", "Vertical", "France/Paris")), [PARIS], False),
    # rule 4: PREFIX
    ("prefix match", restrictions(("PREFIX", "Site", "France/")), [LYON], True),
    ("prefix miss", restrictions(("PREFIX", "Site", "France/")), [BERLIN], False),
    ("prefix, case sensitive", restrictions(("PREFIX", "Site", "france/")), [PARIS], False),
    ("prefix, wrong group", restrictions(("PREFIX", "Vertical", "France")), [PARIS], False),
    # rule 3: every item of `and` must match
    (
        "and: both match",
        restrictions(("PREFIX", "Site", "France/"), ("FULL", "Vertical", "Metering")),
        [PARIS, METERING],
        True,
    ),
    (
        "and: one item unmatched",
        restrictions(("PREFIX", "Site", "France/"), ("FULL", "Vertical", "Metering")),
        [PARIS],
        False,
    ),
    (
        "and: unrelated extra domain does not hurt",
        restrictions(("PREFIX", "Site", "France/")),
        [PARIS, METERING],
        True,
    ),
]


@pytest.mark.parametrize(
    ("restr", "domains", "expected"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_domain_matching(
    restr: DomainRestrictions | None, domains: list[tuple[str, str]], expected: bool
) -> None:
    assert domain_matches(domains, restr) is expected


def test_and_alias_round_trips() -> None:
    restr = restrictions(("PREFIX", "Site", "France/"))
    assert restr.model_dump(by_alias=True)["and"][0]["type"] == "PREFIX"
    assert DomainRestrictions.model_validate({"and": None}).and_ == []


@pytest.mark.parametrize("name", ["France/Paris", "A", "a/b/c/d/e"])
def test_valid_domain_names(name: str) -> None:
    Domain.model_validate({"name": name, "group": {"name": "Site"}})


@pytest.mark.parametrize("name", ["", " lead", "trail ", "a:b", "a/b/c/d/e/f", "x" * 21, "a//b"])
def test_invalid_domain_names(name: str) -> None:
    with pytest.raises(ValueError):
        Domain.model_validate({"name": name, "group": {"name": "Site"}})
