"""The candidate rules' case lists held packed (treegen/rules/caselists.py): every list
comes back as it went in, and a list whose gaps fit in 16 bits is held in uint16."""

from __future__ import annotations

import numpy as np
import pytest

from treegen.rules.caselists import (
    BLOCK,
    PACK_MIN,
    CaseLists,
    Unpacking,
    concatenated,
    pack,
    unpack,
)
from treegen.rules.native import crules


@pytest.mark.parametrize("seed", range(20))
def test_round_trip(seed: int) -> None:
    rng = np.random.default_rng([3, seed])
    n = int(rng.choice([0, 1, 2, 3, 10, 500, 5000]))
    top = int(rng.choice([6_000, 70_000, 2_000_000, 2**31 - 1]))
    rows = np.sort(rng.choice(top, size=n, replace=False)).astype(np.int32)
    packed = pack(rows)
    got = unpack(packed)
    assert got.dtype == np.int32 and np.array_equal(got, rows)
    widest = int(np.diff(rows).max()) if n >= PACK_MIN else 1 << 20
    want = np.uint8 if widest <= 255 else np.uint16 if widest <= 65535 else np.int32
    assert packed.dtype == want


def test_narrow_where_the_gaps_fit() -> None:
    """A first row beyond 16 bits, gaps of 1 and of 65535 (the widest that fits); one
    gap more and the list stays int32; gaps up to 255 in uint8; a short list as it is."""
    run = np.arange(PACK_MIN, dtype=np.int32)
    rows = np.concatenate([1_000_000 + run, [1_000_000 + PACK_MIN - 1 + 65535]]).astype(np.int32)
    packed = pack(rows)
    assert packed.dtype == np.uint16 and packed.size == rows.size + 1
    assert np.array_equal(unpack(packed), rows)
    wide = rows.copy()
    wide[-1] += 1
    assert pack(wide).dtype == np.int32 and np.array_equal(unpack(pack(wide)), wide)
    dense = np.concatenate([2**31 - 400 + run, [2**31 - 400 + PACK_MIN - 1 + 255]]).astype(np.int32)
    assert pack(dense).dtype == np.uint8 and np.array_equal(unpack(pack(dense)), dense)
    dense[-1] += 1
    assert pack(dense).dtype == np.uint16 and np.array_equal(unpack(pack(dense)), dense)
    assert pack(rows[: PACK_MIN - 1]) is not None and pack(rows[: PACK_MIN - 1]).dtype == np.int32


def test_case_lists_give_back_in_order() -> None:
    rng = np.random.default_rng(9)
    lists = [
        np.sort(rng.choice(100_000, size=k, replace=False)).astype(np.int32)
        for k in (0, 5, 300, 2, 40)
    ]
    held = CaseLists()
    for rows in lists:
        held.append(rows)
    assert {held.packed(i).dtype for i in range(len(held))} >= {
        np.dtype(np.uint16),
        np.dtype(np.int32),
    }
    back = held.unpacked()
    assert len(held) == 0 and len(back) == len(lists)
    assert all(
        np.array_equal(a, b) and a.dtype == np.int32 for a, b in zip(back, lists, strict=True)
    )


def test_unpacking_reads_the_chosen_lists() -> None:
    """Some entries' rows, each read afresh (equal, not the same object), an entry marked
    empty as no rows, by index, slice and iteration."""
    rng = np.random.default_rng(4)
    lists = [
        np.sort(rng.choice(50_000, size=k, replace=False)).astype(np.int32) for k in (9, 400, 30, 1)
    ]
    held = CaseLists()
    for rows in lists:
        held.append(rows)
    view = Unpacking(held, [3, 1, 2], [False, False, True])
    assert len(view) == 3
    assert np.array_equal(view[0], lists[3]) and np.array_equal(view[1], lists[1])
    assert view[2].size == 0 and view[2].dtype == np.int32
    assert view[1] is not view[1]
    assert [r.tolist() for r in view] == [lists[3].tolist(), lists[1].tolist(), []]
    assert [r.tolist() for r in view[1:]] == [lists[1].tolist(), []]
    assert np.array_equal(held.rows(0), lists[0])


def test_case_lists_across_blocks() -> None:
    """Lists that fill several blocks, empty ones, one larger than a quarter of a block
    (held as its own array) and one given as a view of a larger array: each comes back
    as it went in, and the view's base is not kept."""
    rng = np.random.default_rng(12)
    lists = [
        np.sort(rng.choice(3_000_000, size=k, replace=False)).astype(np.int32)
        for k in rng.integers(0, 20_000, size=300)
    ]
    lists[7] = np.zeros(0, dtype=np.int32)
    lists[100] = np.arange(5, 5 + BLOCK // 2, dtype=np.int32)  # uint8 gaps: BLOCK / 2 bytes
    # a gap beyond 16 bits: held in int32 as given, here a view of a larger array
    base = np.concatenate([np.arange(BLOCK // 4), [3_000_000, 3_000_001]]).astype(np.int32)
    lists[200] = base[:-1]
    held = CaseLists()
    for rows in lists:
        held.append(rows)
    assert len(held) == len(lists)
    assert held.packed(100).dtype == np.uint8 and held.packed(100).size == BLOCK // 2 + 3
    assert held.packed(200).dtype == np.int32
    assert not np.shares_memory(held.packed(200), base)
    for i, rows in enumerate(lists):
        got = held.rows(i)
        assert got.dtype == np.int32 and np.array_equal(got, rows), i
        assert held.size(i) == rows.size
    assert sum(p.size for p in held.unpacked()) == sum(r.size for r in lists)
    assert len(held) == 0


@pytest.mark.skipif(crules is None, reason="C accelerator not built")
def test_lists_unpacked_in_one_call_as_one_by_one() -> None:
    """The C unpacking of some entries end to end (every kind: short and wide lists in
    int32, uint8 and uint16 gaps, one held as its own block, across blocks, entries
    marked empty, a list read twice) equals the lists themselves."""
    rng = np.random.default_rng(21)
    lists = [
        np.sort(rng.choice(1_000_000, size=k, replace=False)).astype(np.int32)
        for k in rng.integers(0, 30_000, size=120)
    ]
    lists[3] = np.arange(7, 7 + BLOCK // 2, dtype=np.int32)  # uint8, its own block
    lists[4] = np.arange(1 << 24, (1 << 24) + 100, dtype=np.int32) * 2  # first row > 16 bits
    lists[5] = np.asarray([0, 70_000] + list(range(70_001, 70_100)), dtype=np.int32)  # wide
    lists[6] = np.asarray([2**31 - 2], dtype=np.int32)
    held = CaseLists()
    for rows in lists:
        held.append(rows)
    kinds = {held.packed(i).dtype for i in range(len(held))}
    assert kinds == {np.dtype(np.int32), np.dtype(np.uint8), np.dtype(np.uint16)}
    which = [3, 4, 5, 6, 0, 8, 8, 119, *range(10, 100, 7)]
    empty = [k % 5 == 2 for k in range(len(which))]
    ptr, rows = concatenated(Unpacking(held, which, empty))
    assert ptr[0] == 0 and ptr[-1] == rows.size and rows.dtype == np.int32
    for k, (i, none) in enumerate(zip(which, empty, strict=True)):
        want = np.zeros(0, dtype=np.int32) if none else lists[i]
        assert np.array_equal(rows[ptr[k] : ptr[k + 1]], want), k
    bad = np.zeros(ptr.size, dtype=np.int64)
    bad[-1] = rows.size  # ptr not matching the lists' sizes
    with pytest.raises(ValueError):
        held.unpack_lists(np.asarray(which, dtype=np.int64), bad, rows)


@pytest.mark.parametrize("native", [True, False])
def test_unsorted_lists_held_as_sorted_ones(native: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """append_unsorted (the C sort and pack into the open block, or numpy's without the
    accelerator) holds each list as append holds it sorted, the same kind and bytes, for
    every way the C sorts (a few rows, rows spread over many words, dense ones) and packs
    (short and wide lists in int32, uint8 and uint16 gaps, a first row beyond 16 bits,
    an empty list, one held as its own block, lists across blocks); the rows given are
    left sorted."""
    if native and crules is None:
        pytest.skip("C accelerator not built")
    if not native:
        monkeypatch.setattr("treegen.rules.caselists.crules", None)
    rng = np.random.default_rng(33)
    n = 3_000_000
    lists = [
        rng.choice(n, size=k, replace=False).astype(np.int32)
        for k in [*rng.integers(0, 20_000, size=150), *rng.integers(0, 70, size=60)]
    ]
    lists[1] = np.zeros(0, dtype=np.int32)
    lists[2] = rng.permutation(np.arange(9, 9 + BLOCK // 2, dtype=np.int32))  # its own block
    lists[3] = rng.permutation(np.arange(1 << 20, (1 << 20) + 100, dtype=np.int32) * 2)
    lists[4] = np.asarray([70_100, 0, *range(70_001, 70_099)], dtype=np.int32)  # a wide gap
    lists[5] = rng.permutation(np.arange(n - 300_000, n, 3, dtype=np.int32))  # dense: bitmap
    lists[6] = np.asarray([n - 1], dtype=np.int32)
    lists[7] = np.asarray([5, 3, 2_000_000, 4], dtype=np.int32)  # insertion sort
    sorted_held, held = CaseLists(), CaseLists()
    found = np.empty(n, dtype=np.int32)
    for rows in lists:
        sorted_held.append(np.sort(rows))
        found[: rows.size] = rows
        held.append_unsorted(found, rows.size)
        assert np.array_equal(found[: rows.size], np.sort(rows))
    kinds = {held.packed(i).dtype for i in range(len(held))}
    assert kinds == {np.dtype(np.int32), np.dtype(np.uint8), np.dtype(np.uint16)}
    assert len({held._block[i] for i in range(len(held))}) > 3  # several blocks
    for i, rows in enumerate(lists):
        a, b = held.packed(i), sorted_held.packed(i)
        assert a.dtype == b.dtype and np.array_equal(a, b), i
        assert np.array_equal(held.rows(i), np.sort(rows)), i
    assert held.packed(2).size == BLOCK // 2 + 3 and held.packed(4).dtype == np.int32


@pytest.mark.skipif(crules is None, reason="C accelerator not built")
def test_unsorted_list_with_a_bad_row_refused() -> None:
    """A row given twice (the bitmap sort and the others) or out of the buffer's range is
    a ValueError, not a list held wrong."""
    held = CaseLists()
    for rows in ([4, 9, 4], [*range(200), 17], [-1, 3]):
        found = np.zeros(1000, dtype=np.int32)
        found[: len(rows)] = rows
        with pytest.raises(ValueError):
            held.append_unsorted(found, len(rows))
    found = np.arange(1000, dtype=np.int32)
    assert crules is not None
    with pytest.raises(ValueError, match="out of range"):
        crules.pack_rows(found, 1000, np.zeros(1, dtype=np.uint64), np.zeros(8, np.uint8), 0, 8, 64)
