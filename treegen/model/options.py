"""The training options: what the user chooses (:class:`TrainOptions`) and what a model
records of them (:class:`ModelOptions`, a model file's ``"options"``).

One home for the option values, their defaults and their checks, shared by the
trainer, the CLI, the Python API and the model file.  It lives with the model
(``model`` needs only ``data`` and ``errors``) because a model records the options
it was trained with; :mod:`treegen.trainer.options` adds what growth needs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from treegen.errors import TrainError
from treegen.model.optnames import KEYWORDS, OptionNames, one_of

Criterion = Literal["gainratio", "gain"]
Flavor = Literal["c45", "j48"]
Pruning = Literal["error-based", "reduced-error"]

# The largest minimum of cases a branch needs: Release 8 reads -m into a C int and J48
# -M into a Java int (a larger one was taken as a float where the trainer compares it
# with weights, and overflowed there past a double's range).
MAX_MIN_CASES = 2**31 - 1

CRITERIA: tuple[Criterion, ...] = ("gainratio", "gain")
FLAVORS: tuple[Flavor, ...] = ("c45", "j48")
PRUNINGS: tuple[Pruning, ...] = ("error-based", "reduced-error")


def percent_hint(cf: float, names: OptionNames = KEYWORDS) -> str:
    """A hint for a pruning confidence ``cf`` outside (0, 1) that reads as Release 8's
    ``-c``, a percentage (``-c 25``): the fraction it likely means, with the option
    spelt as ``names`` spell it (``--cf 0.25`` or ``cf=0.25``); else ""."""
    if not 1.0 <= cf < 100.0:
        return ""
    fraction = f"{cf / 100:g}"
    spelt = f"{names('cf')} {fraction}" if names.flags else f"{names('cf')}={fraction}"
    return f" (a fraction: Release 8's -c {cf:g} is {spelt})"


@dataclass(frozen=True)
class TrainOptions:
    """Training options (Release 8's -m, -c, -s, -g; ``prune=False`` is the unpruned tree).

    Pre-pruning: a node at depth ``max_depth`` (the root is depth 0) stays a
    leaf, and so does a node whose chosen test has a gain ratio (gain / split
    information, in double) below ``min_gain_ratio``.  ``pruning`` is how a
    pruned tree is pruned: Release 8's error-based pruning (``cf``), or
    reduced-error pruning as Weka J48 ``-R -N folds -Q seed`` does it (grown
    on all folds but the last of J48's stratified split, pruned on the last;
    or grown on all the data and pruned on a validation set given to
    :func:`treegen.trainer.fit.train`).
    """

    min_cases: int = 2
    cf: float = 0.25
    prune: bool = True
    subsets: bool = False
    criterion: Criterion = "gainratio"
    flavor: Flavor = "c45"
    max_depth: int | None = None
    min_gain_ratio: float = 0.0
    pruning: Pruning = "error-based"
    folds: int = 3
    seed: int = 1

    def as_dict(self) -> dict[str, object]:
        """The options as plain JSON values (what a model file's ``"options"`` records).

        The pre-pruning and reduced-error options are recorded only when they
        are used, so a model trained without them is the same file as before
        they existed.
        """
        d: dict[str, object] = {
            "min_cases": int(self.min_cases),
            "cf": float(self.cf),
            "prune": bool(self.prune),
            "subsets": bool(self.subsets),
            "criterion": self.criterion,
            "flavor": self.flavor,
        }
        if self.max_depth is not None:
            d["max_depth"] = int(self.max_depth)
        if self.min_gain_ratio:
            d["min_gain_ratio"] = float(self.min_gain_ratio)
        if self.reduced_error:
            d["pruning"] = self.pruning
            d["folds"] = int(self.folds)
            d["seed"] = int(self.seed)
        return d

    @property
    def reduced_error(self) -> bool:
        """Whether the tree is pruned by reduced-error pruning (asked before
        :meth:`validate`: options of other types are not, rather than a ValueError)."""
        pruned = isinstance(self.prune, bool | np.bool_) and bool(self.prune)
        return pruned and one_of(self.pruning, ("reduced-error",))

    def validate(self, names: OptionNames = KEYWORDS) -> None:
        """Raise :class:`TrainError` naming the offending option as ``names`` spell it
        (the API's keywords, or the command line's flags)."""
        if isinstance(self.min_cases, bool) or not isinstance(self.min_cases, int | np.integer):
            raise TrainError("must be an integer", option=names("min_cases"))
        if not 1 <= self.min_cases <= MAX_MIN_CASES:
            raise TrainError(
                f"must be between 1 and {MAX_MIN_CASES} (a C int, as Release 8's -m and "
                f"J48's -M are), got {self.min_cases}",
                option=names("min_cases"),
            )
        _check_number(self.cf, names("cf"))
        if not (0.0 < float(self.cf) < 1.0):
            raise TrainError(
                f"must be between 0 and 1 (exclusive), got {self.cf:g}"
                + percent_hint(float(self.cf), names),
                option=names("cf"),
            )
        if not one_of(self.flavor, FLAVORS):  # before the flavour's own check of cf
            raise TrainError(f"unknown flavor {self.flavor!r}", option=names("flavor"))
        # The flavours compute with CF as Release 8 and J48 do: c45 as a C float (whose
        # log is taken), j48 through the normal quantile of 1 - CF (a double).  A CF that
        # rounds to 0 there raised "math domain error" or "p must be in (0, 1)".
        if self.flavor == "c45":
            rounds = bool(np.float32(self.cf) == 0)
            why = "it rounds to 0 as a C float (Release 8's CF)"
        else:
            rounds = 1.0 - float(self.cf) == 1.0
            why = "1 - CF rounds to 1 (J48's normal quantile needs it below)"
        if rounds:
            raise TrainError(
                f"{self.cf:g} is too small for the {self.flavor} flavour: {why}",
                option=names("cf"),
            )
        if not one_of(self.criterion, CRITERIA):
            raise TrainError(f"unknown criterion {self.criterion!r}", option=names("criterion"))
        _check_bool(self.prune, names("prune"))
        _check_bool(self.subsets, names("subsets"))
        refuse_subsets_with(self.flavor, self.subsets, names)
        refuse_criterion_with(self.flavor, self.criterion, names)
        if self.max_depth is not None:
            _check_int(self.max_depth, 0, names("max_depth"))
        _check_number(self.min_gain_ratio, names("min_gain_ratio"))
        g = float(self.min_gain_ratio)
        if not (0.0 <= g <= 1.0):
            raise TrainError(f"must be between 0 and 1, got {g:g}", option=names("min_gain_ratio"))
        if not one_of(self.pruning, PRUNINGS):
            raise TrainError(f"unknown pruning {self.pruning!r}", option=names("pruning"))
        _check_int(self.folds, 2, names("folds"))
        _check_long(self.seed, names("seed"))


def refuse_subsets_with(flavor: str, subsets: bool, names: OptionNames = KEYWORDS) -> None:
    """:class:`TrainError` where ``--subsets`` meets ``--flavor j48``: the one home of
    that rule, for :class:`TrainOptions` and the trainer's growth functions (on their
    context's flavour).

    The pair would be a hybrid no reference defines: Release 8's grouping search
    under J48's arithmetic, without Release 8's own steps around it (MultiVal, the
    last branch's CheckPossibleValues) and without Weka's orders of sums.  A model
    file that records the pair (written before the rule) still loads and predicts:
    the rule is training's, not the model's."""
    if subsets and flavor == "j48":
        raise TrainError(
            "is Release 8's -s and has no J48 counterpart (Weka's J48 has only -B, "
            f"binary splits): use it with {names.setting('flavor', 'c45')}",
            option=names("subsets"),
        )


def refuse_criterion_with(flavor: str, criterion: str, names: OptionNames = KEYWORDS) -> None:
    """:class:`TrainError` where ``--criterion gain`` meets ``--flavor j48``.

    Weka's J48 has no choice of criterion: its C45ModelSelection always takes the
    largest gain ratio among the tests of at least average gain.  The pair grew a
    hybrid no reference defines (J48's arithmetic, choosing by plain gain with no
    average-gain filter).  As for :func:`refuse_subsets_with`, a model file that
    records the pair still loads and predicts."""
    if criterion == "gain" and flavor == "j48":
        raise TrainError(
            "is Release 8's -g and has no J48 counterpart (Weka's J48 always chooses by "
            f"gain ratio): use it with {names.setting('flavor', 'c45')}",
            option=names("criterion"),
        )


def _check_number(value: object, option: str) -> None:
    """``value`` is a real number (not a bool, not a string) that a double holds, else
    :class:`TrainError` (an int past a double's range raised OverflowError as a float)."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise TrainError(f"must be a number, got {value!r}", option=option)
    try:
        float(value)
    except OverflowError:
        raise TrainError(
            "must be a number a double holds, got a larger one", option=option
        ) from None


def _check_bool(value: object, option: str) -> None:
    """``value`` is True or False, else :class:`TrainError`: the API takes its keywords as
    they come, and ``subsets="no"`` would read as true."""
    if not isinstance(value, bool | np.bool_):
        raise TrainError(f"must be True or False, got {value!r}", option=option)


def _check_long(value: object, option: str) -> None:
    """``value`` is an integer that fits a Java long (J48's -Q seeds a java.util.Random
    with it), else :class:`TrainError`."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TrainError("must be an integer", option=option)
    if not -(2**63) <= value < 2**63:
        raise TrainError(f"must fit a Java long, got {value}", option=option)


def _check_int(value: object, lo: int, option: str) -> None:
    """``value`` is an integer (not a bool) of at least ``lo``, else :class:`TrainError`."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TrainError("must be an integer", option=option)
    if value < lo:
        raise TrainError(f"must be at least {lo}, got {value}", option=option)


LABEL_TYPES: dict[str, Callable[[str], object]] = {
    "str": str,
    "int": int,
    "float": float,
    "bool": lambda s: s == "True",
    "bytes": lambda s: s.encode("utf-8"),  # a class name is its bytes label's UTF-8 text
}
"""How the class labels were typed where a model was trained (``Dataset.labels``):
text, or the type of the ``y`` array, and how a class name turns back into such a
label, so that a loaded model returns labels of the type it was trained on."""

LABEL_KINDS = tuple(LABEL_TYPES)


def label_kind_option(value: object) -> str:
    """A file's ``options.labels`` (default ``"str"``), or InvalidOption if it is none
    of :data:`LABEL_KINDS`."""
    if not one_of(value, LABEL_KINDS):
        raise InvalidOption("labels", f"must be one of {', '.join(LABEL_KINDS)}")
    return str(value)


def _names_a_label(kind: str, name: str) -> bool:
    """Whether ``name`` is a class name that a label of ``kind`` is written as (the
    text ``treegen.data.arrays.label_names`` gives it), so that the label read back
    from it is the one trained on and prints as ``name`` again."""
    if kind == "bool":
        return name in ("True", "False")
    if kind in ("int", "float"):
        try:
            return str(LABEL_TYPES[kind](name)) == name
        except ValueError:  # no number, or an int past the digits Python converts
            return False
    return True  # str and bytes: any text (bytes are its UTF-8)


def check_labels(value: object, classes: Sequence[str]) -> str:
    """A file's ``options.labels`` checked against its class names: a label type each
    name is the text of (an edited ``"int"`` over classes named ``"a"`` made predict
    raise ValueError, and ``"bool"`` read every name but ``"True"`` as False), else
    InvalidOption."""
    kind = label_kind_option(value)
    for name in classes:
        if not _names_a_label(kind, name):
            raise InvalidOption("labels", f"{kind}: the class {name!r} is no {kind} label")
    return kind


def with_labels(options: dict[str, object], labels: str) -> dict[str, object]:
    """``options`` (a file's ``"options"``) recording the labels' type after the rest,
    where they were not text: the one home of that rule (trees, rulesets, committees)."""
    if labels != "str":
        options["labels"] = labels
    return options


_DEFAULT = TrainOptions()


@dataclass(frozen=True)
class ModelOptions:
    """What a tree model records of how it was made (its file's ``"options"``).

    ``train`` is the training options, or None when the model records none (a tree
    built by hand or standing in for another kind's C); ``training`` is them with the
    defaults in that case.  ``labels`` is the class labels' type
    (:data:`LABEL_KINDS`); ``validation`` the fingerprint of the data that
    reduced-error pruning pruned on, when it was given (then no ``folds`` and
    ``seed`` are recorded).  Build one with :meth:`of`, so that it holds what the
    file records and a saved and loaded model's options equal the trained one's.
    """

    train: TrainOptions | None = None
    labels: str = "str"
    validation: str | None = None

    @classmethod
    def of(
        cls, train: TrainOptions, labels: str = "str", validation: str | None = None
    ) -> ModelOptions:
        """The record of a model trained with ``train``: only what the file keeps."""
        made = cls(train, labels, validation)
        return options_from_dict(made.as_dict())

    @property
    def training(self) -> TrainOptions:
        """The training options, the defaults where none are recorded."""
        return self.train if self.train is not None else _DEFAULT

    @property
    def flavor(self) -> Flavor:
        return self.training.flavor

    def as_dict(self) -> dict[str, object]:
        """The file's ``"options"`` object: the training options
        (:meth:`TrainOptions.as_dict`), the validation set, then the labels' type."""
        d = self.train.as_dict() if self.train is not None else {}
        if self.validation is not None:
            d.pop("folds", None)
            d.pop("seed", None)
            d["validation"] = self.validation
        return with_labels(d, self.labels)


class InvalidOption(ValueError):
    """A model file's ``options[key]`` is wrong; ``message`` says how."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}")
        self.key = key
        self.message = message


# The keys a model file's "options" may hold, each with its check.  A file records
# the training options it used (TrainOptions.as_dict); other keys are ignored, so a
# file from a later treegen that records more still loads.
_INTS = ("min_cases", "max_depth", "folds", "seed")
_FLOATS = ("cf", "min_gain_ratio")
_BOOLS = ("prune", "subsets")
_CHOICES: dict[str, tuple[str, ...]] = {
    "criterion": CRITERIA,
    "flavor": FLAVORS,
    "pruning": PRUNINGS,
}


def options_from_dict(d: Mapping[str, object]) -> ModelOptions:
    """The :class:`ModelOptions` a model file's ``"options"`` object records; raises
    :class:`InvalidOption` naming a known key whose value has the wrong type.

    Missing training options take their defaults; an object with none of them
    records no training options (``train`` None)."""
    train: dict[str, object] = {}
    for key, value in d.items():
        if key in _INTS:
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidOption(key, "must be an integer")
        elif key in _FLOATS:
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise InvalidOption(key, "must be a number")
            value = float(value)
        elif key in _BOOLS:
            if not isinstance(value, bool):
                raise InvalidOption(key, "must be true or false")
        elif key in _CHOICES:
            if value not in _CHOICES[key]:
                raise InvalidOption(key, f"must be one of {', '.join(_CHOICES[key])}")
        else:
            continue
        train[key] = value
    labels = label_kind_option(d.get("labels", "str"))
    validation = d.get("validation")
    if validation is not None and not isinstance(validation, str):
        raise InvalidOption("validation", "must be a string")
    return ModelOptions(
        TrainOptions(**train) if train else None,  # type: ignore[arg-type]
        str(labels),
        validation,
    )
