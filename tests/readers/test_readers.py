"""Readers on the reference datasets and on small hand-written files in every format."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from treegen.data.dataset import Dataset
from treegen.data.readers import detect_format, read_dataset

REFERENCE = ["crx", "golf", "hypo", "labor-neg", "monk1", "monk2", "monk3", "soybean-r8", "vote-r8"]

# From reference/SUMMARY.md: rows, continuous, nominal, classes, % missing.
SUMMARY = {
    "crx": (490, 6, 9, 2, 0.6),
    "golf": (14, 2, 2, 2, 0.0),
    "hypo": (2514, 7, 22, 5, 5.6),
    "labor-neg": (40, 8, 8, 2, 36.2),
    "monk1": (124, 0, 6, 2, 0.0),
    "monk2": (169, 0, 6, 2, 0.0),
    "monk3": (122, 0, 6, 2, 0.0),
    "soybean-r8": (683, 0, 35, 19, 9.8),
    "vote-r8": (300, 0, 16, 2, 0.0),
}


def same(a: Dataset, b: Dataset) -> bool:
    return (
        a.schema == b.schema
        and a.X.dtype == b.X.dtype == np.float64
        and np.array_equal(a.X, b.X, equal_nan=True)
        and np.array_equal(a.y, b.y)
    )


@pytest.mark.parametrize("name", REFERENCE)
def test_c45_and_arff_give_the_same_dataset(reference_dir: Path, name: str) -> None:
    stem = reference_dir / name / name
    from_names = read_dataset(f"{stem}.names")
    assert same(from_names, read_dataset(f"{stem}.arff"))
    # DATA may be given as stem, stem.data or stem.names.
    assert same(from_names, read_dataset(f"{stem}.data"))
    assert same(from_names, read_dataset(str(stem)))


@pytest.mark.parametrize("name", REFERENCE)
def test_reference_matches_summary(reference_dir: Path, name: str) -> None:
    ds = read_dataset(str(reference_dir / name / f"{name}.data"))
    rows, n_cont, n_nom, n_cls, missing = SUMMARY[name]
    assert ds.n_rows == rows
    assert sum(a.is_continuous for a in ds.attributes) == n_cont
    assert sum(a.is_nominal for a in ds.attributes) == n_nom
    assert len(ds.classes) == n_cls
    assert round(100 * float(np.isnan(ds.X).mean()), 1) == missing
    assert ds.y.dtype == np.int32 and ds.y.min() >= 0 and ds.y.max() < n_cls


@pytest.mark.parametrize("name", [n for n in REFERENCE if n not in ("golf", "soybean-r8")])
def test_test_file_with_schema(reference_dir: Path, name: str) -> None:
    train = read_dataset(str(reference_dir / name / f"{name}.names"))
    test = read_dataset(str(reference_dir / name / f"{name}.test"), schema=train.schema)
    assert test.schema == train.schema
    assert test.n_rows > 0 and test.y.min() >= 0


def test_golf_values(reference_dir: Path) -> None:
    ds = read_dataset(str(reference_dir / "golf" / "golf.names"))
    assert ds.classes == ("Play", "Don't Play")
    assert [a.name for a in ds.attributes] == ["outlook", "temperature", "humidity", "windy"]
    assert ds.attributes[0].values == ("sunny", "overcast", "rain")
    assert ds.X[0].tolist() == [0.0, 85.0, 85.0, 1.0]
    assert ds.y.tolist()[:3] == [1, 1, 0]
    assert ds.source.endswith("golf.data")


def test_hypo_names_with_spaces_and_comments(reference_dir: Path) -> None:
    ds = read_dataset(str(reference_dir / "hypo" / "hypo.names"))
    assert ds.classes[3] == "secondary hypothyroid"  # class list spans lines
    assert ds.attributes[2].name == "on thyroxine"
    assert ds.classes[ds.y[0]] == "negative"  # "negative.|395": period and comment


def write(tmp: Path, name: str, text: str) -> str:
    p = tmp / name
    p.write_bytes(text.encode("utf-8"))
    return str(p)


NAMES = """| a comment line
yes, no.   | classes
size:  continuous.
colour: red, dark  green, blue\\, ish.
id: ignore.
shape: discrete 3.
label\\: x\\.y: a, b
"""


def test_c45_full_grammar(tmp_path: Path) -> None:
    write(tmp_path, "t.names", NAMES)
    write(
        tmp_path,
        "t.data",
        "1.5, red, 7, round, a, yes.\n"
        "?, dark   green, 8, square, b, no | comment\n\n"
        "-2e1,blue\\, ish,?,round,\n  ?, no\n",
    )
    ds = read_dataset(str(tmp_path / "t"))
    assert [a.name for a in ds.attributes] == ["size", "colour", "id", "shape", "label: x.y"]
    assert [a.kind for a in ds.attributes] == [
        "continuous",
        "nominal",
        "ignore",
        "nominal",
        "nominal",
    ]
    assert ds.attributes[1].values == ("red", "dark green", "blue, ish")
    assert ds.attributes[3].values == ("round", "square")  # discrete N: first-seen order
    assert np.array_equal(
        ds.X,
        [[1.5, 0, np.nan, 0, 0], [np.nan, 1, np.nan, 1, 1], [-20.0, 2, np.nan, 0, np.nan]],
        equal_nan=True,
    )
    assert ds.y.tolist() == [0, 1, 1]


def test_bom_and_crlf_accepted(tmp_path: Path, reference_dir: Path) -> None:
    golf = reference_dir / "golf"
    plain = read_dataset(str(golf / "golf.names"))
    for name in ("golf.names", "golf.data"):
        text = (golf / name).read_text()
        write(tmp_path, name, "\ufeff" + text.replace("\n", "\r\n"))
    assert same(plain, read_dataset(str(tmp_path / "golf.names")))
    arff = "\ufeff" + (golf / "golf.arff").read_text().replace("\n", "\r\n")
    assert read_dataset(write(tmp_path, "g.arff", arff)).schema == plain.schema


def test_arff_sparse_rows_quotes_and_comments(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "s.arff",
        """% comment
@RELATION "sparse test"
@attribute 'a b' NUMERIC
@attribute "c,d" {'x y', "q'z", plain}  % trailing comment
@Attribute e integer
@attribute class{p, n}
@data
{0 1.5, 1 'x y', 3 n}
{2 -3}
1, plain, 2, p % comment
?, 'q\\'z', ?, n
{}
""",
    )
    ds = read_dataset(path)
    assert [a.name for a in ds.attributes] == ["a b", "c,d", "e"]
    assert ds.attributes[1].values == ("x y", "q'z", "plain")
    # Omitted sparse entries: 0 for numeric, the first declared value for nominal.
    assert np.array_equal(
        ds.X, [[1.5, 0, 0], [0, 0, -3], [1, 2, 2], [np.nan, 1, np.nan], [0, 0, 0]], equal_nan=True
    )
    assert ds.y.tolist() == [1, 0, 0, 1, 0]


def test_arff_target_option(reference_dir: Path) -> None:
    ds = read_dataset(str(reference_dir / "golf" / "golf.arff"), target="windy")
    assert ds.schema.target == "windy" and ds.classes == ("true", "false")
    assert [a.name for a in ds.attributes] == ["outlook", "temperature", "humidity", "class"]


CSV = '''name,temp,grade,ok
"Smith, J",21.5,1,yes
Doe,?,2,no
"He said ""hi""",,10,yes
"multi
line",3e2,2,?
'''


def test_csv_inference_quotes_and_missing(tmp_path: Path) -> None:
    path = write(tmp_path, "d.csv", CSV.replace("?\n", "yes\n"))
    ds = read_dataset(path)
    assert [a.kind for a in ds.attributes] == ["nominal", "continuous", "continuous"]
    assert ds.attributes[0].values == ("Smith, J", "Doe", 'He said "hi"', "multi\nline")
    assert np.array_equal(ds.X[:, 1], [21.5, np.nan, np.nan, 300.0], equal_nan=True)
    # A CSV's labels: sorted, as scikit-learn's np.unique(y) sorts them.
    assert ds.classes == ("no", "yes") and ds.schema.target == "ok"
    forced = read_dataset(path, nominal=["grade"], target="name")
    assert forced.schema.target == "name"
    grade = forced.attributes[forced.schema.attribute_index("grade")]
    assert grade.kind == "nominal" and grade.values == ("1", "2", "10")


def test_csv_cell_of_two_numbers_on_two_lines_is_no_number(tmp_path: Path) -> None:
    """A quoted cell "1<newline>2" is not a number, though each of its lines is: the
    column is nominal (it crashed the numbers' one-scan check)."""
    path = write(tmp_path, "d.csv", 'a,b,class\n"1\n2",3,x\n3,4,y\n5,6,y\n')
    ds = read_dataset(path)
    assert [a.kind for a in ds.attributes] == ["nominal", "continuous"]
    assert ds.attributes[0].values == ("1\n2", "3", "5")
    assert np.array_equal(ds.X[:, 1], [3.0, 4.0, 6.0])


def test_csv_with_schema_maps_by_name(tmp_path: Path) -> None:
    train = read_dataset(write(tmp_path, "a.csv", "x,c,y\n1,red,p\n2,blue,q\n"))
    # Columns reordered, an extra column, an unseen value, and no class column.
    test = read_dataset(
        write(tmp_path, "b.csv", "extra,c,x\n9,blue,5\n9,green,?\n"), schema=train.schema
    )
    assert np.array_equal(test.X, [[5, 1], [np.nan, np.nan]], equal_nan=True)
    assert test.y.tolist() == [-1, -1]


def test_arff_with_schema_unknown_value_is_missing(reference_dir: Path, tmp_path: Path) -> None:
    train = read_dataset(str(reference_dir / "golf" / "golf.arff"))
    text = (reference_dir / "golf" / "golf.arff").read_text()
    text = text.replace("{'sunny',", "{'foggy','sunny',").replace("'sunny',85", "'foggy',85")
    test = read_dataset(write(tmp_path, "g.arff", text), schema=train.schema)
    assert np.isnan(test.X[0, 0]) and test.X[1, 0] == 0
    assert np.array_equal(test.X[1:], train.X[1:])
    assert np.array_equal(test.y, train.y)


def test_detect_format(tmp_path: Path) -> None:
    assert detect_format("x.names") == "c45" and detect_format("x.TEST") == "c45"
    assert detect_format("x.arff") == "arff" and detect_format("x.csv") == "csv"
    write(tmp_path, "s.names", "a, b.\n")
    assert detect_format(str(tmp_path / "s")) == "c45"


def test_tab_separated_quoted_fields(tmp_path: Path) -> None:
    """A tab after a quoted field separates it from the next one: the blanks skipped
    after a closing quote are not the separator (a .tsv file whose names or values were
    quoted lost a column at each quote and was refused: 'expected 3 values, found 2')."""
    tsv = read_dataset(
        write(tmp_path, "q.tsv", 'name\t"size"\tcls\n"big one"\t1\tx\n"small" \t2\ty\n')
    )
    assert [a.name for a in tsv.attributes] == ["name", "size"]
    assert tsv.attributes[0].values == ("big one", "small")
    assert tsv.X[:, 1].tolist() == [1.0, 2.0]
    assert list(tsv.schema.classes) == ["x", "y"]


def test_csv_separator_sniffing(tmp_path: Path) -> None:
    semi = read_dataset(write(tmp_path, "s.csv", "a;b;c\n1,5;x;p\n2;y;q\n"))
    assert [a.name for a in semi.attributes] == ["a", "b"]
    assert semi.attributes[0].kind == "nominal"  # "1,5" is not a number in treegen's syntax
    tab = read_dataset(write(tmp_path, "t.txt", "a\tb\tc\n1.5\tx\tp\n2\ty\tq\n"))
    assert tab.X[:, 0].tolist() == [1.5, 2.0]
    tsv = read_dataset(write(tmp_path, "u.tsv", "a,1\tb\tc\n1\tx\tp\n"))
    assert [a.name for a in tsv.attributes] == ["a,1", "b"]


def test_csv_separator_ignores_quoted_commas(tmp_path: Path) -> None:
    """A comma inside a quoted header name is part of the name, not a separator: a ';'
    or tab file whose header quotes such a name is read with its own separator (it was
    read as one column, its class, and refused for having no attributes)."""
    semi = read_dataset(write(tmp_path, "s.csv", '"x,y";b;"c"\n1;2;p\n3;4;q\n'))
    assert [a.name for a in semi.attributes] == ["x,y", "b"]
    assert semi.X.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    tab = read_dataset(write(tmp_path, "t.txt", '"x,y"\tb\tc\n1\t2\tp\n3\t4\tq\n'))
    assert [a.name for a in tab.attributes] == ["x,y", "b"]
    # A comma outside the quotes still makes it a comma file.
    comma = read_dataset(write(tmp_path, "c.csv", '"x;y",b;c,k\n1,u,p\n2,v,q\n'))
    assert [a.name for a in comma.attributes] == ["x;y", "b;c"]


def test_c45_schema_must_match_names(reference_dir: Path, tmp_path: Path) -> None:
    from treegen.errors import DatasetError

    golf = read_dataset(str(reference_dir / "golf" / "golf.names"))
    text = (reference_dir / "golf" / "golf.names").read_text()
    write(tmp_path, "g.names", text.replace("humidity", "moisture"))
    write(tmp_path, "g.test", (reference_dir / "golf" / "golf.data").read_text())
    with pytest.raises(DatasetError, match="attribute 3 is 'moisture', the model's is 'humidity'"):
        read_dataset(str(tmp_path / "g.test"), schema=golf.schema)
    # Without its own .names, a test file is read by position with the model's schema.
    (tmp_path / "g.names").unlink()
    test = read_dataset(str(tmp_path / "g.test"), schema=golf.schema)
    assert same(test, Dataset(golf.schema, golf.X, golf.y, test.source))


def test_arff_relational_rejected(tmp_path: Path) -> None:
    from treegen.errors import DatasetError

    path = write(
        tmp_path,
        "r.arff",
        "@relation r\n@attribute bag relational\n"
        "  @attribute x numeric\n@end bag\n@attribute c {a,b}\n",
    )
    with pytest.raises(DatasetError, match="relational attributes are not supported") as info:
        read_dataset(path)
    assert (info.value.line, info.value.col) == (2, 16)


def test_large_file_fast_path_reports_columns(tmp_path: Path) -> None:
    from treegen.errors import DatasetError

    rows = "".join(f"{i}.5, {'abc'[i % 3]}, {'yn'[i % 2]}\n" for i in range(5000))
    path = write(tmp_path, "big.csv", "x,v,c\n" + rows + "1.5,  b  ,\n")
    with pytest.raises(DatasetError) as info:
        read_dataset(path)
    assert (info.value.line, info.value.col) == (5002, 11)  # the empty class cell
    ds = read_dataset(write(tmp_path, "ok.csv", "x,v,c\n" + rows))
    assert ds.n_rows == 5000 and ds.X[4999, 0] == 4999.5


@pytest.mark.parametrize(
    ("labels", "classes", "kind"),
    [
        (["10", "2", "1", "2"], ("1", "2", "10"), "int"),
        (["+7", "-3", "0"], ("-3", "0", "+7"), "int"),
        (["1.5", "0.25", "10"], ("0.25", "1.5", "10"), "float"),
        (["1", "01", "2"], ("01", "1", "2"), "str"),  # two texts of one number stay text
        (["yes", "no", "No", "é", "b"], ("No", "b", "no", "yes", "é"), "str"),
    ],
)
@pytest.mark.parametrize("native", [True, False])
def test_csv_labels_sort_and_type_as_numpy_unique(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    labels: list[str],
    classes: tuple[str, ...],
    kind: str,
    native: bool,
) -> None:
    """A CSV declares no class order: its labels are sorted as ``np.unique(y)`` sorts
    them (numbers as numbers) and typed as they read, by the C tokenizer's path and the
    Python readers' alike, and every row keeps its own label."""
    from treegen.data.readers import fast

    if not native:
        monkeypatch.setattr(fast, "available", lambda: False)
    path = tmp_path / "l.csv"
    path.write_text("x,label\n" + "".join(f"{i},{t}\n" for i, t in enumerate(labels)))
    ds = read_dataset(str(path))
    assert ds.classes == classes and ds.labels == kind
    assert [ds.classes[c] for c in ds.y] == labels


def test_a_csv_trained_model_predicts_typed_sorted_labels(tmp_path: Path) -> None:
    """classes_ of a model trained on a CSV of integer labels: ints, sorted, as
    scikit-learn's; predict returns them, and the model file records the type."""
    import treegen

    path = tmp_path / "l.csv"
    rows = [(i, 10 if i < 20 else (2 if i < 40 else 1)) for i in range(60)]
    path.write_text("x,label\n" + "".join(f"{x},{c}\n" for x, c in rows))
    model = treegen.train(path)
    assert model.classes_.tolist() == [1, 2, 10] and model.classes_.dtype.kind == "i"
    saved = treegen.load(model.save(tmp_path / "m.tree").path)
    assert saved.predict({"x": [5.0, 30.0, 50.0]}).tolist() == [10, 2, 1]
