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

WEATHER = Path(__file__).resolve().parents[1] / "data" / "weka" / "weather.numeric.arff"
HEAD, _, BODY = WEATHER.read_text().partition("@data\n")
ROWS = [r.split(",") for r in BODY.split()]


def variant(name: str) -> str:
    """weather.numeric written as ``name`` says."""
    rows = [",".join(r) for r in ROWS]
    if name == "data-line":  # the first row on the @data line
        return HEAD + "@data " + "\n".join(rows) + "\n"
    raise AssertionError(name)


VARIANTS = ["data-line"]


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
