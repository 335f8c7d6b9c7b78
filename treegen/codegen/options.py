"""The export options: one typed, frozen record, checked where it is built.

:class:`ExportOptions` is what ``treegen export`` / ``verify`` take on the command line
and what :meth:`treegen.Model.export_c` and ``verify`` take from Python (as a record, or
as keyword overrides of the defaults).  Every field is checked in ``__post_init__``, so
a record that exists is valid on its own (an error names the flag on the command line,
the keyword from Python: :func:`~treegen.model.optnames.as_callers`); what depends on
the model (a scale naming an attribute it lacks, a missing value that is one of its
codes) is checked when it is lowered (:mod:`treegen.codegen.lower`).
:func:`option_words` writes the options back as
command-line words, in one canonical order, for the generated files' provenance.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal, get_args

from treegen.codegen.ctype import INPUT_TYPES
from treegen.codegen.names import check_prefix
from treegen.errors import EmitError, EncodingError, TreegenError, UsageError
from treegen.model.optnames import as_callers, one_of

Style = Literal["ifs", "table"]
"""``ifs``: nested if/else and switch; ``table``: a static node table walked by a loop."""
STYLES: tuple[Style, ...] = get_args(Style)

InputType = Literal["float", "double", "int8", "int16", "int32", "uint8", "uint16", "uint32"]
"""The element type of the feature array (treegen.codegen.ctype.TYPES, in its order)."""
assert get_args(InputType) == INPUT_TYPES, "InputType lists treegen.codegen.ctype.TYPES"

FloatCompare = Literal["float", "int"]
"""``int``: compare float inputs as integer keys of their bits (no float instruction)."""
FLOAT_COMPARES: tuple[FloatCompare, ...] = get_args(FloatCompare)

MissingRule = Literal["c45", "none"]
"""``c45``: a missing value splits the case over every branch (Release 8).  ``none``:
the caller promises no value is missing; a value that is NaN or the sentinel anyway
takes one fixed path (treegen.codegen.lean)."""
MISSING_RULES: tuple[MissingRule, ...] = get_args(MissingRule)

Scale = float | int | Fraction | str
"""A scale K as the API takes it: a number, or its text (``"1/10"``)."""


def scale_what(name: str | None) -> str:
    """How an error names a scale K: ``K``, or ``NAME's K`` for one feature's (after
    the option's own name: ``--scale: x0's K -1 must be positive``)."""
    return "K" if name is None else f"{name}'s K"


def _fraction(value: object, what: str) -> Fraction:
    """``value`` as a scale K; ``what`` names it in an error (:func:`scale_what`)."""
    if isinstance(value, bool) or not isinstance(value, float | int | Fraction | str):
        raise UsageError(f"{what} {value!r} is not a number", option="--scale")
    try:
        k = Fraction(value.strip()) if isinstance(value, str) else Fraction(value)
    except (ValueError, ZeroDivisionError, OverflowError):
        raise UsageError(f"{what} '{value}' is not a number", option="--scale") from None
    check_scale(k, value, what)
    return k


def check_scale(k: Fraction, shown: object, what: str = "K") -> None:
    """The rule for a scale K (``shown`` as the user wrote it, ``what`` naming it:
    :func:`scale_what`): positive, and no larger than a double (verify and the
    fixed-point model divide and compare in doubles; a K too small for one is fine,
    x/K then saturating)."""
    if k <= 0:
        raise UsageError(f"{what} {shown} must be positive", option="--scale")
    try:
        float(k)
    except OverflowError:
        raise UsageError(f"{what} {shown} is beyond a double's range", option="--scale") from None


@dataclass(frozen=True, slots=True)
class ExportOptions:
    """How a model is compiled to C (``treegen export --help`` says what each does).

    ``prefix`` None takes the model's name (its file's stem, else the kind's default);
    ``name`` is the stem of the files, ``NAME.c`` and ``NAME.h`` (None: ``PREFIX_predict``
    when ``prefix`` is given, else ``predict``: :func:`file_stem`);
    ``scale`` is K for every continuous feature (the API also takes ``{name: K}`` there),
    ``feature_scales`` K per feature by name; ``proba`` None means "yes with --missing
    c45, no with --missing none".
    """

    prefix: str | None = None
    style: Style | None = None  # None: the kind's own default (its first style)
    input_type: InputType = "float"
    float_compare: FloatCompare = "float"
    scale: Fraction | None = None
    feature_scales: tuple[tuple[str, Fraction], ...] = ()
    missing_value: int | None = None
    missing: MissingRule = "c45"
    proba: bool | None = None
    scores: bool = False  # an ensemble's decision_function (treegen.ensemble)
    inline_top: int | None = None
    name: str | None = None

    def __post_init__(self) -> None:
        try:
            self._settle()
        except TreegenError as err:
            # Built from Python (treegen.ExportOptions(input_type="foo")), no keyword_errors
            # wrapper surrounds it: the error names input_type, not --input-type.
            as_callers(err)
            raise

    def _settle(self) -> None:
        """Every field checked, the scales in their stored form (module docstring)."""
        # The API's forms of the scales become their one stored form (Fractions).
        scale: object = self.scale
        per = list(_pairs(self.feature_scales))
        if isinstance(scale, Mapping):
            per += [(str(n), k) for n, k in scale.items()]
            scale = None
        # A mapping's scales moved to feature_scales leave none here: kept, they were
        # taken again by every replace() of the record ("K given more than once").
        object.__setattr__(
            self, "scale", None if scale is None else _fraction(scale, scale_what(None))
        )
        named = [n for n, _ in per]
        twice = next((n for i, n in enumerate(named) if n in named[:i]), None)
        if twice is not None:  # the last K was used, and the header recorded both
            raise UsageError(f"{twice}=K given more than once", option="--scale")
        object.__setattr__(
            self, "feature_scales", tuple((n, _fraction(k, scale_what(n))) for n, k in per)
        )
        for value, option in ((self.prefix, "--prefix"), (self.name, "--name")):
            if value is not None and not isinstance(value, str):  # the API's, as they come
                raise UsageError(f"must be a str, not {value!r}", option=option)
        if self.prefix is not None:
            check_prefix(self.prefix)
        if self.name is not None:
            check_name(self.name)
        if self.style is not None and not one_of(self.style, STYLES):
            raise EmitError(f"unknown style {self.style!r} (choose ifs or table)", option="--style")
        if not one_of(self.input_type, INPUT_TYPES):
            raise EncodingError(
                f"unknown input type {self.input_type!r} (choose from {', '.join(INPUT_TYPES)})",
                option="--input-type",
            )
        if not one_of(self.float_compare, FLOAT_COMPARES):
            raise EncodingError(
                f"unknown float compare {self.float_compare!r}", option="--float-compare"
            )
        if not one_of(self.missing, MISSING_RULES):
            raise EncodingError(
                f"unknown missing-value rule {self.missing!r} (choose c45 or none)",
                option="--missing",
            )
        self._check_types()
        self._check_combinations()

    def _check_types(self) -> None:
        # The API hands its keywords over as they come: "yes" would read as true and
        # -1 as a depth before either was refused.
        if self.proba is not None and not isinstance(self.proba, bool):
            raise UsageError(f"must be True, False or None, not {self.proba!r}", option="--proba")
        if not isinstance(self.scores, bool):
            raise UsageError(f"must be True or False, not {self.scores!r}", option="--scores")
        for field, option in (("inline_top", "--inline-top"), ("missing_value", "--missing-value")):
            value = getattr(self, field)
            if value is None:
                continue
            # numbers.Integral: numpy's integers too (np.int64(5) was "not an integer")
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise UsageError(f"must be an integer, not {value!r}", option=option)
            object.__setattr__(self, field, int(value))  # stored as a plain int
        if self.inline_top is not None and self.inline_top < 0:
            raise UsageError(f"{self.inline_top} is negative", option="--inline-top")

    def _check_combinations(self) -> None:
        is_int = self.input_type not in ("float", "double")
        if self.float_compare == "int" and self.input_type != "float":
            raise EncodingError("int needs --input-type float", option="--float-compare")
        if not is_int and (self.scale is not None or self.feature_scales):
            raise EncodingError("needs an integer --input-type", option="--scale")
        if not is_int and self.missing_value is not None:
            raise EncodingError(
                "needs an integer --input-type (floats use NaN)",
                option="--missing-value",
            )
        if self.inline_top is not None and (
            self.missing != "none" or self.style not in (None, "table")
        ):
            raise UsageError(
                "applies only to --style table with --missing none", option="--inline-top"
            )
        if self.scores and self.proba:
            raise UsageError(
                "cannot go with --proba: they export different functions", option="--scores"
            )

    @property
    def wants_proba(self) -> bool:
        """Whether predict_proba is exported (``proba``, or its default for ``missing``)."""
        return self.missing == "c45" if self.proba is None else self.proba

    def check_distributions(self) -> None:
        """Raise unless a C4.5 tree's C keeps its leaf distributions: its ``--missing
        c45`` rule sums them, so ``--no-proba`` needs ``--missing none``.  Checked where
        a tree or a committee is lowered, not here: an imported model's or a ruleset's
        C has no such rule, and ``--no-proba`` is what it exports anyway."""
        if self.missing == "c45" and self.proba is False:
            raise EncodingError(
                "--no-proba needs --missing none: the C4.5 missing-value rule sums leaf "
                "distributions",
                option="--proba",
            )

    @property
    def scaled(self) -> frozenset[str]:
        """Names of the features given a scale by name."""
        return frozenset(n for n, _ in self.feature_scales)


def _pairs(spec: object) -> Iterable[tuple[str, object]]:
    """``feature_scales`` as (name, K) pairs: a mapping, or pairs; anything else (the
    CLI's text "x0=2") is a UsageError, not a ValueError from unpacking it."""
    if isinstance(spec, Mapping):
        return [(str(n), k) for n, k in spec.items()]
    items = list(spec) if isinstance(spec, list | tuple) else None
    if items is None or not all(isinstance(p, list | tuple) and len(p) == 2 for p in items):
        raise UsageError(  # the API's alone: the command line's scales are pairs
            f"must be {{name: K}} or (name, K) pairs, not {spec!r}", option="feature_scales"
        )
    return [(str(n), k) for n, k in items]


def scale_options(scales: Iterable[tuple[str | None, Fraction]]) -> dict[str, object]:
    """``--scale`` values (K, or NAME=K, repeatable) as ExportOptions fields."""
    pairs = list(scales)
    default = [k for name, k in pairs if name is None]
    if len(default) > 1:
        raise UsageError("K given more than once", option="--scale")
    return {
        "scale": default[0] if default else None,
        "feature_scales": tuple((name, k) for name, k in pairs if name is not None),
    }


_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*\Z")


def check_name(name: str) -> str:
    """Return ``name`` if it can name the exported files (NAME.c, NAME.h), else raise."""
    if not _NAME.match(name) or name.endswith((".c", ".h")) or len(name) > 100:
        raise UsageError(
            f"{name!r} cannot name the files: letters, digits, '_', '.' and '-' only, not "
            "starting with '.' or '-', no folder (-o chooses it) and no .c or .h",
            option="--name",
        )
    return name


def file_stem(opts: ExportOptions) -> str:
    """The stem of the exported files: ``name``; else ``PREFIX_predict`` for an explicit
    prefix, so that two models with their own prefixes can share one source folder;
    else ``predict``.  Call it before the prefix is settled from the model's name."""
    return stem_of(opts.prefix, opts.name)


def stem_of(prefix: str | None, name: str | None) -> str:
    """:func:`file_stem` of the options as given, not checked (the CLI's overwrite
    check runs before any option is)."""
    if name is not None:
        return name
    return f"{prefix}_predict" if prefix is not None else "predict"


def option_words(opts: ExportOptions, prefix: str, styles: tuple[Style, ...] = STYLES) -> list[str]:
    """The export options as command-line words in a canonical order (provenance and
    regeneration); ``--style`` only for a kind with more than one of ``styles``."""
    words = ["--target", "c"]
    if len(styles) > 1:
        words += ["--style", opts.style or styles[0]]
    words += ["--input-type", opts.input_type]
    if opts.float_compare != "float":
        words += ["--float-compare", opts.float_compare]
    if opts.scale is not None:
        words += ["--scale", str(opts.scale)]
    for name, k in opts.feature_scales:
        words += ["--scale", f"{name}={k}"]
    if opts.missing_value is not None:
        words += ["--missing-value", str(opts.missing_value)]
    if opts.missing != "c45":
        words += ["--missing", opts.missing]
    if opts.proba is not None:
        words += ["--proba" if opts.proba else "--no-proba"]
    if opts.scores:
        words += ["--scores"]
    if opts.inline_top is not None:
        words += ["--inline-top", str(opts.inline_top)]
    # The files' stem, when --prefix (always written below) would not give it.
    if opts.name is not None and opts.name != f"{prefix}_predict":
        words += ["--name", opts.name]
    return words + ["--prefix", prefix]
