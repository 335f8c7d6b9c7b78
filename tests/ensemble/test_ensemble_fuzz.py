"""The export fuzz of ensembles: random ensembles (every arithmetic the format has, built
directly, and a share from the libraries' own fits) exported in random modes, every
export compiled with the strict flags and held, class and exported doubles bit for bit,
to the Python model on verify's rows (thresholds and their neighbours, codes, missing
and special values, random rows).

The fast set is a seeded handful in one compiler run; ``TREEGEN_FUZZ=long`` runs many
more, with clang and the binary64 routines forced (``PREFIX_SOFT64``) in turn, and
``TREEGEN_FUZZ_CASE=SEED:INDEX`` one case alone (tests/support/ensemble_fuzz.py).
Refusals (a mode the ensemble has no C for: a one-line error) are counted, not failures.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from treegen.kinds.export import Rendered

from support.batch import compile_batch, syntax_check
from support.ensemble_batch import compare_one, render_case
from support.ensemble_fits import fitted_ensemble
from support.ensemble_fuzz import random_ensemble, random_options
from support.fuzz import LONG

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")

SEED = 20261207
ONE = os.environ.get("TREEGEN_FUZZ_CASE", "")
BATCH = 30


def _cases(n: int, fitted: bool = False) -> list[tuple[int, int]]:
    if ONE:
        seed, index = (int(v) for v in ONE.split(":"))
        return [(seed, index)]
    return [(SEED + int(fitted), i) for i in range(n)]


def _exports(cases: list[tuple[int, int]], per: int, fitted: bool) -> list[tuple[object, Rendered]]:
    out: list[tuple[object, Rendered]] = []
    for seed, i in cases:
        ens = fitted_ensemble(seed, i) if fitted else random_ensemble(seed, i)
        if ens is None:
            continue
        rng = np.random.default_rng([seed, i, 1])
        for j in range(per):
            r = render_case(ens, random_options(rng, ens, f"m{i}_{j}"))
            if not isinstance(r, str):
                out.append((ens, r))
    return out


def _check(items: list[tuple[object, Rendered]], tmp: Path, cc: str, soft: bool) -> int:
    """Compile ``items`` in batches and compare every one; the number of rows compared."""
    rows = 0
    for b in range(0, len(items), BATCH):
        part = items[b : b + BATCH]
        work = tmp / f"b{b}"
        syntax_check([r.files for _, r in part], work / "c89", "-std=c89")
        defines = tuple(f"-D{r.lowered.prefix.upper()}_SOFT64=1" for _, r in part) if soft else ()
        built = compile_batch([(r.lowered, r.files) for _, r in part], work, cc=cc, defines=defines)
        for (ens, r), lib in zip(part, built, strict=True):
            report = compare_one(ens, r, lib, 100, b)  # type: ignore[arg-type]
            assert report.ok, f"{r.lowered.prefix} {r.opts}\n{report.text()}"
            rows += report.rows
    return rows


def test_random_ensembles_every_mode(tmp_path: Path) -> None:
    items = _exports(_cases(600 if LONG else 14), 3 if LONG else 2, fitted=False)
    assert len(items) >= (1 if ONE else 15)
    if not LONG:
        assert _check(items, tmp_path, "gcc", soft=False) > 1000
        return
    for n, cc, soft in ((0, "gcc", False), (1, "gcc", True), (2, "clang", False)):
        part = items[n::3]
        if shutil.which(cc) is not None:
            assert _check(part, tmp_path / cc / str(soft), cc, soft) > 0


@pytest.mark.slow
def test_fitted_ensembles_every_mode(tmp_path: Path) -> None:
    pytest.importorskip("sklearn")
    items = _exports(_cases(200 if LONG else 12, fitted=True), 2, fitted=True)
    assert items
    assert _check(items, tmp_path, "gcc", soft=False) > 0
