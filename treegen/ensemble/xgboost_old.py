"""What older XGBoost versions write differently in a model file, read or refused.

Measured against the files XGBoost 1.0 to 3.1 write (docs/gbm.md, "Files from other
versions"): 1.0 to 1.2 add the base margin last (refused, :func:`check_version`);
before 1.6 a file has no ``num_parallel_tree`` (:func:`parallel_trees`) and writes
``default_left`` as JSON booleans (:meth:`~treegen.ensemble.xgboost_doc.Doc.flags`);
1.x writes a categorical split's unused condition as NaN (:mod:`treegen.ensemble.xgboost`
does not read it); before 1.7.3 XGBoost predicts a categorical split otherwise (refused,
:func:`check_categorical`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from treegen.ensemble.xgboost_doc import Doc

FIRST_VERSION = (1, 3)
"""The first XGBoost whose files treegen reads: 1.0 to 1.2 sum a row's trees from 0 and
add the base margin last, in float32, another rounding (and turn a ``binary:logitraw``
base score into a margin): their predictions differ in the last bits."""


FIRST_CATEGORICAL = (1, 7, 3)
"""The first XGBoost whose CPU predictor sends a categorical split's values as treegen
does (docs/gbm.md): before it, each minor version its own way (:data:`CATEGORICAL_BEFORE`;
1.7.0 to 1.7.2 as 1.6, measured)."""

_AS_NUMERIC = "reads it on the CPU as the numeric split x < NaN (every value but NaN right)"
_INVALID_MISSING = (
    "sends a negative code, or one past the node's 32-bit words of categories, the missing way"
)

CATEGORICAL_BEFORE: dict[tuple[int, ...], str] = {
    (1, 3): _AS_NUMERIC,
    (1, 4): _AS_NUMERIC,
    (1, 5): "takes a code between -1 and 0 for category 0",
    (1, 6): _INVALID_MISSING,
    (1, 7): _INVALID_MISSING,
}
"""How each XGBoost before :data:`FIRST_CATEGORICAL` predicts a categorical split
otherwise than treegen, by minor version, measured (1.3 and 1.4 fit one only on a GPU;
1.7's entry is 1.7.0 to 1.7.2's)."""


def version_of(version: Any) -> tuple[int, ...] | None:
    """The file's ``version`` field (a list of integers), or None where it has none."""
    v = version.tolist() if isinstance(version, np.ndarray) else version
    if not (isinstance(v, list) and len(v) >= 2 and all(type(x) is int for x in v)):
        return None
    return tuple(v)


def _dotted(version: tuple[int, ...]) -> str:
    """A version as XGBoost writes it, ``1.7.6``."""
    return ".".join(map(str, version))


def _again(first: tuple[int, ...]) -> str:
    """What to do with a file refused for its version."""
    return (
        f"load the model with XGBoost {_dotted(first)} or later and save it again "
        "(its predictions are that version's)"
    )


def check_version(doc: Doc, version: Any) -> tuple[int, ...] | None:
    """Refuse a file that XGBoost 1.0 to 1.2 wrote (:data:`FIRST_VERSION`); a file with
    no version (XGBoost writes one since JSON) is read as a current one.  The version
    (:func:`version_of`)."""
    v = version_of(version)
    if v is not None and v[:2] < FIRST_VERSION:
        first = _dotted(FIRST_VERSION)
        raise doc.fail(
            "version",
            f"written by XGBoost {_dotted(v)}, which adds the base margin after "
            f"the trees (XGBoost {first} and later: before them, another float32 rounding): "
            f"treegen computes the predictions of {first} and later; {_again(FIRST_VERSION)}",
        )
    return v


def check_categorical(doc: Doc, version: tuple[int, ...] | None, path: str) -> None:
    """Refuse the categorical split at ``path`` in a file that XGBoost before
    :data:`FIRST_CATEGORICAL` wrote."""
    if version is None or version >= FIRST_CATEGORICAL:
        return
    series = _dotted(version[:2])
    if version[:2] == FIRST_CATEGORICAL[:2]:
        series += f" before {_dotted(FIRST_CATEGORICAL)}"
    raise doc.fail(
        path,
        f"a categorical split, in a file XGBoost {_dotted(version)} wrote: XGBoost {series} "
        f"{CATEGORICAL_BEFORE.get(version[:2], 'predicts it otherwise')}; treegen computes "
        f"the predictions of {_dotted(FIRST_CATEGORICAL)} and later; "
        f"{_again(FIRST_CATEGORICAL)}",
    )


def parallel_trees(doc: Doc, gparam: dict[str, Any], path: str, attrs: Any) -> int:
    """The trees of a round per class: ``num_parallel_tree``, which XGBoost writes since
    1.6.  An older file has it only as ``best_ntree_limit`` (``(best_iteration + 1) *
    num_parallel_tree``, which its Python package sets on every fitted model), else
    reads as XGBoost reads it, 1."""
    if "num_parallel_tree" in gparam:
        return doc.int_text(gparam, "num_parallel_tree", path, 1, 1 << 20)
    if not isinstance(attrs, dict) or "best_ntree_limit" not in attrs:
        return 1
    apath = "learner.attributes"
    limit = doc.int_text(attrs, "best_ntree_limit", apath, 1, 1 << 40)
    best = doc.int_text(attrs, "best_iteration", apath, 0, 1 << 40) + 1
    if limit % best:
        raise doc.fail(f"{apath}.best_ntree_limit", f"{limit} is not a multiple of {best}")
    return limit // best
