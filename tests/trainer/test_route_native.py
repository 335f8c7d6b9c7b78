"""The partition's C kernels (``route.c``, ``emit_children``'s sums) compute what numpy does.

While a tree grows level by level, every call of the partition steps that have a C
path (each entry's branch, the known and unknown sums per branch, the children's
case lists with their weights and class sums, the children's sorted arrays) is run
a second time with the accelerator off, and the two results must be equal bit for
bit.  The data reach the awkward paths: unknown values copied into every branch,
fractional weights, nominal tests (one- and two-byte codes), subset tests, both
flavours.  Whole trees are also compared with the accelerator on and off.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.trainer import TrainOptions, native, train
from treegen.trainer.levelwise import children as children_mod
from treegen.trainer.levelwise import partition as part_mod
from treegen.trainer.levelwise import routing as routing_mod
from treegen.trainer.options import Flavor

needs_native = pytest.mark.skipif(native.cscan is None, reason="accelerator off or not built")


def _mixed_data(seed: int, n: int, n_values: int) -> Dataset:
    """Continuous and nominal attributes, unknown values in both, 3 classes tied to them."""
    rng = np.random.default_rng(seed)
    cont = np.round(rng.normal(size=(n, 3)) * 10, 1)
    nom = rng.integers(0, n_values, size=(n, 2)).astype(np.float64)
    X = np.concatenate([cont, nom], axis=1)
    y = ((X[:, 0] > 0).astype(int) + (X[:, 3] % 3 == 0) + (rng.random(n) < 0.2)) % 3
    X[rng.random(X.shape) < 0.1] = np.nan
    attrs = tuple(Attribute(f"c{j}", "continuous", ()) for j in range(3)) + tuple(
        Attribute(f"n{j}", "nominal", tuple(f"v{k}" for k in range(n_values))) for j in range(2)
    )
    schema = Schema(attrs, ("a", "b", "c"), "class")
    return Dataset(schema, X, y.astype(np.int32), "test")


def _equal(a: Any, b: Any) -> None:
    """Arrays (and tuples/records of them) equal bit for bit, dtype included."""
    if isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype
        assert np.array_equal(a.view(np.uint8), b.view(np.uint8))
        return
    if hasattr(a, "__slots__") or isinstance(a, tuple):
        fields = a if isinstance(a, tuple) else [getattr(a, f) for f in a.__slots__]
        other = b if isinstance(b, tuple) else [getattr(b, f) for f in b.__slots__]
        assert len(fields) == len(other)
        for x, y in zip(fields, other, strict=True):
            _equal(x, y)
        return
    assert a == b


@pytest.fixture
def shadowed(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every partition step with a C path checked against its numpy path as it runs;
    yields the names of the steps that ran."""
    ran: list[str] = []
    lib = native.cscan

    def shadow(module: Any, name: str) -> None:
        real: Callable[..., Any] = getattr(module, name)

        def both(*args: Any) -> Any:
            got = real(*args)
            monkeypatch.setattr(native, "cscan", None)
            try:
                want = real(*args)
            finally:
                monkeypatch.setattr(native, "cscan", lib)
            _equal(got, want)
            ran.append(name)
            return got

        monkeypatch.setattr(module, name, both)

    shadow(routing_mod, "_route")
    shadow(part_mod, "_branch_sums")
    shadow(part_mod, "_child_cases")
    shadow(children_mod, "children_sorted")
    monkeypatch.setattr(part_mod, "children_sorted", children_mod.children_sorted)
    yield ran


@needs_native
@pytest.mark.parametrize(
    ("flavor", "seed", "n_values", "subsets"),
    [
        (flavor, seed, n_values, subsets)
        for flavor in ("c45", "j48")
        for seed, n_values, subsets in ((0, 4, False), (1, 3, True), (2, 5, True), (3, 200, False))
        # --subsets is Release 8's alone (refused with --flavor j48): j48 without it
        if flavor == "c45" or not subsets
    ]
    + [("j48", 1, 3, False), ("j48", 2, 5, False)],
)
def test_partition_kernels_equal_numpy(
    shadowed: list[str], seed: int, n_values: int, flavor: Flavor, subsets: bool
) -> None:
    ds = _mixed_data(seed, 1500, n_values)
    opts = TrainOptions(flavor=flavor, subsets=subsets, prune=False)
    model = train(ds, opts, case_order="rows")
    assert model.size > 10
    assert {"_route", "_branch_sums", "_child_cases", "children_sorted"} <= set(shadowed)


@needs_native
@pytest.mark.parametrize("flavor", ["c45", "j48"])
def test_trees_equal_with_and_without_the_partition_kernels(
    monkeypatch: pytest.MonkeyPatch, flavor: Flavor
) -> None:
    ds = _mixed_data(5, 4000, 5)
    opts = TrainOptions(flavor=flavor)
    with_c = train(ds, opts, case_order="rows")
    monkeypatch.setattr(native, "cscan", None)
    assert train(ds, opts, case_order="rows").nodes == with_c.nodes


@needs_native
def test_partition_kernels_reject_bad_indices() -> None:
    lib = native.cscan
    assert lib is not None
    ip, f32 = np.intp, np.float32
    cvals = np.zeros((1, 4), f32)
    codes = np.ones((4, 1), np.int8)
    cut = np.zeros(1)
    out = np.zeros(2, ip)
    with pytest.raises(IndexError):  # row 4 is past the table
        lib.route_branches(
            np.zeros(2, ip),
            np.array([0, 4], ip),
            cvals,
            4,
            np.zeros(1, ip),
            cut,
            codes,
            1,
            1,
            np.full(1, -1, ip),
            out,
        )
    lib.route_branches(
        np.zeros(2, ip),
        np.array([0, 3], ip),
        cvals,
        4,
        np.zeros(1, ip),
        cut,
        codes,
        1,
        1,
        np.full(1, -1, ip),
        out,
    )
    assert out.tolist() == [0, 0]
    kv, cnt, uk = np.zeros(2, f32), np.zeros(2, ip), np.zeros(1, f32)
    with pytest.raises(IndexError):  # branch 2 of a 2-way test
        lib.branch_sums(np.zeros(2, ip), np.array([0, 2], ip), np.ones(2, f32), 2, kv, cnt, uk)
    lib.branch_sums(np.zeros(2, ip), np.array([1, -1], ip), np.ones(2, f32), 2, kv, cnt, uk)
    assert kv.tolist() == [0, 1] and cnt.tolist() == [0, 1] and uk.tolist() == [1]
    dest = np.zeros(2, np.int64)
    with pytest.raises(IndexError):  # task 1 has no row of child ids
        lib.part_dest(np.array([0, 1], ip), np.zeros(2, ip), np.zeros(2, ip), 2, out, dest)
