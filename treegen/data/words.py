"""Counts in messages: ``counted(1, "row")`` is "1 row", ``counted(2, "row")`` "2 rows".

Every message and summary that puts a count before a noun goes through :func:`counted`,
so that a one-leaf tree is "1 leaf" and a one-row file "1 row".  Text that reproduces
Release 8's printout keeps Release 8's own words (treegen.model.show and the reference
tests), and the generated C's comments stay as they are (its bytes are fixed).
"""

from __future__ import annotations

_IRREGULAR = {"leaf": "leaves", "branch": "branches", "class": "classes"}


def plural(noun: str) -> str:
    """``noun``'s plural: the few irregular ones treegen's messages use, else noun + s."""
    return _IRREGULAR.get(noun, noun + "s")


def counted(n: int, noun: str, many: str | None = None) -> str:
    """``n`` and ``noun``, in the plural unless ``n`` is 1 (``many``: a plural of its own,
    for a phrase such as "labelled case")."""
    return f"{n} {noun if n == 1 else many or plural(noun)}"


__all__ = ["counted", "plural"]
