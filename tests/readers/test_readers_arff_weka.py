"""ARFF files written as Weka's ArffLoader reads them, not only as Weka writes them.

Every variant here is weather.numeric (Weka's own file) written another way that
Weka 3.6's ``weka.core.Instances`` reads as the same 14 instances (checked with
``weka.filters.AllFilter``, which writes back what Weka read); treegen must read
each one as the same Dataset as the plain file, by the C tokenizer's path and by
the Python reference alike.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from treegen.data.dataset import Dataset
from treegen.data.readers import fast, read_dataset, read_python
from treegen.errors import DatasetError

WEATHER = Path(__file__).resolve().parents[1] / "data" / "weka" / "weather.numeric.arff"
HEAD, _, BODY = WEATHER.read_text().partition("@data\n")
ROWS = [r.split(",") for r in BODY.split()]


def variant(name: str) -> str:
    """weather.numeric written as ``name`` says."""
    rows = [",".join(r) for r in ROWS]
    if name == "data-line":  # the first row on the @data line
        return HEAD + "@data " + "\n".join(rows) + "\n"
    if name == "keyword-comments":  # '%' glued to every declaration, @data's too
        head = "\n".join(ln + "%c" if ln.startswith("@") else ln for ln in HEAD.split("\n"))
        return head + "@data%rows\n" + "\n".join(rows) + "\n"
    return HEAD + "@data\n" + "".join(SEPARATED[name](r) + "\n" for r in ROWS)


def _quoted(r: list[str]) -> list[str]:
    return [f"'{r[0]}'", r[1], r[2], f'"{r[3]}"', r[4]]


# Weka's tokenizer: blanks and commas alike, a run of them one separator.
SEPARATED = {
    "spaces": lambda r: " ".join(r),
    "tabs": lambda r: "\t".join(r),
    "blank-runs": lambda r: " \t  ".join(r),
    "mixed": lambda r: f"{r[0]} ,{r[1]}\t{r[2]}, {r[3]} , {r[4]}",
    "trailing-comma": lambda r: ",".join(r) + ",",
    "leading-comma": lambda r: "," + ",".join(r),
    "double-comma": lambda r: ",,".join(r),
    "quoted-spaces": lambda r: " ".join(_quoted(r)),
    "quoted-tabs-commas": lambda r: ",\t".join(_quoted(r)),
    "comment-after-blank": lambda r: " ".join(r) + " % " + r[0],
    "comment-glued": lambda r: " ".join(r) + "%" + r[0],
    "commas-line-between": lambda r: ",".join(r) + "\n , ,",
}

VARIANTS = ["data-line", "keyword-comments", *SEPARATED]


def _same(a: Dataset, b: Dataset) -> bool:
    return (
        a.schema == b.schema
        and np.array_equal(a.X, b.X, equal_nan=True)
        and np.array_equal(a.y, b.y)
    )


@pytest.mark.parametrize("name", VARIANTS)
def test_weka_syntax_reads_as_the_plain_file(tmp_path: Path, name: str) -> None:
    plain = read_dataset(str(WEATHER))
    path = tmp_path / f"{name}.arff"
    path.write_text(variant(name), encoding="utf-8")
    got = read_dataset(str(path))
    assert _same(got, plain)
    assert _same(read_python(str(path), "arff"), plain)
    if fast.available():
        # Read again onto the model's schema (eval, predict, verify), both paths.
        assert _same(read_dataset(str(path), schema=plain.schema), plain)


SPARSE_HEAD = "@relation s\n@attribute a numeric\n@attribute b {x, y}\n@attribute c {p, n}\n@data\n"


def test_sparse_entries_separated_by_blanks(tmp_path: Path) -> None:
    """``{0 1 2 n}`` is ``{0 1, 2 n}`` to Weka: an index, a value, an index, a value."""
    dense = tmp_path / "d.arff"
    dense.write_text(SPARSE_HEAD + "1,x,n\n0,y,p\n2.5,'y',p\n", encoding="utf-8")
    sparse = tmp_path / "s.arff"
    sparse.write_text(SPARSE_HEAD + "{0 1 2 n}\n{1 y}\n{ 0 2.5\t1 'y' , }\n", encoding="utf-8")
    assert _same(read_dataset(str(sparse)), read_dataset(str(dense)))


def test_blank_separated_errors_name_the_cell(tmp_path: Path) -> None:
    """A row of blank-separated values short of one, or with a value glued to a closing
    quote, is still an error at its line and column."""
    path = tmp_path / "e.arff"
    path.write_text(SPARSE_HEAD + "1 x n\n2 \t y\n", encoding="utf-8")
    with pytest.raises(DatasetError) as err:
        read_dataset(str(path))
    assert (err.value.line, err.value.col) == (7, 5)
    assert "expected 3 values (3 attributes), found 2" in str(err.value)
    path.write_text(SPARSE_HEAD + "1 'x'y n\n", encoding="utf-8")
    with pytest.raises(DatasetError) as err:
        read_dataset(str(path))
    assert (err.value.line, err.value.col) == (6, 6)
    assert "text after a closing quote" in str(err.value)


@pytest.mark.parametrize(
    "declared",
    ["{sunny overcast rainy}", "{ sunny,,overcast\trainy , }", "{'sunny' overcast,rainy}"],
)
def test_nominal_values_separated_by_blanks(tmp_path: Path, declared: str) -> None:
    """Weka reads ``{a b}`` as the two values ``a`` and ``b``, as it reads a row."""
    path = tmp_path / "n.arff"
    path.write_text(variant("spaces").replace("{sunny, overcast, rainy}", declared), "utf-8")
    assert _same(read_dataset(str(path)), read_dataset(str(WEATHER)))


def test_an_unquoted_blank_splits_a_declared_value(tmp_path: Path) -> None:
    """``{sunny day, rainy}`` declares three values to Weka (``weka.filters.AllFilter``
    writes it back as ``{sunny,day,rainy}``); a value with a blank is quoted."""
    path = tmp_path / "b.arff"
    path.write_text(
        "@relation r\n@attribute o {sunny day, 'a b'}\n@attribute c {p,n}\n@data\n"
        "day,p\nsunny,n\n'a b',p\n",
        "utf-8",
    )
    assert read_dataset(str(path)).schema.attributes[0].values == ("sunny", "day", "a b")


def test_nan_is_missing_in_a_numeric_attribute(tmp_path: Path) -> None:
    """Weka reads a number with Java's Double.valueOf: ``NaN`` (signed or quoted too) is
    NaN, its missing value (AllFilter writes these rows back as ``?,NaN,p``, ``?,x,n``
    and ``{0 ?}``); in a nominal attribute ``NaN`` is a value like any other."""
    path = tmp_path / "nan.arff"
    path.write_text(
        "@relation r\n@attribute a numeric\n@attribute n {NaN,x}\n@attribute c {p,n}\n"
        "@data\nNaN,NaN,p\n'-NaN',x,n\n{0 +NaN, 1 NaN}\n1,x,n\n",
        "utf-8",
    )
    for ds in (read_dataset(str(path)), read_python(str(path), "arff")):
        assert np.isnan(ds.X[:3, 0]).all() and ds.X[3, 0] == 1.0
        assert ds.X[:, 1].tolist() == [0.0, 1.0, 0.0, 1.0]
        assert ds.y.tolist() == [0, 1, 0, 1]
