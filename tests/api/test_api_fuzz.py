"""Hostile values in the Python API's arguments: a result or a TreegenError, nothing else.

A case picks a public entry point (``treegen.train``, ``train_rules``, ``load``, a
Model's ``predict``, ``predict_proba``, ``save``, ``export_options``, ``export_c``,
``verify``; ``C45Classifier``'s parameters, ``fit`` and ``predict``, ``predict_proba``
or ``score``; ``treegen.from_sklearn``, ``from_xgboost``, ``from_lightgbm``) and calls
it with arguments that work but for one to three keywords (support.apifuzz): a value
from the hostile pool (None, bools, huge and odd numbers, numpy scalars, strings,
bytes, containers, arrays of the wrong shape or dtype, pandas objects, missing paths),
a hostile value of the right shape (labels past a double, NaN weights, ...), a value
that works (so that a case reaches the checks of combinations), or, where the call
takes ``**keywords``, one that does not exist.  It must answer, or raise a
TreegenError (C45Classifier's EstimatorError is one, and the ValueError or TypeError
scikit-learn's conventions want) that leaves no file behind; any other exception, a
warning of numpy's or Python's (treegen's own UserWarnings are allowed), or a run past
the time limit fails the case.  A case is its index: ``default_rng([SEED, index])``;
``TREEGEN_FUZZ_CASE=api:INDEX`` runs that one, ``TREEGEN_FUZZ_SECONDS`` sets the
budget, ``TREEGEN_FUZZ=long`` five minutes.
"""

from __future__ import annotations

import os
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest

from treegen.errors import TreegenError

from support.apifuzz import Fixtures, draw, make_fixtures
from support.fuzz import LONG, case_indices
from support.fuzzrun import guarded

SEED = 71
LIMIT = 60.0  # seconds a case may take: a verify compiles C, the rest take milliseconds


@pytest.fixture(scope="module")
def fixtures(tmp_path_factory: pytest.TempPathFactory) -> Fixtures:
    return make_fixtures(tmp_path_factory.mktemp("apifuzz"))


def run_case(index: int, fx: Fixtures, work: Path) -> None:
    rng = np.random.default_rng([SEED, index])
    entry, kwargs, changed = draw(rng, fx)
    case = f"api:{index} {entry.name} with {changed}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    here = os.getcwd()
    os.chdir(work)  # a relative path given ("x", "") is written here, not in the checkout
    refused: TreegenError | None = None
    try:
        with guarded(f"case {case}", LIMIT), warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            try:
                entry.call(fx, kwargs)
            except TreegenError as exc:
                refused = exc
    finally:
        os.chdir(here)
    if refused is not None:
        # A refused call writes nothing: no file, no folder, no half export.
        left = sorted(p.name for p in work.iterdir())
        assert not left, f"case {case} raised {refused!r} and left {left}"
    foreign = [w for w in said if not issubclass(w.category, UserWarning)]
    assert not foreign, (case, [f"{w.category.__name__}: {w.message}" for w in foreign])


def test_hostile_api_arguments(fixtures: Fixtures, tmp_path: Path) -> None:
    seconds = 300.0 if LONG else float(os.environ.get("TREEGEN_FUZZ_SECONDS", "0.5"))
    for index in case_indices("api", seconds, least=10):
        run_case(index, fixtures, tmp_path / "w")
