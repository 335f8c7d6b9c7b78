"""ARFF instance weights (``{w}`` after a row), as Weka's ArffLoader reads them.

Read when asked (``weights=True``: training, and a model's data for eval, cv and
predict): every row's weight, 1 where a row gives none, dense and sparse rows alike, by
the fast reader (which hands such a file to the Python reader) and the Python reader
the same, with or without a model's schema.  Otherwise the first weight is an error
at its line and column, as is a weight that is not a finite number at least 0.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from treegen.data.readers import fast, fastbytes, read_dataset, read_python
from treegen.errors import DatasetError

HEAD = """@relation w
@attribute a numeric
@attribute b {x,'y z'}
@attribute class {p,n}
"""


def _file(tmp_path: Path, data: str) -> Path:
    path = tmp_path / "w.arff"
    path.write_text(HEAD + data, encoding="utf-8")
    return path


def test_every_kind_of_row_carries_its_weight(tmp_path: Path) -> None:
    path = _file(
        tmp_path,
        "@data 1,x,p,{2}\n"  # the first row on the @data line
        "2,'y z',n\n"  # no weight: 1
        "3 x p {0.5} % a comment\n"
        "{0 4,1 'y z',2 n}, {3e0}\n"  # sparse
        "{1 x, 2 p} {0}\n"  # sparse, a = 0, weight 0
        "5,?,n,{ 1.25 }\n",
    )
    ds = read_dataset(str(path), weights=True)
    ref = read_python(str(path), "arff", weights=True)
    assert ds.weights is not None and ref.weights is not None
    assert ds.weights.tolist() == ref.weights.tolist() == [2.0, 1.0, 0.5, 3.0, 0.0, 1.25]
    assert ds.X.tobytes() == ref.X.tobytes()
    assert np.array_equal(ds.X[:, 0], [1, 2, 3, 4, 0, 5])
    assert ds.y.tolist() == [0, 1, 0, 1, 0, 1]


# Rows the C tokenizer reads with their weights: the weight the last token after a
# comma, after a quoted value, before a comment, -0, and rows without one.
FAST_ROWS = "1,x,p,{2}\n2,'y z',n,{0.25}\n3,x,p\n4,x,'n',{1e1} % ten\n5,?,n,{-0}\n6,x,p,{3}\n"


@pytest.mark.parametrize("piece", [0, 7])
def test_the_c_tokenizer_reads_the_weights(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, piece: int
) -> None:
    if not fast.available():
        pytest.skip("the C tokenizer is not built")
    if piece:  # the rows in pieces of 7 bytes (each C call's weights a slice)
        monkeypatch.setattr(fastbytes, "PIECE", piece)
    path = _file(tmp_path, "@data\n" + FAST_ROWS * 40)
    ds = read_dataset(str(path), weights=True)
    assert fast.last_fallback == []
    ref = read_python(str(path), "arff", weights=True)
    assert ds.weights is not None and ref.weights is not None
    assert ds.weights.tobytes() == ref.weights.tobytes()  # -0.0 too
    assert ds.weights[:6].tolist() == [2.0, 0.25, 1.0, 10.0, 0.0, 3.0]
    assert ds.X.tobytes() == ref.X.tobytes() and ds.y.tolist() == ref.y.tolist()


@pytest.mark.parametrize("rows", [FAST_ROWS * 40, "{0 4,1 'y z',2 n}, {3e0}\n" + FAST_ROWS])
def test_a_models_data_carries_its_weights(tmp_path: Path, rows: str) -> None:
    """Read onto a model's schema (eval, cv's folds, predict), by the C tokenizer and
    the Python reader (a sparse row is the Python reader's): the same weights as
    without the schema."""
    path = _file(tmp_path, "@data\n" + rows)
    trained = read_python(str(path), "arff", weights=True)
    ds = read_dataset(str(path), schema=trained.schema, weights=True)
    assert (fast.last_fallback == []) == (fast.available() and rows.startswith("1,"))
    ref = read_python(str(path), "arff", schema=trained.schema, weights=True)
    assert ds.weights is not None and ref.weights is not None and trained.weights is not None
    assert ds.weights.tobytes() == ref.weights.tobytes() == trained.weights.tobytes()
    assert ds.X.tobytes() == ref.X.tobytes() and ds.y.tolist() == ref.y.tolist()
    assert (
        read_dataset(str(path), schema=trained.schema, weights=True, labels=False).weights
        is not None
    )


@pytest.mark.parametrize(
    "row",
    ["1,x,p,{ 2 }", "1,x,p,{2},", "1,x,p {2}", "1,x,{2}", "1,x,p,{2}x", "1,x,p,{0x1}"],
)
def test_other_weight_forms_are_the_python_readers(tmp_path: Path, row: str) -> None:
    """What the C tokenizer does not take it leaves to the Python reader, whose answer
    (a weight, or the error) is the one given."""
    path = _file(tmp_path, f"@data\n2,x,n\n{row}\n")
    try:
        ref = read_python(str(path), "arff", weights=True)
    except DatasetError as err:
        with pytest.raises(DatasetError) as info:
            read_dataset(str(path), weights=True)
        assert str(info.value) == str(err)
        return
    ds = read_dataset(str(path), weights=True)
    assert fast.last_fallback != [] or not fast.available()
    assert ds.weights is not None and ref.weights is not None
    assert ds.weights.tolist() == ref.weights.tolist()


def test_no_weight_in_the_file_is_no_weights(tmp_path: Path) -> None:
    path = _file(tmp_path, "@data\n1,x,p\n2,x,n\n")
    assert read_dataset(str(path), weights=True).weights is None


def test_weights_change_the_fingerprint_only_when_given(tmp_path: Path) -> None:
    plain = read_dataset(str(_file(tmp_path, "@data\n1,x,p\n2,x,n\n")))
    ones = read_dataset(str(_file(tmp_path, "@data\n1,x,p,{1}\n2,x,n\n")), weights=True)
    twos = read_dataset(str(_file(tmp_path, "@data\n1,x,p,{2}\n2,x,n\n")), weights=True)
    assert plain.fingerprint() != twos.fingerprint() != ones.fingerprint()
    assert (
        plain.fingerprint()
        == read_dataset(str(_file(tmp_path, "@data\n1,x,p\n2,x,n\n")), weights=True).fingerprint()
    )


@pytest.mark.parametrize(
    ("row", "col", "message"),
    [
        ("1,x,p,{2}", 7, "instance weights ('{w}' after a row) are read by train, cv, predict"),
        ("{0 1, 2 p} {2}", 12, "instance weights ('{w}' after a row) are read by train"),
    ],
)
def test_weights_are_an_error_unless_read(tmp_path: Path, row: str, col: int, message: str) -> None:
    path = _file(tmp_path, f"@data\n2,x,n\n{row}\n")
    for read in (
        lambda: read_dataset(str(path)),
        lambda: read_python(str(path), "arff"),
    ):
        with pytest.raises(DatasetError) as info:
            read()
        assert (info.value.line, info.value.col) == (7, col)
        assert message in info.value.message


@pytest.mark.parametrize(
    ("row", "col", "message"),
    [
        ("1,x,p,{-2}", 8, "instance weight '-2' is not a number at least 0"),
        ("1,x,p,{NaN}", 8, "instance weight 'NaN' is not a number at least 0"),
        ("1,x,p,{1e999}", 8, "instance weight '1e999' is not a number at least 0"),
        ("1,x,p,{}", 7, "instance weight '' is not a number at least 0"),
        ("1,x,p,{2", 7, "instance weight without closing '}'"),
        ("1,x,p,{2},3", 11, "unexpected text after the instance weight: '3'"),
        (", {2}", 1, "an instance weight without a row"),
    ],
)
def test_a_bad_weight_names_its_place(tmp_path: Path, row: str, col: int, message: str) -> None:
    path = _file(tmp_path, f"@data\n2,x,n\n{row}\n")
    with pytest.raises(DatasetError) as info:
        read_dataset(str(path), weights=True)
    assert (info.value.file, info.value.line, info.value.col) == (str(path), 7, col)
    assert info.value.message == message
