"""Property: any table written as C4.5, ARFF and CSV reads back as the same Dataset.

hypothesis draws attribute names and nominal values full of the characters
each format must quote or escape (``, : . | % ' " \\ { }``, spaces, non-ASCII),
continuous values of any magnitude, and missing cells; a small writer per
format escapes them the way the format documents, and the three readers must
agree with each other and with the drawn values.
"""

from __future__ import annotations

import math
from pathlib import Path
from tempfile import TemporaryDirectory

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from treegen.data.readers import read_dataset

_CHARS = st.sampled_from(list("abcXYZ019 ,:.|%'\"\\{}-_é€"))


def _name(text: str) -> bool:
    # Leading/trailing blanks are stripped and blank runs collapsed by every
    # format, and "?" means missing, so such names cannot round-trip.
    return bool(text.strip()) and text == text.strip() and "  " not in text and text != "?"


names = st.text(_CHARS, min_size=1, max_size=8).filter(_name)


@st.composite
def tables(
    draw: st.DrawFn,
) -> tuple[list[tuple[str, list[str] | None]], list[str], list[list[object]], list[int]]:
    n_attr = draw(st.integers(1, 4))
    attr_names = draw(st.lists(names, min_size=n_attr + 1, max_size=n_attr + 1, unique=True))
    attrs: list[tuple[str, list[str] | None]] = []
    for name in attr_names[:-1]:
        if draw(st.booleans()):
            attrs.append((name, None))
        else:
            attrs.append((name, draw(st.lists(names, min_size=2, max_size=4, unique=True))))
    classes = draw(st.lists(names, min_size=2, max_size=3, unique=True))
    n_rows = draw(st.integers(1, 8))
    rows: list[list[object]] = []
    for _ in range(n_rows):
        row: list[object] = []
        for _, values in attrs:
            if draw(st.integers(0, 5)) == 0:
                row.append(None)
            elif values is None:
                row.append(draw(st.floats(allow_nan=False, allow_infinity=False, width=64)))
            else:
                row.append(draw(st.integers(0, len(values) - 1)))
        rows.append(row)
    y = [draw(st.integers(0, len(classes) - 1)) for _ in range(n_rows)]
    return attrs, classes, rows, y


def c45_escape(text: str) -> str:
    return "".join("\\" + c if c in ",:.|\\" else c for c in text)


def arff_quote(text: str) -> str:
    if BARE[0] and not any(c in text for c in " ,'\"%{}\\"):
        return text
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def csv_quote(text: str) -> str:
    if BARE[0] and "," not in text and not text.startswith('"'):
        return text
    return '"' + text.replace('"', '""') + '"'


BARE = [False]  # write names and values without quotes where the format allows it


def cell(value: object, values: list[str] | None, quote: object) -> str:
    if value is None:
        return "?"
    if values is None:
        return repr(value)
    return quote(values[value])  # type: ignore[operator,index]


def write_all(
    d: Path,
    attrs: list[tuple[str, list[str] | None]],
    classes: list[str],
    rows: list[list[object]],
    y: list[int],
) -> None:
    names = [c45_escape(c) for c in classes]
    lines = [", ".join(names) + "."]
    for name, values in attrs:
        decl = "continuous" if values is None else ", ".join(c45_escape(v) for v in values)
        lines.append(f"{c45_escape(name)}: {decl}.")
    (d / "t.names").write_text("\n".join(lines) + "\n")
    (d / "t.data").write_text(
        "".join(
            ", ".join(
                [
                    *(cell(v, vals, c45_escape) for v, (_, vals) in zip(r, attrs, strict=False)),
                    c45_escape(classes[k]),
                ]
            )
            + "\n"
            for r, k in zip(rows, y, strict=False)
        )
    )

    arff = ["@relation t"]
    for name, values in attrs:
        decl = "numeric" if values is None else "{" + ",".join(arff_quote(v) for v in values) + "}"
        arff.append(f"@attribute {arff_quote(name)} {decl}")
    arff.append("@attribute class {" + ",".join(arff_quote(c) for c in classes) + "}")
    arff.append("@data")
    arff += [
        ",".join(
            [
                *(cell(v, vals, arff_quote) for v, (_, vals) in zip(r, attrs, strict=False)),
                arff_quote(classes[k]),
            ]
        )
        for r, k in zip(rows, y, strict=False)
    ]
    (d / "t.arff").write_text("\n".join(arff) + "\n")

    csv = [",".join([*(csv_quote(n) for n, _ in attrs), "class"])]
    csv += [
        ",".join(
            [
                *(cell(v, vals, csv_quote) for v, (_, vals) in zip(r, attrs, strict=False)),
                csv_quote(classes[k]),
            ]
        )
        for r, k in zip(rows, y, strict=False)
    ]
    (d / "t.csv").write_text("\n".join(csv) + "\n")


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), st.booleans())
def test_three_formats_agree(
    table: tuple[list[tuple[str, list[str] | None]], list[str], list[list[object]], list[int]],
    bare: bool,
) -> None:
    attrs, classes, rows, y = table
    BARE[0] = bare
    with TemporaryDirectory() as tmp:
        d = Path(tmp)
        write_all(d, attrs, classes, rows, y)
        c45 = read_dataset(str(d / "t.names"))
        arff = read_dataset(str(d / "t.arff"))
        nominal = [n for n, v in attrs if v is not None]
        csv = read_dataset(str(d / "t.csv"), nominal=nominal)

    assert [a.name for a in c45.attributes] == [n for n, _ in attrs]
    assert c45.classes == tuple(classes) and c45.y.tolist() == y
    assert c45.schema.attributes == arff.schema.attributes and arff.classes == c45.classes
    assert np.array_equal(c45.X, arff.X, equal_nan=True) and np.array_equal(c45.y, arff.y)
    for j, (name, values) in enumerate(attrs):
        for i, row in enumerate(rows):
            got = c45.X[i, j]
            if row[j] is None:
                assert math.isnan(got)
            else:
                assert got == row[j] and math.copysign(1, got) == math.copysign(1, row[j])  # type: ignore[arg-type]
            # CSV declares nothing: compare decoded values, not codes.
            a = csv.attributes[j]
            assert a.name == name
            if values is None or row[j] is None:
                if row[j] is None:
                    assert math.isnan(csv.X[i, j])
                elif a.is_continuous:
                    assert csv.X[i, j] == row[j]
            else:
                assert a.values[int(csv.X[i, j])] == values[row[j]]  # type: ignore[index]
    assert [csv.classes[k] for k in csv.y] == [classes[k] for k in y]


cells = st.text(st.sampled_from(list("ab ,\"'\n;?%é")), min_size=1, max_size=6).filter(
    lambda t: t == t.strip() and t != "?"
)


@settings(max_examples=150, deadline=None)
@given(
    st.integers(2, 4).flatmap(
        lambda n: st.lists(st.lists(cells, min_size=n, max_size=n), min_size=2, max_size=6)
    )
)
def test_csv_reader_agrees_with_python_csv_module(grid: list[list[str]]) -> None:
    import csv
    import io

    header = [f"c{i}" for i in range(len(grid[0]))]
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows([header, *grid])
    with TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.csv"
        path.write_text(buf.getvalue())
        ds = read_dataset(str(path), nominal=header)
    decoded = [
        [a.values[int(ds.X[i, j])] for j, a in enumerate(ds.attributes)] for i in range(ds.n_rows)
    ]
    assert decoded == [row[:-1] for row in grid]
    assert [ds.classes[k] for k in ds.y] == [row[-1] for row in grid]
