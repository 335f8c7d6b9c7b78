"""A one-tree ensemble whose C exports no doubles returns the class each leaf decides,
computed at export time (EnsembleIR.decided): no value table, no sums, no binary64
routines; with --proba, or more than one tree, the C sums as before.  The leaf's class
is the oracle's (init row plus the leaf's row, then the estimator's decision and tie
rule), which verify and a tie between two classes hold the C to."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from treegen.codegen.options import ExportOptions
from treegen.ensemble.classify import predict, row_classes
from treegen.ensemble.file import ensemble_to_json
from treegen.ensemble.lower import lower_ensemble
from treegen.kinds.check import verify
from treegen.kinds.export import render
from treegen.verify.build import build

from support.cli import run_cli
from support.sklearn_models import fit_setup

sklearn = pytest.importorskip("sklearn")

from sklearn.tree import DecisionTreeClassifier  # noqa: E402

from treegen.ensemble.sklearn import ensemble_from_sklearn  # noqa: E402

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")

# What only the sums need: the value rows, the adder, the binary64 routines and the
# float.h checks on double arithmetic.
SUM_MARKS = ("e_value", "e_add(", "E_SOFT64", "e_f64", "FLT_EVAL_METHOD", "DBL_MANT_DIG")


def _source(files: dict[str, str]) -> str:
    return next(text for name, text in files.items() if name.endswith(".c"))


@pytest.mark.parametrize("missing", ["c45", "none"])
@pytest.mark.parametrize("style", ["table", "ifs"])
def test_one_tree_without_doubles_has_no_sums(style: str, missing: str) -> None:
    ens = fit_setup("tree")
    plain = _source(render(ens, ExportOptions(prefix="e", style=style, missing=missing)).files)  # type: ignore[arg-type]
    for mark in SUM_MARKS:
        assert mark not in plain, mark
    proba = _source(
        render(ens, ExportOptions(prefix="e", style=style, missing=missing, proba=True)).files  # type: ignore[arg-type]
    )
    # The sums are back (the table style's leaves as count rows, not e_value).
    for mark in ("E_SOFT64", "e_f64", "FLT_EVAL_METHOD", "DBL_MANT_DIG", "e_add("):
        assert mark in proba, mark
    assert "e_value" in proba or style == "table"


def test_only_one_tree_without_doubles_is_decided() -> None:
    opts = ExportOptions(prefix="e")
    tree = fit_setup("tree")
    assert lower_ensemble(tree, opts).decided == row_classes(tree)
    assert lower_ensemble(tree, ExportOptions(prefix="e", proba=True)).decided == ()
    assert lower_ensemble(fit_setup("forest"), opts).decided == ()


def _tied() -> tuple[DecisionTreeClassifier, np.ndarray]:
    """A tree whose leaf x <= 0.5 holds one case of each class: values (0.5, 0.5)."""
    X = np.array([[0.0], [0.0], [1.0], [1.0]])
    y = np.array([1, 0, 1, 1])
    est = DecisionTreeClassifier(random_state=0).fit(X, y)
    assert est.get_n_leaves() == 2
    return est, np.array([[0.0], [1.0], [0.25], [np.nan]])


def test_a_tie_goes_to_the_first_class_as_the_estimator_decides() -> None:
    est, rows = _tied()
    ens = ensemble_from_sklearn(est)
    tied = [r for r in ens.values if r[0] == r[1]]
    assert tied, "the fit has no tied leaf"
    classes = row_classes(ens)
    # The first largest: class 0 for the tied row (the last largest would say 1).
    assert [classes[ens.values.index(r)] for r in tied] == [0] * len(tied)
    assert list(predict(ens, rows[:3])) == list(est.predict(rows[:3])) == [0, 1, 0]


@needs_gcc
@pytest.mark.parametrize("missing", ["c45", "none"])
@pytest.mark.parametrize("style", ["table", "ifs"])
def test_the_c_breaks_a_tie_as_the_estimator(style: str, missing: str, tmp_path: Path) -> None:
    est, rows = _tied()
    ens = ensemble_from_sklearn(est)
    opts = ExportOptions(prefix="e", style=style, missing=missing)  # type: ignore[arg-type]
    r = render(ens, opts)
    assert r.lowered.decided  # the class is decided at export time
    known = rows[:3]
    c_cls, _ = build(r.kind.api(r.lowered), r.files, tmp_path).run(known.astype(np.float32))
    assert list(c_cls) == list(est.predict(known)) == [0, 1, 0]
    report = verify(ens, opts, n_random=200)
    assert report.ok, report.text()


@pytest.mark.parametrize("name", ["tree", "forest", "boosting"])
def test_no_proba_is_an_imported_models_default_said_aloud(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--no-proba`` under the default ``--missing c45`` was refused with the C4.5 tree's
    reason (its missing-value rule sums leaf distributions), which an imported model
    does not have: its default is no proba, and saying so is the same C."""
    path = tmp_path / "m.trees"
    path.write_text(ensemble_to_json(fit_setup(name)))
    texts = []
    for extra in ([], ["--no-proba"]):
        out = tmp_path / f"out{len(extra)}"
        code, _, err = run_cli(capsys, "export", str(path), *extra, "-o", str(out))
        assert code == 0, err
        # The same files but for the provenance comment, which names the option.
        texts.append({p.name: p.read_text().split("*/", 1)[1] for p in sorted(out.iterdir())})
    assert texts[0] == texts[1]
