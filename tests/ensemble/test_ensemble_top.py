"""The inline top of an imported single tree's lean table (``--inline-top``,
treegen.ensemble.view_top): the splits of most reach as nested ifs, each cut edge
going on in the table walk at its row.

The top is chosen by the tree's node weights (scikit-learn's weighted_n_node_samples):
the budget's heaviest splits, ties in pre-order, closed under parents; it picks the
heavier side of a skewed tree, where breadth first would not.  A file without weights
(written before they were stored) gets the breadth-first top it always had.  The C
returns ``estimator.predict`` on test rows, every threshold's float32 neighbours and NaN
rows (the none rule), with either top compiled in and out (PREFIX_INLINE_TOP), with
float compares and keys (PREFIX_FLOATCMP), for the default budget, 1 and every test; a
cut edge sent to a wrong row is caught; the C compiles warning-free under the strict
flags with gcc and clang, c89 and c99; ``--inline-top 0`` is the table alone; an
ensemble of more trees, and a tree exporting doubles, refuse the option in one line.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from treegen.codegen.lean import default_inline_top
from treegen.codegen.options import ExportOptions
from treegen.ensemble import emit
from treegen.ensemble.core import Ensemble
from treegen.ensemble.file import ensemble_from_data, ensemble_to_json
from treegen.ensemble.ir import ETree, LeafRow
from treegen.ensemble.layout import split_rows
from treegen.ensemble.lower import lower_ensemble
from treegen.ensemble.view_top import TopView, top_tests
from treegen.kinds.check import verify
from treegen.kinds.export import render
from treegen.verify.build import STRICT_FLAGS, build

from support.cli import run_cli
from support.sklearn_models import sklearn_thresholds, threshold_rows, with_nan

pytest.importorskip("sklearn")
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")

from sklearn.datasets import make_classification  # noqa: E402
from sklearn.ensemble import RandomForestClassifier  # noqa: E402
from sklearn.tree import DecisionTreeClassifier  # noqa: E402

from treegen.ensemble.sklearn import ensemble_from_sklearn  # noqa: E402
from treegen.ensemble.splice import spliced  # noqa: E402

WHOLE = 100_000  # a budget above every test: the top is the whole tree


@cache
def _fitted(n_features: int) -> tuple[Any, np.ndarray]:
    """A tree of a few hundred tests on ``n_features`` (20: a key walk; 40: none), and
    its test rows: held-out rows, every threshold's float32 neighbours, NaN rows."""
    X, y = make_classification(
        3000, n_features=n_features, n_informative=10, n_classes=3, random_state=0
    )
    est = DecisionTreeClassifier(random_state=0).fit(X[:2000], y[:2000])
    rows = np.vstack(
        [X[2000:], threshold_rows(X, sklearn_thresholds(est)), with_nan(X[2000:2300], 0.2, 3)]
    )
    return est, rows


def _ens(n_features: int = 20) -> Ensemble:
    return ensemble_from_sklearn(_fitted(n_features)[0])


def _unweighted(ens: Ensemble) -> Ensemble:
    """``ens`` as a file written before node weights were stored reads it."""
    d = json.loads(ensemble_to_json(ens))
    for t in d["trees"]:
        del t["weight"]
    back = ensemble_from_data(d, "", "old.trees")
    assert back == replace(ens, trees=tuple(replace(t, weight=()) for t in ens.trees))
    return back


def _parents(tree: ETree) -> dict[int, int]:
    return {
        c: i
        for i, n in enumerate(tree.nodes)
        if not isinstance(n, LeafRow)
        for c in (i + 1, n.right)
    }


def _opts(**kw: Any) -> ExportOptions:
    return ExportOptions(prefix="e", style="table", missing="none", **kw)


def _c(files: dict[str, str]) -> str:
    return next(text for name, text in files.items() if name.endswith(".c"))


def test_the_top_is_the_heaviest_splits_closed_under_parents() -> None:
    tree = lower_ensemble(_ens(), _opts()).trees[0]
    w = tree.weight
    splits = split_rows(tree)
    parent = _parents(tree)
    assert len(w) == len(tree.nodes) and all(w[c] <= w[p] for c, p in parent.items())
    # A child never weighs more than its parent and comes after it, so the greedy
    # choice is the heaviest splits, ties in pre-order.
    heaviest = sorted(splits, key=lambda i: (-w[i], i))
    for budget in (0, 1, 2, 7, 40, len(splits), WHOLE):
        top = top_tests(tree, budget)
        assert top == frozenset(heaviest[:budget])
        assert all(i == 0 or parent[i] in top for i in top)


def test_a_file_without_weights_keeps_the_breadth_first_top() -> None:
    tree = lower_ensemble(_unweighted(_ens()), _opts()).trees[0]
    assert tree.weight == ()
    depth = {0: 0}
    for i, node in enumerate(tree.nodes):
        if not isinstance(node, LeafRow):
            depth[i + 1] = depth[node.right] = depth[i] + 1
    splits = split_rows(tree)
    parent = _parents(tree)
    for budget in (0, 1, 2, 7, 40, len(splits), WHOLE):
        top = top_tests(tree, budget)
        assert len(top) == min(budget, len(splits))
        assert all(i in splits for i in top)
        assert all(i == 0 or parent[i] in top for i in top)
        # Nearest the root first, ties in pre-order: nothing left out comes before.
        last = max(((depth[i], i) for i in top), default=(-1, -1))
        assert all((depth[i], i) > last for i in splits if i not in top)


def test_the_top_takes_the_heavier_side_of_a_skewed_tree() -> None:
    """The root sends most rows one way (3,822 of 4,000) and both sides split deep: the
    weights' top spends its budget past the root on the heavy side, breadth first on
    both sides alike."""
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(4000, 3))
    X[:400, 0] *= 0.1  # 10% of rows left of x0 = 0.1 ...
    X[400:, 0] = 0.1 + 0.9 * X[400:, 0]  # ... 90% right
    y = np.where(X[:, 0] < 0.1, (X[:, 1] * 7).astype(int) % 2, (X[:, 2] * 23).astype(int) % 3)
    est = DecisionTreeClassifier(random_state=0).fit(X, y)
    ens = ensemble_from_sklearn(est)
    opts = _opts(inline_top=12)
    tree = lower_ensemble(ens, opts).trees[0]
    bfs = top_tests(lower_ensemble(_unweighted(ens), opts).trees[0], 12)
    top = top_tests(tree, 12)
    root = tree.nodes[0]
    assert not isinstance(root, LeafRow)
    right = root.right
    heavy = tree.weight[right] > tree.weight[1]  # the right side is the heavier
    light_w, heavy_w = sorted((tree.weight[1], tree.weight[right]))
    assert heavy_w >= 8 * light_w  # the skew (whichever side the root sends it)

    def on_heavy(nodes: frozenset[int]) -> int:
        return sum((i >= right) == heavy for i in nodes if i > 0)

    assert top != bfs
    assert on_heavy(top) > on_heavy(bfs) and on_heavy(top) == len(top) - 1
    assert sum(tree.weight[i] for i in top) > sum(tree.weight[i] for i in bfs)
    # The C says how its top was chosen, and predicts as the estimator either way.
    assert "tests that training cases reach most often" in _c(render(ens, opts).files)
    bfs_c = _c(render(_unweighted(ens), opts).files)
    assert "tests nearest the root (breadth first)" in bfs_c


@needs_gcc
@pytest.mark.parametrize("budget", [None, 1, WHOLE])
@pytest.mark.parametrize(
    "mode",
    [
        {},
        {"float_compare": "int"},
        {"input_type": "double"},
        {"input_type": "int16", "scale": 100},
        {"features": 40},  # no key walk: each test compares x[f] with a float
        {"features": 40, "float_compare": "int"},  # each test keys its input
        {"bfs": True},  # a file without weights: the breadth-first top
        {"features": 40, "float_compare": "int", "bfs": True},
    ],
    ids=["float", "keys", "double", "int16", "float40", "keys40", "float_bfs", "keys40_bfs"],
)
def test_the_c_predicts_as_the_estimator(
    mode: dict[str, Any], budget: int | None, tmp_path: Path
) -> None:
    mode = dict(mode)
    est, rows = _fitted(mode.pop("features", 20))
    ens = ensemble_from_sklearn(est)
    bfs = mode.pop("bfs", False)
    if bfs:
        ens = _unweighted(ens)
    opts = _opts(inline_top=budget, **mode)
    r = render(ens, opts)
    # The table's rows: the tests left in the C (on integer inputs a test its path
    # decides is none: treegen.ensemble.splice).
    n_rows = len(split_rows(spliced(r.lowered).trees[0]))
    want = default_inline_top(n_rows) if budget is None else min(budget, n_rows)
    which = "nearest the root" if bfs else "that training cases reach most often"
    assert want > 0 and f"the {want} tests {which}" in _c(r.files)
    known = ~np.isnan(rows).any(axis=1)
    if mode.get("input_type") == "int16":
        rows = rows[known][:400]  # the scaled domain: verify's own rows below
        known = np.ones(len(rows), dtype=bool)
    ctype = {"double": np.float64}.get(mode.get("input_type", ""), np.float32)
    for flags in ("", "-DE_FLOATCMP=0", "-DE_INLINE_TOP=0"):
        d = tmp_path / f"b{len(flags)}"
        d.mkdir()
        if mode.get("input_type") != "int16":
            built = build(r.kind.api(r.lowered), r.files, d, cc=f"gcc {flags}".strip())
            c_cls, _ = built.run(rows.astype(ctype))
            x = rows.astype(ctype).astype(np.float64)
            assert np.array_equal(c_cls[known], est.predict(x[known])), flags
        report = verify(ens, opts, n_random=300, cc=f"gcc {flags}".strip(), workdir=d)
        assert report.rows > 300 and report.failed_rows == 0, report.text()


@needs_gcc
def test_a_cut_edge_at_a_wrong_row_is_caught(tmp_path: Path) -> None:
    est, rows = _fitted(20)
    r = render(ensemble_from_sklearn(est), _opts(inline_top=8))
    source = next(name for name in r.files if name.endswith(".c"))
    text = r.files[source]
    cuts = re.findall(r"return e_rest\(x, k, (\d+)u\);", text)
    assert len(cuts) > 4
    known = rows[~np.isnan(rows).any(axis=1)].astype(np.float32)
    right, _ = build(r.kind.api(r.lowered), r.files, tmp_path / "right").run(known)
    assert np.array_equal(right, est.predict(known.astype(np.float64)))
    # Each cut edge one row on: the walk starts at the wrong test, and rows differ.
    shifted = re.sub(
        r"return e_rest\(x, k, (\d+)u\);", lambda m: f"return e_rest(x, k, {int(m[1]) + 1}u);", text
    )
    files = {**r.files, source: shifted}
    wrong, _ = build(r.kind.api(r.lowered), files, tmp_path / "wrong").run(known)
    assert not np.array_equal(wrong, right)


def test_inline_top_zero_is_the_table_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    ens = _ens()
    zero = render(ens, _opts(inline_top=0)).files
    assert "INLINE_TOP" not in _c(zero) and "e_top0" not in _c(zero)
    monkeypatch.setattr(emit, "top_view", lambda *args: TopView())
    alone = render(ens, _opts()).files
    # The same C and header but for the provenance comment, which names the option.
    assert alone.keys() == zero.keys()
    for name, text in alone.items():
        assert text.split("*/", 1)[1] == zero[name].split("*/", 1)[1]


def test_other_exports_have_no_top() -> None:
    ens = _ens()
    for opts in (
        ExportOptions(prefix="e", style="table"),  # --missing c45
        ExportOptions(prefix="e", style="ifs", missing="none"),
        _opts(proba=True),
    ):
        assert "INLINE_TOP" not in _c(render(ens, opts).files)


STRICT = [f for f in STRICT_FLAGS if not f.startswith("-std=")]


@needs_gcc
@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_every_setting_compiles_strict(cc: str, tmp_path: Path) -> None:
    if shutil.which(cc) is None:
        pytest.skip(f"{cc} is not installed")
    errors = {}
    for features, mode in ((20, {}), (20, {"input_type": "int16", "scale": 100}), (40, {})):
        for budget in (None, 1, WHOLE):
            ens = ensemble_from_sklearn(_fitted(features)[0])
            files = render(ens, _opts(inline_top=budget, **mode)).files
            d = tmp_path / f"{features}-{len(mode)}-{budget}"
            d.mkdir()
            for name, text in files.items():
                (d / name).write_text(text)
            source = next(n for n in files if n.endswith(".c"))
            for std in ("-std=c89", "-std=c99"):
                for macros in ((), ("-DE_INLINE_TOP=0",), ("-DE_FLOATCMP=0",)):
                    p = subprocess.run(
                        [cc, std, *STRICT, *macros, "-c", source, "-o", "p.o"],
                        cwd=d,
                        capture_output=True,
                        text=True,
                        check=False,
                    )
                    if p.returncode or p.stderr:
                        errors[f"{d.name} {std} {macros}"] = p.stderr[:800]
    assert errors == {}


@pytest.mark.parametrize(
    ("model", "extra"),
    [("forest", []), ("tree", ["--proba"])],
)
def test_an_unsupported_top_is_a_one_line_error(
    model: str, extra: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if model == "forest":
        X, y = make_classification(300, n_features=5, random_state=0)
        ens = ensemble_from_sklearn(RandomForestClassifier(3, random_state=0).fit(X, y))
    else:
        ens = _ens()
    path = tmp_path / "m.trees"
    path.write_text(ensemble_to_json(ens))
    out = tmp_path / "out"
    argv = ["export", str(path), "--style", "table", "--missing", "none", "--inline-top", "3"]
    code, stdout, err = run_cli(capsys, *argv, *extra, "-o", str(out))
    assert code == 2 and stdout == "" and err.count("\n") == 1, err
    assert "--inline-top" in err and "Traceback" not in err
    assert not out.exists()
    # A single tree without doubles takes it.
    if model == "tree":
        code, _, err = run_cli(capsys, *argv, "-o", str(out))
        assert code == 0, err
        text = "".join(p.read_text() for p in out.glob("*.c"))
        assert "#if M_INLINE_TOP" in text and "m_top0(x, k)" in text


@pytest.mark.toolchain
@pytest.mark.parametrize("chip", ["avr", "m0plus"])
def test_the_top_on_the_chips(chip: str) -> None:
    """On the M0+ the top is compiled in by default (keys first, PREFIX_FLOATCMP 0); on
    AVR it is left out unless PREFIX_INLINE_TOP is 1, defined here to run it there too
    (the tables in PROGMEM either way)."""
    from treegen.firmware import targets
    from treegen.firmware.parity import verify_on

    if not targets.available(targets.target(chip), run=True):
        pytest.skip(f"{chip}: its compiler or simulator is not installed")
    X, y = make_classification(600, n_features=8, n_informative=5, n_classes=3, random_state=0)
    ens = ensemble_from_sklearn(DecisionTreeClassifier(max_depth=7, random_state=0).fit(X, y))
    opts = _opts()
    r = render(ens, opts)
    assert "#if E_INLINE_TOP" in _c(r.files)
    files = dict(r.files)
    if chip == "avr":
        source = next(n for n in files if n.endswith(".c"))
        files[source] = "#define E_INLINE_TOP 1\n" + files[source]
    result = verify_on(ens, opts, [], [chip], n_random=100, files=files)
    assert result.report.ok, result.report.text()
    assert result.runs[chip].done.all()
