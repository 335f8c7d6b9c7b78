"""Counts in messages: one noun for one, its plural otherwise (treegen.data.words)."""

from __future__ import annotations

from pathlib import Path

import pytest

from treegen.data.words import counted

from support.cli import run_cli


def test_one_is_singular_and_the_rest_plural() -> None:
    assert [counted(n, "row") for n in (0, 1, 2)] == ["0 rows", "1 row", "2 rows"]
    assert [counted(n, "leaf") for n in (1, 3)] == ["1 leaf", "3 leaves"]
    assert [counted(n, "class") for n in (1, 3)] == ["1 class", "3 classes"]
    assert counted(2, "labelled case") == "2 labelled cases"


def test_a_one_leaf_tree_on_one_row_is_counted_in_the_singular(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """train's summary said "tree of 1 nodes (1 leaves, ...) ... on 1 rows"."""
    data = tmp_path / "one.csv"
    data.write_text("x,y\n1,a\n")
    code, _, err = run_cli(capsys, "train", str(data), "-o", str(tmp_path / "one.tree"))
    assert code == 0, err
    assert "pruned c45 tree of 1 node (1 leaf, depth 0), 0 training errors (0.0%) on 1 row" in err
