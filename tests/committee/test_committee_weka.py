"""Differential test: ``train --flavor j48 --boost 10`` and ``--bag 10`` against Weka 3.6.14's
``AdaBoostM1 -I 10 -W J48`` and ``Bagging -I 10 -S 1 -W J48``, live.

One JVM builds both committees on every file (tests/java/CommitteeBatch.java): the nine
reference sets, Weka's example files (tests/data/weka), the 100 generated sets and the
corner cases of the J48 differential test.  On every file treegen's committee must equal
Weka's:

* its printed form (``AdaBoostM1.toString()`` / ``Bagging.toString()``: every tree in
  J48's layout, every weight to two decimals, the round count, "No boosting possible")
  character for character;
* every vote weight ``log((1 - eps) / eps)`` bit for bit (Weka's ``m_Betas``), hence every
  round's weighted error and reweighting;
* every member's ``classifyInstance`` on every training row;
* the class Weka's ``Evaluation`` predicts on every row, from the committee's double
  distribution as treegen computes it (:mod:`treegen.committee.weka_vote`), except where
  two classes tie exactly; for bagging on data without missing values, that
  distribution itself bit for bit;
* and the integer vote (what ``predict`` and the exported C answer) gives Weka's class on
  every row but near ties (top two probabilities within 0.002, of the committee or of a
  member: :func:`treegen.committee.weka_vote.disagreements`).

With missing values (or boosting's weights) J48's weights become fractions, and its sums
(a leaf's counts, a split's branch weights ``perBag``) depend on their order: treegen's
j48 trainer makes them in Weka's own orders (:mod:`treegen.trainer.j48order`), so the
trees' numbers are Weka's and a committee's distribution is Weka's too, bit for bit
(bagging; boosting's passes through ``exp``: see below).  The vote weight is Java's
``Math.log``, reproduced by a correctly rounded log (:func:`treegen.committee.boost.java_log`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from treegen.committee import weka, weka_vote
from treegen.committee.bag import bag
from treegen.committee.boost import boost
from treegen.committee.core import Committee
from treegen.committee.show import format_committee
from treegen.data import synthetic
from treegen.data.dataset import Dataset
from treegen.data.readers import read_dataset
from treegen.trainer import TrainOptions

from support.weka import (
    REF,
    REFERENCE,
    SEEDS,
    TESTS,
    compile_committee_driver,
    java_or_skip,
    run_committee,
)

pytestmark = pytest.mark.toolchain

ROUNDS = 10
BAG_SEED = 1
J48 = TrainOptions(flavor="j48")
EXAMPLES = sorted(p.stem for p in (TESTS / "data" / "weka" / "j48").glob("*.out"))
SPECIALS = sorted(synthetic.special_datasets())


def _datasets(work: Path) -> dict[str, Path]:
    files = {n: REF / n / f"{n}.arff" for n in REFERENCE}
    files |= {n: TESTS / "data" / "weka" / f"{n}.arff" for n in EXAMPLES}
    for s in SEEDS:
        ds = synthetic.generate(synthetic.random_spec(s))
        files[f"gen{s}"] = synthetic.write_arff(ds, work / f"gen{s}.arff")
    for name, ds in synthetic.special_datasets().items():
        files[f"special-{name}"] = synthetic.write_arff(ds, work / f"special-{name}.arff")
    return files


@dataclass
class WekaRuns:
    files: dict[str, Path]
    boost: dict[str, str]
    bag: dict[str, str]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> WekaRuns:
    java = java_or_skip("the committee comparison with Weka")
    work = tmp_path_factory.mktemp("committee-weka")
    classdir = compile_committee_driver(work)
    files = _datasets(work)
    paths = [str(p) for p in files.values()]
    return WekaRuns(
        files,
        run_committee(java, classdir, ["boost", str(ROUNDS), *paths]),
        run_committee(java, classdir, ["bag", str(ROUNDS), str(BAG_SEED), *paths]),
    )


@dataclass
class Detail:
    text: str
    rounds: int
    betas: list[float]
    predicted: np.ndarray
    dist: np.ndarray
    members: np.ndarray


def _parse(block: str) -> Detail:
    text, _, detail = block.partition("=== DETAIL\n")
    lines = detail.splitlines()
    rounds = int(next(ln for ln in lines if ln.startswith("R ")).split()[1])
    betas = [float(ln.split()[2]) for ln in lines if ln.startswith("B ")]
    p = [ln.split()[1:] for ln in lines if ln.startswith("P ")]
    assert [int(r[0]) for r in p] == list(range(len(p)))
    m = [ln.split()[2:] for ln in lines if ln.startswith("M ")]
    return Detail(
        text,
        rounds,
        betas,
        np.array([int(r[1]) for r in p], dtype=np.intp),
        np.array([[float(x) for x in r[2:]] for r in p], dtype=np.float64),
        np.array([[int(x) for x in r] for r in m], dtype=np.intp).reshape(len(m), rounds),
    )


def _read(runs: WekaRuns, key: str) -> Dataset:
    if key.startswith("gen"):
        return synthetic.generate(synthetic.random_spec(int(key[3:])))
    if key.startswith("special-"):
        return synthetic.special_datasets()[key[len("special-") :]]
    return read_dataset(str(runs.files[key]), float32=False)


def _exact_ties(dist: np.ndarray) -> np.ndarray:
    """Rows whose two largest probabilities are equal up to rounding (1e-9 relative)."""
    top = np.sort(dist, axis=1)
    return top[:, -1] - top[:, -2] <= 1e-9 * top[:, -1]


def _compare(c: Committee, ds: Dataset, block: str) -> None:
    want = _parse(block)
    assert format_committee(c).rstrip("\n") == want.text.rstrip("\n")
    assert c.n_members == want.rounds
    if c.method == "boost" and c.n_members > 1:
        assert list(c.betas) == want.betas  # bit for bit
    x = ds.X[ds.y >= 0]
    members = np.stack([weka.classify(m, x) for m in c.members], axis=1)
    assert np.array_equal(members, want.members)
    dist = weka_vote.distribution(c, x)
    # Evaluation's class: equal but where two classes tie exactly, which rounding decides.
    cls = weka.evaluation_class(dist)
    odd = np.flatnonzero(cls != want.predicted)
    assert np.all(_exact_ties(want.dist[odd])), (odd, want.dist[odd])
    if c.method == "bag":
        # Without missing values every leaf's counts are whole numbers, exact in any
        # order; with them the trainer sums in Weka's orders (module docstring).
        assert np.array_equal(dist, want.dist)
    # The integer vote: Weka's class but at near ties of the committee or of a member.
    d = weka_vote.disagreements(c, ds, want.predicted)
    assert d.near == d.rows.size, (d.rows, d.gaps)


KEYS = list(REFERENCE) + EXAMPLES + [f"special-{n}" for n in SPECIALS] + [f"gen{s}" for s in SEEDS]


@pytest.mark.parametrize("key", KEYS)
def test_boost_equals_weka_adaboostm1(runs: WekaRuns, key: str) -> None:
    ds = _read(runs, key)
    _compare(boost(ds, J48, ROUNDS), ds, runs.boost[key])


@pytest.mark.parametrize("key", KEYS)
def test_bag_equals_weka_bagging(runs: WekaRuns, key: str) -> None:
    ds = _read(runs, key)
    _compare(bag(ds, J48, ROUNDS, BAG_SEED), ds, runs.bag[key])


def test_the_files_cover_weka_stop_rules(runs: WekaRuns) -> None:
    """The set meets both of AdaBoostM1's stop rules: a first tree without error ("No
    boosting possible") and a later round with error at least 1/2 (fewer rounds)."""
    texts = [runs.boost[k] for k in KEYS]
    assert any("No boosting possible" in t for t in texts)
    rounds = [_parse(t).rounds for t in texts]
    assert any(1 < r < ROUNDS for r in rounds)
