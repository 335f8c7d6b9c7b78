"""scikit-learn's estimators under random configurations: the imported model, its C and
the command line's model file predict what the estimator predicts, bit for bit.

A case (``support.sklearn_fuzz.make_case``) is a random dataset (hostile values, NaN
where the estimator takes it, labels of every kind, sample weights with zeros) and one
of the supported estimators with its parameters drawn over their documented ranges,
fitted; ``default_rng([SEED, index])`` draws it, so ``TREEGEN_FUZZ_CASE=sklearn:INDEX``
runs that one case.  The fast loop checks the first :data:`FAST` cases' Python
predictions in one test; the sweep checks each case's Python predictions, its C in
both styles against the estimator, ``verify`` in an integer, keyed or lean mode and,
for every third, the model file import-sklearn writes and ``treegen predict`` on it
(beyond its first case the sweep is slow, tests/conftest.py); each C but a double
input's compiles strict with avr-gcc too.  ``TREEGEN_FUZZ=long`` makes the sweep
:data:`LONG_CASES` cases, each through the command line too, and one in ``CHIP_EVERY``
(support.fuzz_chips) on a simulated chip (the binary64 routines the host's C never
builds).  A configuration scikit-learn refuses to fit is skipped; one treegen refuses
must be refused in one line.
The defects it found are tests/ensemble/test_sklearn_found.py.
"""

from __future__ import annotations

import os
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest

from support.fuzz import LONG
from support.fuzz_chips import CHIP_EVERY
from support.sklearn_fuzz import Case, Refused, make_case
from support.sklearn_fuzz_check import (
    c_modes,
    check_c,
    check_chip,
    check_cli,
    check_python,
    check_verify,
)

pytest.importorskip("sklearn")
pytest.importorskip("pandas")

SEED = 20261207
FAST = 24
LONG_CASES = 1500
_ONLY = os.environ.get("TREEGEN_FUZZ_CASE", "")


def _indices() -> list[int]:
    kind, _, index = _ONLY.partition(":")
    if kind == "sklearn":
        return [int(index)]
    return list(range(LONG_CASES if LONG else FAST))


def _fit(index: int) -> Case:
    with warnings.catch_warnings():
        # scikit-learn's own warnings on odd data (a class with one member, a constant
        # column): the fit is the case, the warning no failure.
        warnings.simplefilter("ignore")
        return make_case(SEED, index)


def _case(index: int) -> Case:
    try:
        return _fit(index)
    except Refused as exc:
        pytest.skip(f"scikit-learn refuses the configuration: {exc}")


def test_fast_set_in_python() -> None:
    """The first :data:`FAST` cases' Python predictions (the fast loop's share)."""
    fails = []
    for index in _indices():
        try:
            case = _fit(index)
        except Refused:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            fails += [f"case {case.name} {case.params}: {f}" for f in check_python(case)]
    assert not fails, "; ".join(fails)


@pytest.mark.parametrize("index", _indices())
def test_random_configuration(index: int, tmp_path: Path) -> None:
    case = _case(index)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the estimator's overflow in exp
        fails = check_python(case)
        if case.refused is not None:
            assert "\n" not in case.refused, case.refused
            return
        if shutil.which("gcc") is not None:
            modes = c_modes(np.random.default_rng([SEED, index, 1]), case)
            fails += check_c(case, tmp_path / "c", modes)
            fails += check_verify(case, np.random.default_rng([SEED, index, 2]), tmp_path / "v")
        if LONG or index % 3 == 0 or _ONLY:
            how = ("skops", "pickle", "joblib")[index % 3]
            fails += check_cli(case, tmp_path, how)
        if (LONG or _ONLY) and index % CHIP_EVERY == 0:
            fails += check_chip(case, np.random.default_rng([SEED, index, 3]))
    assert not fails, f"case {case.name} {case.params}: " + "; ".join(fails)
