"""The public Python API: ``treegen.train``, ``train_rules``, ``load`` and the classes' methods.

These are thin wrappers over the functions the command line calls (the
readers, :func:`treegen.trainer.train`, the model file, the exporter and
the verifier), so a model trained, exported or verified from Python is
byte for byte the one the CLI gives.  Arrays follow scikit-learn's
conventions: ``X`` is ``(n_rows, n_features)`` with NaN for a missing
value, ``y`` holds any labels, and :meth:`Model.predict` returns them.

The classes live in the package's modules, re-exported here: :class:`Model`
(:mod:`treegen.api.model`: a model of any kind), :class:`VerifyReport` and the rows
``X`` it reads (:mod:`treegen.api.common`); :func:`train`, :func:`train_rules` and
:func:`load` are defined here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy.typing as npt

from treegen.api.common import PathLike, VerifyReport
from treegen.api.model import Model
from treegen.data.arrays import dataset_from_arrays
from treegen.data.dataset import Dataset
from treegen.data.readers import read_dataset
from treegen.errors import TrainError
from treegen.kinds import load as load_kind
from treegen.model.core import flavor_compares_float32
from treegen.rules.generate import rules_of_data
from treegen.trainer import Criterion, Engine, Flavor, TrainOptions
from treegen.trainer import train as train_dataset
from treegen.trainer.options import PRUNINGS, Pruning

__all__ = [
    "Model",
    "PathLike",
    "VerifyReport",
    "load",
    "train",
    "train_rules",
]


def load(path: PathLike) -> Model:
    """Read a model file of any kind (``model.tree``, a ruleset of ``treegen rules -o``),
    checked as ``treegen`` checks it."""
    return Model.of(load_kind(path)[1], path)


def train(
    data: PathLike | tuple[npt.ArrayLike, npt.ArrayLike],
    target: str | None = None,
    *,
    feature_names: Sequence[str] | None = None,
    nominal: Sequence[int | str] = (),
    class_names: Sequence[str] | None = None,
    ignore: Sequence[str] = (),
    categories: Mapping[int, Sequence[str]] | None = None,
    min_cases: int = 2,
    cf: float = 0.25,
    prune: bool | Pruning = True,
    subsets: bool = False,
    criterion: Criterion = "gainratio",
    flavor: Flavor = "c45",
    engine: Engine = "level",
    max_depth: int | None = None,
    min_gain_ratio: float = 0.0,
    folds: int = 3,
    seed: int = 1,
    validation: PathLike | None = None,
) -> Model:
    """Train a C4.5 tree, as ``treegen train`` does.

    ``data`` is a path in any format treegen reads (CSV, ARFF, C4.5 stem or
    ``.names``/``.data``; ``target``, ``nominal`` and ``ignore`` as the CLI's
    data options) or a pair ``(X, y)`` of arrays (NaN for missing;
    ``nominal`` columns, by index or name, hold codes; ``feature_names`` and
    ``class_names`` name them; ``categories`` maps a nominal column's index to
    the names of its codes).  The training options are the CLI's:
    ``prune`` is True (error-based pruning), False (the unpruned tree) or
    ``"reduced-error"`` (J48's -R, with ``folds`` and ``seed``, or on the
    ``validation`` file's rows, read with the training data's attributes);
    ``max_depth`` and ``min_gain_ratio`` pre-prune.
    """
    pruning: Pruning = "error-based"
    if isinstance(prune, str):
        if prune not in PRUNINGS:
            raise TrainError(
                f"unknown pruning {prune!r}: use True, False or 'reduced-error'", option="--prune"
            )
        pruning, prune = prune, True
    opts = TrainOptions(
        min_cases=min_cases,
        cf=cf,
        prune=prune,
        subsets=subsets,
        criterion=criterion,
        flavor=flavor,
        max_depth=max_depth,
        min_gain_ratio=min_gain_ratio,
        pruning=pruning,
        folds=folds,
        seed=seed,
    )
    from_file = isinstance(data, str | os.PathLike)
    if validation is not None and not from_file:
        raise TrainError(
            "validation is a file, for training data read from a file", option="--validation"
        )
    ds, kind = _dataset(
        data,
        target,
        flavor,
        feature_names=feature_names,
        nominal=nominal,
        class_names=class_names,
        ignore=ignore,
        categories=categories,
    )
    valid = None
    if validation is not None:
        float32 = flavor_compares_float32(flavor)
        valid = read_dataset(os.fspath(validation), schema=ds.schema, float32=float32)
    model = train_dataset(ds, opts, engine=engine, validation=valid)
    return Model.of(replace(model, options=_with_labels(model.options, kind)))


def train_rules(
    data: PathLike | tuple[npt.ArrayLike, npt.ArrayLike],
    target: str | None = None,
    *,
    feature_names: Sequence[str] | None = None,
    nominal: Sequence[int | str] = (),
    class_names: Sequence[str] | None = None,
    ignore: Sequence[str] = (),
    categories: Mapping[int, Sequence[str]] | None = None,
    min_cases: int = 2,
    cf: float = 0.25,
    subsets: bool = False,
    criterion: Criterion = "gainratio",
) -> Model:
    """C4.5's rules (c4.5rules) from ``data``'s unpruned c45 tree, as ``treegen rules``
    makes them: the ruleset it saves with ``-o`` (after the "Drop rule" steps), which
    classifies.  ``data`` and its keywords are :func:`train`'s; ``min_cases``,
    ``subsets`` and ``criterion`` grow the tree, ``cf`` is the confidence of the
    pessimistic error rate the rules are generalised and ranked by.
    """
    ds, kind = _dataset(
        data,
        target,
        "c45",
        feature_names=feature_names,
        nominal=nominal,
        class_names=class_names,
        ignore=ignore,
        categories=categories,
    )
    _, final = rules_of_data(ds, min_cases=min_cases, cf=cf, subsets=subsets, criterion=criterion)
    return Model.of(replace(final, options=_with_labels(final.options, kind)))


def _dataset(
    data: PathLike | tuple[npt.ArrayLike, npt.ArrayLike],
    target: str | None,
    flavor: Flavor,
    *,
    feature_names: Sequence[str] | None,
    nominal: Sequence[int | str],
    class_names: Sequence[str] | None,
    ignore: Sequence[str],
    categories: Mapping[int, Sequence[str]] | None,
) -> tuple[Dataset, str | None]:
    """The training data of :func:`train` and :func:`train_rules`, and the kind of its
    labels where it came from arrays (None for a file): a file is read as the CLI
    reads it for ``flavor`` (the c45 flavour's values must fit float32)."""
    if isinstance(data, str | os.PathLike):
        ds = read_dataset(
            os.fspath(data),
            target=target,
            nominal=[str(n) for n in nominal],
            ignore=list(ignore),
            float32=flavor_compares_float32(flavor),
        )
        return ds, None
    if not isinstance(data, tuple) or len(data) != 2:
        raise TrainError("data must be a path or a pair (X, y)")
    return dataset_from_arrays(
        data[0],
        data[1],
        feature_names=feature_names,
        nominal=nominal,
        class_names=class_names,
        target=target,
        categories=categories,
    )


def _with_labels(options: Mapping[str, object], kind: str | None) -> dict[str, object]:
    """``options`` recording the kind of the labels of arrays (``labels_of``), unless str."""
    out = dict(options)
    if kind is not None and kind != "str":
        out["labels"] = kind
    return out
