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
formats, and the function writing its file) and the module holding its :class:`Kind`.
That module is imported the first time the kind is used, so ``treegen train`` does not
import code generation, the ensembles and jinja2, ``kind_of`` on a tree loads no other
kind, and :func:`to_json` writes a tree without loading even its own (a quiet train's
start-up: the tree kind loads codegen's export options).  For the same start-up,
:class:`Kind` (a dataclass of 30 fields, some milliseconds to build) is imported from
:mod:`treegen.kinds.spec` when first asked for.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from treegen.errors import a_name
from treegen.model.jsontext import decode_json, read_text

if TYPE_CHECKING:
    from treegen.kinds.spec import Kind

__all__ = [
    "KINDS", "Entry", "Kind", "a_kind", "kind_named", "kind_of", "load", "loads", "register",
    "to_json",
]  # fmt: skip


def __getattr__(name: str) -> Any:
    """``Kind``, imported when first asked for (see the module's docstring)."""
    if name == "Kind":
        from treegen.kinds.spec import Kind

        return Kind
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class Entry:
    """A kind in the table whose code is not loaded yet: ``module``'s ``attr`` is its
    :class:`Kind`, whose name, format, value type (``"module:qualname"``), ``show``
    formats and, where given, file writer ``to_json`` (``"module:qualname"``; "": the
    kind's, loading it) are these (checked when it loads)."""

    name: str
    format: str
    value_type: str
    show: tuple[str, ...]
    module: str
    attr: str
    to_json: str = ""

    def holds(self, value: object) -> bool:
        """Whether ``value`` is of this kind, without importing the kind's code: a value
        of the type exists only once the type's module has been imported."""
        module, _, qualname = self.value_type.partition(":")
        loaded = sys.modules.get(module)
        return loaded is not None and isinstance(value, getattr(loaded, qualname))


def _qualified(f: Callable[..., Any] | type) -> str:
    """``"module:qualname"``, as an :class:`Entry` names a type or a function."""
    return f"{f.__module__}:{f.__qualname__}"


_TABLE: dict[str, Kind[Any, Any] | Entry] = {}


def _loaded(name: str) -> Kind[Any, Any]:
    """The kind ``name``, importing its module the first time."""
    item = _TABLE[name]
    if not isinstance(item, Entry):
        return item
    kind: Kind[Any, Any] = getattr(importlib.import_module(item.module), item.attr)
    writer = _qualified(kind.to_json) if item.to_json else ""
    if (kind.name, kind.format, _qualified(kind.value_type), tuple(kind.show), writer) != (
        item.name,
        item.format,
        item.value_type,
        item.show,
        item.to_json,
    ):
        raise RuntimeError(f"kind {item.name!r}: its entry does not match {item.module}")
    _TABLE[name] = kind
    return kind


class _Kinds(Mapping[str, "Kind[Any, Any]"]):
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


def to_json(value: object) -> str:
    """A model value's file text, as its kind writes it (``kind_of(value).to_json``),
    without loading a kind whose entry names its writer."""
    name = _name_of(value)
    item = _TABLE[name]
    if isinstance(item, Entry) and item.to_json:
        module, _, qualname = item.to_json.partition(":")
        text: str = getattr(importlib.import_module(module), qualname)(value)
        return text
    return _loaded(name).to_json(value)


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
        "treegen.model.file:model_to_json",
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
