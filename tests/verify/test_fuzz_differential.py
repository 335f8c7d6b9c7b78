"""Random hostile data, every export mode: the C equals the Python models exactly."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from treegen.errors import EmitError
from treegen.verify.build import have_compiler
from treegen.verify.inputs import comparison_inputs, to_c_domain
from treegen.verify.report import Report
from treegen.verify.tree import compare

from support.batch import compile_batch
from support.fuzz import LONG, Mode, all_modes, export, fuzz_model

# Hundreds of compiled exports: the slow set.
pytestmark = [pytest.mark.skipif(not have_compiler("gcc"), reason="needs gcc"), pytest.mark.slow]

SEED = 15
N_CASES = 2000 if LONG else 208
MODES_PER_CASE = 2
CASES_PER_LIB = 26  # models per compile: one compiler run costs far more than one model


def _run_group(start: int, tmp: Path) -> tuple[int, int, list[str]]:
    """Train, export, compile and compare cases start..start+CASES_PER_LIB-1."""
    modes = all_modes()
    items = []
    meta = []
    refused = 0
    for index in range(start, min(start + CASES_PER_LIB, N_CASES)):
        model, ds = fuzz_model(SEED, index)
        for j in range(MODES_PER_CASE):
            # Walk the mode table so consecutive cases cover every mode.
            mode: Mode = modes[(index * MODES_PER_CASE + j) % len(modes)]
            try:
                # A threshold outside the input type folds (at every --scale): no mode
                # refuses a model for it.
                ir, files = export(model, mode, f"f{index}_{j}")
            except EmitError as exc:
                # The compact table's one documented refusal: x < -FLT_MAX (only -inf
                # passes; a j48 threshold below float32's range) has no <= form.
                assert mode.style == "table" and mode.missing == "none", (index, mode, exc)
                assert "x < -FLT_MAX does not fit the compact table" in str(exc), exc
                refused += 1
                continue
            items.append((ir, files))
            meta.append((index, mode, model, ds, f"f{index}_{j}"))
    built = compile_batch(items, tmp)
    failures: list[str] = []
    rows = 0
    for (ir, _), lib, (index, mode, model, ds, prefix) in zip(items, built, meta, strict=True):
        X = np.concatenate(
            [to_c_domain(ir, ds.X), comparison_inputs(ir, None, n_random=150, seed=index)]
        )
        c_cls, c_proba = lib.run(X)
        report = Report()
        # The options, for --missing none: the C is checked against the none rule on
        # the C4.5 IR as well as against the Python model where no value is missing.
        compare(model, ir, mode.options(prefix), X, c_cls, c_proba, report)
        rows += report.rows
        if not report.ok:
            failures.append(f"case ({SEED}, {index}) {mode.name}:\n" + report.text())
    return len(meta), refused, failures


@pytest.mark.parametrize("start", range(0, N_CASES, CASES_PER_LIB))
def test_fuzz_differential(start: int, tmp_path: Path) -> None:
    exported, refused, failures = _run_group(start, tmp_path)
    assert not failures, "\n".join(failures)
    # The one refusal (x < -FLT_MAX in a lean table) is rare, never the rule.
    assert exported >= 2 * refused


def test_mode_table_covers_every_axis() -> None:
    modes = all_modes()
    assert {m.style for m in modes} == {"ifs", "table"}
    from treegen.codegen.ctype import INPUT_TYPES

    assert {m.input_type for m in modes} == set(INPUT_TYPES)
    assert any(m.float_compare == "int" for m in modes)
    assert any(m.scale is not None for m in modes)
    assert {m.missing for m in modes} == {"c45", "none"}
    assert {(m.missing, m.proba) for m in modes} >= {("none", True), ("none", None), ("c45", True)}
    # Every mode is reached by the CI cases.
    reached = {
        (i * MODES_PER_CASE + j) % len(modes) for i in range(N_CASES) for j in range(MODES_PER_CASE)
    }
    assert reached == set(range(len(modes)))
