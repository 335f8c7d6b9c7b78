"""``make bench-train``: ``train`` and ``rules`` at scale, as a user runs them.

Each command runs in a fresh process on bench/datafiles.py's ARFF file of the
scaling data (treegen.data.synthetic ``summary_spec``: 10 continuous + 10 nominal
attributes, 3 classes, 10% label noise, 5% missing values) at 100k and 1M rows;
the table shows each run's wall time, CPU time (wait4's rusage: that child alone)
and peak RSS (the child's own VmHWM, see HWM_FILE), and ``rules``' CPU time as a
multiple of ``train``'s on the same rows.  Up to 100k rows ``train`` and ``rules`` run
PAIR_RUNS times in turn and the table gives each one's median CPU and wall time and
its highest peak.
Then ``train`` on a set with one class per row (4,000 rows of 2 continuous and 1
nominal attribute).  Targets:

* ``rules``: at most 2x ``train``'s CPU time; peak RSS at most 150 MB at 100k
  rows, 400 MB at 1M (and it finishes);
* ``train``: peak RSS at most 100 MB at 100k rows, 250 MB at 1M;
* ``train``'s CPU time: at most 0.07x Weka J48's (the whole ``java ... J48 -t gen.arff
  -no-cv`` process, rows <= 100k, when java and /usr/share/java/weka.jar exist) and at
  most 0.2x scikit-learn's ``DecisionTreeClassifier(criterion="entropy").fit`` at 1M
  (bench/workers.py: one-hot nominals, only ``fit`` timed), measured in the same run;
* the 4,000-class set: ``train`` in under 1 s CPU (the least of MANY_RUNS runs) and
  150 MB.

Usage, from the repository root:
    python -m bench.scale_bench [--rows N ...] [--no-1m] [--timeout S] [--seed N]
1M rows are on by default; ``TREEGEN_BENCH_1M=0`` or ``--no-1m`` leaves them out.
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench import datafiles
from bench.run import WEKA_JAR, run_worker, save_data, sklearn_python

ROOT = Path(__file__).resolve().parent.parent
MAIN = "import sys; from treegen.cli.main import main; sys.exit(main(sys.argv[1:]))"
# The child's own peak: /proc/self/status's VmHWM at exit, written where HWM_FILE says.
# wait4's ru_maxrss is not that on Linux: a child started from this process (vfork,
# then exec) starts from this process's peak, which after writing the 1M-row file is
# several hundred MB (it made the 100k-row figures 200 MB instead of 120).
HWM_FILE = "TREEGEN_BENCH_HWM_FILE"
MAIN_HWM = (
    "import atexit, os\n"
    "def _hwm():\n"
    "    for line in open('/proc/self/status'):\n"
    "        if line.startswith('VmHWM:'):\n"
    f"            open(os.environ['{HWM_FILE}'], 'w').write(line.split()[1])\n"
    "atexit.register(_hwm)\n" + MAIN
)

# (rows, command): the most peak RSS in MB, and rules' CPU time over train's.
RSS_TARGET: dict[tuple[int, str], float] = {
    (100_000, "train"): 100.0,
    (1_000_000, "train"): 250.0,
    (100_000, "rules"): 150.0,
    (1_000_000, "rules"): 400.0,
}
RULES_OVER_TRAIN = 2.0
# The row of ``treegen train`` without --quiet (every other run is quiet).
SUMMARY = "summary"
# (rows, tool): the most train's CPU time may be, as a multiple of the tool's.
CPU_TARGET: dict[tuple[int, str], float] = {(100_000, "J48"): 0.07, (1_000_000, "sklearn"): 0.2}
J48_MAX_ROWS = 100_000
HAS_PROC = Path("/proc/self/status").exists()
MANY_CLASSES = 4000
MANY_CPU, MANY_RSS = 1.0, 150.0
# The 4,000-class run (about 1 s) is timed this many times and its least CPU time kept:
# on this project's shared 2-core machines one run's CPU time varies by a third with
# the other jobs' load.
MANY_RUNS = 3
# Up to 100k rows train and rules (a few seconds each) run this many times, in turn, so
# that a burst of other load falls on both; their ratio is of the medians.
PAIR_RUNS = 3
PAIR_MAX_ROWS = 100_000

Result = dict[str, float | str]


def run(args: list[str], timeout: float, quiet: bool = True) -> Result:
    """``treegen --quiet ARGS`` (``treegen ARGS`` when not ``quiet``: ``train`` then
    also counts the training errors its summary prints) in a fresh process: wall and
    CPU seconds and peak RSS (MB), or an error entry (its exit's last stderr line, or
    the timeout)."""
    return measure(None, args, timeout, quiet)


def measure(
    program: list[str] | None, args: list[str], timeout: float, quiet: bool = True
) -> Result:
    """``program ARGS`` (``treegen`` when None) in a fresh process, as :func:`run`.  For
    another program the peak is wait4's ru_maxrss, which may include this process's
    own peak (see HWM_FILE): only treegen's peak is a target."""
    with tempfile.TemporaryDirectory(prefix="treegen-bench-run-") as tmp:
        hwm = Path(tmp) / "hwm" if HAS_PROC and program is None else None
        cmd = program or [sys.executable, "-c", MAIN_HWM if hwm else MAIN]
        cmd = cmd + ["--quiet"] if quiet and program is None else cmd
        cmd = [*cmd, *args]
        env = {**os.environ, HWM_FILE: str(hwm)} if hwm else None
        t0 = time.perf_counter()
        with tempfile.TemporaryFile() as err:
            proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err, env=env)
            while True:
                pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
                if pid:
                    break
                if time.perf_counter() - t0 > timeout:
                    proc.kill()
                    proc.wait()
                    return {"error": f"timeout after {timeout:.0f} s"}
                time.sleep(0.05)
            wall = time.perf_counter() - t0
            code = os.waitstatus_to_exitcode(status)
            proc.returncode = code
            if code != 0:
                err.seek(0)
                lines = err.read().decode(errors="replace").strip().splitlines() or ["?"]
                return {"error": f"exit {code}: {lines[-1]}"}
        peak_kb = float(usage.ru_maxrss)
        if hwm is not None and hwm.exists():
            peak_kb = float(hwm.read_text().strip() or peak_kb)
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "peak_mb": peak_kb / 1024.0}


def least_cpu(runs: list[Result]) -> Result:
    """The run of least CPU time; the first error if any run failed."""
    failed = [r for r in runs if "error" in r]
    if failed:
        return failed[0]
    return min(runs, key=lambda r: float(r["cpu"]))


def median_run(runs: list[Result]) -> Result:
    """The median CPU and wall time of ``runs`` and their highest peak; the first error
    if any run failed."""
    failed = [r for r in runs if "error" in r]
    if failed:
        return failed[0]
    return {
        "cpu": float(np.median([float(r["cpu"]) for r in runs])),
        "wall": float(np.median([float(r["wall"]) for r in runs])),
        "peak_mb": max(float(r["peak_mb"]) for r in runs),
    }


def compile_package() -> None:
    """Write the package's ``.pyc`` files, as an install does, so that each timed run
    imports treegen as an installed copy would.  Where ``PYTHONDONTWRITEBYTECODE`` is
    set (this project's machines set it) Python never writes them itself, and every
    module edited since its ``.pyc`` was made is compiled again at every start:
    0.04-0.1 s of CPU added to each command timed."""
    compileall.compile_dir(str(ROOT / "treegen"), quiet=1)


def write_many_classes(path: Path, rows: int = MANY_CLASSES, seed: int = 0) -> None:
    """The one-class-per-row set: ``rows`` rows of a continuous attribute with 3
    decimals, an integer one in [0, 100) and a nominal one of 5 values; row i is of
    class ki."""
    rng = np.random.default_rng(seed)
    a = rng.normal(size=rows).round(3)
    b = rng.integers(0, 100, rows)
    c = rng.integers(0, 5, rows)
    head = [
        "@relation many-classes",
        "@attribute a numeric",
        "@attribute b numeric",
        "@attribute c {p,q,r,s,t}",
        "@attribute class {" + ",".join(f"k{i}" for i in range(rows)) + "}",
        "@data",
    ]
    body = [f"{float(a[i])!r},{int(b[i])},{'pqrst'[c[i]]},k{i}" for i in range(rows)]
    path.write_text("\n".join(head + body) + "\n")


def run_j48(arff: Path, timeout: float) -> Result | None:
    """Weka J48 with its defaults on ``arff``, the whole java process (None without
    java or Weka)."""
    if shutil.which("java") is None or not WEKA_JAR.exists():
        return None
    java = ["java", "-Xmx8g", "-cp", str(WEKA_JAR), "weka.classifiers.trees.J48"]
    return measure(java, ["-t", str(arff), "-no-cv"], timeout)


def run_sklearn(rows: int, seed: int, d: Path, timeout: float) -> Result | None:
    """scikit-learn's entropy tree's ``fit`` on the same rows: its CPU and wall seconds
    (None without scikit-learn)."""
    python = sklearn_python()
    if python is None:
        return None
    d.mkdir(parents=True, exist_ok=True)
    save_data(rows, seed, d)
    got = run_worker("sklearn", d, timeout, python)
    if "error" in got:
        return {"error": str(got["error"])}
    return {"cpu": float(str(got["cpu"])), "wall": float(str(got["seconds"]))}


def cell(r: Result) -> str:
    if "error" in r:
        return str(r["error"])
    return f"{r['cpu']:8.1f} s cpu {r['wall']:8.1f} s wall {r['peak_mb']:7.0f} MB"


def verdict(ok: bool | None) -> str:
    return "-" if ok is None else ("ok" if ok else "MISSED")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, action="append", help="row count (repeatable)")
    ap.add_argument("--no-1m", action="store_true", help="leave out the 1M-row runs")
    ap.add_argument("--timeout", type=float, default=3600.0, help="per-run limit, seconds")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    sizes = args.rows or [100_000, 1_000_000]
    if args.no_1m or os.environ.get("TREEGEN_BENCH_1M", "1") == "0":
        sizes = [n for n in sizes if n < 1_000_000]
    results: dict[tuple[int, str], Result] = {}
    others: dict[tuple[int, str], Result | None] = {}
    compile_package()
    with tempfile.TemporaryDirectory(prefix="treegen-bench-train-") as tmp:
        for n in sizes:
            d = Path(tmp) / str(n)
            print(f"[{n} rows] writing the ARFF file ...", flush=True)
            data = datafiles.write_all(n, d, args.seed)["arff"]
            times = PAIR_RUNS if n <= PAIR_MAX_ROWS else 1
            runs: dict[str, list[Result]] = {"train": [], "rules": []}
            for i in range(times):
                for what, out in (("train", "m.tree"), ("rules", "r.json")):
                    print(f"[{n} rows] treegen {what} ({i + 1} of {times}) ...", flush=True)
                    runs[what].append(run([what, str(data), "-o", str(d / out)], args.timeout))
            for what, done in runs.items():
                results[(n, what)] = median_run(done)
            # As a user runs it: the summary's training errors counted (once: its CPU
            # time is not a target, its peak is the train target's too).
            print(f"[{n} rows] treegen train with its summary ...", flush=True)
            results[(n, SUMMARY)] = run(
                ["train", str(data), "-o", str(d / "s.tree")], args.timeout, quiet=False
            )
            if n <= J48_MAX_ROWS:
                print(f"[{n} rows] Weka J48 ...", flush=True)
                others[(n, "J48")] = run_j48(data, args.timeout)
            print(f"[{n} rows] scikit-learn fit ...", flush=True)
            others[(n, "sklearn")] = run_sklearn(n, args.seed, d / "sk", args.timeout)
        many = Path(tmp) / "many.arff"
        write_many_classes(many)
        print(f"[{MANY_CLASSES} classes] treegen train ...", flush=True)
        many_result = least_cpu(
            [
                run(["train", str(many), "-o", str(Path(tmp) / "many.tree")], args.timeout)
                for _ in range(MANY_RUNS)
            ]
        )
    print()
    print(f"(up to {PAIR_MAX_ROWS:,} rows: medians of {PAIR_RUNS} runs in turn, highest peak)")
    print(f"({SUMMARY}: train without --quiet, its summary's training errors counted; once)")
    print(f"{'rows':>9}  {'command':7}  {'measured':43}  {'RSS target':>12}  rules/train cpu")
    for n in sizes:
        for what in ("train", SUMMARY, "rules"):
            r = results[(n, what)]
            limit = RSS_TARGET.get((n, "train" if what == SUMMARY else what))
            ok = None if limit is None or "error" in r else float(r["peak_mb"]) <= limit
            target = f"{limit:.0f} MB {verdict(ok)}" if limit is not None else "-"
            ratio = ""
            t = results[(n, "train")]
            if what == "rules" and "error" not in r and "error" not in t:
                x = float(r["cpu"]) / float(t["cpu"])
                ratio = f"{x:.1f}x (<= {RULES_OVER_TRAIN:.0f}x {verdict(x <= RULES_OVER_TRAIN)})"
            elif what == "rules":
                ratio = "MISSED (did not finish)" if "error" in r else "-"
            print(f"{n:>9}  {what:7}  {cell(r):43}  {target:>12}  {ratio}")
    print_versus(sizes, results, others)
    ok_many = None
    if "error" not in many_result:
        ok_many = float(many_result["cpu"]) < MANY_CPU and float(many_result["peak_mb"]) < MANY_RSS
    print(
        f"{MANY_CLASSES} classes, one a row: train {cell(many_result)}  (least of {MANY_RUNS}) "
        f"(< {MANY_CPU:.0f} s cpu and {MANY_RSS:.0f} MB: {verdict(ok_many)})"
    )
    return 0


def print_versus(
    sizes: list[int],
    results: dict[tuple[int, str], Result],
    others: dict[tuple[int, str], Result | None],
) -> None:
    """train's CPU time beside J48's (whole process) and scikit-learn's fit, and the
    targets' verdicts."""
    print(f"\n{'rows':>9}  {'tool':8}  {'cpu':>9}  {'wall':>9}  train's cpu over it")
    for n in sizes:
        t = results[(n, "train")]
        for tool in ("J48", "sklearn"):
            if (n, tool) not in others:
                continue
            r = others[(n, tool)]
            if r is None:
                print(f"{n:>9}  {tool:8}  not installed")
                continue
            if "error" in r:
                print(f"{n:>9}  {tool:8}  {r['error']}")
                continue
            ratio = "-"
            if "error" not in t:
                x = float(t["cpu"]) / float(r["cpu"])
                limit = CPU_TARGET.get((n, tool))
                ok = None if limit is None else x <= limit
                ratio = f"{x:.3f}x" + (f" (<= {limit}x {verdict(ok)})" if limit else "")
            print(f"{n:>9}  {tool:8}  {r['cpu']:7.1f} s  {r['wall']:7.1f} s  {ratio}")


if __name__ == "__main__":
    sys.exit(main())
