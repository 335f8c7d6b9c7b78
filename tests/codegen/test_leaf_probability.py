"""A leaf's probability: the code, the docs and the generated header divide by the same
count, N = the leaf's items, or the sum of its class counts where training's rounding
left that larger (so a leaf's probabilities never sum above 1.0)."""

from __future__ import annotations

import math
import re
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from treegen.codegen.emit import emit
from treegen.codegen.lower import lower
from treegen.codegen.options import ExportOptions
from treegen.model import fixedpoint
from treegen.model.core import Leaf
from treegen.model.fixedpoint import ONE

from support import codegen_models as cm

ROOT = Path(__file__).resolve().parents[2]


@given(
    st.lists(st.floats(0, 1e6), min_size=1, max_size=6),
    st.floats(0, 1e6),
)
def test_leaf_proba_divides_by_n(dist: list[float], items: float) -> None:
    p = fixedpoint.leaf_proba(Leaf(0, items, 0.0, tuple(dist)), len(dist))
    assert sum(p) <= ONE
    if items > 0:
        n = max(Fraction(items), sum((Fraction(d) for d in dist), Fraction(0)))
        assert p == tuple(math.floor(ONE * Fraction(d) / n) for d in dist)


def test_header_states_the_count() -> None:
    """predict.h says what a probability is, in both missing-value modes with proba."""
    for opts in (ExportOptions(), ExportOptions(missing="none", proba=True)):
        header = emit(lower(cm.golf(), replace(opts, prefix="g")))["predict.h"]
        text = " ".join(header.split())
        assert "floor(G_PROBA_ONE * count_c / N)" in text, text
        assert "or the sum of the counts, where training's rounding left that larger" in text


def test_docs_state_the_same_count() -> None:
    """Every place the docs give a leaf's probability divides by N, not by items alone."""
    found = 0
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for m in re.finditer(r"dist_c\s*/\s*(\w+)", doc.read_text("utf-8")):
            found += 1
            assert m.group(1) == "N", f"{doc.name}: {m.group(0)!r}"
    assert found > 0
