"""``make firmware`` itself (treegen.firmware.check's command line), narrowed to one chip.

The chip tests in test_firmware.py call the check's pieces; this runs its ``main`` as
``make firmware`` does, over a tree and every ensemble family it builds
(treegen.firmware.ensembles: a scikit-learn forest and boosted model, XGBoost, LightGBM,
a regressor), so that the development tool cannot rot unseen: every run passes, the
count it ends with is the runs it printed, and its table has a row per model and style.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from treegen.firmware import targets

pytestmark = pytest.mark.toolchain

REPO = Path(__file__).resolve().parents[2]
MODELS = ("golf", "forest", "boosted", "xgboost", "lightgbm", "regressor")


def test_make_firmware_on_one_chip() -> None:
    pytest.importorskip("sklearn")
    pytest.importorskip("xgboost")
    pytest.importorskip("lightgbm")
    missing = targets.missing_tools(targets.target("m0plus"))
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed")
    cmd = [sys.executable, "-m", "treegen.firmware.check", "--models", ",".join(MODELS)]
    cmd += ["--on", "m0plus", "--random", "10", "--jobs", "1"]
    p = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    runs = re.findall(r"^(\w+) +(\S+) +(\w+) +m0plus (\d+) of (\d+) rows identical", p.stdout, re.M)
    assert {r[0] for r in runs} == set(MODELS)
    assert all(r[3] == r[4] and int(r[3]) > 0 for r in runs)
    assert p.stdout.rstrip().splitlines()[-1] == f"{len(runs)} passed, 0 failed"
    table = re.findall(r"^\| (\w+) \| m0plus \| ([\w-]+) \|", p.stdout, re.M)
    assert {m for m, _ in table} == set(MODELS)
