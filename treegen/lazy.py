"""Package attributes imported on first use (PEP 562), so that importing a package
does not import every module its names come from (``treegen`` and
``treegen.estimator``: ``treegen train`` should not load code generation or
scikit-learn's importer)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_attributes(
    package: str, homes: Mapping[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A package's ``__getattr__`` and ``__dir__``: a name of ``homes`` is read from the
    module it names the first time it is asked for, then kept in ``namespace`` (the
    package's globals)."""

    def getattr_(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        namespace[name] = value
        return value

    def dir_() -> list[str]:
        return sorted(set(namespace) | set(homes))

    return getattr_, dir_
