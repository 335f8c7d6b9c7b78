"""The seeds' pruning options: --max-depth, --min-gain-ratio, reduced-error pruning, ID3.

* Pre-pruning (seed 003): a node at depth ``--max-depth`` stays a leaf; a
  chosen test with a gain ratio below ``--min-gain-ratio`` is not made.
  Both growth engines give the same model bit for bit with either option.
* Reduced-error pruning, ``--prune reduced-error --folds 3``, must build
  the tree live Weka J48 ``-R -N 3`` builds (j48 flavour) on the reference
  ARFF files and on the Weka differential test's generated sets; J48's
  fold split (stratify, trainCV with ``java.util.Random``, testCV) is
  checked on its own.  ``--validation FILE`` prunes on that file.
* ID3 (``--criterion gain``) on the seeds' play-tennis example picks
  outlook at the root with gain 0.246, as seeds 001/002 print.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from treegen.data import synthetic
from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.data.readers import read_dataset
from treegen.data.weka_rows import JavaRandom, stratified_order
from treegen.errors import TrainError
from treegen.model.core import Model
from treegen.model.options import ModelOptions
from treegen.trainer import TrainOptions, train
from treegen.trainer.pruning.reduced import j48_split

from support import reftrees as rt
from support.weka import (
    REF,
    REFERENCE,
    SEEDS,
    compile_driver,
    differential_files,
    java_or_skip,
    printed_j48,
    run_j48,
)

REP = TrainOptions(flavor="j48", pruning="reduced-error", folds=3)


def _depth(model: Model) -> int:
    return model.depth()


def _grown_depth(ds: Dataset, j48: bool) -> int:
    """Depth of the tree as grown, before growth's collapse."""
    from treegen.trainer.fit import grow
    from treegen.trainer.options import GrowOptions
    from treegen.trainer.tables import build_context
    from treegen.trainer.tree import flatten

    root = grow(
        build_context(ds, 2, j48),
        GrowOptions("gainratio", collapse=False),
    )
    return Model(ds.schema, flatten(root), ModelOptions(), "", "").depth()


# ------------------------------------------------------------ pre-pruning


@pytest.mark.parametrize("seed", [0, 3, 5, 8])
@pytest.mark.parametrize("flavor", ["c45", "j48"])
def test_max_depth_bounds_the_tree_and_engines_agree(seed: int, flavor: str) -> None:
    ds = synthetic.generate(synthetic.random_spec(seed, max_rows=1200))
    full = train(ds, TrainOptions(flavor=flavor, prune=False))  # type: ignore[arg-type]
    assert _depth(full) >= 2, "the test needs a tree deeper than the limits tried"
    for limit in (0, 1, 2):
        for prune in (False, True):
            opts = TrainOptions(flavor=flavor, prune=prune, max_depth=limit)  # type: ignore[arg-type]
            level = train(ds, opts, engine="level")
            assert level.nodes == train(ds, opts, engine="dfs").nodes
            assert _depth(level) <= limit
            assert level.options.training.max_depth == limit
    # A limit growth does not reach changes nothing (growth before its
    # collapse, which can make the final tree shallower).
    deep = TrainOptions(flavor=flavor, prune=False, max_depth=_grown_depth(ds, flavor == "j48"))  # type: ignore[arg-type]
    assert train(ds, deep).nodes == full.nodes


def test_max_depth_zero_is_one_leaf() -> None:
    ds = read_dataset(str(REF / "golf" / "golf.names"))
    model = train(ds, TrainOptions(max_depth=0, prune=False))
    assert model.size == 1 and model.nodes[0].kind == "leaf"


@pytest.mark.parametrize("seed", [0, 3, 5, 8])
@pytest.mark.parametrize("flavor", ["c45", "j48"])
def test_min_gain_ratio_shrinks_the_tree_and_engines_agree(seed: int, flavor: str) -> None:
    ds = synthetic.generate(synthetic.random_spec(seed, max_rows=1200))
    sizes = []
    for g in (0.0, 0.02, 0.1, 0.3, 1.0):
        opts = TrainOptions(flavor=flavor, prune=False, min_gain_ratio=g)  # type: ignore[arg-type]
        level = train(ds, opts, engine="level")
        assert level.nodes == train(ds, opts, engine="dfs").nodes
        sizes.append(level.size)
    default = train(ds, TrainOptions(flavor=flavor, prune=False))  # type: ignore[arg-type]
    assert sizes[0] == default.size
    assert sizes == sorted(sizes, reverse=True)
    assert sizes[0] > sizes[-1], "the threshold must remove some test on this data"


def test_min_gain_ratio_is_checked_on_the_chosen_test() -> None:
    """Golf's root test (outlook, gain ratio 0.156) survives 0.15 and is refused at 0.16."""
    ds = read_dataset(str(REF / "golf" / "golf.names"))
    kept = train(ds, TrainOptions(prune=False, min_gain_ratio=0.15))
    assert (
        kept.nodes[0].kind == "nominal" and ds.attributes[kept.nodes[0].attribute].name == "outlook"
    )
    refused = train(ds, TrainOptions(prune=False, min_gain_ratio=0.16))
    assert refused.size == 1


@pytest.mark.parametrize(
    ("kwargs", "option"),
    [
        ({"max_depth": -1}, "^max_depth: "),
        ({"max_depth": 1.5}, "^max_depth: "),
        ({"min_gain_ratio": 1.5}, "^min_gain_ratio: "),
        ({"pruning": "cost-complexity"}, "^prune: "),
        ({"folds": 1}, "^folds: "),
    ],
)
def test_bad_values_name_the_option(kwargs: dict[str, object], option: str) -> None:
    ds = read_dataset(str(REF / "golf" / "golf.names"))
    with pytest.raises(TrainError, match=option):
        train(ds, TrainOptions(**kwargs))  # type: ignore[arg-type]


def test_default_models_record_no_new_options() -> None:
    """Models trained without the new options have the same options record as before."""
    ds = read_dataset(str(REF / "golf" / "golf.names"))
    assert list(train(ds).options.as_dict()) == [
        "min_cases",
        "cf",
        "prune",
        "subsets",
        "criterion",
        "flavor",
    ]


# ------------------------------------------------------ J48's fold split


def test_java_random_matches_java() -> None:
    """java.util.Random's nextInt, as OpenJDK 17 printed it for these seeds and bounds.

    Bound 10 and 100: the rejection loop's modulo path; 2**30 + 5: a bound
    whose rejection actually triggers; 64: the power-of-two path; seed -3:
    a negative seed.
    """
    cases = [
        (1, 10, [5, 8, 7, 3, 4]),
        (42, 100, [30, 63, 48]),
        (7, 1 << 30 | 5, [20678044, 747989380, 1053566254, 755731200]),
        (-3, 64, [17, 62, 22]),
    ]
    for seed, bound, want in cases:
        r = JavaRandom(seed)
        assert [r.next_int(bound) for _ in want] == want


def test_stratified_split_keeps_every_row_once_and_the_class_balance() -> None:
    y = np.asarray([0, 1, 1, 0, 2, 1, 0, 0, 1, 2, 2, 0, 1], dtype=np.int32)
    order = stratified_order(y, 3)
    assert sorted(order) == list(range(y.size))
    grow, prune = j48_split(y, 3, 1)
    assert sorted(grow.tolist() + prune.tolist()) == list(range(y.size))
    assert prune.size == y.size // 3  # 13 rows: the last fold has the floor
    for c in range(3):  # each class is spread over the folds
        assert 0 < np.count_nonzero(y[prune] == c) < np.count_nonzero(y == c)


# ------------------------------------------------- reduced-error vs Weka


@pytest.fixture(scope="module")
def weka_rep(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    java = java_or_skip("the Weka comparison")
    work = tmp_path_factory.mktemp("weka_rep")
    files = differential_files(work)
    out = run_j48(java, compile_driver(work), files, ("-R", "-N", "3"))
    # The options reached J48: its -R tree on crx is not its default tree.
    default = rt.parse_j48((REF / "crx" / "j48.out").read_text()).tree
    assert rt.diff(rt.parse_j48(out["crx"]).tree, default) != []
    return out


def _same_as_weka(text: str, ds: Dataset, label: str) -> None:
    ref = rt.parse_j48(text)
    for engine in ("level", "dfs"):
        model = train(ds, REP, engine=engine)  # type: ignore[arg-type]
        tree = printed_j48(model)  # J48 prints a leaf from its parent's counts
        diffs = rt.diff(tree, ref.tree)
        assert diffs == [], (
            f"{label} ({engine})\ntreegen:\n{rt.render(tree)}\nweka:\n{rt.render(ref.tree)}"
        )
        assert (model.size, model.n_leaves) == (ref.size, ref.n_leaves)


@pytest.mark.parametrize("name", REFERENCE)
@pytest.mark.toolchain
def test_reduced_error_equals_weka_on_reference_sets(weka_rep: dict[str, str], name: str) -> None:
    _same_as_weka(weka_rep[name], read_dataset(str(REF / name / f"{name}.arff")), name)


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_reduced_error_equals_weka_on_generated_sets(weka_rep: dict[str, str], seed: int) -> None:
    spec = synthetic.random_spec(seed)
    _same_as_weka(weka_rep[f"gen{seed}"], synthetic.generate(spec), str(spec))


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(synthetic.special_datasets()))
def test_reduced_error_equals_weka_on_corner_cases(weka_rep: dict[str, str], name: str) -> None:
    _same_as_weka(weka_rep[f"special-{name}"], synthetic.special_datasets()[name], name)


def test_reduced_error_prunes_and_records_its_options() -> None:
    ds = synthetic.generate(synthetic.random_spec(7, max_rows=1500))
    rep = train(ds, REP)
    grown_on_folds = train(ds, TrainOptions(flavor="j48", prune=False))
    assert rep.size < grown_on_folds.size
    assert rep.options.training.pruning == "reduced-error"
    assert (rep.options.training.folds, rep.options.training.seed) == (3, 1)
    other_seed = train(ds, TrainOptions(flavor="j48", pruning="reduced-error", seed=2))
    assert other_seed.options.training.seed == 2


@pytest.mark.parametrize("flavor", ["c45", "j48"])
def test_validation_set_prunes_on_its_rows(flavor: str) -> None:
    """--validation: grown on all the training rows, pruned on the other file's.

    Pruning on the training rows themselves removes nothing a leaf does not
    fix on them; pruning on an independent sample prunes, and both engines agree.
    """
    spec = synthetic.random_spec(11, max_rows=1500)
    ds = synthetic.generate(spec)
    rows = np.arange(ds.n_rows)
    train_ds, valid_ds = ds.subset(rows[rows % 3 != 0]), ds.subset(rows[rows % 3 == 0])
    opts = TrainOptions(flavor=flavor, pruning="reduced-error")  # type: ignore[arg-type]
    level = train(train_ds, opts, validation=valid_ds)
    assert level.nodes == train(train_ds, opts, engine="dfs", validation=valid_ds).nodes
    unpruned = train(train_ds, TrainOptions(flavor=flavor, prune=False))  # type: ignore[arg-type]
    assert level.size < unpruned.size
    assert level.options.validation == valid_ds.fingerprint()
    assert "folds" not in level.options.as_dict()
    # Every leaf's training numbers are those of the rows that reach it.
    assert sum(n.items for n in level.nodes if n.kind == "leaf") == pytest.approx(train_ds.n_rows)


def test_validation_needs_reduced_error_and_the_same_schema() -> None:
    golf = read_dataset(str(REF / "golf" / "golf.names"))
    with pytest.raises(TrainError, match="^validation: .*prune='reduced-error'$"):
        train(golf, TrainOptions(), validation=golf)
    vote = read_dataset(str(REF / "vote-r8" / "vote-r8.arff"))
    with pytest.raises(TrainError, match="other attributes"):
        train(golf, TrainOptions(pruning="reduced-error"), validation=vote)


# ---------------------------------------------------------------- ID3


def _play_tennis() -> Dataset:
    """The seeds' (Quinlan 1986) 14-day play-tennis table, every attribute nominal."""
    rows = """sunny hot high weak no|sunny hot high strong no|overcast hot high weak yes|
    rain mild high weak yes|rain cool normal weak yes|rain cool normal strong no|
    overcast cool normal strong yes|sunny mild high weak no|sunny cool normal weak yes|
    rain mild normal weak yes|sunny mild normal strong yes|overcast mild high strong yes|
    overcast hot normal weak yes|rain mild high strong no"""
    table = [r.split() for r in rows.split("|")]
    values = [
        ("sunny", "overcast", "rain"),
        ("hot", "mild", "cool"),
        ("high", "normal"),
        ("weak", "strong"),
    ]
    names = ["outlook", "temperature", "humidity", "wind"]
    atts = tuple(Attribute(n, "nominal", v) for n, v in zip(names, values, strict=True))
    X = np.asarray([[values[j].index(r[j]) for j in range(4)] for r in table], dtype=np.float64)
    y = np.asarray([("no", "yes").index(r[4]) for r in table], dtype=np.int32)
    return Dataset(Schema(atts, ("no", "yes"), "play"), X, y, "play-tennis")


def test_id3_on_the_seeds_play_tennis_example() -> None:
    """Root gains as the seeds print them (0.940 - 0.694 = 0.246, ...), then their tree."""
    from treegen.trainer.nominal import eval_nominal
    from treegen.trainer.tables import build_context

    ds = _play_tennis()
    ctx = build_context(ds, 2, False)
    rows = np.arange(ds.n_rows, dtype=np.intp)
    scores = eval_nominal(ctx, list(range(4)), rows, np.ones(ds.n_rows, dtype=np.float32), 14.0)
    printed = {"outlook": 0.246, "humidity": 0.151, "wind": 0.048, "temperature": 0.029}
    for a, s in scores.items():  # the seeds truncate to three decimals
        assert math.floor(s.gain * 1000) / 1000 == printed[ds.attributes[a].name]
    model = train(ds, TrainOptions(criterion="gain", prune=False))
    root = model.nodes[0]
    assert ds.attributes[root.attribute].name == "outlook"
    sunny, overcast, rain = (model.nodes[i] for i in root.children)
    assert overcast.kind == "leaf" and ds.classes[overcast.cls] == "yes"
    assert ds.attributes[sunny.attribute].name == "humidity"
    assert ds.attributes[rain.attribute].name == "wind"
    assert model.size == 8
    from treegen.model.classify import predict

    assert (predict(model, ds.X) == ds.y).all()  # 100% on the 14 days, as the seeds report


# ------------------------------------------------- CLI, API, estimator


def test_cli_options_reach_the_model(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from treegen.model.file import load_model

    from support.cli import run_cli

    data = str(REF / "crx" / "crx.arff")
    out = tmp_path / "rep.tree"
    code, _, err = run_cli(
        capsys,
        "train",
        data,
        "-o",
        str(out),
        "--flavor",
        "j48",
        "--prune",
        "reduced-error",
        "--folds",
        "3",
        "--quiet",
    )
    assert code == 0, err
    model = load_model(str(out))
    assert model.nodes == train(read_dataset(data), REP).nodes
    assert model.options.training.pruning == "reduced-error"
    out2 = tmp_path / "pre.tree"
    code, _, err = run_cli(
        capsys,
        "train",
        data,
        "-o",
        str(out2),
        "--max-depth",
        "2",
        "--min-gain-ratio",
        "0.05",
        "--quiet",
    )
    assert code == 0, err
    pre = load_model(str(out2))
    assert pre.depth() <= 2 and pre.options.training.max_depth == 2
    assert pre.options.training.min_gain_ratio == 0.05
    valid = str(REF / "crx" / "crx.test")
    names = str(REF / "crx" / "crx.names")
    code, _, err = run_cli(
        capsys,
        "train",
        names,
        "-o",
        str(tmp_path / "v.tree"),
        "--prune",
        "reduced-error",
        "--validation",
        valid,
        "--quiet",
    )
    assert code == 0, err
    assert "validation" in load_model(str(tmp_path / "v.tree")).options.as_dict()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--max-depth", "-1"], "--max-depth"),
        (["--min-gain-ratio", "2"], "--min-gain-ratio"),
        (["--folds", "1"], "--folds"),
        (["--prune", "cost"], "--prune"),
        (["--validation", "x.csv"], "--validation: needs --prune reduced-error"),
    ],
)
def test_cli_bad_values_are_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], message: str
) -> None:
    from support.cli import run_cli

    code, _, err = run_cli(
        capsys, "train", str(REF / "golf" / "golf.names"), "-o", str(tmp_path / "g.tree"), *argv
    )
    assert code == 2
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) <= 2  # argparse: usage line + the error line


def test_cv_keeps_its_own_folds_and_takes_reduced_error(capsys: pytest.CaptureFixture[str]) -> None:
    from support.cli import run_cli

    code, out, err = run_cli(
        capsys,
        "cv",
        str(REF / "crx" / "crx.arff"),
        "--folds",
        "4",
        "--flavor",
        "j48",
        "--prune",
        "reduced-error",
        "--prune-folds",
        "3",
    )
    assert code == 0, err
    assert out


def test_api_and_estimator_take_the_options() -> None:
    import treegen

    data = str(REF / "crx" / "crx.arff")
    model = treegen.train(data, flavor="j48", prune="reduced-error", folds=3, seed=1)
    assert model.nodes == train(read_dataset(data), REP).nodes
    shallow = treegen.train(data, max_depth=1, min_gain_ratio=0.01)
    assert shallow.depth() <= 1 and shallow.options.training.max_depth == 1
    valid = treegen.train(
        str(REF / "crx" / "crx.names"),
        prune="reduced-error",
        validation=str(REF / "crx" / "crx.test"),
    )
    assert "validation" in valid.options.as_dict()
    with pytest.raises(TrainError, match="^prune: "):
        treegen.train(data, prune="sometimes")  # type: ignore[arg-type]

    ds = synthetic.generate(synthetic.random_spec(7, max_rows=800))
    est = treegen.C45Classifier(flavor="j48", prune="reduced-error", max_depth=4)
    est.fit(ds.X, ds.y)
    assert est.model_.depth() <= 4
    assert est.model_.options.training.pruning == "reduced-error"
    assert est.get_params()["max_depth"] == 4


def test_reduced_error_counts_a_node_as_j48s_max_class() -> None:
    """J48 -R counts a node's pruning errors against ``maxClass`` of its growing-set
    weights (``errorsForLeaf``), the first class unless another is heavier by more than
    1e-6, not the first largest: two classes equal but for rounding (fractional weights
    of unknown values) name the first.  The campaign's 5,471-row set (-R -N 3 -Q 7) kept
    a test J48 pruned this way.  Here the root's weights are (2, 2.0000001): as k0 it
    misclassifies none of the two pruning cases (both k0), its subtree one, so it
    becomes a leaf; counted as k1 (the first largest) it would misclassify both."""
    from treegen.trainer.pruning.reduced import reduced_error_prune
    from treegen.trainer.tables import build_context
    from treegen.trainer.tree import TNode

    schema = Schema((Attribute("a", "nominal", ("x", "y")),), ("k0", "k1"), "class")
    prune_ds = Dataset(schema, np.array([[0.0], [1.0]]), np.array([0, 0], dtype=np.int32))
    dist = np.array([2.0, 2.0000001])
    root = TNode("nominal", 1, float(dist.sum()), 0.0, dist, attribute=0)
    root.children = [
        TNode("leaf", 0, 2.0, 0.0, np.array([2.0, 0.0])),
        TNode("leaf", 1, 2.0000001, 0.0, np.array([0.0, 2.0000001])),
    ]
    reduced_error_prune(build_context(prune_ds, 2, True), root)
    assert root.kind == "leaf" and root.children == []
