"""C4.5's options benchmark: ``--subsets`` and c4.5rules against plain training.

The scaling data of bench/run.py (10 continuous and 10 nominal attributes of
3-8 values), in this process: the time of ``train`` (c45, pruned), of
``train`` with ``--subsets`` (value groups searched for every nominal
attribute at every node), and of c4.5rules (``treegen rules``: the unpruned
tree, the rules, their subsets and the final pass).  Beside them, where
java and Weka exist, what a Weka user would run instead: J48 with binary
nominal splits (``-B``, J48's closest to value groups; Weka has no ``-s``)
and PART (rules from partial C4.5 trees), each its own "Time taken to build
model".  ``python -m bench.options_bench`` runs it alone.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TypeVar

from treegen.data import synthetic
from treegen.data.dataset import Dataset

WEKA_JAR = Path("/usr/share/java/weka.jar")
SUBSET_ROWS = (10_000, 100_000)
RULES_ROWS = (3_000, 10_000, 100_000)
T = TypeVar("T")


def _weka(arff: Path, classifier: str, *options: str, timeout: float = 1800.0) -> str:
    """Weka's build time of ``classifier`` on ``arff``, as a table cell."""
    cmd = ["java", "-Xmx4g", "-cp", str(WEKA_JAR), classifier, "-t", str(arff), "-no-cv"]
    try:
        proc = subprocess.run(
            [*cmd, *options], capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        return "timeout"
    m = re.search(r"Time taken to build model: ([0-9.]+) seconds", proc.stdout)
    return f"{float(m.group(1)):.2f} s" if m else "error"


def _timed(fn: Callable[[], T]) -> tuple[float, T]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def run_options_bench(seed: int = 0) -> None:
    from treegen.rules.core import RuleSet
    from treegen.rules.generate import generate
    from treegen.trainer import TrainOptions, train

    def _rules(d: Dataset) -> tuple[RuleSet, RuleSet]:
        return generate(d, train(d, TrainOptions(prune=False)))

    weka = shutil.which("java") is not None and WEKA_JAR.exists()
    rows = sorted(set(SUBSET_ROWS) | set(RULES_ROWS))
    print("C4.5 options (scaling data, in-process; Weka's own build times):")
    head = (
        f"{'rows':>8} | {'train':>8} | {'--subsets':>9} | {'J48 -B':>8} | "
        f"{'rules':>8} | {'PART':>8} | rules made"
    )
    print(head)
    print("-" * len(head))
    with tempfile.TemporaryDirectory(prefix="treegen-options-") as tmp:
        for n in rows:
            ds: Dataset = synthetic.generate(synthetic.summary_spec(n, seed))
            arff = synthetic.write_arff(ds, Path(tmp) / f"gen{n}.arff", "bench") if weka else None
            plain, _ = _timed(partial(train, ds, TrainOptions()))
            cells = [f"{plain:.2f} s"]
            if n in SUBSET_ROWS:
                grouped, _ = _timed(partial(train, ds, TrainOptions(subsets=True)))
                cells.append(f"{grouped:.2f} s")
                b = "weka.classifiers.trees.J48"
                cells.append(_weka(arff, b, "-B") if arff is not None else "-")
            else:
                cells += ["-", "-"]
            made = "-"
            if n in RULES_ROWS:
                took, out = _timed(partial(_rules, ds))
                cells.append(f"{took:.2f} s")
                part = "weka.classifiers.rules.PART"
                cells.append(_weka(arff, part) if arff is not None else "-")
                made = str(len(out[1].rules))
            else:
                cells += ["-", "-"]
            print(
                f"{n:>8} | {cells[0]:>8} | {cells[1]:>9} | {cells[2]:>8} | "
                f"{cells[3]:>8} | {cells[4]:>8} | {made}",
                flush=True,
            )


if __name__ == "__main__":
    run_options_bench()
