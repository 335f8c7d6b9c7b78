"""Case weights through the Python API: ``treegen.train(..., weights=w)`` and
``C45Classifier.fit(X, y, sample_weight=w)``.

In the c45 flavour a whole-number weight is that many copies of the row: with no
missing value the tree (its tests, thresholds, leaf classes and weighted counts) is the
tree of the data with each row repeated.  The j48 flavour counts rows where J48 counts
instances (a continuous test needs enough rows with known values), so there the
weighted tree is J48's on weighted instances, which is not always the copies' tree:
tests/trainer/test_j48_weights_weka.py holds the trainer's weights to live J48.  The
estimator's tree is the API's.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import treegen
from treegen.data import synthetic
from treegen.data.readers import read_dataset
from treegen.errors import TreegenError

FLAVORS = ["c45", "j48"]


def _arrays(seed: int) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """A generated set's X (nominal columns as codes), labels and nominal columns, with
    the rows that have a missing value left out."""
    ds = synthetic.generate(synthetic.random_spec(seed))
    keep = ~np.isnan(ds.X).any(axis=1)
    nominal = [j for j, a in enumerate(ds.attributes) if a.is_nominal]
    return ds.X[keep], np.asarray(ds.classes)[ds.y[keep]], nominal


def _nodes(model: treegen.Model) -> list[object]:
    """The tree's nodes, without the branch counts a j48 tree keeps only when its cases
    carry fractional weights (J48's own counts, by which it splits a missing value:
    the weighted tree has them, the tree of the copies has no need of them)."""
    return [
        replace(n, per_bag=(), bag_dist=()) if hasattr(n, "per_bag") else n
        for n in model.value.nodes
    ]


@pytest.mark.parametrize("seed", [3, 8, 21, 34])
def test_whole_weights_are_copies_of_the_rows(seed: int) -> None:
    flavor = "c45"
    X, y, nominal = _arrays(seed)
    w = np.random.default_rng(seed).integers(1, 4, size=y.size)
    weighted = treegen.train((X, y), nominal=nominal, flavor=flavor, weights=w)
    copies = treegen.train(
        (np.repeat(X, w, axis=0), np.repeat(y, w)), nominal=nominal, flavor=flavor
    )
    assert _nodes(weighted) == _nodes(copies)
    assert np.array_equal(weighted.predict(X), copies.predict(X))
    # and the weights shaped the tree: unweighted it is another one on these sets
    plain = treegen.train((X, y), nominal=nominal, flavor=flavor)
    assert _nodes(plain) != _nodes(weighted)


@pytest.mark.parametrize("flavor", FLAVORS)
def test_unit_weights_are_no_weights(flavor: str) -> None:
    X, y, nominal = _arrays(5)
    ones = treegen.train((X, y), nominal=nominal, flavor=flavor, weights=np.ones(y.size))
    plain = treegen.train((X, y), nominal=nominal, flavor=flavor)
    assert _nodes(ones) == _nodes(plain)


def test_a_class_of_weight_zero_is_never_predicted() -> None:
    X, y, nominal = _arrays(8)
    gone = np.unique(y)[0]
    model = treegen.train((X, y), nominal=nominal, weights=np.where(y == gone, 0.0, 1.0))
    assert gone in set(treegen.train((X, y), nominal=nominal).predict(X))
    assert gone not in set(model.predict(X))


@pytest.mark.parametrize("flavor", FLAVORS)
def test_sample_weight_is_the_api_weights(flavor: str) -> None:
    X, y, nominal = _arrays(13)
    w = np.random.default_rng(0).random(y.size) * 3
    est = treegen.C45Classifier(flavor=flavor, nominal=nominal).fit(X, y, sample_weight=w)
    model = treegen.train((X, y), nominal=nominal, flavor=flavor, weights=w)
    assert _nodes(est.to_model()) == _nodes(model)
    assert np.array_equal(est.predict_proba(X), model.predict_proba(X))


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        (lambda n: np.ones(n - 1), "one number per row"),
        (lambda n: np.full(n, -1.0), "finite and not negative"),
        (lambda n: np.full(n, np.nan), "finite and not negative"),
        (lambda n: np.zeros(n), "all zero"),
        (lambda n: ["a"] * n, "must be numbers"),
        # Finite, but their sums would overflow the c45 flavour's float32 (3e38 + 3e38).
        (lambda n: np.full(n, 3e38), "add up to .*more than 2\\*\\*100"),
        (lambda n: np.append(np.ones(n - 1), 2.0**101), "more than 2\\*\\*100"),
    ],
)
def test_bad_weights_are_one_line_errors(weights: object, message: str) -> None:
    X, y, nominal = _arrays(3)
    w = weights(y.size)  # type: ignore[operator]
    with pytest.raises(TreegenError, match=message) as info:
        treegen.train((X, y), nominal=nominal, weights=w)
    assert "\n" not in str(info.value)
    with pytest.raises(ValueError, match=message):
        treegen.C45Classifier(nominal=nominal).fit(X, y, sample_weight=w)


@pytest.mark.parametrize("committee", [{"boost": 3}, {"bag": 3}])
def test_committees_take_no_weights(committee: dict[str, int]) -> None:
    X, y, nominal = _arrays(3)
    with pytest.raises(TreegenError, match="boost and bag") as info:
        treegen.train((X, y), nominal=nominal, weights=np.ones(y.size), **committee)  # type: ignore[arg-type]
    assert info.value.option == "weights"


def test_reduced_error_pruning_takes_no_weights() -> None:
    X, y, nominal = _arrays(3)
    with pytest.raises(TreegenError, match="no case weights"):
        treegen.train((X, y), nominal=nominal, prune="reduced-error", weights=np.ones(y.size) * 2)


def test_a_weighted_files_rows_predict_without_their_weights(tmp_path: Path) -> None:
    """Model.predict and predict_proba read a weighted ARFF file as ``treegen predict``
    does (the weights left out: the same answers as for the file without them);
    Model.verify refuses it, as ``treegen verify`` does."""
    ds = synthetic.generate(synthetic.random_spec(3))
    plain = synthetic.write_arff(ds, tmp_path / "plain.arff")
    head, _, body = plain.read_text().partition("@data\n")
    rows = [f"{r},{{{i % 3 + 0.5}}}" for i, r in enumerate(body.splitlines())]
    weighted = tmp_path / "weighted.arff"
    weighted.write_text(head + "@data\n" + "\n".join(rows) + "\n", encoding="utf-8")
    model = treegen.train(str(plain))
    assert np.array_equal(model.predict(str(weighted)), model.predict(str(plain)))
    assert model.predict_proba(str(weighted)).tobytes() == model.predict_proba(str(plain)).tobytes()
    with pytest.raises(TreegenError, match="instance weights"):
        model.verify(str(weighted))


def test_a_files_weight_column(tmp_path: Path) -> None:
    """``weight_column`` is the CLI's --weights: a CSV file with one trains the tree of
    the same rows written as weighted ARFF (its nominal values declared in the CSV's
    first-seen order); arrays and train_rules refuse it."""
    ds = synthetic.generate(synthetic.random_spec(2, max_rows=300))
    ds = ds.subset(np.flatnonzero(ds.y >= 0))
    w = np.random.default_rng(2).uniform(0.1, 2.0, ds.n_rows)
    cells = ["wt", *(repr(float(x)) for x in w)]
    csv = tmp_path / "w.csv"
    lines = synthetic.csv_text(ds).splitlines()
    csv.write_text("".join(f"{c},{line}\n" for c, line in zip(cells, lines, strict=True)))
    model = treegen.train(str(csv), flavor="j48", weight_column="wt")
    read = read_dataset(str(csv), weight_column="wt")
    head, _, body = synthetic.arff_text(read).partition("@data\n")
    arff = tmp_path / "w.arff"
    rows = [f"{r},{{{float(x)!r}}}" for r, x in zip(body.splitlines(), w, strict=True)]
    arff.write_text(head + "@data\n" + "\n".join(rows) + "\n")
    twin = treegen.train(str(arff), flavor="j48")
    assert model.predict_proba(str(arff)).tobytes() == twin.predict_proba(str(arff)).tobytes()
    with pytest.raises(TreegenError, match="weight_column: is for a data file"):
        treegen.train(ds.X, np.asarray(ds.classes)[ds.y], weight_column="wt")
    with pytest.raises(TreegenError, match="weight_column: a ruleset is made from unweighted"):
        treegen.train_rules(str(csv), weight_column="wt")  # type: ignore[call-arg]
