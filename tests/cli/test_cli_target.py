"""``--target NAME`` wherever labelled data is read for a model.

Each command that reads DATA was checked: train, cv and rules grow their schema from
DATA and had ``--target``; ``eval`` reads the labels of a model's data and gains it;
``predict`` and ``verify`` never look at the labels, so they no longer read them (a class
column they cannot decode was an error); ``import-sklearn`` takes ``--target`` (and
``--feature-names``) so that an imported model names its columns as the user's data.

The properties run over generated datasets (attribute kinds, class counts, missing
values) written as CSV and ARFF with the class column renamed and the columns shuffled.
"""

from __future__ import annotations

import math
import pickle
from pathlib import Path

import numpy as np
import pytest

import treegen
from treegen.data.dataset import Dataset, Schema
from treegen.data.synthetic import generate, random_spec

from support.cli import required_argv, run_cli, subparsers

SEEDS = range(12)


def _cells(ds: Dataset, order: list[int], labels: list[str]) -> list[list[str]]:
    rows = []
    for x, label in zip(ds.X.tolist(), labels, strict=True):
        cells = []
        for j in order:
            a, v = ds.attributes[j], x[j]
            cells.append("?" if math.isnan(v) else repr(v) if a.is_continuous else a.values[int(v)])
        rows.append([*cells, label])
    return rows


def write_as(
    ds: Dataset,
    path: Path,
    class_name: str,
    *,
    order: list[int] | None = None,
    labels: list[str] | None = None,
) -> Path:
    """``ds`` as CSV or ARFF (by ``path``'s suffix), its columns in ``order``, the class
    column called ``class_name`` and holding ``labels`` (default: the true classes).  The
    generated names and values need no quoting in either format."""
    order = list(range(len(ds.attributes))) if order is None else order
    labels = [ds.classes[c] for c in ds.y.tolist()] if labels is None else labels
    rows = _cells(ds, order, labels)
    if path.suffix == ".csv":
        header = [ds.attributes[j].name for j in order] + [class_name]
        text = "".join(",".join(r) + "\n" for r in [header, *rows])
    else:
        decl = []
        for j in order:
            a = ds.attributes[j]
            kind = "numeric" if a.is_continuous else "{" + ",".join(a.values) + "}"
            decl.append(f"@attribute {a.name} {kind}")
        values = sorted(set(labels) | set(ds.classes))
        decl.append(f"@attribute {class_name} {{{','.join(values)}}}")
        text = "@relation r\n" + "\n".join(decl) + "\n@data\n"
        text += "".join(",".join(r) + "\n" for r in rows)
    path.write_text(text)
    return path


def _dataset(seed: int) -> Dataset:
    return generate(random_spec(seed, max_rows=300))


@pytest.mark.slow
@pytest.mark.parametrize("suffix", [".csv", ".arff"])
def test_eval_with_target_is_eval_on_the_files_own_class_column(
    suffix: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """For every generated dataset, a tree and a ruleset: ``eval --target NAME`` on the
    file with the class column renamed (and the columns shuffled) prints exactly what
    ``eval`` prints on the file as the model names it; without ``--target`` the labels
    are not found."""
    for seed in SEEDS:
        ds = _dataset(seed)
        rng = np.random.default_rng(seed)
        plain = write_as(ds, tmp_path / f"plain{suffix}", "class")
        order = [int(j) for j in rng.permutation(len(ds.attributes))]
        name = f"label_{seed}"
        renamed = write_as(ds, tmp_path / f"renamed{suffix}", name, order=order)
        tree, rules = tmp_path / "m.tree", tmp_path / "m.rules"
        assert run_cli(capsys, "train", str(plain), "-o", str(tree))[0] == 0
        assert run_cli(capsys, "rules", str(plain), "-o", str(rules))[0] == 0
        for model in (tree, rules):
            want = run_cli(capsys, "eval", str(model), str(plain))
            assert want[0] == 0, want
            got = run_cli(capsys, "eval", str(model), str(renamed), "--target", name)
            assert got == want, (seed, model.name)
            # Every kind (a ruleset too) refuses data with no labelled row in one line.
            code, out, err = run_cli(capsys, "eval", str(model), str(renamed))
            assert code == 2 and out == "", (model.name, out)
            assert "no row has a value in the class column 'class'" in err
            assert "--target" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("command", ["predict", "verify"])
def test_predict_and_verify_do_not_read_labels(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A class column holding labels the model does not know (another encoding of the
    classes, say) changes nothing: the same output as for the file without it."""
    for seed in SEEDS[:6]:
        ds = _dataset(seed)
        plain = write_as(ds, tmp_path / "plain.csv", "class")
        tree = tmp_path / "m.tree"
        assert run_cli(capsys, "train", str(plain), "-o", str(tree))[0] == 0
        other = [f"other{c}" for c in ds.y.tolist()]
        odd = write_as(ds, tmp_path / "odd.csv", "class", labels=other)
        extra = ["--random", "20"] if command == "verify" else []
        want = run_cli(capsys, command, str(tree), str(plain), *extra)
        got = run_cli(capsys, command, str(tree), str(odd), *extra)
        assert want[0] == 0 and got == (want[0], want[1].replace("plain.csv", "odd.csv"), want[2])


def test_every_command_that_reads_labels_takes_target() -> None:
    from treegen.cli.main import build_parser

    parser = build_parser()
    labelled = {"train", "cv", "rules", "eval", "import-sklearn"}
    for name, sub in subparsers().items():
        if name in labelled:
            args, extra = parser.parse_known_args([name, *required_argv(sub), "--target", "y"])
            assert extra == [] and "y" in vars(args).values(), name


def test_target_errors_name_the_option_and_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ds = _dataset(3)
    plain = write_as(ds, tmp_path / "d.csv", "class")
    tree = tmp_path / "m.tree"
    assert run_cli(capsys, "train", str(plain), "-o", str(tree))[0] == 0
    code, _, err = run_cli(capsys, "eval", str(tree), str(plain), "--target", "nope")
    assert code == 2
    assert err.startswith(f"treegen: error: {plain}:1: no column named 'nope' for --target")
    first = ds.attributes[0].name
    code, _, err = run_cli(capsys, "eval", str(tree), str(plain), "--target", first)
    assert code == 2 and f"--target {first}: the model uses column '{first}' as an attribute" in err
    golf = Path(__file__).resolve().parents[1] / "data" / "reference" / "golf" / "golf"
    golf_tree = tmp_path / "golf.tree"
    assert run_cli(capsys, "train", f"{golf}.names", "-o", str(golf_tree))[0] == 0
    code, _, err = run_cli(capsys, "eval", str(golf_tree), f"{golf}.data", "--target", "x")
    assert code == 2 and "--target does not apply to C4.5 files" in err


def test_an_imported_model_names_its_columns_as_the_users_csv(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """import-sklearn --target/--feature-names: eval reads the user's CSV as it is, and
    prints what eval --target prints for a model imported with the default names."""
    sklearn_tree = pytest.importorskip("sklearn.tree")
    for seed in SEEDS[:6]:
        ds = _dataset(seed)
        cont = [j for j, a in enumerate(ds.attributes) if a.is_continuous]
        if not cont:
            continue
        X = np.nan_to_num(ds.X[:, cont], nan=0.0)
        labels = [ds.classes[c] for c in ds.y.tolist()]
        est = sklearn_tree.DecisionTreeClassifier(random_state=seed, max_depth=5).fit(X, labels)
        pkl = tmp_path / "est.pkl"
        pkl.write_bytes(pickle.dumps(est))
        names = [f"f {ds.attributes[j].name}" for j in cont]
        sub = Dataset(
            Schema(tuple(ds.attributes[j] for j in cont), ds.schema.classes, ds.schema.target),
            X,
            ds.y,
            ds.source,
        )
        csv = write_as(sub, tmp_path / "user.csv", "species")
        header, _, rest = csv.read_text().partition("\n")
        csv.write_text(",".join([*names, "species"]) + "\n" + rest)
        named, default = tmp_path / "named.tree", tmp_path / "default.tree"
        argv = ["import-sklearn", str(pkl), "--feature-names", ",".join(names)]
        assert run_cli(capsys, *argv, "--target", "species", "-o", str(named))[0] == 0
        assert run_cli(capsys, *argv, "-o", str(default))[0] == 0
        assert treegen.load(named).schema.target == "species"
        got = run_cli(capsys, "eval", str(named), str(csv))
        assert got[0] == 0, got
        assert got == run_cli(capsys, "eval", str(default), str(csv), "--target", "species")
        wrong = int(np.count_nonzero(est.predict(X) != np.asarray(labels)))
        assert f"Evaluation on test data ({ds.n_rows} items)" in got[1]
        assert f" {wrong}({100 * wrong / ds.n_rows:4.1f}%)" in got[1]


def test_import_sklearn_refuses_a_target_that_is_a_feature(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sklearn_tree = pytest.importorskip("sklearn.tree")
    est = sklearn_tree.DecisionTreeClassifier().fit([[0, 1], [1, 0]], ["a", "b"])
    pkl = tmp_path / "est.pkl"
    pkl.write_bytes(pickle.dumps(est))
    out = tmp_path / "m.tree"
    code, _, err = run_cli(capsys, "import-sklearn", str(pkl), "-o", str(out), "--target", "x1")
    assert code == 2
    assert (
        err
        == "treegen: error: --target: 'x1' cannot name the class column: it is a feature's name\n"
    )
    assert not out.exists()


@pytest.mark.parametrize("names", ["", "x0,,x1", "x0,x1,"])
def test_import_sklearn_refuses_an_empty_feature_name(
    names: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An empty --feature-names was taken as not given (the default names), and an
    empty name in it blamed on FILE; both are the option's error."""
    sklearn_tree = pytest.importorskip("sklearn.tree")
    est = sklearn_tree.DecisionTreeClassifier().fit([[0, 1], [1, 0]], ["a", "b"])
    pkl = tmp_path / "est.pkl"
    pkl.write_bytes(pickle.dumps(est))
    out = tmp_path / "m.trees"
    code, stdout, err = run_cli(
        capsys, "import-sklearn", str(pkl), "-o", str(out), "--feature-names", names
    )
    assert code == 2 and stdout == ""
    assert err.startswith("treegen: error: ") and err.count("\n") == 1, err
    assert "--feature-names" in err and "empty name" in err, err
    assert not out.exists()


@pytest.mark.parametrize("command", ["import-xgboost", "import-lightgbm"])
@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--feature-names", "a,", "empty name"),
        ("--classes", "a,", "empty name"),
        # It was "FILE: No such file or directory" here, or a check after reading FILE.
        ("--iterations", "0", "must be at least 1"),
        ("--iterations", "-1", "must be at least 1"),
    ],
)
def test_gbm_imports_check_their_options_as_parsed(
    command: str,
    option: str,
    value: str,
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """An empty name, or fewer than one round, is the option's error as it is parsed,
    before FILE is read (here: none exists)."""
    out = tmp_path / "m.trees"
    code, _, err = run_cli(capsys, command, "no-such-file", "-o", str(out), option, value)
    assert code == 2 and err.count("\n") == 1, err
    assert option in err and message in err, err
    assert not out.exists()


def test_import_sklearn_feature_names_take_an_escaped_comma(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``\\,`` is a comma in a --feature-names name, as in --nominal: 'weight\\, kg,h'
    named three columns before, so two features could not be named 'weight, kg' and 'h'."""
    sklearn_tree = pytest.importorskip("sklearn.tree")
    est = sklearn_tree.DecisionTreeClassifier().fit([[0, 1], [1, 0]], ["a", "b"])
    pkl = tmp_path / "est.pkl"
    pkl.write_bytes(pickle.dumps(est))
    out = tmp_path / "m.trees"
    argv = ["import-sklearn", str(pkl), "-o", str(out), "--feature-names", "weight\\, kg,h"]
    assert run_cli(capsys, *argv)[0] == 0
    assert [a.name for a in treegen.load(out).schema.attributes] == ["weight, kg", "h"]
