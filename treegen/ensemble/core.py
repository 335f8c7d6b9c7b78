"""The ensemble kind's value: trees whose leaf values are summed in float64, then decided.

Every scikit-learn ensemble treegen imports is the same computation with other
constants (docs/ensembles.md states each estimator's arithmetic):

1. ``raw = init`` (``n_outputs`` float64 numbers: gradient boosting's baseline, zeros
   for a forest or AdaBoost);
2. for every tree in estimator order, the leaf a row reaches adds its value row to
   ``raw`` in float64, one IEEE addition per output: the whole row (a forest's class
   probabilities, AdaBoost's vote) or one number to output ``tree.output`` (a boosting
   stage's tree for class k);
3. ``raw`` divided by ``divisor`` (a forest's tree count, AdaBoost's weight sum), when
   there is one;
4. the class by ``decision``: the first largest output (``argmax``), or for one output
   class 1 when ``raw >= 0`` (``ge0``: GradientBoosting) or ``raw > 0`` (``gt0``:
   HistGradientBoosting) or ``raw > cut`` (``gt``: XGBoost's and LightGBM's binary
   objectives, ``cut`` the margin where the library's sigmoid passes 0.5), or for
   AdaBoost's two classes class 1 when ``-raw[0] + raw[1] > 0`` (``diff``); a
   regressor (``value``) has no class: the outputs are its prediction, one float64
   number each (treegen.ensemble.regress); an IsolationForest's (``bound``) is class 1
   (an inlier) when ``raw >= boundary``, the summed path length derived at export
   (treegen.ensemble.isolation).

The sums are float64 additions, or float32 ones (``sum="float32"``: XGBoost, whose
values, init and cut are then float32 numbers).

A tree's tests compare a feature with a float64 threshold, ``x <= t`` left, as
``float32(x) <= t`` (``compare="float32"``: scikit-learn's trees read X as float32) or
``x <= t`` in float64 (``compare="float64"``: HistGradientBoosting); NaN goes the way the
node says (``nan_left``).  A categorical test (HistGradientBoosting) sends the codes in
its ``left`` set left, the other known codes right, and NaN and codes it does not know
the missing way (``categorical_rule="sklearn"``); LightGBM's and XGBoost's rules read
the code as the value truncated toward zero and send every code outside the set right
(treegen.ensemble.classify.codes).  A node with ``zero_missing`` (LightGBM's missing type
Zero) sends a value within ``ZERO_BAND`` of 0, as NaN, the missing way.  Nodes are flat
tuples in pre-order, root 0, so nothing recurses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from treegen.data.dataset import Schema

Method = Literal["forest", "boosting", "hist", "adaboost", "xgboost", "lightgbm"]
Decision = Literal["argmax", "ge0", "gt0", "gt", "diff", "value", "bound"]
Compare = Literal["float32", "float64"]
Sum = Literal["float64", "float32"]
CategoricalRule = Literal["sklearn", "lightgbm", "xgboost"]

METHODS: tuple[Method, ...] = ("forest", "boosting", "hist", "adaboost", "xgboost", "lightgbm")
DECISIONS: tuple[Decision, ...] = ("argmax", "ge0", "gt0", "gt", "diff", "value", "bound")
COMPARES: tuple[Compare, ...] = ("float32", "float64")
SUMS: tuple[Sum, ...] = ("float64", "float32")
CATEGORICAL_RULES: tuple[CategoricalRule, ...] = ("sklearn", "lightgbm", "xgboost")

NAN_REFUSED: tuple[Method, ...] = ("boosting", "adaboost")
"""The methods whose estimators' ``predict`` raises on NaN (scikit-learn's
GradientBoosting and AdaBoost): their ensembles' Python predictions refuse NaN too
(treegen.ensemble.classify.refuse_unanswered; but for a one-class AdaBoost predict_proba
answers, as scikit-learn's reads no X); their C, which cannot raise, sends NaN down
each node's missing-value side (``nan_left``: scikit-learn's ``missing_go_to_left``, as
the fitted trees' own ``tree_.predict`` does), and verify holds it to that."""

NAN_REFUSED_OPTION = "nan"
"""The option saying (value ``"refused"``) that an ensemble's estimator's ``predict``
raises on NaN where its method alone does not say so: scikit-learn's single extra trees
fitted with ``splitter="best"`` (treegen.ensemble.sktree.source_options)."""

INF_REFUSED_OPTION = "inf"
"""The option saying (value ``"refused"``) that an ensemble's estimator's ``predict``
raises on a value float32 does not hold as a finite number (+-inf, or a double that
rounds to one): scikit-learn's trees, forests, GradientBoosting and AdaBoost read X as
finite float32 (treegen.ensemble.sktree.source_options; HistGradientBoosting and
IsolationForest take any value).  As with NaN, the Python predictions refuse it too
(treegen.ensemble.classify.refuse_unanswered) and the C, which cannot raise, answers it
by its comparisons."""

ZERO_BAND = 1.0000000180025095e-35
"""LightGBM's ``kZeroThreshold`` (``1e-35f`` as a double): its prediction reads a value
within this of 0 as 0, and a split of missing type Zero sends such a value (and NaN)
the missing way."""

LEAF = -1
"""``feature`` of a leaf, and ``left``/``right`` of a leaf."""


@dataclass(frozen=True, slots=True)
class Tree:
    """One tree; node ``i``'s fields are the ``i``-th of each tuple.

    A split has ``feature >= 0``, children ``left``/``right`` (after it, pre-order), a
    ``threshold`` (numeric) or a ``left_codes`` set (categorical: ``categorical[i]``),
    and ``nan_left``.  A leaf has ``feature == LEAF`` and ``value``: its row of
    :attr:`Ensemble.values`.  ``output`` is the raw output a scalar leaf value adds to
    (-1: the value row is a whole vector, one number per output).
    """

    feature: tuple[int, ...]
    threshold: tuple[float, ...]
    left: tuple[int, ...]
    right: tuple[int, ...]
    nan_left: tuple[bool, ...]
    categorical: tuple[bool, ...]
    left_codes: tuple[tuple[int, ...], ...]
    value: tuple[int, ...]
    output: int = -1
    zero_missing: tuple[bool, ...] = ()
    """Per node (empty: none): a value within ZERO_BAND of 0 goes the missing way."""
    weight: tuple[float, ...] = ()
    """Per node (empty: not known): the training weight that reached it (scikit-learn's
    ``weighted_n_node_samples``).  It never changes a prediction: only a single tree's
    inline top reads it, to choose its tests by reach (treegen.ensemble.view_top)."""

    @property
    def n_nodes(self) -> int:
        return len(self.feature)

    def zero(self, i: int) -> bool:
        return bool(self.zero_missing) and self.zero_missing[i]

    def is_leaf(self, i: int) -> bool:
        return self.feature[i] == LEAF

    @property
    def n_leaves(self) -> int:
        return sum(1 for f in self.feature if f == LEAF)

    def depth(self) -> int:
        """Longest root-to-leaf path in edges (children follow parents: one pass)."""
        depth = [0] * self.n_nodes
        for i in range(self.n_nodes):
            if self.feature[i] != LEAF:
                depth[self.left[i]] = depth[self.right[i]] = depth[i] + 1
        return max(depth)


@dataclass(frozen=True, slots=True)
class Anomaly:
    """An IsolationForest's constants (treegen.ensemble.isolation): the path-length sum
    is divided by ``denominator`` for the score ``-2 ** -(sum / denominator)``, which
    less ``offset`` is ``decision_function``; ``boundary`` is the least sum that
    ``predict`` calls an inlier."""

    denominator: float
    offset: float
    boundary: float

    @property
    def unit(self) -> bool:
        """Every row's quotient is 1: a denominator of 0 (one training sample a tree),
        where scikit-learn divides nothing (its ``np.divide`` ``where``)."""
        return self.denominator == 0


@dataclass(frozen=True)
class Ensemble:
    """A tree ensemble and the float64 arithmetic of its prediction (module docstring).

    ``categories[f]`` is, for a categorical feature read as a number, the raw values its
    codes stand for (the code is the index of the value equal to x; no equal value is
    missing); empty for a feature whose input is the code itself (a nominal attribute of
    the schema) or that is numeric.
    """

    schema: Schema
    method: Method
    trees: tuple[Tree, ...]
    values: tuple[tuple[float, ...], ...]
    init: tuple[float, ...]
    divisor: float | None
    decision: Decision
    compare: Compare
    categories: tuple[tuple[float, ...], ...] = ()
    options: dict[str, object] = field(default_factory=dict)
    treegen_version: str = ""
    data_fingerprint: str = ""
    sum: Sum = "float64"
    cut: float = 0.0  # decision "gt": class 1 when raw > cut
    categorical_rule: CategoricalRule = "sklearn"
    anomaly: Anomaly | None = None  # the decision "bound"'s constants

    @property
    def n_outputs(self) -> int:
        return len(self.init)

    @property
    def refuses_nan(self) -> bool:
        """Whether the estimator's ``predict`` raises on NaN (:data:`NAN_REFUSED`,
        :data:`NAN_REFUSED_OPTION`)."""
        return self.method in NAN_REFUSED or self.options.get(NAN_REFUSED_OPTION) == "refused"

    @property
    def refuses_infinite(self) -> bool:
        """Whether the estimator's ``predict`` raises on a value float32 cannot hold
        finite (:data:`INF_REFUSED_OPTION`)."""
        return self.options.get(INF_REFUSED_OPTION) == "refused"

    @property
    def estimator_name(self) -> str | None:
        """The estimator the ensemble was imported from, as messages name it (its
        ``source`` option without scikit-learn's "sklearn " prefix: "RandomForestClassifier",
        "XGBoost binary:logistic"); None where the file records none."""
        source = self.options.get("source")
        return None if source is None else str(source).removeprefix("sklearn ")

    @property
    def regressor(self) -> bool:
        """The outputs are the prediction (no class): ``schema.classes`` names them."""
        return self.decision == "value"

    @property
    def compares_float32(self) -> bool:
        """True when a value meets a threshold as float32 (and data files are read so)."""
        return self.compare == "float32"

    @property
    def n_nodes(self) -> int:
        return sum(t.n_nodes for t in self.trees)

    @property
    def n_leaves(self) -> int:
        return sum(t.n_leaves for t in self.trees)

    def depth(self) -> int:
        return max((t.depth() for t in self.trees), default=0)

    def code_counts(self) -> tuple[int, ...]:
        """Per feature, the codes a categorical test can send left: ``0 .. n-1`` (a
        nominal attribute's values, the category table's entries, else one past the
        largest code any test lists); 0 for a feature no categorical test reads."""
        top = [0] * len(self.schema.attributes)
        for t in self.trees:
            for i, f in enumerate(t.feature):
                if f != LEAF and t.categorical[i]:
                    top[f] = max(top[f], max(t.left_codes[i], default=-1) + 1)
        out = []
        for f, a in enumerate(self.schema.attributes):
            if self.categories and self.categories[f]:
                out.append(len(self.categories[f]))
            elif a.values:
                out.append(len(a.values))
            else:
                out.append(top[f])
        return tuple(out)
