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

import inspect
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, TypedDict, Unpack, cast

import numpy as np
import numpy.typing as npt

from treegen.api.common import PathLike, VerifyReport, data_path, path_of
from treegen.api.model import Model
from treegen.data import frame
from treegen.data.arrays import check_column_name, column_list, dataset_from_arrays
from treegen.data.dataset import Dataset
from treegen.data.filekind import MODEL_WANTED, wrong_for_model
from treegen.data.npstate import numpy_defaults
from treegen.data.readers import read_dataset
from treegen.errors import TrainError, UsageError
from treegen.kinds import load as load_kind
from treegen.model.core import flavor_compares_float32
from treegen.model.optnames import keyword_errors, one_of
from treegen.trainer import Criterion, Engine, Flavor, TrainOptions
from treegen.trainer import train as train_dataset
from treegen.trainer.options import ENGINES, PRUNINGS, Pruning

__all__ = [
    "DataKeywords",
    "Model",
    "PathLike",
    "RulesDataKeywords",
    "TrainKeywords",
    "VerifyReport",
    "load",
    "train",
    "train_rules",
]


@keyword_errors
@numpy_defaults
def load(path: PathLike) -> Model:
    """Read a model file of any kind (``model.tree``, a ruleset of ``treegen rules -o``),
    checked as ``treegen`` checks it (data, a pickle or C source named as what it is)."""
    name = path_of(path, "path")
    kind = wrong_for_model(name)
    if kind is not None:
        raise UsageError(f"{name} is {kind.name}; treegen.load reads {MODEL_WANTED}")
    return Model.of(load_kind(name)[1], path)


class TrainKeywords(TypedDict, total=False):
    """The training options :func:`train` takes as keywords: the fields of
    :class:`~treegen.trainer.TrainOptions` (whose defaults they default to), except that
    ``prune`` is True (error-based pruning), False (the unpruned tree) or
    ``"reduced-error"`` (J48's -R, with ``folds`` and ``seed``)."""

    min_cases: int
    cf: float
    prune: bool | Pruning
    subsets: bool
    criterion: Criterion
    flavor: Flavor
    max_depth: int | None
    min_gain_ratio: float
    folds: int
    seed: int


class RulesDataKeywords(TypedDict, total=False):
    """How :func:`train_rules` (and :func:`train`) read their data: a file's ``target``
    column, ``nominal`` and ``ignore`` columns (as the CLI's data options), or arrays'
    ``feature_names``, ``nominal`` columns (indices or names, holding codes),
    ``class_names`` (``y`` then holds codes into it) and ``categories`` (a nominal
    column's index -> the names of its codes)."""

    target: str | None
    feature_names: Sequence[str] | None
    nominal: Sequence[int | str]
    class_names: Sequence[str] | None
    ignore: Sequence[str]
    categories: Mapping[int, Sequence[str]] | None


class DataKeywords(RulesDataKeywords, total=False):
    """How :func:`train` reads its data: :class:`RulesDataKeywords`, and a CSV or C4.5
    file's ``weight_column`` (``--weights``; c4.5rules counts cases, never weights)."""

    weight_column: str | None


_DATA_KEYWORDS = frozenset(DataKeywords.__annotations__)
_RULES_DATA_KEYWORDS = frozenset(RulesDataKeywords.__annotations__)
_WC = "weight_column"
_TRAIN_KEYWORDS = frozenset(TrainKeywords.__annotations__)

Data = PathLike | npt.ArrayLike | tuple[npt.ArrayLike, npt.ArrayLike]
"""What :func:`train` learns from: a data file's path, ``(X, y)``, or ``X`` with ``y``."""


def train_options(options: TrainOptions | None = None, **keywords: Any) -> TrainOptions:
    """``options`` (default: the defaults) with the training ``keywords`` of
    :class:`TrainKeywords` (:func:`train` has refused any other, naming every keyword it
    takes: :func:`_split`)."""
    if options is not None and not isinstance(options, TrainOptions):
        raise TrainError(
            f"must be a TrainOptions (treegen.trainer), got {type(options).__name__}: "
            "give the options as keywords, or TrainOptions(**them)",
            option="options",
        )
    prune = keywords.pop("prune", None)
    if isinstance(prune, str):
        if prune not in PRUNINGS:
            raise TrainError(
                f"unknown pruning {prune!r}: use True, False or 'reduced-error'", option="prune"
            )
        keywords.update(pruning=prune, prune=True)
    elif prune is not None:
        keywords.update(prune=prune)
    opts = replace(options or TrainOptions(), **keywords)
    # As `treegen train` refuses them: ignored, they would look as if they shaped the tree.
    if opts.reduced_error and "cf" in keywords:
        raise TrainError(
            "is error-based pruning's confidence; prune='reduced-error' does not use it",
            option="cf",
        )
    # (`not` of a prune that is an array was numpy's ValueError: validate names it below)
    if isinstance(opts.prune, bool | np.bool_) and not opts.prune and "cf" in keywords:
        raise TrainError(
            "is error-based pruning's confidence; prune=False keeps the unpruned tree",
            option="cf",
        )
    for name in ("folds", "seed"):
        if name in keywords and not opts.reduced_error:
            raise TrainError("needs prune='reduced-error'", option=name)
    # Now, not when the trainer starts: the data are read by the flavour's rules first.
    opts.validate()
    return opts


@keyword_errors
@numpy_defaults
def train(
    data: Data,
    y: npt.ArrayLike | str | None = None,
    *,
    options: TrainOptions | None = None,
    engine: Engine = "level",
    validation: PathLike | None = None,
    boost: int | None = None,
    bag: int | None = None,
    bag_seed: int = 1,
    weights: npt.ArrayLike | None = None,
    **keywords: Unpack[DataAndTrainKeywords],
) -> Model:
    """Train a C4.5 tree, as ``treegen train`` does, or a committee of them.

    ``data`` is a path in any format treegen reads (CSV, ARFF, C4.5 stem or
    ``.names``/``.data``), or ``X`` with its labels ``y`` (``train(X, y)``, as in
    scikit-learn, or ``train((X, y))``): NaN for missing.  A path's second argument, if
    given, is its ``target`` column.  The keywords are the data's (:class:`DataKeywords`)
    and the training options (:class:`TrainKeywords`, or ``options``, a
    :class:`~treegen.trainer.TrainOptions` they change); reduced-error pruning prunes on
    the ``validation`` file's rows when one is given (read with the training data's
    attributes); ``engine`` grows level by level (default) or depth first (the
    reference), the same tree bit for bit.

    ``boost=N`` trains AdaBoost.M1 with N rounds of such trees (``train --boost N``;
    Weka's ``AdaBoostM1 -I N -W J48`` with ``flavor="j48"``), ``bag=N`` N trees on
    bootstrap samples drawn with ``bag_seed`` (``--bag N --bag-seed S``; Weka's
    ``Bagging -I N -S S -W J48``): the Model is then a committee
    (:mod:`treegen.committee`).

    ``weights`` (one per row, finite and not negative; scikit-learn's ``sample_weight``)
    start each case at that weight instead of 1: a case of weight w counts as w cases
    wherever C4.5 counts cases, as J48 counts a weighted instance.  An ARFF file's
    instance weights (``{w}`` after a row) are read so too, and a CSV or C4.5 file's
    ``weight_column``.  Not with reduced-error
    pruning, ``boost`` or ``bag`` (they weight or draw the cases themselves).
    """
    data_kw, train_kw = _split(keywords, train, _DATA_KEYWORDS | _TRAIN_KEYWORDS)
    opts = train_options(options, **train_kw)
    if not one_of(engine, ENGINES):
        raise TrainError(
            f"unknown engine {engine!r} (choose {' or '.join(ENGINES)})", option="engine"
        )
    # `bag_seed != 1` of an array or a DataFrame was a ValueError from its truth
    if bag is None and not (isinstance(bag_seed, int | np.integer) and bag_seed == 1):
        raise TrainError("needs bag=N", option="bag_seed")
    if boost is not None and bag is not None:
        raise TrainError("boost and bag exclude each other: choose one", option="boost")
    if validation is not None and (boost is not None or bag is not None):
        raise TrainError("trains one tree, not a committee", option="validation")
    if weights is not None and (boost is not None or bag is not None):
        raise TrainError(
            "trains one tree: boost and bag weight or draw the cases themselves", option="weights"
        )
    from_file = isinstance(data, str | os.PathLike)
    if validation is not None and not from_file:
        raise TrainError(
            "validation is a file, for training data read from a file", option="validation"
        )
    ds = _dataset(data, y, opts.flavor, "treegen.train", weights=True, **data_kw)
    if weights is not None and ds.weights is not None:
        raise TrainError(
            "the file gives instance weights ({w} after its rows): weights would replace them",
            file=ds.source,
        )
    valid = None
    if validation is not None:
        float32 = flavor_compares_float32(opts.flavor)
        where = data_path(validation, "validation", "treegen.train", named=True)
        valid = read_dataset(where, schema=ds.schema, float32=float32)
    if boost is not None:
        from treegen.committee.boost import boost as boost_dataset  # here: trees need neither

        return Model.of(boost_dataset(ds, opts, boost))
    if bag is not None:
        from treegen.committee.bag import bag as bag_dataset

        return Model.of(bag_dataset(ds, opts, bag, bag_seed))
    case_weights = None if weights is None else _weights(weights, ds.n_rows)
    model = train_dataset(ds, opts, engine=engine, validation=valid, weights=case_weights)
    return Model.of(model)


def _weights(weights: npt.ArrayLike, n_rows: int) -> npt.NDArray[np.float64]:
    """``weights`` as one float64 per row, or :class:`TrainError` naming the keyword
    (the trainer checks their values)."""
    try:  # float64_of: complex weights are refused, not cast with numpy's warning
        w = frame.float64_of(weights)
    except (TypeError, ValueError) as exc:
        raise TrainError(f"must be numbers, one per row: {exc}", option="weights") from None
    if w.shape != (n_rows,):
        raise TrainError(
            f"must be one number per row: shape {w.shape} for {n_rows} rows", option="weights"
        )
    return w


@keyword_errors
@numpy_defaults
def train_rules(
    data: Data,
    y: npt.ArrayLike | str | None = None,
    *,
    min_cases: int = TrainOptions.min_cases,
    cf: float = TrainOptions.cf,
    subsets: bool = TrainOptions.subsets,
    criterion: Criterion = TrainOptions.criterion,
    **keywords: Unpack[RulesDataKeywords],
) -> Model:
    """C4.5's rules (c4.5rules) from ``data``'s unpruned c45 tree, as ``treegen rules``
    makes them: the ruleset it saves with ``-o`` (after the "Drop rule" steps), which
    classifies.  ``data``, ``y`` and the data keywords are :func:`train`'s; ``min_cases``,
    ``subsets`` and ``criterion`` grow the tree, ``cf`` is the confidence of the
    pessimistic error rate the rules are generalised and ranked by.
    """
    from treegen.rules.generate import rules_of_data  # here: `train` does not load rules

    if _WC in keywords:  # train's, named so rather than as an unknown keyword
        raise UsageError("a ruleset is made from unweighted cases", option=_WC)
    data_kw, _ = _split(keywords, train_rules, _RULES_DATA_KEYWORDS)
    ds = _dataset(data, y, "c45", "treegen.train_rules", **data_kw)
    _, final = rules_of_data(ds, min_cases=min_cases, cf=cf, subsets=subsets, criterion=criterion)
    return Model.of(final)


class DataAndTrainKeywords(DataKeywords, TrainKeywords, total=False):
    """:func:`train`'s keywords: the data's and the training options."""


def _split(
    keywords: Mapping[str, Any], who: Callable[..., Model], takes: frozenset[str]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``who``'s ``**keywords`` as (data keywords, training keywords); one not in
    ``takes`` is an error naming it, with every keyword ``who`` takes: ``takes`` and
    the keyword-only parameters of its signature."""
    unknown = sorted(set(keywords) - takes)
    if unknown:
        params = inspect.signature(who).parameters.values()
        named = {p.name for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY}
        known = ", ".join(sorted(takes | named))
        raise TrainError(
            f"{who.__name__}() got an unknown keyword {unknown[0]!r} (it takes {known})"
        )
    data = {k: v for k, v in keywords.items() if k in _DATA_KEYWORDS}
    return data, {k: v for k, v in keywords.items() if k in _TRAIN_KEYWORDS}


def _dataset(
    data: Data,
    y: npt.ArrayLike | str | None,
    flavor: Flavor,
    reader: str,
    *,
    weights: bool = False,
    target: str | None = None,
    feature_names: Sequence[str] | None = None,
    nominal: Sequence[int | str] = (),
    class_names: Sequence[str] | None = None,
    ignore: Sequence[str] = (),
    categories: Mapping[int, Sequence[str]] | None = None,
    weight_column: str | None = None,
) -> Dataset:
    """The training data of :func:`train` and :func:`train_rules` (``reader``, for an
    error): a file read as the CLI reads it for ``flavor`` (the c45 flavour's values
    must fit float32; with ``weights``, an ARFF file's instance weights), or arrays."""
    nominal, ignore = column_list(nominal, "nominal"), column_list(ignore, "ignore")
    if categories is not None and not isinstance(categories, Mapping):
        raise UsageError(
            f"must be a mapping {{column: its value names}}, got {categories!r}",
            option="categories",
        )
    if isinstance(data, str | os.PathLike):
        if y is not None and not isinstance(y, str):
            raise TrainError("a data file's labels are its target column: give its name")
        # A file names its columns, values and classes itself: these would be dropped.
        for name, value in (
            ("feature_names", feature_names),
            ("class_names", class_names),
            ("categories", categories),
        ):
            if value is not None:
                raise UsageError("is for arrays: a data file names its own", option=name)
        check_column_name(target, "target")
        check_column_name(weight_column, _WC)
        return read_dataset(
            data_path(data, "data", reader),
            target=target if y is None else y,
            nominal=[str(n) for n in nominal],
            ignore=[str(n) for n in ignore],  # as nominal's: column names
            float32=flavor_compares_float32(flavor),
            weights=weights,
            weight_column=weight_column,
        )
    if ignore:
        raise UsageError("is for a data file: leave the columns out of X", option="ignore")
    if weight_column is not None:
        raise UsageError("is for a data file: give arrays' weights as weights=", option=_WC)
    X: npt.ArrayLike
    labels: npt.ArrayLike
    if y is not None:
        X, labels = cast("npt.ArrayLike", data), y
    elif isinstance(data, tuple) and len(data) == 2:
        X, labels = data
    else:
        raise TrainError("data must be a path, (X, y), or X with y")
    if frame.is_frame(X):
        # A DataFrame's names, and its categorical and text columns as nominal.
        arrays = frame.training_arrays(X, nominal)
        X, nominal = arrays.x, arrays.nominal
        feature_names = feature_names if feature_names is not None else arrays.names
        categories = {**arrays.categories, **(categories or {})}
    ds, _ = dataset_from_arrays(
        X,
        labels,
        feature_names=feature_names,
        nominal=nominal,
        class_names=class_names,
        target=target,
        categories=categories,
        float32=flavor_compares_float32(flavor),
    )
    return ds
