"""A file of the wrong kind is named as what it is.

``treegen show golf.names`` said "truncated file"; ``treegen train golf.tree`` gave a
row-width error.  The properties run over every command, in every argument role
(MODEL, ``--unpruned``, DATA, ``--validation``, import-sklearn's FILE), over generated
datasets in each format and under misleading file names (the kind is read from the
content), over the bundled reference files, and over mutated files (a damaged model is
never called data, damaged data never a model).
"""

from __future__ import annotations

import pickle
import shutil
from pathlib import Path

import numpy as np
import pytest

from treegen.data import synthetic
from treegen.data.filekind import file_kind
from treegen.errors import UsageError

from support.cli import run_cli

DATA = Path(__file__).resolve().parents[1] / "data"
SEEDS = range(6)

# Each command that reads a model, with MODEL (M) in place; D is good data, R a good model.
MODEL_ROLES = {
    "show": ["show", "M"],
    "eval": ["eval", "M", "D"],
    "predict": ["predict", "M", "D"],
    "export": ["export", "M", "-o", "OUT"],
    "verify": ["verify", "M", "D"],
    "plot": ["plot", "M", "-o", "OUT.svg"],
    "info": ["info", "M"],
}
WANTED = {"plot": "plot reads a model file (.tree)"}
# Each command that reads data, with the data (X) in place.
DATA_ROLES = {
    "train": (["train", "X", "-o", "OUT.tree"], "train reads"),
    "cv": (["cv", "X", "--folds", "2"], "cv reads"),
    "rules": (["rules", "X", "-o", "OUT.rules"], "rules reads"),
    "eval": (["eval", "R", "X"], "eval reads"),
    "predict": (["predict", "R", "X"], "predict reads"),
    "verify": (["verify", "R", "D", "X"], "verify reads"),
    "validation": (
        ["train", "D", "--prune", "reduced-error", "--validation", "X", "-o", "OUT.tree"],
        "--validation reads",
    ),
}
DATA_WANTED = "data (C4.5 .names/.data, ARFF or CSV)"


def _fill(argv: list[str], tmp: Path, **files: Path) -> list[str]:
    out = tmp / "out"
    return [
        str(files[a]) if a in files else str(out) + a[3:] if a.startswith("OUT") else a
        for a in argv
    ]


def _no_outputs(tmp: Path) -> bool:
    return not any(p.name.startswith("out") for p in tmp.iterdir())


def _data_files(tmp: Path, seed: int) -> dict[str, tuple[Path, str]]:
    """A generated dataset as each kind of data file, under its own name and under
    names that mislead (the kind comes from the content): path -> expected kind."""
    ds = synthetic.generate(synthetic.random_spec(seed, max_rows=200))
    d = tmp / f"s{seed}"
    d.mkdir()
    synthetic.write_c45(ds, d, "g")
    synthetic.write_arff(ds, d / "g.arff")
    synthetic.write_csv(ds, d / "g.csv")
    files = {
        "names": (d / "g.names", "a C4.5 names file"),
        "data": (d / "g.data", "a C4.5 data file"),
        "arff": (d / "g.arff", "an ARFF data file"),
        "csv": (d / "g.csv", "a CSV data file"),
    }
    for name, (src, kind) in list(files.items()):
        disguised = d / f"{name}.tree"
        shutil.copyfile(src, disguised)
        # Without a .data/.test name or a STEM.names beside it, C4.5 cases read as CSV.
        files[f"{name} as .tree"] = (disguised, "a CSV data file" if name == "data" else kind)
    return files


@pytest.mark.slow
def test_a_model_command_given_data_says_what_the_file_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    golf = DATA / "reference" / "golf" / "golf"
    good = tmp_path / "golf.tree"
    assert run_cli(capsys, "-q", "train", f"{golf}.names", "-o", str(good))[0] == 0
    cases = 0
    for seed in SEEDS:
        for path, kind in _data_files(tmp_path, seed).values():
            for command, argv in MODEL_ROLES.items():
                wanted = WANTED.get(
                    command, f"{command} reads a model file (.tree, .rules, .committee or .trees)"
                )
                got = run_cli(capsys, *_fill(argv, tmp_path, M=path, D=Path(f"{golf}.data")))
                assert got == (2, "", f"treegen: error: {path} is {kind}; {wanted}\n"), got
                cases += 1
            got = run_cli(capsys, "eval", str(good), f"{golf}.data", "--unpruned", str(path))
            want = f"treegen: error: {path} is {kind}; --unpruned reads a model file (.tree)\n"
            assert got == (2, "", want)
    assert cases == len(SEEDS) * 8 * len(MODEL_ROLES)
    assert _no_outputs(tmp_path)


def test_the_issues_example(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    names = tmp_path / "golf.names"
    shutil.copyfile(DATA / "reference" / "golf" / "golf.names", names)
    code, out, err = run_cli(capsys, "show", str(names))
    assert (code, out) == (2, "")
    assert (
        err == f"treegen: error: {names} is a C4.5 names file; show reads a model file "
        "(.tree, .rules, .committee or .trees)\n"
    )


def _models(tmp: Path, seed: int, capsys: pytest.CaptureFixture[str]) -> dict[str, Path]:
    """A tree and a ruleset of a generated dataset, under their own names and under data
    files' names."""
    ds = synthetic.generate(synthetic.random_spec(seed, max_rows=200))
    d = tmp / f"m{seed}"
    d.mkdir()
    arff = synthetic.write_arff(ds, d / "g.arff")
    tree, rules = d / "g.tree", d / "g.rules"
    assert run_cli(capsys, "-q", "train", str(arff), "-o", str(tree))[0] == 0
    assert run_cli(capsys, "-q", "rules", str(arff), "-o", str(rules))[0] == 0
    out = {"tree": tree, "rules": rules}
    for name, src in (("tree", tree), ("rules", rules)):
        for suffix in (".csv", ".arff", ".data", ".names"):
            disguised = d / f"{name}{suffix}"
            shutil.copyfile(src, disguised)
            out[f"{name} as {suffix}"] = disguised
    return out


@pytest.mark.slow
def test_a_data_command_given_a_model_says_what_the_file_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for seed in SEEDS[:3]:
        models = _models(tmp_path, seed, capsys)
        good_data = tmp_path / f"m{seed}" / "g.arff"
        for label, path in models.items():
            kind = "a treegen ruleset file" if label.startswith("rules") else "a treegen model file"
            for argv, wanted in DATA_ROLES.values():
                filled = _fill(argv, tmp_path, X=path, D=good_data, R=models["tree"])
                got = run_cli(capsys, *filled)
                # C4.5 DATA given as .names or .data: the file of the pair that is a model.
                want = f"treegen: error: {path} is {kind}; {wanted} {DATA_WANTED}\n"
                assert got == (2, "", want), (label, filled)
    assert _no_outputs(tmp_path)


@pytest.mark.parametrize("command", ["eval", "predict", "verify"])
def test_swapped_arguments_are_named_as_swapped(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    golf = DATA / "reference" / "golf" / "golf"
    tree = tmp_path / "golf.tree"
    assert run_cli(capsys, "-q", "train", f"{golf}.names", "-o", str(tree))[0] == 0
    got = run_cli(capsys, command, f"{golf}.data", str(tree))
    assert got == (
        2,
        "",
        f"treegen: error: {golf}.data is a C4.5 data file and {tree} is a treegen model "
        f"file: {command} takes MODEL first, then DATA (the two are swapped)\n",
    )


@pytest.mark.parametrize("name", ["weather.csv", "weather.txt", "weather"])
def test_an_arff_file_named_as_csv_says_so(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A name without .arff makes DATA a CSV file: an ARFF file so named failed with the
    # CSV reader's row error ("expected 1 value (1 column in the header), found 5").
    data = tmp_path / name
    shutil.copy(DATA / "reference" / "golf" / "golf.arff", data)
    tree = tmp_path / "m.tree"
    for argv in (["train", str(data), "-o", str(tree)], ["cv", str(data), "--folds", "2"]):
        got = run_cli(capsys, *argv)
        assert got == (
            2,
            "",
            f"treegen: error: {data} is an ARFF data file; {argv[0]} reads it as CSV by its "
            "name (an ARFF file's name ends in .arff)\n",
        )
    assert not tree.exists()


def test_a_csv_with_quoted_separators_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # As pandas writes a text cell that holds the separator (or a quote): quoted. The
    # fields are counted with the quotes undone, else the rows looked unequal.
    data = tmp_path / "cities.csv"
    data.write_text(
        'id,city,n,label\n1,"New York, NY",2.5,a\n2,Paris,3,b\n3,"Zurich ""old"", CH",1,a\n'
        "4,Paris,,b\n"
    )
    kind = file_kind(str(data))
    assert kind is not None and kind.name == "a CSV data file"
    tree = tmp_path / "m.tree"
    assert run_cli(capsys, "-q", "train", str(data), "-o", str(tree), "-m", "1")[0] == 0
    got = run_cli(capsys, "show", str(data))
    assert got == (
        2,
        "",
        f"treegen: error: {data} is a CSV data file; show reads a model file "
        "(.tree, .rules, .committee or .trees)\n",
    )
    got = run_cli(capsys, "predict", str(data), str(tree))
    assert got[0] == 2 and "predict takes MODEL first, then DATA (the two are swapped)" in got[2]
    # A quote left open on its line (a cell that runs on to the next) proves nothing.
    data.write_text('id,city,label\n1,"New\nYork",a\n2,Paris,b\n')
    assert file_kind(str(data)) is None


def test_a_pickle_and_c_source_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    golf = DATA / "reference" / "golf" / "golf"
    tree = tmp_path / "golf.tree"
    assert run_cli(capsys, "-q", "train", f"{golf}.names", "-o", str(tree))[0] == 0
    assert run_cli(capsys, "-q", "export", str(tree), "-o", str(tmp_path / "c"))[0] == 0
    pkl = tmp_path / "est.pkl"
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        pkl.write_bytes(pickle.dumps({"an": "estimator"}, protocol=protocol))
        code, _, err = run_cli(capsys, "show", str(pkl))
        assert code == 2 and err == (
            f"treegen: error: {pkl} is a Python pickle; show reads a model file (.tree, "
            ".rules, .committee or .trees) (a scikit-learn estimator? "
            f"'treegen import-sklearn {pkl} -o MODEL' converts it)\n"
        )
        code, _, err = run_cli(capsys, "train", str(pkl))
        assert code == 2 and f"{pkl} is a Python pickle; train reads data" in err
    for name in ("predict.c", "predict.h"):
        source = tmp_path / "c" / name
        code, _, err = run_cli(capsys, "show", str(source))
        want = (
            f"{source} is a C source file; show reads a model file "
            "(.tree, .rules, .committee or .trees)"
        )
        assert err == f"treegen: error: {want}\n"
        code, _, err = run_cli(capsys, "predict", str(tree), str(source))
        assert f"{source} is a C source file; predict reads data" in err


def test_import_sklearn_given_data_or_a_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    golf = DATA / "reference" / "golf" / "golf"
    tree = tmp_path / "golf.tree"
    assert run_cli(capsys, "-q", "train", f"{golf}.names", "-o", str(tree))[0] == 0
    out = tmp_path / "m.tree"
    for path, kind in (
        (f"{golf}.names", "a C4.5 names file"),
        (f"{golf}.arff", "an ARFF data file"),
    ):
        got = run_cli(capsys, "import-sklearn", path, "-o", str(out))
        assert got == (
            2,
            "",
            f"treegen: error: {path} is {kind}; import-sklearn reads a scikit-learn "
            "estimator saved with skops, pickle or joblib\n",
        )
    got = run_cli(capsys, "import-sklearn", str(tree), "-o", str(out))
    assert got[2].endswith("skops, pickle or joblib, and a treegen file needs no import\n")
    empty = tmp_path / "m.pkl"
    empty.write_bytes(b"")  # unpickling it said "cannot unpickle (EOFError: ; ...)"
    got = run_cli(capsys, "import-sklearn", str(empty), "-o", str(out))
    assert got == (2, "", f"treegen: error: {empty}: empty file: no saved estimator\n")
    assert not out.exists()


@pytest.mark.parametrize(
    "path",
    sorted(
        p
        for p in DATA.joinpath("reference").rglob("*")
        if p.suffix in (".names", ".data", ".test", ".arff")
    )
    + sorted(DATA.joinpath("weka").glob("*.arff")),
    ids=lambda p: f"{p.parent.name}/{p.name}",
)
def test_every_bundled_data_file_is_recognised(path: Path) -> None:
    want = {
        ".names": "a C4.5 names file",
        ".data": "a C4.5 data file",
        ".test": "a C4.5 data file",
        ".arff": "an ARFF data file",
    }[path.suffix]
    kind = file_kind(str(path))
    assert kind is not None and kind.name == want


def _mutate(data: bytes, rng: np.random.Generator) -> bytes:
    b = bytearray(data)
    for _ in range(int(rng.integers(1, 5))):
        op = int(rng.integers(0, 5))
        at = int(rng.integers(0, len(b) + 1))
        if op == 0 and b:
            b[min(at, len(b) - 1)] = int(rng.integers(0, 256))
        elif op == 1:
            b[at:at] = [b",", b"{", b"}", b".", b":", b"\n", b"|", b"\x80\x04"][
                int(rng.integers(8))
            ]
        elif op == 2:
            del b[at : at + int(rng.integers(1, 40))]
        elif op == 3:
            del b[at:]
        else:
            lines = bytes(b).split(b"\n")
            i, j = (int(v) for v in rng.integers(len(lines), size=2))
            lines[i], lines[j] = lines[j], lines[i]
            b = bytearray(b"\n".join(lines))
    return bytes(b)


@pytest.mark.slow
def test_damaged_files_keep_their_side(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Mutated models and rulesets are never taken for data, a pickle or C (their own
    reader reports them); mutated data files are never taken for a model, a pickle, C or
    JSON (the data reader reports them)."""
    golf = DATA / "reference" / "golf" / "golf"
    tree, rules = tmp_path / "golf.tree", tmp_path / "golf.rules"
    assert run_cli(capsys, "-q", "train", f"{golf}.names", "-o", str(tree))[0] == 0
    assert run_cli(capsys, "-q", "rules", f"{golf}.names", "-o", str(rules))[0] == 0
    models = [tree.read_bytes(), rules.read_bytes()]
    data = [Path(f"{golf}{s}").read_bytes() for s in (".names", ".data", ".arff")] + [
        synthetic.csv_text(synthetic.generate(synthetic.random_spec(1))).encode()
    ]
    rng = np.random.default_rng(30)
    path = tmp_path / "mutant"
    for i in range(3000):
        model = i % 2 == 0
        source = models[i // 2 % 2] if model else data[i // 2 % 4]
        path.write_bytes(_mutate(source, rng))
        kind = file_kind(str(path))
        if kind is not None:
            wrong = ("data", "pickle", "source") if model else ("model", "pickle", "source", "json")
            assert kind.role not in wrong, (kind, path.read_bytes()[:300])


def test_files_that_are_not_regular_are_not_read(tmp_path: Path) -> None:
    """Looking at a FIFO would consume what the reader needs (or block): not looked at."""
    import os

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert file_kind(str(fifo)) is None
    assert file_kind(str(tmp_path)) is None
    assert file_kind(str(tmp_path / "missing")) is None


@pytest.mark.parametrize("labelled", [True, False])
def test_eval_of_a_regressor_names_the_model_before_reading_data(
    labelled: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """eval counts misclassified rows: a regressor is refused as MODEL's fault, before
    DATA is read.  (DATA with a numeric column named as the regressor's output was read
    as class labels and failed on its first number: "undeclared class '0.5'".)"""
    sklearn_tree = pytest.importorskip("sklearn.tree")
    X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [3.0, 1.0]])
    est = sklearn_tree.DecisionTreeRegressor().fit(X, [0.5, 1.5, 2.5, 3.5])
    pkl = tmp_path / "reg.pkl"
    pkl.write_bytes(pickle.dumps(est))
    model = tmp_path / "reg.trees"
    assert run_cli(capsys, "import-sklearn", str(pkl), "-o", str(model))[0] == 0
    csv = tmp_path / "rows.csv"
    head, rows = ("x0,x1,class\n", "0,1,0.5\n1,0,1.5\n") if labelled else ("x0,x1\n", "0,1\n")
    csv.write_text(head + rows)
    code, out, err = run_cli(capsys, "eval", str(model), str(csv))
    assert (code, out) == (2, "")
    assert err.startswith(f"treegen: error: {model}: ") and err.count("\n") == 1, err
    assert "regressor" in err and "treegen predict" in err, err


def test_predict_proba_of_an_isolation_forest_names_the_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It said "model: an IsolationForest has no class probabilities", naming neither
    the option nor the file ("model" is no file)."""
    ensemble = pytest.importorskip("sklearn.ensemble")
    X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [3.0, 1.0]])
    est = ensemble.IsolationForest(n_estimators=2, random_state=0).fit(X)
    pkl = tmp_path / "iso.pkl"
    pkl.write_bytes(pickle.dumps(est))
    model = tmp_path / "iso.trees"
    assert run_cli(capsys, "import-sklearn", str(pkl), "-o", str(model))[0] == 0
    csv = tmp_path / "rows.csv"
    csv.write_text("x0,x1\n0,1\n1,0\n")
    out = tmp_path / "p.txt"
    code, stdout, err = run_cli(capsys, "predict", "--proba", str(model), str(csv), "-o", str(out))
    assert (code, stdout) == (2, "")
    assert err == ("treegen: error: --proba: an IsolationForest has no class probabilities\n"), err
    assert not out.exists()


def test_every_registered_model_format_is_a_model_file(tmp_path: Path) -> None:
    """Each kind's file (an ensemble, a committee too) is a model, never 'JSON that is
    no treegen model', by the format field that comes first."""
    from treegen.kinds import formats

    for fmt in formats().split(", "):
        path = tmp_path / f"{fmt}.json"
        path.write_text(f'{{\n  "format": "{fmt}",\n  "version": 1\n}}\n')
        kind = file_kind(str(path))
        assert kind is not None and kind.role == "model", fmt
        assert kind.name.startswith("a treegen ") and "JSON" not in kind.name, fmt


def test_an_ensemble_or_committee_given_as_data_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    golf = DATA / "reference" / "golf" / "golf"
    committee, tree = tmp_path / "golf.trees", tmp_path / "golf.tree"
    assert run_cli(capsys, "-q", "train", f"{golf}.names", "-o", str(tree))[0] == 0
    argv = ["-q", "train", f"{golf}.names", "--boost", "3", "-m", "1", "-o", str(committee)]
    assert run_cli(capsys, *argv)[0] == 0
    models = {committee: "a treegen committee file"}
    sklearn_ensemble = pytest.importorskip("sklearn.ensemble")
    forest = sklearn_ensemble.RandomForestRegressor(n_estimators=2, max_depth=2, random_state=0)
    pkl, ensemble = tmp_path / "forest.pkl", tmp_path / "forest.trees"
    pkl.write_bytes(pickle.dumps(forest.fit(np.arange(8.0).reshape(4, 2), np.arange(4.0))))
    assert run_cli(capsys, "-q", "import-sklearn", str(pkl), "-o", str(ensemble))[0] == 0
    models[ensemble] = "a treegen ensemble file"
    for path, kind in models.items():
        for argv, wanted in DATA_ROLES.values():
            filled = _fill(argv, tmp_path, X=path, D=Path(f"{golf}.arff"), R=tree)
            want = f"treegen: error: {path} is {kind}; {wanted} {DATA_WANTED}\n"
            assert run_cli(capsys, *filled) == (2, "", want), filled
        got = run_cli(capsys, "predict", f"{golf}.arff", str(path))
        assert got[2] == (
            f"treegen: error: {golf}.arff is an ARFF data file and {path} is {kind}: "
            "predict takes MODEL first, then DATA (the two are swapped)\n"
        )
    assert _no_outputs(tmp_path)


def test_the_gbm_importers_name_a_treegen_file_or_a_pickle(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """import-xgboost said 'learner: is missing' of a treegen model and import-lightgbm
    that it was no LightGBM model; import-sklearn named such files already."""
    golf = DATA / "reference" / "golf" / "golf"
    tree = tmp_path / "golf.tree"
    assert run_cli(capsys, "-q", "train", f"{golf}.names", "-o", str(tree))[0] == 0
    pickled = tmp_path / "m.pkl"
    pickled.write_bytes(pickle.dumps({"a": 1}))
    out = tmp_path / "m.trees"
    for command, reads in (
        ("import-xgboost", "an XGBoost model (JSON or UBJSON, from save_model)"),
        ("import-lightgbm", "a LightGBM text model (from save_model)"),
    ):
        got = run_cli(capsys, command, str(tree), "-o", str(out))
        assert got == (
            2,
            "",
            f"treegen: error: {tree} is a treegen model file; {command} reads {reads}, "
            "and a treegen file needs no import\n",
        )
        got = run_cli(capsys, command, str(pickled), "-o", str(out))
        assert got[:2] == (2, "")
        assert got[2].startswith(f"treegen: error: {pickled} is a Python pickle; {command}")
    assert not out.exists()


def test_unpruned_names_a_ruleset_given_for_a_tree(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--unpruned takes a tree: a ruleset there was 'format: not a treegen model file
    (expected "treegen-model")', though a ruleset is a treegen file."""
    golf = DATA / "reference" / "golf" / "golf"
    tree, rules = tmp_path / "golf.tree", tmp_path / "golf.rules"
    assert run_cli(capsys, "-q", "train", f"{golf}.names", "-o", str(tree))[0] == 0
    assert run_cli(capsys, "-q", "rules", f"{golf}.names", "-o", str(rules))[0] == 0
    got = run_cli(capsys, "eval", str(tree), f"{golf}.data", "--unpruned", str(rules))
    assert got == (
        2,
        "",
        f"treegen: error: --unpruned: {rules} is a treegen ruleset file; it takes a tree "
        "trained with --no-prune\n",
    )


def test_the_model_files_named_are_every_kinds() -> None:
    """The wrong-kind errors' "reads a model file (...)" lists each registered kind's
    file suffix (the data layer cannot ask the kinds' registry: it sits below it)."""
    from treegen.data.filekind import MODEL_WANTED
    from treegen.kinds import KINDS

    listed = MODEL_WANTED[MODEL_WANTED.index("(") + 1 : -1].replace(" or ", ", ").split(", ")
    assert sorted(listed) == sorted(kind.suffix for kind in KINDS.values())


@pytest.mark.parametrize("name", ["d.csv", "d.tsv"])
def test_a_csv_named_data_file_is_looked_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """The check of DATA reads a CSV-named file's head once: whether it is no data, and
    whether it is ARFF named as CSV, are both answered by that one look."""
    import argparse

    from treegen.cli.inputs import check_input_kinds
    from treegen.data import filekind

    data = tmp_path / name
    data.write_text("x,class\n1,a\n2,b\n")
    looked: list[str] = []
    head = filekind._head

    def counted(path: str) -> tuple[bytes, bool] | None:
        looked.append(path)
        return head(path)

    monkeypatch.setattr(filekind, "_head", counted)
    check_input_kinds(argparse.Namespace(command="train", data=str(data)))
    assert looked == [str(data)]
    # An ARFF file named as CSV is still named so, from the same one look.
    data.write_text("@relation r\n@attribute x numeric\n@data\n1\n")
    looked.clear()
    with pytest.raises(UsageError, match="as CSV by its name"):
        check_input_kinds(argparse.Namespace(command="train", data=str(data)))
    assert looked == [str(data)]
