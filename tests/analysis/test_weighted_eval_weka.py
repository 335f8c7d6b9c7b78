"""Evaluation on weighted rows against live Weka: what ``treegen train``, ``eval`` and
``cv --weka-folds`` print for an ARFF file with instance weights equals Weka 3.6's
``Evaluation`` of J48 on the same files (``J48 -t F -T G``: "Error on training data" and
"Error on test data"; ``J48 -t F -x 10 -s 1``: "Stratified cross-validation"): the
total weight, the misclassified weight and every cell of the confusion matrix, each as
Weka prints it (4 and 2 decimals).  The files are generated sets (missing values,
nominal and continuous attributes) split in two, their rows weighted by random
fractions and by whole numbers."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from treegen.analysis.evaluate import weight_text
from treegen.data import synthetic

from support.cli import run_cli
from support.weka import WEKA_JAR, java_or_skip, write_weighted_arff

pytestmark = pytest.mark.toolchain

SEEDS = (0, 3, 7, 12, 21)
KINDS = ("fractions", "copies")


def _files(work: Path, seed: int, kind: str) -> tuple[Path, Path]:
    """The training file (even rows) and the test file (odd rows) of generated set
    ``seed``, every row weighted (``kind``)."""
    ds = synthetic.generate(synthetic.random_spec(seed))
    ds = ds.subset(np.flatnonzero(ds.y >= 0))
    rng = np.random.default_rng(seed)
    paths = []
    for half, name in ((0, "train"), (1, "test")):
        part = ds.subset(np.arange(half, ds.n_rows, 2))
        if kind == "fractions":
            w = rng.uniform(0.05, 3.0, part.n_rows)
        else:
            w = rng.integers(1, 4, part.n_rows).astype(np.float64)
        paths.append(write_weighted_arff(part, w, work / f"gen{seed}-{kind}-{name}.arff"))
    return paths[0], paths[1]


def _weka(java: str, *options: str) -> str:
    return subprocess.run(
        [java, "-cp", str(WEKA_JAR), "weka.classifiers.trees.J48", *options, "-o"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    ).stdout


def _section(out: str, title: str) -> tuple[str, str, list[list[str]]]:
    """Weka's misclassified weight, total weight and confusion matrix under ``title``."""
    body = out[out.index(f"=== {title} ===") :]
    wrong = re.search(r"Incorrectly Classified Instances\s+(\S+)", body)
    total = re.search(r"Total Number of Instances\s+(\S+)", body)
    assert wrong is not None and total is not None, body
    matrix_text = body[body.index("<-- classified as") :].split("\n")[1:]
    matrix = []
    for line in matrix_text:
        if "|" not in line:
            break
        matrix.append(line.split("|")[0].split())
    return wrong.group(1), total.group(1), matrix


def _treegen_eval(out: str) -> tuple[str, str, list[list[str]]]:
    """treegen eval's errors, items and confusion matrix (blank cells as "0")."""
    items = re.search(r"data \((\S+) items\)", out)
    errors = re.search(r"\n\t +\d+ +(\S+)\(", out)
    assert items is not None and errors is not None, out
    rows = [line for line in out.splitlines() if "): class " in line]
    width = len(out.split("\t<-classified as")[0].rsplit("\t", 1)[1]) // len(rows)
    matrix = []
    for line in rows:
        cells = line.split("\t")[1]
        matrix.append(
            [cells[i : i + width].strip() or "0" for i in range(0, width * len(rows), width)]
        )
    return errors.group(1), items.group(1), matrix


def _rounded(cells: list[list[str]]) -> list[list[str]]:
    """Cells printed to 2 decimals as Weka prints its matrix (treegen prints to 2 too)."""
    return [[weight_text(float(c), 2) for c in row] for row in cells]


@pytest.fixture(scope="module")
def java() -> str:
    return java_or_skip("the weighted evaluation comparison")


CASES = [(seed, kind) for seed in SEEDS for kind in KINDS]


@pytest.fixture(params=CASES, ids=[f"gen{seed}-{kind}" for seed, kind in CASES])
def files(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, Path]:
    """A generated set's weighted training and test files."""
    seed, kind = request.param
    return _files(tmp_path, seed, kind)


def test_train_and_eval_count_weights_as_weka(
    java: str, files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    train_file, test_file = files
    weka = _weka(java, "-t", str(train_file), "-T", str(test_file))
    model = train_file.with_suffix(".tree")
    code, _, err = run_cli(capsys, "train", str(train_file), "--flavor", "j48", "-o", str(model))
    assert code == 0, err
    wrong, total, matrix = _section(weka, "Error on training data")
    assert f", {wrong} training errors (" in err and f" of weight {total}\n" in err, err
    for data, title in ((train_file, "Error on training data"), (test_file, "Error on test data")):
        code, out, err = run_cli(capsys, "eval", str(model), str(data))
        assert code == 0, err
        wrong, total, matrix = _section(weka, title)
        assert _treegen_eval(out) == (wrong, total, _rounded(matrix)), (out, weka)


def test_cv_counts_weights_as_weka(
    java: str, files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    data = files[0]
    weka = _weka(java, "-t", str(data), "-x", "5", "-s", "3", "-v")
    code, out, err = run_cli(
        capsys, "cv", str(data), "--flavor", "j48", "--folds", "5", "--seed", "3", "--weka-folds"
    )
    assert code == 0, err
    wrong, total, _ = _section(weka, "Stratified cross-validation")
    assert f"\nMisclassified: {wrong} (" in out and f" of weight {total} in " in out, (out, weka)
