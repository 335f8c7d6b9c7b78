"""Equality and hashing for frozen records whose float fields may hold NaN as "none".

A tree node without a cut, a nominal rule condition and a score without a
midpoint hold ``math.nan`` in their float field.  Python 3.11 and 3.12 compare
dataclasses as tuples of their fields, where the identity check makes the
shared ``math.nan`` equal to itself; Python 3.13 compares field by field, and
``nan == nan`` is false, so two equal nodes or conditions differed and a set of
conditions no longer merged equal ones.  :func:`nan_equal` gives a dataclass
declared with ``eq=False`` an ``__eq__`` and ``__hash__`` on its fields in
which every NaN equals every NaN, the same on every Python.
"""

from __future__ import annotations

import dataclasses
import operator
from typing import Any, TypeVar

T = TypeVar("T")

# Stands for a NaN field in a record's key: equal to itself, unlike NaN.
_NAN = ("nan",)


def nan_equal(cls: type[T]) -> type[T]:
    """Give the dataclass ``cls`` (declared with ``eq=False``) field-wise ``__eq__`` and
    ``__hash__`` that hold NaN equal to NaN in its float fields; other values compare as
    the dataclass's own ``__eq__`` compares them."""
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    assert len(fields) > 1, "attrgetter of one name gives no tuple"
    fetch = operator.attrgetter(*(f.name for f in fields))
    # Hashing runs in hot loops (c4.5rules caches each condition's cases by it): fetch
    # the fields in C, look only at the float ones.
    floats = tuple(i for i, f in enumerate(fields) if "float" in str(f.type))

    def key(self: Any) -> tuple[object, ...]:
        values: tuple[object, ...] = fetch(self)
        for i in floats:
            v = values[i]
            if v != v:
                values = (*values[:i], _NAN, *values[i + 1 :])
        return values

    def __eq__(self: Any, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return key(self) == key(other)

    def __hash__(self: Any) -> int:
        return hash(key(self))

    cls.__eq__ = __eq__  # type: ignore[method-assign]
    cls.__hash__ = __hash__  # type: ignore[method-assign]
    return cls
