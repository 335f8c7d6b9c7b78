"""One folding rule at every --scale: a threshold outside the input type's known values
folds to a constant branch, and the export says so (issue: ``--scale 1`` refused what no
``--scale`` accepts).

Without --scale an out-of-range threshold folded; with an explicit scale, even 1 (the
same mapping), it was an error.  Now the rule is one: every known value of the type
goes one way, as the model says, and ``export`` warns on stderr naming each folded test,
``--report`` and ``verify`` repeat the note.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from treegen.codegen.ctype import INT_TYPES, TYPES
from treegen.codegen.ir import Compare, Encoding
from treegen.codegen.lower import known_range, lower, lower_continuous
from treegen.codegen.options import ExportOptions
from treegen.model import bounds
from treegen.model.core import ContinuousTest
from treegen.model.file import save_model

from support import codegen_models as cm
from support.cli import run_cli

INT_NAMES = sorted(t.name for t in INT_TYPES)


@pytest.mark.parametrize("itype", INT_NAMES)
@given(
    t=st.floats(-1e12, 1e12, allow_nan=False),
    num=st.integers(1, 10**6),
    den=st.integers(1, 1000),
    narrow32=st.booleans(),
)
def test_every_scale_lowers_or_folds_as_the_model_says(
    itype: str, t: float, num: int, den: int, narrow32: bool
) -> None:
    """Any threshold at any scale: a comparison or a fold, never an error, and every
    known value of the type goes where the model sends x / K."""
    k = Fraction(num, den)
    lo, hi = TYPES[itype].range
    enc = Encoding(itype, "float", hi if lo == 0 else lo, (k,))
    node = ContinuousTest(0, 1.0, 0.0, (1.0,), attribute=0, threshold=t, children=(1, 2))
    op, thr = lower_continuous(node, 0, enc, narrow32)
    cut = bounds.bound_int(bounds.read_bound(t, narrow32), k)
    klo, khi = known_range(enc)
    for x in {klo, khi, min(max(cut, klo), khi), min(max(cut + 1, klo), khi)}:
        want = x <= cut  # the model's test on the decimal x / K (bounds.read_bound)
        got = {"le": x <= int(thr), "left": True, "right": False}[op]
        assert got == want, (op, thr, x, cut)


@pytest.mark.parametrize("itype", ["int8", "uint8"])
def test_scale_1_is_no_scale(itype: str) -> None:
    """The same mapping gives the same C: --scale 1 folds what no --scale folds."""
    model = cm.synthetic(3, 80)
    kw = {"uint8": {"missing_value": 255}}.get(itype, {})
    plain = lower(model, ExportOptions(prefix="m", input_type=itype, **kw))  # type: ignore[arg-type]
    one = lower(model, ExportOptions(prefix="m", input_type=itype, scale=Fraction(1), **kw))  # type: ignore[arg-type]
    assert plain.nodes == one.nodes and plain.folds == one.folds
    assert plain.folds  # this model has thresholds beyond the type (1e30, -1000 ...)
    folded = {f.source for f in plain.folds}
    assert all(
        n.op in ("left", "right")
        for n in plain.nodes
        if isinstance(n, Compare) and n.source in folded
    )
    assert all(math.isfinite(f.threshold) for f in plain.folds)


@pytest.mark.slow
def test_cli_warns_reports_and_verifies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "golf.tree"
    save_model(cm.golf(), path)
    out = tmp_path / "c"
    args = ["--input-type", "int8", "--scale", "100"]  # humidity <= 75: x <= 7500
    code, stdout, err = run_cli(capsys, "export", str(path), *args, "-o", str(out), "--report")
    assert code == 0, err
    warn = [line for line in err.splitlines() if line.startswith("treegen: warning:")]
    assert (
        len(warn) == 1
        and "model node 1 (humidity <= 75.0, x <= 7500 at scale 100: left)" in warn[0]
    )
    assert "note: 1 threshold outside int8's known values folds" in stdout
    code, stdout, err = run_cli(capsys, "verify", str(path), *args, "--random", "300")
    assert code == 0 and " 0 failed" in stdout and "note: 1 threshold" in stdout, err
    # A model with nothing to fold says nothing.
    code, _, err = run_cli(capsys, "export", str(path), "--input-type", "int16", "-o", str(out))
    assert code == 0 and "warning" not in err
