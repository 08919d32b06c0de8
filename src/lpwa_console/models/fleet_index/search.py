"""Ranking the index's candidates as the user types: a whole field or a whole word first,
then a field that starts with the text, one that ends with it (a DevEUI's last digits), a
word that starts with it, then a fragment anywhere. The name counts
more than the DevEUI/lrrID, which counts more than the IMEI and the tags."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .store import IndexItem

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# Field weights: a match in the name ranks above the same match in an identifier.
WEIGHTS = (("name", 0.0), ("ident", -5.0), ("imei", -8.0), ("tags", -15.0))


def words_of(text: str) -> list[str]:
    """The words typed, folded as the index keeps them."""
    return text.casefold().split()


def word_score(word: str, text: str) -> float | None:
    """How well one typed word matches one field (None: not at all)."""
    if not text:
        return None
    if text == word:
        return 100.0
    words = _WORD.findall(text)
    if word in words:
        return 95.0  # a whole word: "bastille" in "Place de la Bastille"
    if text.startswith(word):
        return 90.0 - min(len(text) - len(word), 20) * 0.1
    if text.endswith(word):
        return 80.0  # the last digits printed on a label
    if any(w.startswith(word) for w in words):
        return 75.0
    position = text.find(word)
    if position >= 0:
        return 60.0 - min(position, 40) * 0.1
    return None


def item_score(words: Sequence[str], item: IndexItem) -> float | None:
    """The mean of each word's best field score; None when a word matches no field."""
    if not words:
        return None
    fields = [(getattr(item, name).casefold(), weight) for name, weight in WEIGHTS]
    total = 0.0
    for word in words:
        best: float | None = None
        for text, weight in fields:
            score = word_score(word, text)
            if score is not None and (best is None or score + weight > best):
                best = score + weight
        if best is None:
            return None
        total += best
    return total / len(words)


def rank(text: str, items: Sequence[IndexItem], limit: int = 50) -> list[IndexItem]:
    """The items matching every typed word, best first (ties: shorter name, then by name)."""
    words = words_of(text)
    scored = [(s, item) for item in items if (s := item_score(words, item)) is not None]
    scored.sort(key=lambda t: (-t[0], len(t[1].name), t[1].name.casefold(), t[1].key))
    return [item for _s, item in scored[:limit]]
