"""treegen's ARFF reader against Weka's own reading of the files Weka ships.

The oracle is ``tests/data/weka/weka_summary.txt``: the output of
``weka.core.Instances FILE`` for each file (row count, and per attribute its
type, missing count and number of distinct values).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from treegen.data.readers import read_dataset
from treegen.errors import DatasetError

WEKA = Path(__file__).resolve().parents[1] / "data" / "weka"
_ROW = re.compile(
    r"^\s*(\d+) .*?\s(Num|Nom|Str|Dat)\s+\d+%\s+\d+%\s+\d+%\s+(\d+) /\s*\d+%"
    r"\s+\d+ /\s*\d+%\s+(\d+)\s*$"
)


def _weka_summaries() -> dict[str, tuple[int, list[tuple[str, int, int]]]]:
    out: dict[str, tuple[int, list[tuple[str, int, int]]]] = {}
    name, rows = "", 0
    attrs: list[tuple[str, int, int]] = []
    for line in (WEKA / "weka_summary.txt").read_text().splitlines():
        if line.startswith("=== "):
            if name:
                out[name] = (rows, attrs)
            name, rows, attrs = line[4:], 0, []
        elif line.startswith("Num Instances:"):
            rows = int(line.split(":")[1])
        elif m := _ROW.match(line):
            attrs.append((m.group(2), int(m.group(3)), int(m.group(4))))
    out[name] = (rows, attrs)
    return out


SUMMARIES = _weka_summaries()
NOMINAL_CLASS = sorted(
    n
    for n, (_, a) in SUMMARIES.items()
    if a[-1][0] == "Nom" and not any(t == "Str" for t, _, _ in a)
)


def test_oracle_covers_the_copied_files() -> None:
    assert len(NOMINAL_CLASS) == 17
    assert {p.name for p in WEKA.glob("*.arff")} == set(SUMMARIES)


@pytest.mark.parametrize("name", NOMINAL_CLASS)
def test_reader_agrees_with_weka(name: str) -> None:
    n_rows, attrs = SUMMARIES[name]
    ds = read_dataset(str(WEKA / name))
    assert ds.n_rows == n_rows
    assert len(ds.attributes) + 1 == len(attrs)
    for j, (a, (kind, missing, distinct)) in enumerate(zip(ds.attributes, attrs, strict=False)):
        assert a.kind == {"Num": "continuous", "Nom": "nominal"}[kind], a.name
        col = ds.X[:, j]
        assert int(np.isnan(col).sum()) == missing, a.name
        assert len(np.unique(col[~np.isnan(col)])) == distinct, a.name
    assert len(np.unique(ds.y)) == attrs[-1][2]
    assert attrs[-1][1] == 0 and ds.y.min() >= 0


def test_weather_nominal_values_in_declared_order() -> None:
    ds = read_dataset(str(WEKA / "weather.nominal.arff"))
    assert ds.schema.attributes[0].values == ("sunny", "overcast", "rainy")
    assert ds.classes == ("yes", "no")
    assert ds.schema.target == "play"
    # First row: sunny,hot,high,FALSE,no
    assert ds.X[0].tolist() == [0.0, 0.0, 0.0, 1.0]  # windy {TRUE, FALSE}: FALSE is 1
    assert ds.y[0] == 1


def test_quoted_values_with_spaces_and_trailing_comment() -> None:
    glass = read_dataset(str(WEKA / "glass.arff"))
    assert glass.classes[:2] == ("build wind float", "build wind non-float")
    market = read_dataset(str(WEKA / "supermarket.arff"))
    assert market.classes == ("low", "high")  # '@attribute total { low, high} % low < 100'
    assert market.attributes[0].values == ("t",)


def test_string_attribute_rejected_unless_ignored() -> None:
    path = str(WEKA / "ReutersCorn-test.arff")
    with pytest.raises(DatasetError) as info:
        read_dataset(path)
    assert str(info.value).startswith(f"{path}:3:")
    assert "string attributes are not supported" in str(info.value)
    assert "--ignore Text" in str(info.value)
    ds = read_dataset(path, ignore=["Text"])
    assert ds.attributes[0].kind == "ignore"
    assert ds.n_rows == SUMMARIES["ReutersCorn-test.arff"][0]
    assert np.isnan(ds.X).all()


def test_numeric_class_needs_nominal_option() -> None:
    path = str(WEKA / "cpu.arff")
    with pytest.raises(DatasetError, match="must be nominal"):
        read_dataset(path)
    ds = read_dataset(path, nominal=["class"])
    assert ds.n_rows == 209
    assert len(ds.classes) == SUMMARIES["cpu.arff"][1][-1][2]
