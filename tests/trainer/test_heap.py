"""trainer/heap.py's kept heap for small runs: which glibc settings it makes and undoes.

``treegen train`` keeps freed blocks on the heap up to ``KEEP_ROWS`` rows (a quarter of
the page faults at 100k rows); within the block the steps that lower the mmap threshold
or trim the heap do nothing, and after it they work again.  glibc's ``mallopt`` and
``malloc_trim`` are replaced by recorders, so the test runs anywhere.
"""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from treegen.cli.main import main
from treegen.trainer import heap

GOLF = Path(__file__).resolve().parent.parent / "data" / "reference" / "golf" / "golf.data"


def test_kept_heap_sets_and_restores_the_thresholds(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[int, int]] = []
    trims: list[int] = []

    def mallopt(param: int, value: int) -> int:
        calls.append((param, value))
        return 1

    def trim(pad: int) -> int:
        trims.append(pad)
        return 1

    monkeypatch.setattr(heap, "_state", {"mallopt": mallopt})
    monkeypatch.setattr(heap, "_TRIM", trim)
    with heap.freed_blocks_kept():
        assert calls == [
            (heap.M_TRIM_THRESHOLD, heap.KEEP_TOP),
            (heap.M_MMAP_THRESHOLD, heap.LARGE_BLOCK),
        ]
        with heap.blocks_mapped_from(heap.STEP_BLOCK):
            heap.release_freed_memory()
        assert len(calls) == 2 and trims == []
    assert calls[2:] == [(heap.M_TRIM_THRESHOLD, heap.DEFAULT_TRIM)]
    with heap.blocks_mapped_from(heap.STEP_BLOCK):
        heap.release_freed_memory()
    assert calls[3:] == [
        (heap.M_MMAP_THRESHOLD, heap.STEP_BLOCK),
        (heap.M_MMAP_THRESHOLD, heap.LARGE_BLOCK),
    ]
    assert trims == [0]


def test_kept_heap_without_a_fixed_threshold_changes_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    trims: list[int] = []
    monkeypatch.setattr(heap, "_state", {})
    monkeypatch.setattr(heap, "_TRIM", lambda pad: trims.append(pad) or 1)
    with heap.freed_blocks_kept():
        heap.release_freed_memory()
    assert trims == [0] and heap._state == {}


def test_train_leaves_the_heap_and_the_collector_as_they_were(tmp_path: Path) -> None:
    # treegen train keeps the heap and pauses the cycle collector for a small run
    # (golf: 14 rows, a file of a few hundred bytes), and undoes both before it returns.
    out = tmp_path / "golf.tree"
    assert gc.isenabled()
    assert main(["--quiet", "train", str(GOLF), "-o", str(out)]) == 0
    assert out.is_file() and gc.isenabled() and "keep" not in heap._state


def test_rules_leaves_the_heap_and_the_collector_as_they_were(tmp_path: Path) -> None:
    # treegen rules keeps the heap for a small run as train does, and pauses the
    # collector for the growth; both are undone before it returns.
    out = tmp_path / "golf.rules"
    assert gc.isenabled()
    assert main(["--quiet", "rules", str(GOLF), "-o", str(out)]) == 0
    assert out.is_file() and gc.isenabled() and "keep" not in heap._state


@pytest.mark.parametrize(
    ("file_bytes", "rows", "kept_after_rows"),
    [
        (heap.KEEP_BYTES, heap.KEEP_ROWS, True),  # small file, few rows: kept throughout
        (heap.KEEP_BYTES, heap.KEEP_ROWS + 1, False),  # small file, many rows: given up
        (heap.KEEP_BYTES + 1, heap.KEEP_ROWS, True),  # large file, few rows: kept from there
        (heap.KEEP_BYTES + 1, heap.KEEP_ROWS + 1, False),  # neither
    ],
)
def test_small_run_heap_follows_the_file_then_the_rows(
    monkeypatch: pytest.MonkeyPatch, file_bytes: int, rows: int, kept_after_rows: bool
) -> None:
    monkeypatch.setattr(heap, "_state", {"mallopt": lambda param, value: 1})
    with heap.SmallRunHeap(file_bytes) as run:
        assert ("keep" in heap._state) == (file_bytes <= heap.KEEP_BYTES)
        run.rows(rows)
        assert ("keep" in heap._state) == kept_after_rows
    assert "keep" not in heap._state and "mallopt" in heap._state
