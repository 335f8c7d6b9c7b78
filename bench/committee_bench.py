"""Committees: ``train --flavor j48 --boost 10`` and ``--bag 10`` beside Weka's AdaBoostM1 and
Bagging over J48, then 10-fold cross-validated accuracy of a tree, a boosted and a bagged
committee on the reference sets.

Timing: the scaling data of bench/run.py (treegen.data.synthetic ``summary_spec``) at 10k
and 100k rows, written as ARFF; treegen's ``boost`` / ``bag`` in this process (data in
memory), Weka's ``buildClassifier`` alone, timed inside one JVM per file
(tests/java/CommitteeBatch.java, compiled here with javac).  Both are printed as wall
and CPU seconds; the ratio is of CPU times, so that other work on the machine does not
move it: treegen's process time (every thread) against the CPU time of the thread that
runs ``buildClassifier`` (leaving out the JVM's garbage collector and compiler threads,
which favours Weka).  The same run says whether the committee is Weka's: the same
printout (every tree, every weight) and the same vote weights bit for bit.  Target:
boosting at 100k rows in at most 0.1x Weka's AdaBoostM1 time.

Accuracy: treegen's ``cv --weka-folds --folds 10`` (Weka's folds for ``-x 10 -s 1``) with
the j48 flavour, single tree, ``--boost 10`` and ``--bag 10``, on the nine reference sets
(tests/data/reference).  C5.0's ``-b`` figures are not in docs/SCALING.md, so there is
no C5.0 column.

``python -m bench.committee_bench [--rows N ...] [--no-cv]`` runs it alone.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from treegen.analysis.cv import cross_validate
from treegen.committee import vote
from treegen.committee.bag import bag
from treegen.committee.boost import boost
from treegen.committee.show import format_committee
from treegen.data.readers import read_dataset
from treegen.model.classify import predict
from treegen.trainer import TrainOptions, train

from bench import datafiles

ROOT = Path(__file__).resolve().parents[1]
WEKA_JAR = Path(os.environ.get("TREEGEN_WEKA_JAR", "/usr/share/java/weka.jar"))
DRIVER = ROOT / "tests" / "java" / "CommitteeBatch.java"
REF = ROOT / "tests" / "data" / "reference"
J48 = TrainOptions(flavor="j48")
ROUNDS = 10


def _driver(work: Path) -> Path | None:
    javac = shutil.which("javac")
    if javac is None or shutil.which("java") is None or not WEKA_JAR.exists():
        return None
    classes = work / "classes"
    classes.mkdir(exist_ok=True)
    subprocess.run(
        [javac, "-nowarn", "-d", str(classes), "-cp", str(WEKA_JAR), str(DRIVER)],
        check=True,
        capture_output=True,
    )
    return classes


def _weka(classes: Path, mode: str, arff: Path) -> tuple[float, float, str, list[float]]:
    """Weka's build time (s, wall and the building thread's CPU), its printout and its vote
    weights for ``mode`` on ``arff``."""
    args = [mode, str(ROUNDS)] + (["1"] if mode == "bag" else []) + [str(arff)]
    proc = subprocess.run(
        ["java", "-Xmx8g", "-cp", f"{WEKA_JAR}{os.pathsep}{classes}", "CommitteeBatch", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    block = proc.stdout.split("=== FILE ", 1)[1].partition("\n")[2]
    text, _, detail = block.partition("=== DETAIL\n")
    lines = detail.splitlines()
    ms = next(int(ln.split()[1]) for ln in lines if ln.startswith("T "))
    cpu_ms = next(int(ln.split()[1]) for ln in lines if ln.startswith("U "))
    betas = [float(ln.split()[2]) for ln in lines if ln.startswith("B ")]
    return ms / 1000.0, cpu_ms / 1000.0, text, betas


def run_timing(sizes: list[int], seed: int = 0) -> None:
    print("committees: train --flavor j48 --boost/--bag 10 beside Weka 3.6.14 (build time)")
    print("(wall seconds, then CPU seconds of the building thread: the ratio is of CPU times)")
    print(
        f"{'rows':>8} {'model':<6} {'treegen':>10} {'cpu':>8} {'Weka':>10} {'cpu':>8} "
        f"{'ratio':>7}  trees  same as Weka"
    )
    with tempfile.TemporaryDirectory(prefix="treegen-committee-bench-") as tmp:
        work = Path(tmp)
        classes = _driver(work)
        for n in sizes:
            arff = datafiles.write_all(n, work / str(n), seed)["arff"]
            ds = read_dataset(str(arff), float32=False)
            for mode in ("boost", "bag"):
                t0, u0 = time.perf_counter(), time.process_time()
                c = boost(ds, J48, ROUNDS) if mode == "boost" else bag(ds, J48, ROUNDS, 1)
                ours, ours_cpu = time.perf_counter() - t0, time.process_time() - u0
                leaves = "/".join(str(m.n_leaves) for m in c.members[:3])
                if classes is None:
                    print(
                        f"{n:>8} {mode:<6} {ours:>9.2f}s {ours_cpu:>7.2f}s {'--':>10} {'--':>8} "
                        f"{'--':>7}  {leaves}..."
                    )
                    continue
                theirs, theirs_cpu, text, betas = _weka(classes, mode, arff)
                same = format_committee(c).rstrip("\n") == text.rstrip("\n")
                if mode == "boost":
                    same = same and list(c.betas) == betas
                print(
                    f"{n:>8} {mode:<6} {ours:>9.2f}s {ours_cpu:>7.2f}s {theirs:>9.2f}s "
                    f"{theirs_cpu:>7.2f}s {ours_cpu / theirs_cpu:>6.2f}x  "
                    f"{leaves}...  {'yes' if same else 'NO'}"
                )
    if classes is None:
        print("(java, javac or weka.jar missing: Weka's column is empty)")
    print("target: boost at 100k rows <= 0.1x Weka's AdaBoostM1 time")


def run_cv() -> None:
    print()
    print("10-fold CV accuracy (Weka's folds, -x 10 -s 1), j48 flavour")
    print(f"{'data':<12} {'tree':>7} {'boost 10':>9} {'bag 10':>7}")
    for name in sorted(p.name for p in REF.iterdir() if p.is_dir()):
        ds = read_dataset(str(REF / name / f"{name}.arff"), float32=False)
        tree = cross_validate(ds, lambda d: train(d, J48), predict, folds=10, seed=1, weka=True)
        boosted = cross_validate(
            ds, lambda d: boost(d, J48, ROUNDS), vote.predict, folds=10, seed=1, weka=True
        )
        bagged = cross_validate(
            ds, lambda d: bag(d, J48, ROUNDS, 1), vote.predict, folds=10, seed=1, weka=True
        )
        cells = [100.0 * (1.0 - r.errors / r.n_rows) for r in (tree, boosted, bagged)]
        print(f"{name:<12} {cells[0]:>6.1f}% {cells[1]:>8.1f}% {cells[2]:>6.1f}%")


def run_committee_bench(seed: int = 0) -> None:
    """``make bench``'s part: the timing at 10k and 100k rows, then the accuracy table."""
    run_timing([10_000, 100_000], seed)
    run_cv()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, action="append", help="row count (repeatable)")
    ap.add_argument("--no-cv", action="store_true", help="leave out the accuracy table")
    args = ap.parse_args(argv)
    run_timing(args.rows or [10_000, 100_000])
    if not args.no_cv:
        run_cv()
    return 0


if __name__ == "__main__":
    sys.exit(main())
