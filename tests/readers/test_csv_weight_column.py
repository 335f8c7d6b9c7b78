"""A CSV or C4.5 file's weight column (``--weights COLUMN``): the rows' instance weights,
the column no attribute.  Such a file is the weighted ARFF file's twin: the same rows
and weights read, the same tree trained (``show`` prints it alike), the same evaluation;
a weight that is no number at least 0 is an error at its line and column, exit 2."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from treegen.data import synthetic
from treegen.data.dataset import Dataset
from treegen.data.readers import fast, read_dataset, read_python
from treegen.errors import DatasetError, UsageError

from support.cli import run_cli
from support.weka import write_weighted_arff

GOLF = Path(__file__).resolve().parent.parent / "data" / "reference" / "golf" / "golf.data"


def _weighted(seed: int) -> tuple[Dataset, np.ndarray]:
    ds = synthetic.generate(synthetic.random_spec(seed, max_rows=400))
    ds = ds.subset(np.flatnonzero(ds.y >= 0))
    rng = np.random.default_rng(seed)
    return ds, rng.uniform(0.05, 3.0, ds.n_rows)


def _csv(ds: Dataset, w: np.ndarray, path: Path, at: int) -> Path:
    """``ds`` as CSV with a column ``wt`` of the weights before column ``at`` (-1: last,
    after the class)."""
    lines = synthetic.csv_text(ds).splitlines()
    cells = ["wt", *(repr(float(x)) for x in w)]
    out = []
    for line, cell in zip(lines, cells, strict=True):
        parts = line.split(",")
        parts.insert(len(parts) if at < 0 else at, cell)
        out.append(",".join(parts))
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("at", [0, 2, -1])
@pytest.mark.parametrize("seed", [1, 4, 9])
def test_the_column_reads_as_the_arff_weights(tmp_path: Path, seed: int, at: int) -> None:
    """By the C tokenizer (when built) and the Python reader alike, with and without a
    model's schema."""
    ds, w = _weighted(seed)
    arff = read_dataset(str(write_weighted_arff(ds, w, tmp_path / "w.arff")), weights=True)
    path = str(_csv(ds, w, tmp_path / "w.csv", at))
    csv = read_dataset(path, weight_column="wt")
    assert fast.last_fallback == [] or not fast.available()
    ref = read_python(path, "csv", weight_column="wt")
    assert ref.weights is not None and ref.weights.tobytes() == w.tobytes()
    assert csv.X.tobytes() == ref.X.tobytes() and csv.y.tobytes() == ref.y.tobytes()
    assert csv.schema == ref.schema
    mapped = read_dataset(path, schema=arff.schema, weight_column="wt")
    assert fast.last_fallback == [] or not fast.available()
    ref = read_python(path, "csv", schema=arff.schema, weight_column="wt")
    for got in (mapped, ref):
        assert got.weights is not None and got.weights.tobytes() == w.tobytes()
        assert got.X.tobytes() == arff.X.tobytes() and got.y.tobytes() == arff.y.tobytes()
    assert csv.weights is not None and arff.weights is not None
    assert csv.weights.tobytes() == arff.weights.tobytes() == w.tobytes()
    assert [a.name for a in csv.schema.attributes] == [a.name for a in arff.schema.attributes]
    assert csv.schema.target == arff.schema.target
    assert _cells(csv) == _cells(arff)


def _cells(ds: Dataset) -> list[list[str]]:
    """The rows as text (a nominal value by name: CSV and ARFF may number them apart)."""
    return synthetic.csv_text(ds).splitlines()


@pytest.mark.parametrize("flavor", ["c45", "j48"])
@pytest.mark.parametrize("seed", [1, 4, 9])
def test_the_csv_trains_and_evaluates_as_the_weighted_arff(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], seed: int, flavor: str
) -> None:
    ds, w = _weighted(seed)
    csv = _csv(ds, w, tmp_path / "w.csv", 1)
    # the ARFF file declares each nominal attribute's values in the order the CSV
    # reader met them, which orders a test's branches
    read = read_dataset(str(csv), weight_column="wt")
    arff = write_weighted_arff(read, w, tmp_path / "w.arff")
    shown, evaluated, crossed = [], [], []
    for data, extra in ((arff, []), (csv, ["--weights", "wt"])):
        model = tmp_path / f"{data.suffix[1:]}.tree"
        train = ("train", str(data), "-q", "--flavor", flavor, "-o", str(model), *extra)
        assert run_cli(capsys, *train)[0] == 0
        code, out, err = run_cli(capsys, "show", str(model), "--format", "j48")
        assert code == 0, err
        shown.append(out)
        code, out, err = run_cli(capsys, "eval", str(model), str(data), *extra)
        assert code == 0, err
        evaluated.append(out)
        code, out, err = run_cli(
            capsys, "cv", str(data), "--folds", "3", "--flavor", flavor, *extra
        )
        assert code == 0, err
        crossed.append(out.split("\n", 1)[1])  # after the line naming the file
    assert shown[0] == shown[1]
    assert evaluated[0] == evaluated[1] and "Evaluation on training data" in evaluated[0]
    assert crossed[0] == crossed[1] and " of weight " in crossed[0]


@pytest.mark.parametrize("flavor", ["c45", "j48"])
def test_c45_files_with_a_weight_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flavor: str
) -> None:
    """The column declared in STEM.names (continuous), its cells in STEM.data and
    STEM.test: the tree and the evaluations of the weighted ARFF files."""
    ds, w = _weighted(4)
    csv = _csv(ds, w, tmp_path / "w.csv", 2)
    read = read_dataset(str(csv), weight_column="wt")  # the values' order, as above
    names, data = synthetic.c45_texts(read)
    lines = names.splitlines()
    lines.insert(3, "wt: continuous.")  # after the classes and two attributes
    (tmp_path / "c.names").write_text("\n".join(lines) + "\n", encoding="utf-8")
    rows = [r.split(",") for r in data.splitlines()]
    cells = [",".join([*r[:2], repr(float(x)), *r[2:]]) for r, x in zip(rows, w, strict=True)]
    for stem in ("c.data", "c.test"):
        (tmp_path / stem).write_text("\n".join(cells) + "\n", encoding="utf-8")
    arff = write_weighted_arff(read, w, tmp_path / "w.arff")
    printed = []
    for data_file, test_file, extra in (
        (arff, arff, []),
        (tmp_path / "c.names", tmp_path / "c.test", ["--weights", "wt"]),
    ):
        model = tmp_path / f"{data_file.suffix[1:]}.tree"
        train = ("train", str(data_file), "-q", "--flavor", flavor, "-o", str(model), *extra)
        assert run_cli(capsys, *train)[0] == 0
        shown = run_cli(capsys, "show", str(model), "--format", "j48")[1]
        code, evaluated, err = run_cli(capsys, "eval", str(model), str(test_file), *extra)
        assert code == 0, err
        printed.append((shown, evaluated.replace("training data", "test data")))
    assert printed[0] == printed[1] and " items)" in printed[0][1]


@pytest.mark.parametrize(
    "cell", ["2", "1e1", "-0", "0", '"2.5"', " 3", "+1", ".5", "1e999", "nan", "x", "?", ""]
)
def test_the_c_tokenizer_reads_a_weight_as_the_python_reader(tmp_path: Path, cell: str) -> None:
    """Either the same weights (-0.0 too) or, through the Python reader, its error."""
    data = tmp_path / "t.csv"
    data.write_text("a,w,class\n" + "".join(f"{i},{cell},p\n{i},1,n\n" for i in range(3)))
    try:
        ref = read_python(str(data), "csv", weight_column="w")
    except DatasetError as err:
        with pytest.raises(DatasetError) as info:
            read_dataset(str(data), weight_column="w")
        assert str(info.value) == str(err)
        return
    got = read_dataset(str(data), weight_column="w")
    assert got.weights is not None and ref.weights is not None
    assert got.weights.tobytes() == ref.weights.tobytes()


ROWS = "a,b,w,class\n1,x,2,p\n2,y,0.5,n\n3,x,1,p\n"


NOT_A_WEIGHT = "(column 'w') is not a number at least 0"
MISSING = "missing weight (column 'w'): a weight is a number at least 0"
BAD = {"-1": NOT_A_WEIGHT, "nan": NOT_A_WEIGHT, "1e999": NOT_A_WEIGHT, "heavy": NOT_A_WEIGHT}


@pytest.mark.parametrize("cell", [*BAD, "?", ""])
def test_a_bad_weight_is_an_error_at_its_cell(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], cell: str
) -> None:
    """The file's fifth line holds it, its cell starting at column 5."""
    message = f"weight '{cell}' {BAD[cell]}" if cell in BAD else MISSING
    data = tmp_path / "bad.csv"
    data.write_text(ROWS + f"4,y,{cell},n\n", encoding="utf-8")
    model = tmp_path / "m.tree"
    for argv in (
        ("train", str(data), "--weights", "w", "-o", str(model)),
        ("cv", str(data), "--folds", "2", "--weights", "w"),
    ):
        code, out, err = run_cli(capsys, *argv)
        assert code == 2 and out == "" and not model.exists()
        assert err == f"treegen: error: {data}:5:5: {message}\n"


def test_the_options_mistakes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "t.csv"
    data.write_text(ROWS + "4,y,3,n\n", encoding="utf-8")
    arff = write_weighted_arff(*_weighted(1), tmp_path / "w.arff")
    model, rules, golf = tmp_path / "m.tree", tmp_path / "m.rules", tmp_path / "golf.tree"
    assert run_cli(capsys, "train", str(data), "-q", "--weights", "w", "-o", str(model))[0] == 0
    assert run_cli(capsys, "train", str(GOLF), "-q", "-o", str(golf))[0] == 0
    assert run_cli(capsys, "rules", str(data), "--ignore", "w", "-o", str(rules))[0] == 0
    two = tmp_path / "two.csv"
    two.write_text("w,class\n1,p\n2,n\n", encoding="utf-8")
    lone = tmp_path / "lone.data"  # C4.5 cases with no lone.names to declare the column
    lone.write_bytes(GOLF.read_bytes())
    for argv, message in (
        (("train", str(two), "--weights", "w"), "'w' would leave no attribute beside the class"),
        (
            ("eval", str(golf), str(lone), "--weights", "w"),
            f"needs {tmp_path / 'lone.names'} to find column 'w' in",
        ),
        (("train", str(data), "--weights", "q"), "no column named 'q' (columns: a, b, w, class)"),
        (("train", str(data), "--weights", "w", "--target", "w"), "column 'w' is the class"),
        (
            ("train", str(arff), "--weights", "w"),
            "is for a CSV or C4.5 file's weight column; an ARFF",
        ),
        (("eval", str(rules), str(data), "--weights", "w"), "a ruleset's evaluation counts rows"),
        # A model's own attribute or class is no weight column, in a CSV or C4.5 file.
        (("predict", str(model), str(data), "--weights", "a"), "'a' is an attribute of the model"),
        (("eval", str(model), str(data), "--weights", "class"), "'class' is the model's class"),
        (("eval", str(golf), str(GOLF), "--weights", "outlook"), "'outlook' is an attribute"),
        # A committee weights or draws its cases itself: the file was blamed for the option.
        (
            ("train", str(data), "--weights", "w", "--boost", "2"),
            "instance weights are for one tree: --boost weights or draws the cases itself",
        ),
        (
            ("cv", str(data), "--folds", "2", "--weights", "w", "--bag", "2"),
            "instance weights are for one tree: --bag weights or draws the cases itself",
        ),
        # The weight column is no attribute: --ignore or --nominal naming it too said it
        # was "not a column of this file".
        (
            ("train", str(data), "--weights", "w", "--ignore", "w"),
            "column 'w' is also named by --ignore",
        ),
        (
            ("cv", str(data), "--folds", "2", "--weights", "w", "--nominal", "b,w"),
            "column 'w' is also named by --nominal",
        ),
    ):
        code, out, err = run_cli(capsys, *argv)
        assert code == 2 and out == "" and err.startswith(f"treegen: error: --weights: {message}")
        assert err.count("\n") == 1


def test_the_class_is_the_last_column_left(tmp_path: Path) -> None:
    """Without --target, a weight column written last leaves the class the column before
    it, as in the file without it; with --target the class is the one named."""
    data = tmp_path / "t.csv"
    data.write_text("a,class,w\n1,p,2\n2,n,0.5\n", encoding="utf-8")
    ds = read_dataset(str(data), weight_column="w")
    assert ds.schema.target == "class" and [a.name for a in ds.schema.attributes] == ["a"]
    assert ds.weights is not None and ds.weights.tolist() == [2.0, 0.5]
    data.write_text("class,a,w,b\np,1,2,3\nn,2,0.5,4\n", encoding="utf-8")
    ds = read_dataset(str(data), weight_column="w", target="class")
    assert [a.name for a in ds.schema.attributes] == ["a", "b"] and ds.schema.target == "class"
    with pytest.raises(UsageError):
        read_dataset(str(data), weight_column="class", target="class")
