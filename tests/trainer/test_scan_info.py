"""``scan_best`` picks what ``scan_cont``, numpy's logs and ``best_cuts`` pick.

For c45, levelwise/score.py scans a bucket's segments with ``scan_best``, which takes
the candidates' logs (numpy's ``log``, called from C a block of cuts at a time) and
picks each segment's best cut in the scan, its base info and cost from a header row
in the block; ``scan_cont`` and ``best_cuts`` (in windows for long segments) are the
path it replaced.  The two must pick the same cuts, bit for bit: whole trees are
compared with the former path forced, with blocks of one row and of a few.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.trainer import TrainOptions, native, train
from treegen.trainer.levelwise import score

needs_native = pytest.mark.skipif(native.cscan is None, reason="accelerator off or not built")


def _data(seed: int, n: int, n_classes: int) -> Dataset:
    """Continuous attributes with repeated values and unknowns (fractional weights)."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, 3)) * 5, 1)
    y = ((X[:, 0] > 0).astype(int) + (X[:, 1] > 1) + (rng.random(n) < 0.3)) % n_classes
    X[rng.random(X.shape) < 0.08] = np.nan
    attrs = tuple(Attribute(f"c{j}", "continuous", ()) for j in range(3))
    schema = Schema(attrs, tuple(f"k{c}" for c in range(n_classes)), "class")
    return Dataset(schema, X, y.astype(np.int32), "test")


@needs_native
@pytest.mark.parametrize(("n_classes", "block"), [(2, 1), (3, 0), (3, 5), (4, 0), (5, 3)])
def test_trees_equal_with_either_scan(
    monkeypatch: pytest.MonkeyPatch, n_classes: int, block: int
) -> None:
    # block: rows (cuts and segment headers) per log block (0: as score.LOG_BLOCK makes it)
    ds = _data(n_classes, 2500, n_classes)
    lib = native.cscan
    assert lib is not None
    used: list[int] = []

    class Counting:
        def __getattr__(self, name: str) -> Any:
            return getattr(lib, name)

        @staticmethod
        def scan_best(*args: Any) -> Any:
            used.append(1)
            return lib.scan_best(*args)

    monkeypatch.setattr(native, "cscan", Counting())
    if block:
        monkeypatch.setattr(score, "LOG_BLOCK", block * (2 * n_classes + 2))
    got = train(ds, TrainOptions(), case_order="rows").nodes
    assert used  # the new path ran
    monkeypatch.setattr(score.LogBlock, "of", staticmethod(lambda ctx: None))
    want = train(ds, TrainOptions(), case_order="rows").nodes
    assert got == want


@needs_native
def test_info_kernels_reject_bad_arguments() -> None:
    lib = native.cscan
    assert lib is not None
    f32, ip = np.float32, np.intp
    rec = np.zeros((4, 3), f32)  # one value, weight, class (two classes)
    rec[:, 0] = np.arange(4)
    rec[:, 1] = 1.0
    rec[2:, 2] = 1.0
    one = np.ones(1, f32)
    # one segment of cases 0..3 (start, length, attribute), MinSplit 1, bound 3, 2 classes
    segment = (np.zeros(1, ip), np.array([4], ip), np.zeros(1, ip), one, np.full(1, 3.0, f32))
    best, pen, low = np.zeros(1, ip), np.zeros(1, f32), np.zeros(1, f32)
    segf = np.array([[4.0, 1.0, 4.0]], f32)  # known, 1 - unknown rate, cases
    args = (rec, 4, 3, 1, np.arange(4, dtype=np.int32), *segment, np.ones(1, np.uint8), 2)
    args += (best, segf, pen, low, np.zeros((1, 2), f32), np.zeros(1, ip), 2.0)
    x, lg = np.ones(6 * 3), np.zeros(6 * 3)
    n = lib.scan_best(*args, x, lg, np.log)
    assert n == 3  # cuts after the first three cases
    # the cut between the classes: no info left, so the gain is the base info (1 bit)
    # less the cost log2(3) / 4
    assert best[0] == 1 and low[0] == 2.0
    assert pen[0] == np.float32(np.float32(1.0) - np.float32(np.log(3.0) / np.log(2) / 4))
    with pytest.raises(ValueError):  # the logs' block is not the inputs' size
        lib.scan_best(*args, x, np.zeros(4), np.log)
    with pytest.raises(ValueError):  # a block smaller than one cut's 2C + 2 inputs
        lib.scan_best(*args, np.ones(3), np.zeros(3), np.log)
    with pytest.raises(ZeroDivisionError):  # the log's error comes through
        lib.scan_best(*args, x, lg, lambda a, b: 1 / 0)
    with pytest.raises(ValueError):  # segf holds three numbers a segment
        lib.scan_best(*args[:13], np.zeros(2, f32), *args[14:], x, lg, np.log)
