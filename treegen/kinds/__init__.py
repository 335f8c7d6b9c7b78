"""The registry of model kinds: one table, the only place that asks which kind a value is.

Every kind (a tree, a ruleset, a scikit-learn ensemble, a committee of C4.5 trees) is
one :class:`~treegen.kinds.spec.Kind` record, registered here under its name and file
format.  The command line, the Python API, ``export``, ``verify`` and the firmware runs
go through :func:`kind_of` (a value's kind), :func:`load` (a file's) and the record's
functions.  A kind added at run time with :func:`register` works with every command
without changing them (the toy kind of tests/kinds/test_registry.py does); the recipe is
in docs/ARCHITECTURE.md.
"""

from __future__ import annotations

import os
from typing import Any

from treegen.kinds.committee import COMMITTEE
from treegen.kinds.ensemble import ENSEMBLE
from treegen.kinds.ruleset import RULESET
from treegen.kinds.spec import Kind
from treegen.kinds.tree import TREE
from treegen.model.file import decode_json, read_text

__all__ = ["KINDS", "Kind", "kind_named", "kind_of", "load", "loads", "register"]

KINDS: dict[str, Kind[Any, Any]] = {}
"""Every kind by name, in registration order (the first is the default: a file whose
``format`` names no kind is read, and its error reported, as that kind's)."""


def register(kind: Kind[Any, Any]) -> Kind[Any, Any]:
    """Add ``kind`` to the table (its name and file format must be new); returns it."""
    for k in KINDS.values():
        if kind.name == k.name or kind.format == k.format:
            raise ValueError(f"kind {kind.name!r} ({kind.format}) is registered already")
    KINDS[kind.name] = kind
    return kind


def unregister(name: str) -> None:
    """Remove the kind ``name`` (a kind a test registered)."""
    del KINDS[name]


def kind_named(name: str) -> Kind[Any, Any]:
    return KINDS[name]


def kind_of(value: object) -> Kind[Any, Any]:
    """The kind of a model value (one of the registered value types)."""
    for kind in KINDS.values():
        if isinstance(value, kind.value_type):
            return kind
    raise TypeError(f"{type(value).__name__} is no registered model kind")


def loads(text: str, filename: str) -> tuple[Kind[Any, Any], Any]:
    """A model file's kind and value, from its text (the ``format`` field says which)."""
    data = decode_json(text, filename)
    fmt = data.get("format") if isinstance(data, dict) else None
    kind = next((k for k in KINDS.values() if k.format == fmt), next(iter(KINDS.values())))
    return kind, kind.from_data(data, text, filename)


def load(path: str | os.PathLike[str]) -> tuple[Kind[Any, Any], Any]:
    """A model file's kind and value (checked as its kind checks it)."""
    name = os.fspath(path)
    return loads(read_text(name, "model"), name)


def formats() -> str:
    """The registered file formats, for messages."""
    return ", ".join(k.format for k in KINDS.values())


register(TREE)
register(RULESET)
register(ENSEMBLE)
register(COMMITTEE)
