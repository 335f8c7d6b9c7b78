"""The fuzz checks' exact comparison (support.floatbits, which support.gbm_fuzz_check
and support.sklearn_fuzz_check hold the imports to the libraries with) finds what
``==`` on the numbers misses: a zero's sign, a NaN's sign and payload, one ulp."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from support.floatbits import bits, first_differing_row, rows_differ, same_bits
from support.gbm_fuzz import Case

PAYLOAD_NAN = np.array([0x7FF800000000ABCD], dtype=np.uint64).view(np.float64)[0]


def test_bits_tell_apart_what_equality_does_not() -> None:
    a = np.array([0.0, 1.0, np.nan, 2.0])
    b = np.array([-0.0, 1.0, PAYLOAD_NAN, 2.0])
    assert (a[[0, 1, 3]] == b[[0, 1, 3]]).all()
    assert not same_bits(a, b)
    assert rows_differ(a, b).tolist() == [True, False, True, False]
    assert first_differing_row(a, b) == 0
    assert not same_bits([np.nan], [-np.nan])
    assert not same_bits([1.0], [np.nextafter(1.0, 2.0)])
    assert same_bits(a, a.copy()) and not rows_differ(b, b.copy()).any()


def test_bits_are_float64_words_of_any_layout() -> None:
    x = np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::2]  # float32, not contiguous
    assert bits(x).tolist() == [
        [int(np.float64(v).view(np.uint64)) for v in row] for row in x.tolist()
    ]
    assert bits(-0.0).tolist() == [0x8000000000000000]
    assert same_bits(x, x.astype(np.float64))


def test_rows_differ_by_row_and_by_shape() -> None:
    a = np.zeros((3, 2))
    b = a.copy()
    b[2, 1] = -0.0
    assert rows_differ(a, b).tolist() == [False, False, True]
    assert first_differing_row(a, b) == 2
    assert rows_differ(a, a[:, :1]).tolist() == [True, True, True]
    assert not same_bits(a, a.reshape(2, 3))


def test_the_gbm_check_reports_a_value_one_bit_off() -> None:
    from support.gbm_fuzz_check import compare

    rows = np.array([[1.0], [2.0], [3.0]])
    lib = np.array([0.5, 0.0, 1.0], dtype=np.float32)  # XGBoost's float32 predictions
    case = Case("x", {}, None, rows, lambda r: lib, lambda r: lib[:, None], regressor=True)

    def model(values: list[float]) -> SimpleNamespace:
        return SimpleNamespace(value=None, predict=lambda r: np.array(values))

    assert compare(case, model([0.5, 0.0, 1.0]), rows, "api") == []
    found = compare(case, model([0.5, -0.0, 1.0]), rows, "api")
    assert found == ["api: values differ on 1 of 3 rows, first row 1: [2.0]"]
