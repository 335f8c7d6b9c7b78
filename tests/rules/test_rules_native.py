"""c4.5rules' C accelerator (treegen/rules/native/: crules.h and its C files) computes
what the Python code computes, bit for bit.

``prune_path`` stands in for :func:`treegen.rules.paths._prune` (a leaf's path
generalised over packed bitsets instead of rows of flags), the ``subsets_*`` kernels
for :class:`treegen.rules.subsets.ClassSearch`'s steps.  Each is compared with its
Python counterpart on random inputs built to reach the awkward paths (cases failing
several conditions, row counts that are no multiple of 64, rules that fire nowhere,
subsets whose cost sides are certain), and whole rulesets are compared with the
accelerator on and off.  ``make test`` builds it, so its absence is a failure here
unless TREEGEN_NO_NATIVE asks for the Python path.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import numpy.typing as npt
import pytest

from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.rules import paths, pathtests, subsets
from treegen.rules.constants import FAIL_LEVELS
from treegen.rules.core import Condition
from treegen.rules.file import ruleset_to_json
from treegen.rules.generate import rules_of_data
from treegen.rules.glibc import GlibcRandom
from treegen.rules.mdl import Logs
from treegen.rules.native import crules
from treegen.rules.walk import pack
from treegen.trainer.stats import ErrorBound, to_f32

needs_native = pytest.mark.skipif(crules is None, reason="accelerator off or not built")


def test_accelerator_is_built() -> None:
    if os.environ.get("TREEGEN_NO_NATIVE", "") not in ("", "0"):
        pytest.skip("TREEGEN_NO_NATIVE asks for the Python path")
    assert crules is not None, "setup.py did not build treegen.rules.native._crules"


class _Packed:
    """A path's packed rows over ``n`` cases, as the walk (native/rwalk.c) holds them:
    each condition's satisfied cases and, per depth, the levels of their failures."""

    def __init__(self, n: int, k: int) -> None:
        self.n = n
        self.words = (n + 63) // 64
        self.sat = np.zeros((k, self.words), dtype=np.uint64)
        self.levels = np.zeros((k + 1, FAIL_LEVELS, self.words), dtype=np.uint64)

    pack = staticmethod(pack)

    def set_row(self, d: int, sat: npt.NDArray[np.uint64]) -> None:
        """Condition ``d``'s satisfied cases are ``sat``; its failures counted."""
        assert crules is not None
        crules.fold_levels(self.levels, self.sat, d, self.n, sat)


def _prune_native(
    packed: _Packed, k: int, wrong: npt.NDArray[np.uint64], bound: ErrorBound, default: float
) -> tuple[list[int], float] | None:
    """``paths._prune`` by the C kernel, on the first ``k`` rows of ``packed``."""
    assert crules is not None
    alive = np.zeros(k, dtype=np.uint8)
    pess = crules.prune_path(
        packed.sat, wrong, k, packed.n, bound.log_cf, bound.coeff, default, alive, packed.levels[k]
    )
    return None if pess is None else (np.flatnonzero(alive).tolist(), float(pess))


@needs_native
@pytest.mark.parametrize("seed", range(40))
def test_prune_path_equals_python(seed: int) -> None:
    rng = np.random.default_rng([5, seed])
    n = int(rng.choice([1, 7, 63, 64, 65, 200, 1000]))
    k = int(rng.integers(1, 12))
    # Conditions that most cases satisfy, so that cases failing 0, 1 and 2+ all occur.
    missed = rng.random((k, n)) < rng.uniform(0.02, 0.5, size=(k, 1))
    wrong = rng.random(n) < rng.uniform(0.0, 0.6)
    bound = ErrorBound(float(rng.choice([0.1, 0.25, 0.5])), "c45")
    default_error = to_f32(rng.uniform(0.2, 0.9))
    fails = missed.sum(axis=0).astype(np.int32)
    expected = paths._prune(missed, wrong, bound, default_error, fails)
    assert expected == paths._prune(missed, wrong, bound, default_error)
    packed = _Packed(n, k)
    for d in range(k):
        packed.set_row(d, packed.pack(~missed[d]))
    got = _prune_native(packed, k, packed.pack(wrong), bound, default_error)
    assert got == expected


@needs_native
@pytest.mark.parametrize("n", [1, 129, 333])
def test_fold_levels_counts_failures(n: int) -> None:
    """fold_levels' rows are the cases failing more than i conditions (numpy's count),
    for an odd number of words too (the C folds two at a time)."""
    assert crules is not None
    rng = np.random.default_rng(3)
    k = 9
    missed = rng.random((k, n)) < 0.4
    packed = _Packed(n, k)
    for d in range(k):
        packed.set_row(d, packed.pack(~missed[d]))
        assert np.array_equal(packed.sat[d], packed.pack(~missed[d]))  # the row it set
        fails = missed[: d + 1].sum(axis=0)
        for i in range(FAIL_LEVELS):
            row = packed.levels[d + 1][i].view(np.uint8)
            got = np.unpackbits(row, bitorder="little")[:n]  # the bits past n are no case
            assert np.array_equal(got, fails > i)


@needs_native
@pytest.mark.parametrize("n", [1, 63, 64, 65, 1000])
def test_pack_le_is_numpys_comparison(n: int) -> None:
    """pack_le's bits are numpy's float32 ``col <= t``, packed (NaN, -0.0, the cut
    itself, the values next to it), and nothing past n."""
    assert crules is not None
    rng = np.random.default_rng(n)
    cut = np.float32(0.1)
    near = [np.nextafter(cut, np.float32(-1)), cut, np.nextafter(cut, np.float32(1))]
    col = rng.choice([np.nan, -0.0, 0.0, *near, -5.5, 7.25], size=n).astype(np.float32)
    packed = _Packed(n, 1)
    want = packed.pack(np.less_equal(col, cut))
    got = np.full(packed.words, 0xDEAD, dtype=np.uint64)
    crules.pack_le(col, float(cut), got, n)
    assert np.array_equal(got, want)
    zero = np.full(packed.words, 0xDEAD, dtype=np.uint64)
    crules.pack_le(col, 0.0, zero, n)
    assert np.array_equal(zero, packed.pack(col <= 0))


@needs_native
@pytest.mark.parametrize("seed", range(12))
def test_and_rows_through_an_order(seed: int) -> None:
    """With an order, and_rows gives the rows of the cases it finds without one, in the
    cases' order."""
    assert crules is not None
    rng = np.random.default_rng([13, seed])
    n = int(rng.choice([1, 63, 64, 65, 500, 3000]))
    k = int(rng.integers(1, 6))
    packed = _Packed(n, k)
    for d in range(k):
        packed.set_row(d, packed.pack(rng.random(n) < 0.8))
    order = rng.permutation(n).astype(np.int32)
    kept = np.flatnonzero(rng.random(k) < 0.7).astype(np.int64)
    plain = np.empty(n, dtype=np.int32)
    count = crules.and_rows(packed.sat, kept, n, plain)
    got = np.full(n, -1, dtype=np.int32)
    removed = FAIL_LEVELS  # no word passed over
    assert crules.and_rows(packed.sat, kept, n, got, packed.levels[k], removed, order) == count
    assert np.array_equal(got[:count], order[plain[:count]])
    assert count > 0 or n < 64


@needs_native
@pytest.mark.parametrize("seed", range(40))
def test_sort_kept_equals_python(seed: int) -> None:
    """Release 8's selection of the kept conditions' order (not a sort: ``Before`` is no
    order) in C and in Python, on paths mixing kinds, attributes and equal cuts."""
    assert crules is not None
    rng = np.random.default_rng([11, seed])
    k = int(rng.integers(1, 14))
    path = []
    for node in range(k):
        a = int(rng.integers(0, 4))
        kind = int(rng.integers(1, 4))
        if kind == 1:
            cond = Condition(a, "=", value=int(rng.integers(0, 3)))
            path.append(pathtests.PathTest(cond, 1, 0.0, node))
        elif kind == 2:
            t = float(rng.choice([0.0, -0.0, 1.5, 2.5, -3.0]))
            path.append(pathtests.PathTest(Condition(a, "<=", threshold=t), 2, t, node))
        else:
            path.append(pathtests.PathTest(Condition(a, "in", values=(0, 2)), 3, 0.0, node))
    alive = (rng.random(k) < rng.uniform(0.2, 1.0)).astype(np.uint8)
    kept = np.flatnonzero(alive).tolist()
    expected = paths._sorted(tuple(path), kept)
    orders = np.asarray([t.order for t in path], dtype=np.float64)
    out = np.empty(k, dtype=np.int64)
    count = crules.sort_kept(orders, alive, k, out)
    assert [path[i] for i in out[:count].tolist()] == expected


def _problem(seed: int, m: int) -> tuple[list[np.ndarray], np.ndarray, list[float], Logs]:
    rng = np.random.default_rng([37, seed])
    n = int(rng.integers(max(30, m), 300))  # rules come from leaves: no more than cases
    positive = rng.random(n) < rng.uniform(0.05, 0.6)
    match = rng.random((m, n)) < rng.uniform(0.0, 0.4, size=(m, 1))
    match &= positive | (rng.random((m, n)) < rng.uniform(0.0, 0.5))
    if seed % 3 == 0:
        match[: m // 3] = match[0]  # equal rules: ties between values
    bits = [float(np.float32(b)) for b in rng.uniform(1.0, 12.0, size=m)]
    if seed % 4 == 0:
        bits[1::2] = bits[0::2][: len(bits[1::2])]  # equal bits: ties between values
    rows = [np.flatnonzero(r).astype(np.int32) for r in match]
    return rows, positive, bits, Logs(n)


@needs_native
@pytest.mark.parametrize("seed", range(30))
def test_subset_steps_equal_python(seed: int) -> None:
    """Toggled the same way, both searches keep the same state and give the same values."""
    m = int(np.random.default_rng(seed).integers(1, 40))
    rows, positive, bits, logs = _problem(seed, m)
    py = subsets.ClassSearch(rows, positive, bits, logs)
    c = subsets.NativeClassSearch(rows, positive, bits, logs)
    rng = np.random.default_rng([41, seed])
    for _ in range(3 * m):
        vp, vc = py.values(), c.values()
        assert np.array_equal(vp, vc)
        delta = np.where(py.chosen, -vp, vp)
        assert c.best_step == int(np.argmax(delta))
        assert py.best_cost == c.best_cost and py.best == c.best
        r = int(rng.integers(0, m))
        py.toggle(r)
        c.toggle(r)
        _assert_same_state(py, c, rows, positive)


def _assert_same_state(
    py: subsets.ClassSearch,
    c: subsets.NativeClassSearch,
    rows: list[npt.NDArray[np.int32]],
    positive: npt.NDArray[np.bool_],
) -> None:
    """The C search's state is the Python one's: each rule's right and wrong cases, each
    case's coverage and chosen XOR (in the C search's numbering), the subset's counts."""
    assert np.array_equal(py.right, c.right) and np.array_equal(py.wrong, c.wrong)
    assert np.array_equal(py.covered[c.case_order], c.covered)
    xor = _chosen_xor(rows, c.chosen, positive.size)
    assert np.array_equal(c.chosen_xor, xor[c.case_order])
    fired = py.covered > 0
    assert c.counts.tolist() == [
        int(np.count_nonzero(fired)),
        int(np.count_nonzero(fired & ~positive)),
        int(np.count_nonzero(~fired & positive)),
    ]


def _chosen_xor(
    rows: list[npt.NDArray[np.int32]], chosen: npt.NDArray[np.bool_], n: int
) -> npt.NDArray[np.int32]:
    """Per case the XOR of the numbers of the chosen rules that fire on it."""
    out = np.zeros(n, dtype=np.int32)
    for r in np.flatnonzero(chosen).tolist():
        out[rows[r]] ^= r
    return out


@needs_native
@pytest.mark.parametrize("seed", range(20))
def test_set_subset_equals_python(seed: int) -> None:
    """A whole subset set in one call (subsets_set) leaves the state that the Python
    search's rule-by-rule toggles leave."""
    m = int(np.random.default_rng(seed).integers(1, 40))
    rows, positive, bits, logs = _problem(seed, m)
    py = subsets.ClassSearch(rows, positive, bits, logs)
    c = subsets.NativeClassSearch(rows, positive, bits, logs)
    rng = np.random.default_rng([43, seed])
    chosen = [False] * m
    for step in range(10):
        if step % 2:  # one rule changed: toggled; many: the state worked out afresh
            chosen[int(rng.integers(0, m))] ^= True
        else:
            chosen = (rng.random(m) < rng.uniform(0.1, 0.9)).tolist()
        py.set_subset(chosen)
        c.set_subset(chosen)
        assert c.chosen.tolist() == chosen
        assert np.array_equal(py.right, c.right) and np.array_equal(py.wrong, c.wrong)
        assert np.array_equal(py.covered[c.case_order], c.covered)
        xor = _chosen_xor(rows, c.chosen, positive.size)
        assert np.array_equal(c.chosen_xor, xor[c.case_order])
        assert np.array_equal(py.values(), c.values())


@needs_native
@pytest.mark.parametrize("seed", range(12))
def test_climb_leaves_the_state_python_leaves(seed: int) -> None:
    """After a C climb (whose toggles work on per-case entries of their own, written
    back when it ends) the search's state is the Python climb's: the subset, each
    rule's right and wrong cases, each case's coverage and chosen XOR, the counts; and
    a climb from there, or a subset set from there, goes on alike."""
    m = int(np.random.default_rng([44, seed]).choice([11, 25, 60, 150]))
    rows, positive, bits, logs = _problem(seed, m)
    py = subsets.ClassSearch(rows, positive, bits, logs)
    c = subsets.NativeClassSearch(rows, positive, bits, logs)
    rng = np.random.default_rng([45, seed])
    for _ in range(3):
        chosen = (rng.random(m) < rng.uniform(0.0, 1.0)).tolist()
        py.climb(chosen)
        c.climb(chosen)
        assert c.chosen.tolist() == py.chosen.tolist()
        _assert_same_state(py, c, rows, positive)
        assert (py.best, py.best_cost) == (c.best, c.best_cost)


@needs_native
@pytest.mark.parametrize("seed", range(40))
def test_best_subset_equals_python(seed: int) -> None:
    """The whole search (exhaustive up to 10 rules, random climbs beyond; the C climb
    over groups of rules) picks the same."""
    m = int(np.random.default_rng([43, seed]).choice([3, 9, 11, 25, 60, 150]))
    python, native = _both_searches(*_problem(seed, m))
    assert python == native


def _both_searches(
    rows: list[npt.NDArray[np.int32]],
    positive: npt.NDArray[np.bool_],
    bits: list[float],
    logs: Logs,
) -> list[tuple[list[bool], float, int]]:
    """(best subset, its cost, the next random number) of the Python search and the C one."""
    results = []
    for cls in (subsets.ClassSearch, subsets.NativeClassSearch):
        search = cls(rows, positive, bits, logs)
        rng = GlibcRandom()
        if len(rows) <= subsets.EXHAUSTIVE_MAX:
            search.all_subsets()
        else:
            search.spot_search(rng)
        results.append((search.best, search.best_cost, rng.next()))
    return results


@needs_native
@pytest.mark.parametrize("seed", range(8))
def test_climb_memo_holds_the_bits_it_would_cost(seed: int) -> None:
    """The climb remembers each costed group's exception bits by the counts they are for
    (rclimb.c); with check_memo on it costs the remembered groups as well and raises if
    a remembered value differs from its costing in any bit.  The climbs here reach
    remembered counts (a memo off by 0.001 bits raised on every seed); the picks stay
    the Python search's."""
    assert crules is not None
    m = int(np.random.default_rng([46, seed]).choice([25, 60, 150, 290]))
    problem = _problem(seed, m)
    crules.check_memo(True)
    try:
        python, native = _both_searches(*problem)
    finally:
        crules.check_memo(False)
    assert python == native


@needs_native
@pytest.mark.parametrize("seed", range(3))
def test_best_subset_equals_python_many_rules(seed: int) -> None:
    """Hundreds of rules: the climb's theory bits are summed over blocks of rules
    (rtheory.h), several of them, and the search still picks what the Python one picks."""
    python, native = _both_searches(*_problem(seed, 290))
    assert python == native


@needs_native
@pytest.mark.parametrize("seed", range(6))
def test_number_cases(seed: int) -> None:
    """The search's cases numbered in the order the rules first reach them, the rest
    after them in row order; the rules' lists and the class flags renumbered alike."""
    rows, positive, _, _ = _problem(seed, int(np.random.default_rng(seed).integers(1, 40)))
    n = positive.size
    lens = np.asarray([r.size for r in rows], dtype=np.int64)
    rule_ptr = np.concatenate(([0], np.cumsum(lens))).astype(np.int64)
    flat = np.concatenate(rows).astype(np.int32)
    renumbered = flat.copy()
    order = np.empty(n, dtype=np.int32)
    positive_out = np.empty(n, dtype=bool)
    assert crules is not None
    crules.number_cases(rule_ptr, renumbered, positive, order, positive_out)
    _, first_at = np.unique(flat, return_index=True)
    reached = flat[np.sort(first_at)]
    rest = np.setdiff1d(np.arange(n), flat)
    assert order.tolist() == reached.tolist() + rest.tolist()
    assert np.array_equal(order[renumbered], flat)
    assert np.array_equal(positive_out, positive[order])


def _theory_reference(bits32: npt.NDArray[np.float32], chosen: npt.NDArray[np.bool_]) -> float:
    """The Python search's theory sum: the chosen bits in rule order, np.cumsum in float32."""
    picked = bits32[chosen]
    return float(np.cumsum(picked, dtype=np.float32)[-1]) if picked.size else 0.0


@needs_native
@pytest.mark.parametrize("seed", range(16))
def test_theory_sums_equal_cumsum(seed: int) -> None:
    """The climb's sum of the chosen rules' bits, kept in blocks (a block whose partial
    sums stay in one binade added in one exact step), is numpy's float32 cumsum after every
    toggle: bits in multiples of 1/64, which tie at the grid 1/32 of sums above 2^18;
    negative, zero and tiny bits; sums crossing binades inside blocks."""
    rng = np.random.default_rng([53, seed])
    kind = seed % 4
    m = int(rng.integers(1, 600)) if seed < 4 else int(rng.integers(3000, 4000))
    if kind == 0:
        bits = rng.uniform(0.5, 60.0, m)
    elif kind == 1:
        bits = rng.integers(64 * 100, 64 * 200, m) / 64.0
    elif kind == 2:
        bits = rng.uniform(-5.0, 40.0, m)
    else:
        bits = rng.choice([0.0, 1.0, 3.5, 1e-7, 200.0, 4096.25], m)
    bits32 = bits.astype(np.float32)
    chosen = rng.random(m) < rng.uniform(0.6, 1.0)
    toggles = rng.integers(0, m, size=300).astype(np.int64)
    expected = [_theory_reference(bits32, chosen)]
    replay = chosen.copy()
    for r in toggles.tolist():
        replay[r] = not replay[r]
        expected.append(_theory_reference(bits32, replay))
    out = np.zeros(toggles.size + 1, dtype=np.float32)
    assert crules is not None
    crules.theory_sums(bits32, chosen, toggles, out)
    assert out.tolist() == expected
    assert np.array_equal(chosen, replay)
    if kind == 1 and seed >= 4:
        assert max(expected) > 2.0**18  # the grid where multiples of 1/64 tie


def _mixed(seed: int, n: int) -> Dataset:
    """Continuous and nominal attributes with unknowns, 3 noisy classes."""
    rng = np.random.default_rng([47, seed])
    cont = np.round(rng.normal(size=(n, 3)) * 10, 1)
    nom = rng.integers(0, 4, size=(n, 2)).astype(np.float64)
    X = np.concatenate([cont, nom], axis=1)
    X[rng.random(X.shape) < 0.05] = np.nan
    y = ((np.nan_to_num(X[:, 0]) > 0) + (X[:, 3] == 1)).astype(np.int32)
    flip = rng.random(n) < 0.15
    y[flip] = rng.integers(0, 3, size=int(flip.sum()))
    attrs = tuple(Attribute(f"c{j}", "continuous", ()) for j in range(3)) + tuple(
        Attribute(f"n{j}", "nominal", tuple(f"v{v}" for v in range(4))) for j in range(2)
    )
    return Dataset(Schema(attrs, ("k0", "k1", "k2"), "class"), X, y, "test")


@needs_native
@pytest.mark.parametrize("seed", range(3))
def test_rulesets_equal_without_accelerator(seed: int) -> None:
    """rules_of_data in this process (C) and in one with TREEGEN_NO_NATIVE=1 (Python)."""
    ds = _mixed(seed, 600)
    printed, final = rules_of_data(ds)
    code = (
        "import json, sys\n"
        "from tests.rules.test_rules_native import _mixed\n"
        "from treegen.rules.file import ruleset_to_json\n"
        "from treegen.rules.generate import rules_of_data\n"
        "from treegen.rules.native import crules\n"
        "assert crules is None\n"
        f"p, f = rules_of_data(_mixed({seed}, 600))\n"
        "json.dump([ruleset_to_json(p), ruleset_to_json(f)], sys.stdout)\n"
    )
    env = dict(os.environ, TREEGEN_NO_NATIVE="1")
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout
    assert json.loads(out) == [ruleset_to_json(printed), ruleset_to_json(final)]
    assert len(final.rules) > 0
