"""Bad data: every error is one DatasetError line naming file, line and (where it applies)
column."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from treegen.data.dataset import Attribute, Schema
from treegen.data.readers import read_dataset
from treegen.errors import DatasetError, UsageError

GOLF_NAMES = (
    "Play, Don't Play.\n\noutlook: sunny, overcast, rain.\ntemperature: continuous.\n"
    "humidity: continuous.\nwindy: true, false.\n"
)
GOLF_DATA = "sunny, 85, 85, false, Don't Play\novercast, 83, 78, false, Play\n"


def c45(tmp: Path, names: str = GOLF_NAMES, data: str = GOLF_DATA) -> str:
    (tmp / "g.names").write_text(names)
    (tmp / "g.data").write_text(data)
    return str(tmp / "g.data")


def error(path: str, **kw: object) -> DatasetError:
    with pytest.raises(DatasetError) as info:
        read_dataset(path, **kw)  # type: ignore[arg-type]
    assert "\n" not in str(info.value)
    return info.value


def loc(err: DatasetError) -> tuple[str | None, int | None, int | None]:
    return (Path(err.file).name if err.file else None, err.line, err.col)


# ---- C4.5 ---------------------------------------------------------------------------------


def test_unknown_attribute_value(tmp_path: Path) -> None:
    e = error(c45(tmp_path, data=GOLF_DATA + "foggy, 70, 70, true, Play\n"))
    assert loc(e) == ("g.data", 3, 1)
    assert "value 'foggy' is not declared for attribute 'outlook'" in e.message


def test_wrong_column_count(tmp_path: Path) -> None:
    e = error(c45(tmp_path, data=GOLF_DATA + "rain, 70, 70, true, Play, extra\n"))
    assert loc(e) == ("g.data", 3, 27)
    assert "expected 5 values (4 attributes and the class), found 6" in e.message
    e = error(c45(tmp_path, data="rain, 70, 70, Play\n"))
    assert loc(e)[:2] == ("g.data", 1) and "found 4" in e.message


def test_non_numeric_in_continuous_column(tmp_path: Path) -> None:
    e = error(c45(tmp_path, data=GOLF_DATA + "rain, 7O, 70, true, Play\n"))
    assert loc(e) == ("g.data", 3, 7)
    assert "'7O' is not a finite number (attribute 'temperature' is continuous)" in e.message
    for bad in ("nan", "inf", "1e999", "0x10", "1_000"):
        e = error(c45(tmp_path, data=f"rain, {bad}, 70, true, Play\n"))
        assert loc(e) == ("g.data", 1, 7), bad


@pytest.mark.parametrize("marker", ["NA", "NaN", "nan", "N/A", "null", "None", "-"])
def test_a_missing_marker_of_other_tools_says_how_to_write_one(tmp_path: Path, marker: str) -> None:
    # pandas', R's and spreadsheets' missing markers are no number and no missing value
    # here: the error says how treegen writes one, in a declared column (C4.5, ARFF) and
    # in a CSV read for a model (a column of the model's that is continuous).
    e = error(c45(tmp_path, data=f"rain, {marker}, 70, true, Play\n"))
    assert loc(e) == ("g.data", 1, 7)
    assert e.message == (
        f"'{marker}' is not a finite number (attribute 'temperature' is continuous; "
        "write '?' for an unknown value)"
    )
    train = tmp_path / "t.csv"
    train.write_text("a,b\n1,x\n2,y\n")
    schema = read_dataset(str(train)).schema
    rows = tmp_path / "p.csv"
    rows.write_text(f"a,b\n{marker},x\n")
    e = error(str(rows), schema=schema)
    assert loc(e) == ("p.csv", 2, 1) and e.message.endswith("; write '?' for an unknown value)")
    e = error(c45(tmp_path, data="rain, 7O, 70, true, Play\n"))
    assert "unknown value" not in e.message  # a typo is no missing marker


def test_a_column_that_differs_in_spaces_is_pointed_at(tmp_path: Path) -> None:
    # Weka keeps a quoted name's spaces ('a ' from a pandas header "a "); a CSV header
    # is read stripped unless quoted. The names printed alike: say how they differ.
    arff = tmp_path / "t.arff"
    arff.write_text("@relation r\n@attribute 'a ' numeric\n@attribute c {x,y}\n@data\n1,x\n")
    schema = read_dataset(str(arff)).schema
    rows = tmp_path / "p.csv"
    rows.write_text("a,c\n1,x\n")
    e = error(str(rows), schema=schema)
    assert e.message == (
        "column 'a ' that the model uses is missing (columns: a, c); the file's 'a' differs "
        'from it only in the spaces around it (a CSV header keeps them in "..." quotes)'
    )
    rows.write_text("b,c\n1,x\n")
    assert "spaces" not in error(str(rows), schema=schema).message


def test_a_column_whose_spaces_lightgbm_wrote_as_underscores_is_pointed_at(
    tmp_path: Path,
) -> None:
    # LightGBM writes a DataFrame column 'temp C' into its model file as 'temp_C': the
    # CSV the model was fitted from then lacked 'temp_C', with no word of why.
    schema = Schema((Attribute("temp_C", "continuous"), Attribute("hum", "continuous")), ("0", "1"))
    rows = tmp_path / "p.csv"
    rows.write_text("hum,temp C\n1,2\n")
    assert error(str(rows), schema=schema).message == (
        "column 'temp_C' that the model uses is missing (columns: hum, temp C); the file's "
        "'temp C' is it with '_' for its spaces, as LightGBM writes a feature name (rename "
        "the column, or import with --feature-names)"
    )
    rows.write_text("hum,temp D\n1,2\n")
    assert "LightGBM" not in error(str(rows), schema=schema).message


def test_duplicate_attribute_names(tmp_path: Path) -> None:
    e = error(c45(tmp_path, names=GOLF_NAMES + "windy: continuous.\n"))
    assert loc(e) == ("g.names", 7, 1) and "duplicate attribute name 'windy'" in e.message


def test_duplicate_value_and_class(tmp_path: Path) -> None:
    e = error(c45(tmp_path, names=GOLF_NAMES.replace("rain.", "sunny.")))
    assert loc(e) == ("g.names", 3, 27) and "duplicate value" in e.message
    e = error(c45(tmp_path, names=GOLF_NAMES.replace("Play, Don't Play.", "a, b, a.")))
    assert loc(e) == ("g.names", 1, 7) and "duplicate class 'a'" in e.message


def test_empty_files(tmp_path: Path) -> None:
    e = error(c45(tmp_path, names=""))
    assert loc(e) == ("g.names", 1, None) and "empty file" in e.message
    e = error(c45(tmp_path, names="| only a comment\n\n"))
    assert loc(e)[0] == "g.names" and "empty file" in e.message
    e = error(c45(tmp_path, data=""))
    assert loc(e) == ("g.data", 1, None) and "no data rows" in e.message
    e = error(c45(tmp_path, data="\n| comment\n\n"))
    assert loc(e)[0] == "g.data" and "no data rows" in e.message


def test_class_missing(tmp_path: Path) -> None:
    e = error(c45(tmp_path, data=GOLF_DATA + "rain, 70, 70, true, ?\n"))
    assert loc(e) == ("g.data", 3, 21) and "class value is missing" in e.message
    # A .names file without a class list starts with an attribute.
    e = error(c45(tmp_path, names="outlook: sunny, rain.\n"))
    assert loc(e) == ("g.names", 1, 1) and "expected the class list first" in e.message
    # Not one class value to learn from: named at the class column's header cell.
    e = error(write(tmp_path, "a.csv", "a,cls\n1,?\n2,\n"))
    assert loc(e) == ("a.csv", 1, 3) and e.message == "no class values"
    e = error(write(tmp_path, "b.arff", ARFF + "1,x,?\n"))
    assert loc(e) == ("b.arff", 6, 5) and "class value is missing" in e.message


def test_undeclared_class(tmp_path: Path) -> None:
    e = error(c45(tmp_path, data=GOLF_DATA + "rain, 70, 70, true, Maybe\n"))
    assert loc(e) == ("g.data", 3, 21)
    assert "undeclared class 'Maybe' (classes: Play, Don't Play)" in e.message


def test_names_grammar_errors(tmp_path: Path) -> None:
    e = error(c45(tmp_path, names=GOLF_NAMES + "size: big.\n"))
    assert loc(e) == ("g.names", 7, 7) and "unknown type 'big'" in e.message
    assert "expected continuous, ignore, discrete N" in e.message
    # C5.0/See5's types (a names file written for it): say so, and what Release 8 takes.
    for word in ("label", "date", "timestamp"):
        e = error(c45(tmp_path, names=GOLF_NAMES + f"id: {word}.\n"))
        assert loc(e) == ("g.names", 7, 5) and f"unknown type '{word}' (a C5.0 type" in e.message
        assert "declare it 'ignore' to skip the column" in e.message
    e = error(c45(tmp_path, names=GOLF_NAMES + "size continuous.\n"))
    assert loc(e) == ("g.names", 7, 1) and "without ':'" in e.message
    # A declared attribute more than the data has: every row is one value short.
    e = error(c45(tmp_path, names=GOLF_NAMES + "shape: discrete 1.\n"))
    assert loc(e) == ("g.data", 1, 23) and "expected 6 values" in e.message


def test_names_empty_names(tmp_path: Path) -> None:
    """A name left out between delimiters, in the class list or a declaration, is named
    where it is missing (Release 8 would read an empty name)."""
    e = error(c45(tmp_path, names=", " + GOLF_NAMES))
    assert loc(e) == ("g.names", 1, 1) and e.message == "empty class name"
    e = error(c45(tmp_path, names="Play, Don't Play,\n"))
    assert loc(e) == ("g.names", 1, 7) and e.message == "class list ends with ','"
    # The same for the last attribute's values (it read as the values before the ',').
    e = error(c45(tmp_path, names=GOLF_NAMES.replace("true, false.\n", "true, false,")))
    assert loc(e) == ("g.names", 6, 14)
    assert e.message == "value list of attribute 'windy' ends with ','"
    e = error(c45(tmp_path, names=GOLF_NAMES + ": continuous.\n"))
    assert loc(e) == ("g.names", 7, 1) and e.message == "empty attribute name"
    e = error(c45(tmp_path, names=GOLF_NAMES.replace("overcast, rain", "overcast, , rain")))
    assert loc(e) == ("g.names", 3, 27) and e.message == "empty value in attribute 'outlook'"


def test_discrete_n_overflow(tmp_path: Path) -> None:
    names = "y, n.\nshape: discrete 2.\n"
    e = error(c45(tmp_path, names=names, data="a, y\nb, n\nc, y\n"))
    assert loc(e) == ("g.data", 3, 1) and "discrete 2" in e.message


def test_empty_value_and_missing_data_file(tmp_path: Path) -> None:
    e = error(c45(tmp_path, data="sunny, , 85, false, Play\n"))
    assert loc(e) == ("g.data", 1, 7) and "empty value" in e.message
    (tmp_path / "h.names").write_text(GOLF_NAMES)
    e = error(str(tmp_path / "h.names"))
    assert loc(e) == ("h.data", None, None) and e.message == "no such file"


def test_a_folder_is_no_data_file(tmp_path: Path) -> None:
    """read_dataset itself names a folder given as the file (the commands look first)."""
    (tmp_path / "f.csv").mkdir()
    e = error(str(tmp_path / "f.csv"))
    assert loc(e) == ("f.csv", None, None) and e.message == "is a directory, not a data file"
    (tmp_path / "k.names").write_text(GOLF_NAMES)
    (tmp_path / "k.data").mkdir()
    e = error(str(tmp_path / "k.names"))
    assert loc(e) == ("k.data", None, None) and e.message == "is a directory, not a data file"


def test_not_utf8(tmp_path: Path) -> None:
    (tmp_path / "g.names").write_text(GOLF_NAMES)
    (tmp_path / "g.data").write_bytes(GOLF_DATA.encode() + b"sunny, 1, 2, f\xe9, Play\n")
    e = error(str(tmp_path / "g.data"))
    assert loc(e) == ("g.data", 3, 15) and "not UTF-8" in e.message


def test_utf16_is_named(tmp_path: Path) -> None:
    """Excel's "Unicode Text" and other Windows tools write UTF-16: with its byte-order
    mark the error named byte 0xff, without one a NUL byte of "not a text file"."""
    text = "a\tb\r\n1\tx\r\n2\ty\r\n"
    for codec, where in (("utf-16", (1, 1)), ("utf-16-le", (1, None)), ("utf-16-be", (1, None))):
        (tmp_path / "u.txt").write_bytes(text.encode(codec))
        e = error(str(tmp_path / "u.txt"))
        assert loc(e) == ("u.txt", *where)
        assert "UTF-16 text: convert the file to UTF-8" in e.message, e.message
    (tmp_path / "n.csv").write_bytes(b"a,b\n1,x\n\x00\x00,y\n")
    assert error(str(tmp_path / "n.csv")).message == "NUL byte: this is not a text file"


# ---- CSV and ARFF -------------------------------------------------------------------------


def write(tmp: Path, name: str, text: str) -> str:
    (tmp / name).write_text(text)
    return str(tmp / name)


def test_csv_errors(tmp_path: Path) -> None:
    e = error(write(tmp_path, "a.csv", "x,y,x\n1,2,3\n"))
    assert loc(e) == ("a.csv", 1, 5) and "duplicate column name 'x'" in e.message
    e = error(write(tmp_path, "b.csv", "x,y\n1,a\n2,b,3\n"))
    assert loc(e) == ("b.csv", 3, 5) and "expected 2 values" in e.message
    e = error(write(tmp_path, "c.csv", ""))
    assert loc(e) == ("c.csv", 1, None) and "empty file" in e.message
    e = error(write(tmp_path, "d.csv", "x,y\n"))
    assert loc(e) == ("d.csv", 2, None) and "no data rows" in e.message
    e = error(write(tmp_path, "e.csv", "x,y\n1,a\n2,\n"))
    assert loc(e) == ("e.csv", 3, 3) and "class value is missing" in e.message
    e = error(write(tmp_path, "f.csv", 'x,y\n"1,a\n'))
    assert loc(e) == ("f.csv", 2, 1) and "unterminated quote" in e.message
    e = error(write(tmp_path, "g.csv", "x,y\n1,a\n"), target="z")
    assert "no column named 'z'" in e.message
    # An empty name: pandas' unnamed index column, a separator ending the line, or any.
    e = error(write(tmp_path, "h.csv", ",x,y\n0,1,a\n1,2,b\n"))
    assert loc(e) == ("h.csv", 1, 1) and "write with index=False" in e.message
    e = error(write(tmp_path, "i.csv", "x;y;\n1;a;\n"))
    assert loc(e) == ("i.csv", 1, 5) and "a separator at the end of the line?" in e.message
    e = error(write(tmp_path, "j.csv", "x,,y\n1,2,a\n"))
    assert loc(e) == ("j.csv", 1, 3) and e.message == "empty column name in the header"
    # Excel's separator line above the header: its separator ends it, but it is no header.
    for sep in (";", ","):
        e = error(write(tmp_path, "k.csv", f"sep={sep}\nx{sep}y\n1{sep}a\n"))
        assert loc(e) == ("k.csv", 1, 6) and e.message == (
            f"empty column name in the header (line 1, 'sep={sep}', is Excel's separator "
            "line, not a header: delete it; treegen tells the separator from the header)"
        )


def test_text_after_a_closing_quote(tmp_path: Path) -> None:
    """``"5" ft`` is neither 5 nor '5 ft': the text after the closing quote was dropped
    without a word (a continuous 5; the C tokenizer gave the file to this reader for
    it), as in an ARFF value, where Weka refuses it.  Blanks before the separator are
    still fine."""
    e = error(write(tmp_path, "a.csv", 'x,y\n"5" ft,p\n6,q\n'))
    assert loc(e) == ("a.csv", 2, 5) and "text after a closing quote" in e.message
    e = error(write(tmp_path, "b.csv", 'x,y\n1,p\n"5\n6"x,q\n'))
    assert loc(e) == ("b.csv", 4, 3) and "text after a closing quote" in e.message
    e = error(write(tmp_path, "c.tsv", 'x\ty\n"5"7\tp\n'))
    assert loc(e) == ("c.tsv", 2, 4) and "text after a closing quote" in e.message
    e = error(write(tmp_path, "a.arff", ARFF.replace("{x, y}", "{'x y', z}") + "1,'x y'z,p\n"))
    assert loc(e) == ("a.arff", 6, 8) and "text after a closing quote" in e.message
    e = error(write(tmp_path, "b.arff", ARFF.replace("{x, y}", "{'x'y, z}") + "1,z,p\n"))
    assert loc(e) == ("b.arff", 3, 18) and "text after a closing quote" in e.message
    ds = read_dataset(write(tmp_path, "d.csv", 'x,y\n"5" ,p\n"6"\t, q\n'))
    assert ds.X[:, 0].tolist() == [5.0, 6.0]


def test_weka_csvsaver_quotes_are_named(tmp_path: Path) -> None:
    """Weka's CSVSaver quotes a value with a comma as ``'over,cast'`` (ARFF's quoting,
    not CSV's): two cells here, so the row is too long; the error says why."""
    e = error(write(tmp_path, "w.csv", "o,t,p\nsunny,85,no\n'over,cast',83,yes\n"))
    assert loc(e) == ("w.csv", 3, 16) and "expected 3 values" in e.message
    assert "as Weka's CSVSaver quotes it" in e.message and "ARFF file" in e.message
    e = error(write(tmp_path, "x.csv", "o,t,p\nsunny,85,no\nover,cast,83,yes\n"))
    assert loc(e) == ("x.csv", 3, 14) and "CSVSaver" not in e.message


def test_a_comment_line_above_the_header_is_named(tmp_path: Path) -> None:
    """A data logger's '# ...' line above the header was read as the header, and the
    error pointed at the first data row's extra cells only."""
    e = error(write(tmp_path, "log.csv", "# logger v1.2, 10 Hz\nt,h,c\n1,2,p\n"))
    assert loc(e) == ("log.csv", 2, 5) and "expected 2 values" in e.message
    assert e.message.endswith(
        " (line 1, '# logger v1.2, 10 Hz', is read as the header: a comment? CSV has "
        "none: delete it)"
    ), e.message
    e = error(write(tmp_path, "one.csv", "# logger\nt,h,c\n1,2,p\n"))
    assert loc(e) == ("one.csv", 2, 3) and "line 1, '# logger', is read as the header" in e.message
    e = error(write(tmp_path, "x.csv", "n,t\n1,2,p\n"))
    assert "comment" not in e.message


def test_a_number_is_written_in_ascii_digits(tmp_path: Path) -> None:
    """float() reads Unicode digits ("١" is 1.0, "１" too) and a str pattern's \\d matched
    them, so they were numbers here where strtod, Release 8 and Weka read none: a CSV
    column of them was continuous, a declared continuous value of them taken."""
    for digits in ("\u0661", "\uff11", "1\u0662"):
        ds = read_dataset(write(tmp_path, "u.csv", f"x,y\n{digits},p\n2,q\n"))
        assert ds.schema.attributes[0].kind == "nominal"
        e = error(c45(tmp_path, data=GOLF_DATA + f"rain, {digits}, 70, true, Play\n"))
        assert loc(e) == ("g.data", 3, 7)
        assert f"'{digits}' is not a finite number" in e.message
        e = error(write(tmp_path, "a.arff", f"{ARFF}{digits},x,p\n"))
        assert loc(e) == ("a.arff", 6, 1) and "is not a finite number" in e.message
    e = error(write(tmp_path, "s.arff", f"{ARFF}{{\u0661 x}}\n"))
    assert loc(e)[:2] == ("s.arff", 6) and "is not 'INDEX VALUE'" in e.message


def test_csv_schema_errors(tmp_path: Path) -> None:
    train = read_dataset(write(tmp_path, "t.csv", "x,c,y\n1,r,p\n2,b,q\n"))
    e = error(write(tmp_path, "u.csv", "x,y\n1,p\n"), schema=train.schema)
    assert loc(e)[0] == "u.csv" and "column 'c' that the model uses is missing" in e.message
    e = error(write(tmp_path, "v.csv", "x,c,y\nabc,r,p\n"), schema=train.schema)
    assert loc(e) == ("v.csv", 2, 1) and "not a finite number" in e.message
    e = error(write(tmp_path, "w.csv", "x,c,y\n1,r,zz\n"), schema=train.schema)
    assert loc(e) == ("w.csv", 2, 5) and "undeclared class 'zz'" in e.message


ARFF = "@relation r\n@attribute a numeric\n@attribute b {x, y}\n@attribute c {p, n}\n@data\n"


def test_arff_errors(tmp_path: Path) -> None:
    e = error(write(tmp_path, "a.arff", ARFF + "1, z, p\n"))
    assert loc(e) == ("a.arff", 6, 4) and "value 'z' is not declared for attribute 'b'" in e.message
    e = error(write(tmp_path, "b.arff", ARFF + "one, x, p\n"))
    assert loc(e) == ("b.arff", 6, 1) and "not a finite number" in e.message
    e = error(write(tmp_path, "c.arff", ARFF.replace("@attribute c", "@attribute a") + "1,x,p\n"))
    assert loc(e)[:2] == ("c.arff", 4) and "duplicate attribute name 'a'" in e.message
    e = error(write(tmp_path, "d.arff", ARFF + "1, x\n"))
    assert loc(e)[:2] == ("d.arff", 6) and "expected 3 values" in e.message
    e = error(write(tmp_path, "e.arff", ARFF + "{0 1, 7 x}\n"))
    assert loc(e) == ("e.arff", 6, 7) and "sparse index 7 is out of range" in e.message
    e = error(write(tmp_path, "f.arff", ARFF + "1, x, p, {2}\n"))
    assert loc(e)[:2] == ("f.arff", 6) and "instance weights" in e.message
    e = error(write(tmp_path, "g.arff", ARFF + "1, x, m\n"))
    assert loc(e) == ("g.arff", 6, 7) and "undeclared class 'm'" in e.message
    e = error(write(tmp_path, "h.arff", "% nothing\n"))
    assert "empty file" in e.message
    e = error(write(tmp_path, "i.arff", ARFF.replace("numeric", "date 'yyyy'") + "1,x,p\n"))
    assert loc(e) == ("i.arff", 2, 12) and "date attributes are not supported" in e.message
    e = error(write(tmp_path, "j.arff", ARFF.replace("numeric", "float") + "1,x,p\n"))
    assert loc(e)[:2] == ("j.arff", 2) and "unknown type 'float'" in e.message
    e = error(write(tmp_path, "k.arff", ARFF + "'1, x, p\n"))
    assert loc(e) == ("k.arff", 6, 1) and "unterminated quote" in e.message


def test_arff_declaration_errors(tmp_path: Path) -> None:
    e = error(write(tmp_path, "a.arff", ARFF.replace("@attribute a", '@attribute ""') + "1,x,p\n"))
    assert loc(e) == ("a.arff", 2, 12) and e.message == "empty attribute name"
    e = error(write(tmp_path, "b.arff", ARFF.replace("{x, y}", "{}") + "1,x,p\n"))
    assert loc(e) == ("b.arff", 3, 14) and e.message == "attribute 'b' declares no values"
    # As Weka's tokenizer, a run of commas is one separator: only a quoted '' is empty.
    e = error(write(tmp_path, "c.arff", ARFF.replace("{x, y}", "{x, '', y}") + "1,x,p\n"))
    assert loc(e) == ("c.arff", 3, 18) and e.message == "empty value in attribute 'b'"
    ds = read_dataset(write(tmp_path, "d.arff", ARFF.replace("{x, y}", "{x,, y}") + "1,y,p\n"))
    assert ds.attributes[1].values == ("x", "y") and ds.X[0, 1] == 1.0


def test_arff_sparse_row_errors(tmp_path: Path) -> None:
    e = error(write(tmp_path, "a.arff", ARFF + "{0 1, 1 x, 2 p\n"))
    assert loc(e) == ("a.arff", 6, 1) and e.message == "sparse row without closing '}'"
    e = error(write(tmp_path, "b.arff", ARFF + "{0 1, 1 x, 2 p} n\n"))
    assert loc(e) == ("b.arff", 6, 17) and e.message == "unexpected text after sparse row: 'n'"
    e = error(write(tmp_path, "c.arff", ARFF + "{0 1, 1 'x'y, 2 p}\n"))
    assert loc(e) == ("c.arff", 6, 12)
    assert e.message.startswith("text after a closing quote")


def test_arff_sparse_indices_must_increase(tmp_path: Path) -> None:
    """As Weka's ArffLoader ("indices have to be ordered"): a repeated index would
    otherwise keep only its last value, silently."""
    e = error(write(tmp_path, "a.arff", ARFF + "{0 1, 1 x, 2 p}\n{0 1, 0 2, 2 p}\n"))
    assert loc(e) == ("a.arff", 7, 7)
    assert "sparse index 0 is not above the one before it (0)" in e.message
    e = error(write(tmp_path, "b.arff", ARFF + "{2 p, 0 1}\n"))
    assert loc(e) == ("b.arff", 6, 7)
    assert "sparse index 0 is not above the one before it (2)" in e.message


def test_no_attributes(tmp_path: Path) -> None:
    """A file whose only column is the class (say, a ';' CSV whose header has a comma)
    has nothing to test: one line naming it, not a crash in training (-m 1) or in
    c4.5rules.  An ignored attribute still counts: it is the user's choice."""
    e = error(write(tmp_path, "a.csv", "cls\nyes\nno\n"))
    assert loc(e) == ("a.csv", 1, 1)
    assert "no attributes: the class 'cls' is the only column" in e.message
    e = error(write(tmp_path, "b.arff", "@relation r\n@attribute c {p, n}\n@data\np\nn\n"))
    assert loc(e) == ("b.arff", 2, 12) and "no attributes" in e.message
    e = error(c45(tmp_path, names="Play, Don't Play.\n| nothing else\n", data="Play\n"))
    assert loc(e) == ("g.names", 1, None)
    assert "no attributes: the file declares only the classes" in e.message
    ds = read_dataset(write(tmp_path, "c.csv", "id,cls\n1,yes\n2,no\n"), ignore=["id"])
    assert [a.kind for a in ds.attributes] == ["ignore"]


def test_option_errors(tmp_path: Path) -> None:
    path = write(tmp_path, "a.csv", "x,y\n1,a\n")
    assert "--nominal: names 'q'" in error(path, nominal=["q"]).message
    assert "cannot be ignored" in error(path, ignore=["y"]).message
    golf = c45(tmp_path)
    assert "--target does not apply to C4.5" in error(golf, target="windy").message
    # A column both ignored and read as nominal: --ignore won, --nominal went unused.
    path = write(tmp_path, "b.csv", "x,z,y\n1,2,a\n")
    for file, both in ((path, "z"), (golf, "humidity")):
        with pytest.raises(UsageError) as info:
            read_dataset(file, nominal=[both], ignore=[both])
        assert str(info.value) == (
            f"--nominal: names '{both}', also named by --ignore (an ignored column is no attribute)"
        )


# ---- numbers beyond the range the model computes in ---------------------------------------

HUGE = "1" * 200_000  # float() of it is inf; int() of it exceeds Python's digit limit
FLT_MAX = float(np.finfo(np.float32).max)
# The smallest double that rounds to inf as a float32 (half an ulp above FLT_MAX).
FLT_OVERFLOW = 2.0**128 - 2.0**103


def test_csv_number_beyond_double_range(tmp_path: Path) -> None:
    path = write(tmp_path, "h.csv", f"x,y\n1,a\n2,b\n{HUGE},a\n")
    e = error(path)
    assert loc(e) == ("h.csv", 4, 1)
    assert "out of range for a double" in e.message and "200000 characters" in e.message
    assert len(str(e)) < 300
    # in a file read for a model, too
    train = read_dataset(write(tmp_path, "t.csv", "x,y\n1,a\n2,b\n"))
    e = error(write(tmp_path, "p.csv", "y,x\na,3\nb,-1e309\n"), schema=train.schema)
    assert loc(e) == ("p.csv", 3, 3) and "'-1e309' is out of range" in e.message


@pytest.mark.parametrize("fmt", ["csv", "c45", "arff", "arff-sparse"])
def test_number_beyond_float32_range(tmp_path: Path, fmt: str) -> None:
    """float32=True (a c45 model: values are float32): beyond FLT_MAX is an error at the
    cell; FLT_MAX and what rounds to it are fine; float32=False reads 1e39 as it is."""

    def make(value: str) -> tuple[str, tuple[int, int]]:
        if fmt == "csv":
            return write(tmp_path, "f.csv", f"x,y\n1,a\n{value},b\n"), (3, 1)
        if fmt == "c45":
            return c45(tmp_path, data=GOLF_DATA + f"rain, 70, {value}, true, Play\n"), (3, 11)
        if fmt == "arff":
            return write(tmp_path, "f.arff", ARFF + f"0, x, p\n{value}, y, n\n"), (7, 1)
        return write(tmp_path, "f.arff", ARFF + f"{{0 1, 1 y}}\n{{0 {value}, 2 n}}\n"), (7, 2)

    col = {"csv": 0, "c45": 2, "arff": 0, "arff-sparse": 0}[fmt]
    row = {"c45": 2}.get(fmt, 1)
    for value in ("1e39", "-3.5e38", repr(FLT_OVERFLOW), "340282356779733661637539395458142568449"):
        path, (line, column) = make(value)
        e = error(path, float32=True)
        assert loc(e) == (Path(path).name, line, column), value
        assert f"'{value}' is out of range for float32" in e.message
        assert read_dataset(path).X[row, col] == float(value)  # a double holds it
    below = float(np.nextafter(FLT_OVERFLOW, 0))  # rounds to FLT_MAX, not to inf
    for value in (repr(FLT_MAX), repr(-FLT_MAX), repr(below), "1e38"):
        path, _ = make(value)
        assert read_dataset(path, float32=True).X[row, col] == float(value)


def test_inf_and_nan_words_are_not_numbers(tmp_path: Path) -> None:
    """Unchanged: in a declared continuous column they are an error (as above); in a CSV
    they make the column nominal."""
    ds = read_dataset(write(tmp_path, "w.csv", "x,y\n1,a\ninf,b\nnan,a\n-inf,b\n"))
    assert ds.attributes[0].values == ("1", "inf", "nan", "-inf")
    for word in ("inf", "-inf", "nan", "Infinity"):
        e = error(write(tmp_path, "w.arff", ARFF + f"{word}, x, p\n"), float32=True)
        assert loc(e) == ("w.arff", 6, 1) and "is not a finite number" in e.message


def test_huge_digit_strings_in_integers(tmp_path: Path) -> None:
    """Integers longer than Python's int() digit limit: a sparse index is out of range,
    'discrete N' with a huge N is no limit."""
    e = error(write(tmp_path, "s.arff", ARFF + f"{{{HUGE} 1}}\n"))
    assert loc(e) == ("s.arff", 6, 2) and "out of range" in e.message and len(str(e)) < 300
    names = f"y, n.\nshape: discrete {'9' * 5000}.\n"
    ds = read_dataset(c45(tmp_path, names=names, data="a, y\nb, n\nc, y\n"))
    assert ds.attributes[0].values == ("a", "b", "c")


def test_a_missing_column_of_unnamed_features_says_what_they_are_called(tmp_path: Path) -> None:
    """A model fitted on an array calls its features x0, x1, ... (XGBoost's f0, f1, ...,
    LightGBM's Column_0, ...): a CSV headed as the library names them said only that
    'x0' was missing; the error now says where those names come from."""
    from treegen.data.dataset import Attribute, Schema

    schema = Schema(tuple(Attribute(f"x{j}", "continuous") for j in range(3)), ("0", "1"), "class")
    e = error(write(tmp_path, "f.csv", "f0,f1,f2\n1,2,3\n"), schema=schema)
    assert loc(e)[0] == "f.csv" and "column 'x0' that the model uses is missing" in e.message
    assert "(columns: f0, f1, f2); the model's features have no names" in e.message
    assert "x0 to x2, in its order" in e.message
    named = Schema((Attribute("a", "continuous"), Attribute("x1", "continuous")), ("0",), "c")
    e = error(write(tmp_path, "g.csv", "b,x1\n1,2\n"), schema=named)
    assert e.message.endswith("(columns: b, x1)")


def test_a_nan_word_in_a_continuous_column_says_how_missing_is_written(tmp_path: Path) -> None:
    """numpy and pandas (na_rep) write a missing value as 'nan' or 'NaN', R as 'NA':
    not numbers here; the error said only that, not what a missing value is."""
    train = read_dataset(write(tmp_path, "t.csv", "x,y\n1,p\n2,q\n"))
    for word in ("NaN", "nan", "NA", "null"):
        e = error(write(tmp_path, "u.csv", f"x,y\n{word},p\n"), schema=train.schema)
        assert loc(e) == ("u.csv", 2, 1)
        assert e.message == (
            f"'{word}' is not a finite number (attribute 'x' is continuous; write '?' for "
            "an unknown value)"
        )
    e = error(write(tmp_path, "v.csv", "x,y\nabc,p\n"), schema=train.schema)
    assert e.message == "'abc' is not a finite number (attribute 'x' is continuous)"


def test_a_comma_number_in_a_continuous_column_says_how_numbers_are_written(
    tmp_path: Path,
) -> None:
    """A model's data written as a spreadsheet writes it ('1,5' from a ';' file, "1,234")
    said only that the cell was no number, where training's note names the comma."""
    train = read_dataset(write(tmp_path, "t.csv", "x,y\n1,p\n2,q\n"))
    for cell, sep, shown in (("1,5", ";", "1,5"), ('"1,234"', ",", "1,234")):
        e = error(write(tmp_path, "u.csv", f"x{sep}y\n{cell}{sep}p\n"), schema=train.schema)
        assert loc(e) == ("u.csv", 2, 1)
        assert e.message == (
            f"'{shown}' is not a finite number (attribute 'x' is continuous; its decimal "
            "point is '.', with no thousands separator)"
        )


@pytest.mark.parametrize(
    ("name", "compress"),
    [
        ("gzip", lambda b: __import__("gzip").compress(b)),
        ("bzip2", lambda b: __import__("bz2").compress(b)),
        ("xz", lambda b: __import__("lzma").compress(b)),
    ],
)
@pytest.mark.parametrize("suffix", [".csv.gz", ".arff", ".data"])
def test_a_compressed_file_is_named_so(
    tmp_path: Path, name: str, compress: object, suffix: str
) -> None:
    """`train data.csv.gz` said 'byte 0x8b is not UTF-8 text': the file is compressed."""
    path = tmp_path / f"d{suffix}"
    path.write_bytes(compress(b"a,b\n1,x\n2,y\n"))  # type: ignore[operator]
    if suffix == ".data":
        (tmp_path / "d.names").write_text("x, y.\na: continuous.\n")
    e = error(str(path))
    assert e.message == f"a {name}-compressed file, not text: decompress it first"
    assert e.file == str(path)
