"""The registry of model kinds: one table, the only place that asks which kind a value is.

Every kind (a tree, a ruleset, a scikit-learn ensemble, a committee of C4.5 trees) is
one :class:`~treegen.kinds.spec.Kind` record, registered here under its name and file
format.  The command line, the Python API, ``export``, ``verify`` and the firmware runs
go through :func:`kind_of` (a value's kind), :func:`load` (a file's) and the record's
functions.  A kind added at run time with :func:`register` works with every command
without changing them (the toy kind of tests/kinds/test_registry.py does); the recipe is
in docs/ARCHITECTURE.md.

The built-in kinds are listed as :class:`Entry` records: what the table needs to know
of a kind before its code runs (its name, file format, value type and ``show``
formats) and the module holding its :class:`Kind`.  That module is imported the first
time the kind is used, so ``treegen train`` does not import code generation, the
ensembles and jinja2, and ``kind_of`` on a tree loads no other kind.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from treegen.errors import a_name
from treegen.kinds.spec import Kind
from treegen.model.jsontext import decode_json, read_text

__all__ = [
    "KINDS", "Entry", "Kind", "a_kind", "kind_named", "kind_of", "load", "loads", "register",
]  # fmt: skip


@dataclass(frozen=True)
class Entry:
    """A kind in the table whose code is not loaded yet: ``module``'s ``attr`` is its
    :class:`Kind`, whose name, format, value type (``"module:qualname"``) and ``show``
    formats are these (checked when it loads)."""

    name: str
    format: str
    value_type: str
    show: tuple[str, ...]
    module: str
    attr: str

    def holds(self, value: object) -> bool:
        """Whether ``value`` is of this kind, without importing the kind's code: a value
        of the type exists only once the type's module has been imported."""
        module, _, qualname = self.value_type.partition(":")
        loaded = sys.modules.get(module)
        return loaded is not None and isinstance(value, getattr(loaded, qualname))


_TABLE: dict[str, Kind[Any, Any] | Entry] = {}


def _loaded(name: str) -> Kind[Any, Any]:
    """The kind ``name``, importing its module the first time."""
    item = _TABLE[name]
    if isinstance(item, Kind):
        return item
    kind: Kind[Any, Any] = getattr(importlib.import_module(item.module), item.attr)
    vt = f"{kind.value_type.__module__}:{kind.value_type.__qualname__}"
    if (kind.name, kind.format, vt, tuple(kind.show)) != (
        item.name,
        item.format,
        item.value_type,
        item.show,
    ):
        raise RuntimeError(f"kind {item.name!r}: its entry does not match {item.module}")
    _TABLE[name] = kind
    return kind


class _Kinds(Mapping[str, Kind[Any, Any]]):
    """The table read as kinds by name; reading one loads its code."""

    def __getitem__(self, name: str) -> Kind[Any, Any]:
        return _loaded(name)

    def __iter__(self) -> Iterator[str]:
        return iter(list(_TABLE))

    def __len__(self) -> int:
        return len(_TABLE)


KINDS: Mapping[str, Kind[Any, Any]] = _Kinds()
"""Every kind by name, in registration order (the first is the default: a file whose
``format`` names no kind is read, and its error reported, as that kind's)."""


def register(kind: Kind[Any, Any] | Entry) -> Kind[Any, Any] | Entry:
    """Add ``kind`` (or the entry of one) to the table (its name and file format must be
    new); returns it."""
    for k in _TABLE.values():
        if kind.name == k.name or kind.format == k.format:
            raise ValueError(f"kind {kind.name!r} ({kind.format}) is registered already")
    _TABLE[kind.name] = kind
    return kind


def unregister(name: str) -> None:
    """Remove the kind ``name`` (a kind a test registered)."""
    del _TABLE[name]


def kind_named(name: str) -> Kind[Any, Any]:
    return _loaded(name)


def _name_of(value: object) -> str:
    for name, item in _TABLE.items():
        if item.holds(value) if isinstance(item, Entry) else isinstance(value, item.value_type):
            return name
    raise TypeError(f"{type(value).__name__} is no registered model kind")


def check_kind(value: object) -> None:
    """A TypeError unless ``value`` is of a registered kind (loads no kind's code)."""
    _name_of(value)


def kind_of(value: object) -> Kind[Any, Any]:
    """The kind of a model value (one of the registered value types)."""
    return _loaded(_name_of(value))


def loads(text: str, filename: str) -> tuple[Kind[Any, Any], Any]:
    """A model file's kind and value, from its text (the ``format`` field says which)."""
    data = decode_json(text, filename)
    fmt = data.get("format") if isinstance(data, dict) else None
    name = next((k.name for k in _TABLE.values() if k.format == fmt), next(iter(_TABLE)))
    kind = _loaded(name)
    return kind, kind.from_data(data, text, filename)


def load(path: str | os.PathLike[str]) -> tuple[Kind[Any, Any], Any]:
    """A model file's kind and value (checked as its kind checks it)."""
    name = os.fspath(path)
    return loads(read_text(name, "model"), name)


def a_kind(name: str) -> str:
    """A kind's name with its article, as messages say it ("a tree", "an ensemble")."""
    return a_name(name)


def formats() -> str:
    """The registered file formats, for messages."""
    return ", ".join(k.format for k in _TABLE.values())


def show_formats() -> tuple[str, ...]:
    """Every ``show --format`` some kind prints, in table order (loads no kind's code)."""
    return tuple(dict.fromkeys(f for k in _TABLE.values() for f in k.show))


register(
    Entry(
        "tree",
        "treegen-model",
        "treegen.model.core:Model",
        ("c45", "j48", "dot", "rules"),
        "treegen.kinds.tree",
        "TREE",
    )
)
register(
    Entry(
        "ruleset",
        "treegen-rules",
        "treegen.rules.core:RuleSet",
        ("c45",),
        "treegen.kinds.ruleset",
        "RULESET",
    )
)
register(
    Entry(
        "ensemble",
        "treegen-ensemble",
        "treegen.ensemble.core:Ensemble",
        ("c45",),
        "treegen.kinds.ensemble",
        "ENSEMBLE",
    )
)
register(
    Entry(
        "committee",
        "treegen-committee",
        "treegen.committee.core:Committee",
        ("weka", "j48", "c45"),
        "treegen.kinds.committee",
        "COMMITTEE",
    )
)
