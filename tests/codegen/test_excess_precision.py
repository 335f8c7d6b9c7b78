"""A tree's, a ruleset's and a one-tree ensemble's C are exact under excess precision.

With x87 arithmetic (FLT_EVAL_METHOD 2: gcc -m32 on i386, or -mfpmath=387) ISO C
evaluates a floating constant such as ``0.73285f`` in long double: ``x <= 0.73285f``
then compares x with the decimal 0.73285, not with its float, and a value equal to the
float threshold goes the wrong way.  The C must compare with the threshold's own float
(or double) there too.  On x86-64 gcc's -mfpmath=387 gives that arithmetic in a library
cffi loads, so verify's comparison runs it.
"""

from __future__ import annotations

import platform

import numpy as np
import pytest

from treegen.codegen.literals import compared_literal
from treegen.codegen.lower import lower
from treegen.codegen.options import ExportOptions
from treegen.data.dataset import Attribute, Schema
from treegen.kinds.check import verify
from treegen.rules.core import Condition, Rule, RuleSet
from treegen.verify.build import have_compiler

from support import codegen_models as cm

X87 = "gcc -mfpmath=387"
needs_x87 = pytest.mark.skipif(
    not have_compiler("gcc") or platform.machine() not in ("x86_64", "AMD64"),
    reason="needs gcc on x86-64 (-mfpmath=387)",
)


def test_inexact_constants_are_cast_exact_ones_stay() -> None:
    enc = lower(cm.golf(), ExportOptions()).encoding
    dbl = lower(cm.golf(), ExportOptions(input_type="double")).encoding
    assert compared_literal(enc, float(np.float32(0.73285))) == "(float)0.73285f"
    assert compared_literal(enc, 75.0) == "75.0f"
    assert compared_literal(enc, -2.5) == "-2.5f"
    assert compared_literal(dbl, 0.1) == "(double)0.1"
    assert compared_literal(dbl, 0.375) == "0.375"


@needs_x87
@pytest.mark.parametrize("missing", ["c45", "none"])
@pytest.mark.parametrize("input_type", ["float", "double"])
@pytest.mark.parametrize("flavor", ["c45", "j48"])
def test_tree_ifs_under_x87(flavor: str, input_type: str, missing: str) -> None:
    # synthetic(5)'s thresholds include decimals no float or double holds exactly.
    model = cm.synthetic(5, 120)
    model = cm.as_c45(model) if flavor == "c45" else model
    opts = ExportOptions(prefix="xp", style="ifs", input_type=input_type, missing=missing)  # type: ignore[arg-type]
    report = verify(model, opts, cc=X87, n_random=200)
    assert report.ok, report.text()


@needs_x87
@pytest.mark.parametrize("flavor", ["c45", "j48"])
def test_ruleset_under_x87(flavor: str) -> None:
    schema = Schema(
        (Attribute("a", "continuous"), Attribute("b", "continuous")), ("x", "y"), "class"
    )
    t = float(np.float32(0.73285)) if flavor == "c45" else 0.1
    rules = (
        Rule(1, (Condition(0, "<=", threshold=t),), 0, 0.1),
        Rule(2, (Condition(1, ">", threshold=t),), 0, 0.1),
    )
    rs = RuleSet(schema, rules, default=1, flavor=flavor)
    report = verify(rs, ExportOptions(prefix="xr"), cc=X87, n_random=100)
    assert report.ok, report.text()


@needs_x87
@pytest.mark.parametrize(("n_features", "input_type"), [(4, "float"), (40, "float"), (4, "double")])
@pytest.mark.parametrize("missing", ["c45", "none"])
def test_one_tree_ensemble_ifs_under_x87(n_features: int, input_type: str, missing: str) -> None:
    # A one-tree ensemble without doubles (decided) has no sums, so no #error on x87:
    # its float tests (a key walk's PREFIX_LE on few features, plain compares on many)
    # and double ones must compare with the threshold's own value.  It returned
    # another class on 58 of 1,279 rows under -mfpmath=387 (and under s390's ISO modes).
    sklearn_tree = pytest.importorskip("sklearn.tree")
    from treegen.ensemble.sklearn import ensemble_from_sklearn

    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, n_features))
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0.1).astype(int)
    est = sklearn_tree.DecisionTreeClassifier(max_depth=6, random_state=0).fit(X, y)
    opts = ExportOptions(prefix="xe", style="ifs", input_type=input_type, missing=missing)  # type: ignore[arg-type]
    report = verify(ensemble_from_sklearn(est), opts, cc=X87, n_random=200)
    assert report.ok, report.text()
