"""The ensemble in the C domain: :class:`EnsembleIR`, its trees and their nodes.

treegen.ensemble.lower makes it from an Ensemble and the export options (every test
encoded for the C input type: that module's docstring has the rules); the emitters, the
layouts and verify's side read it.  A numeric test is a :class:`Split` (``op`` and
``threshold`` in the C domain, the missing-value way ``nan_left``, a LightGBM zero band),
a categorical one a :class:`CatSplit`, a leaf a :class:`LeafRow` (its value row); the
facts of the IR that more than one reader needs are here too: whether the C is a key
walk (:func:`key_walk_fits`, :meth:`EnsembleIR.key_threshold`), whether a test has no
missing-value check (:func:`bare`), whether its table may have an inline top
(:func:`has_top`) and the export's note on its folded tests (:func:`fold_note`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from treegen.codegen.ir import IR, CompareOp, Fold, Framed, ProbaApi
from treegen.codegen.lower import folds_note
from treegen.ensemble.core import Anomaly, CategoricalRule, Decision, Sum


@dataclass(frozen=True, slots=True)
class Split:
    """A numeric test: ``op`` and ``threshold`` in the C domain; ``left`` is the next node."""

    feature: int
    op: CompareOp
    threshold: int | float
    nan_left: bool
    right: int
    cut: float  # the model's threshold (comments)
    zero: bool = False  # a value within ZERO_BAND of 0 goes the missing way too
    # op left/right decided by the tests above (treegen.ensemble.implied), not by the
    # type's range: ``threshold`` is still its integer cut, which verify probes.
    implied: bool = False


@dataclass(frozen=True, slots=True)
class CatSplit:
    """A categorical test: codes in ``left_codes`` go left, other known codes right."""

    feature: int
    left_codes: tuple[int, ...]
    n_codes: int
    nan_left: bool
    right: int


@dataclass(frozen=True, slots=True)
class LeafRow:
    row: int


ENode = Split | CatSplit | LeafRow


@dataclass(frozen=True, slots=True)
class ETree:
    nodes: tuple[ENode, ...]
    output: int
    # Per node (empty: not known), the training weight that reached it (Tree.weight):
    # the inline top's choice (treegen.ensemble.view_top), nothing else.
    weight: tuple[float, ...] = ()


@dataclass(frozen=True, slots=True)
class EnsembleIR(Framed):
    """The ensemble in the C domain.  ``frame`` is a one-leaf tree's IR on the same
    schema and options: the encoding, features, classes, prefix and provenance, which
    predict.h is written from as a tree's is.  The C interface
    (treegen.verify.build.CApi) is the frame's: ``PREFIX_predict`` returns the class."""

    frame: IR
    trees: tuple[ETree, ...]
    values: tuple[tuple[float, ...], ...]
    init: tuple[float, ...]
    divisor: float | None
    decision: Decision
    categories: tuple[tuple[float, ...], ...]
    bound: float | None  # decision "bound": the least sum that is class 1
    # The doubles exported besides the class: predict_proba (a forest's), or
    # decision_function (what the class is decided on: treegen.ensemble.classify's
    # decision_values), or none.
    doubles: Literal["", "proba", "scores", "values"] = ""
    sum: Sum = "float64"
    cut: float = 0.0
    categorical_rule: CategoricalRule = "sklearn"
    n_codes: tuple[int, ...] = ()  # per feature (Ensemble.code_counts)
    # Tests folded to a constant branch (a threshold beyond the input type's values,
    # after --scale), as (tree, fold): the export's note (:func:`fold_note`).
    folds: tuple[tuple[int, Fold], ...] = ()
    # An IsolationForest's scores (doubles "scores"): its denominator and offset.
    anomaly: Anomaly | None = None
    # --missing none: a numeric test other than a zero-band one has no missing-value
    # check, and its nan_left is where a missing value goes anyway (the none rule).
    lean: bool = False
    # One tree and no doubles exported: the class each value row decides
    # (lower.decided_classes), which the C returns for a leaf with that row: no sums.
    decided: tuple[int, ...] = ()
    # --inline-top (None: the default budget), for the table of a decided tree's
    # --missing none C (treegen.ensemble.view_top); no other export has an inline top.
    inline_top: int | None = None

    @property
    def float32_sums(self) -> bool:
        return self.sum == "float32"

    @property
    def has_zero(self) -> bool:
        return any(isinstance(n, Split) and n.zero for t in self.trees for n in t.nodes)

    @property
    def key_walk(self) -> bool:
        """The C compares order keys computed once per prediction, NaN's above every
        threshold (treegen.ensemble.lower's docstring); else each test reads the
        value itself."""
        return self.encoding.uses_keys and key_walk_fits(
            "float", False, self.has_zero, self.n_features
        )

    def key_threshold(self, node: Split) -> int:
        """A key walk's threshold for ``node``: its key, plus 1 where a missing value
        goes left (compared with the value's key plus 1, which wraps NaN's to 0)."""
        return int(node.threshold) + int(node.nan_left and not bare(node, self.lean))

    @property
    def n_outputs(self) -> int:
        return len(self.init)

    @property
    def proba(self) -> bool:
        return False

    @property
    def n_scores(self) -> int:
        """decision_function's columns: one for AdaBoost's two classes (a difference)."""
        return 1 if self.decision == "diff" else self.n_outputs

    @property
    def proba_api(self) -> ProbaApi | None:
        if self.doubles == "values":
            return ProbaApi("predict_bits", "uint32_t", 2 * self.n_outputs, values=True)
        if self.doubles == "proba":
            return ProbaApi("predict_proba", "double", self.n_classes)
        if self.doubles == "scores" and self.anomaly is not None:
            return ProbaApi("scores", "double", 2)  # score_samples, decision_function
        if self.doubles == "scores":
            return ProbaApi("decision_function", "double", self.n_scores)
        return None

    @property
    def vector(self) -> bool:
        """Every leaf adds a whole row (a forest, AdaBoost); else one number to its tree's
        output."""
        return all(t.output < 0 for t in self.trees)


def has_top(ir: EnsembleIR) -> bool:
    """Whether ``ir``'s table C may have an inline top (treegen.ensemble.view_top): a
    single tree's classes decided at export time, under ``--missing none``.  The style
    and missing rule of ``--inline-top`` are the options' checks (ExportOptions)."""
    return bool(ir.decided) and ir.lean


KEY_WALK_FEATURES = 32
"""The most features a key walk keys: its two keys a feature, 4 bytes each, are on the
stack (256 bytes at most, an eighth of an ATmega328P's RAM)."""


def key_walk_fits(input_type: str, categorical: bool, zero: bool, n_features: int) -> bool:
    """Whether float inputs are compared as order keys whatever ``--float-compare`` says
    (the key walk: treegen.ensemble.lower's docstring): float input, no categorical or
    zero-band test (both read the float itself), and at most KEY_WALK_FEATURES features."""
    return input_type == "float" and not (categorical or zero) and n_features <= KEY_WALK_FEATURES


def bare(node: ENode, lean: bool) -> bool:
    """Whether ``node`` is tested with no missing-value check (--missing none:
    treegen.ensemble.lower's docstring)."""
    return lean and isinstance(node, Split) and not node.zero


def fold_note(ir: EnsembleIR) -> str:
    """The export's note on its folded tests, or "" for none."""
    named = [(f"tree {t} node {f.source}", f) for t, f in ir.folds]
    return folds_note(named, ir.encoding, ir.features)
