"""``make bench``: treegen's training speed and memory against the issue's targets.

Data: SUMMARY.md's scaling set (treegen.data.synthetic ``summary_spec``: 10
continuous + 10 nominal attributes with 3-8 values, 3 classes, labels from a
depth-7 tree plus 10% label noise, 5% missing values) at 10k, 100k and 1M
rows.  Each measurement runs in its own process (bench.workers) so its
peak RSS is its own; the table shows the time of ``train`` only (c45
flavour, pruned; data already in memory), the process's peak RSS and the
baseline before training (interpreter + data), and the tree's size.

Compared with: scikit-learn's DecisionTreeClassifier(criterion="entropy")
``fit`` on the same rows (one-hot nominals, mean-imputed continuous), when
scikit-learn is importable; Weka J48 (``--j48``, rows <= 100k, when
/usr/share/java/weka.jar and java exist: J48's own "Time taken to build
model"); and the reference numbers measured for SUMMARY.md.  Targets: 100k
rows in <= 0.1x J48's time and <= scikit-learn's fit; 1M rows <=
scikit-learn's fit and < 1 GB peak.

The whole command: the same rows written as ARFF, .names/.data and
CSV files (bench/datafiles.py), ``read_dataset`` alone on each, and the whole
``treegen train gen.arff`` in a fresh process (wall time, CPU time, peak RSS, and
whether its model is the in-memory trainer's bit for bit).  Targets: 100k rows <= 0.1x
J48's whole run and <= scikit-learn's fit; 1M rows <= scikit-learn's fit and
< 1 GB peak; each reader <= 0.3 s at 100k.

Usage, from the repository root:
    python -m bench.run [--rows N ...] [--j48] [--no-sklearn] [--no-export] [--no-command]
                        [--no-codegen] [--no-gbm] [--no-firmware] [--no-options]
                        [--no-ensembles] [--no-regress] [--no-committee]
Then bench/codegen_bench.py compares treegen's C with emlearn's and m2cgen's
(``pip install -e '.[bench]'``; ``make bench`` installs the extra),
bench/firmware_bench.py runs treegen's C for the firmware examples' and the codegen
benchmark's trees on the simulated chips (flash, and cycles or instructions per
prediction on AVR, Cortex-M0+ and M4F, RV32IMC and RV32IMAFC), and
bench/options_bench.py times ``--subsets`` and c4.5rules beside Weka's J48 -B
and PART, bench/ensemble_bench.py sets treegen's C for scikit-learn forests and
boosted models beside emlearn's, m2cgen's and tl2cgen's (``BENCH_FULL=1``
adds its big models), bench/gbm_bench.py runs XGBoost's and LightGBM's models
through treegen, m2cgen and tl2cgen (BENCH_FULL=1 adds the 1,500-tree models),
bench/regress_bench.py sets treegen's C for scikit-learn regressors beside emlearn's,
m2cgen's and tl2cgen's (values differing in any bit, flash, host ns),
and bench/committee_bench.py times ``train --boost 10`` and ``--bag 10`` beside Weka's
AdaBoostM1 and Bagging over J48, with 10-fold CV accuracy of a tree, a boosted and a
bagged committee on the reference sets.
1M rows are on by default; ``TREEGEN_BENCH_1M=0`` or ``--no-1m`` leaves them out.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from treegen.data import synthetic
from treegen.data.dataset import Dataset

from bench import datafiles
from bench.codegen_bench import run_codegen_bench
from bench.committee_bench import run_committee_bench
from bench.ensemble_bench import run_ensemble_bench
from bench.export_bench import run_export_bench
from bench.firmware_bench import run_firmware_bench
from bench.options_bench import run_options_bench

# Workers run as ``python -m bench.workers`` from here, so they import this
# checkout's bench and treegen (also under a python without treegen installed).
ROOT = Path(__file__).resolve().parent.parent
WEKA_JAR = Path(os.environ.get("TREEGEN_WEKA_JAR", "/usr/share/java/weka.jar"))

# SUMMARY.md's scaling reference (one run each, 2 cores): seconds.
REFERENCE: dict[int, dict[str, float | None]] = {
    10_000: {"r8": 0.4, "j48": 3.5, "sklearn": 0.4},
    100_000: {"r8": 17.0, "j48": 39.0, "sklearn": 6.0},
    1_000_000: {"r8": 893.0, "j48": None, "sklearn": 95.0},
}


@dataclass
class Row:
    rows: int
    results: dict[str, dict[str, object]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def save_data(rows: int, seed: int, directory: Path) -> None:
    ds = synthetic.generate(synthetic.summary_spec(rows, seed))
    np.save(directory / "X.npy", ds.X)
    np.save(directory / "y.npy", ds.y)
    (directory / "schema.pkl").write_bytes(pickle.dumps(ds.schema))


def sklearn_python() -> str | None:
    """An interpreter that can run the scikit-learn worker: this one, else the
    checkout's .venv (``make venv`` installs scikit-learn with the test extra), else
    python3 on PATH (the worker runs from the repository root, so it imports the
    checkout's bench and treegen)."""
    venv = ROOT / ".venv" / "bin" / "python"
    candidates = [
        sys.executable,
        *([str(venv)] if venv.exists() else []),
        *[p for p in (shutil.which("python3"),) if p],
    ]
    for exe in candidates:
        # The worker is ``python -m bench.workers`` from ROOT: the interpreter must
        # import that module (numpy, treegen's dependencies) as well as scikit-learn.
        probe = subprocess.run(
            [exe, "-c", "import sklearn, numpy, bench.workers"],
            cwd=ROOT,
            capture_output=True,
            check=False,
        )
        if probe.returncode == 0:
            return exe
    return None


def run_worker(
    kind: str, data_dir: Path, timeout: float, python: str | None = None
) -> dict[str, object]:
    """Run one worker process and return its JSON result."""
    proc = subprocess.Popen(
        [python or sys.executable, "-m", "bench.workers", kind, str(data_dir)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    done = _finish(proc, timeout)
    if isinstance(done, dict):
        return done
    out, err = done
    if proc.returncode != 0:
        last = (err.strip().splitlines() or ["?"])[-1]
        return {"error": f"exit {proc.returncode}: {last}"}
    return dict(json.loads(out.strip().splitlines()[-1]))


def _finish(proc: subprocess.Popen[str], timeout: float) -> tuple[str, str] | dict[str, object]:
    """The process's (stdout, stderr), or an error entry when it runs past ``timeout``."""
    try:
        return proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return {"error": f"timeout after {timeout:.0f} s"}


def run_j48(data_dir: Path, timeout: float) -> dict[str, object]:
    """Weka J48 with defaults on the same rows (ARFF); J48's own build time and peak RSS."""
    schema = pickle.loads((data_dir / "schema.pkl").read_bytes())
    ds = Dataset(schema, np.load(data_dir / "X.npy"), np.load(data_dir / "y.npy"))
    arff = synthetic.write_arff(ds, data_dir / "data.arff", "bench")
    cmd = ["java", "-Xmx8g", "-cp", str(WEKA_JAR), "weka.classifiers.trees.J48"]
    cmd += ["-t", str(arff), "-no-cv", "-v"]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    done = _finish(proc, timeout)
    if isinstance(done, dict):
        return done
    out, err = done
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        return {"error": (err.strip().splitlines() or ["?"])[-1]}
    m = re.search(r"Time taken to build model: ([0-9.]+) seconds", out)
    size = re.search(r"Size of the tree :\s*(\d+)", out)
    return {
        "seconds": float(m.group(1)) if m else wall,
        "wall": wall,
        "size": int(size.group(1)) if size else None,
    }


def run_command(files: Path, timeout: float) -> dict[str, object]:
    """The whole ``treegen train gen.arff -o m.tree`` as a user runs it: wall time, CPU
    time and peak RSS of the process (wait4's rusage: this child only), and the
    model's hashes."""
    out = files / "m.tree"
    code = "import sys; from treegen.cli.main import main; sys.exit(main(sys.argv[1:]))"
    cmd = [sys.executable, "-c", code, "--quiet", "train", str(files / "gen.arff"), "-o", str(out)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = t0 + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            proc.kill()
            proc.wait()
            return {"error": f"timeout after {timeout:.0f} s"}
        time.sleep(0.05)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode != 0:
        return {"error": (err.strip().splitlines() or ["?"])[-1]}
    from treegen.model.file import load_model

    from bench.workers import model_bits, tree_fingerprint

    model = load_model(str(out))
    return {
        "seconds": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "peak_mb": usage.ru_maxrss / 1024.0,
        "fingerprint": tree_fingerprint(model),
        "bits": model_bits(model),
    }


def fmt_s(x: object) -> str:
    return f"{float(x):.2f} s" if isinstance(x, (int, float)) else "-"


def fmt_mb(x: object) -> str:
    return f"{float(x):.0f} MB" if isinstance(x, (int, float)) else "-"


def cell(result: dict[str, object] | None, key: str = "seconds") -> str:
    if result is None:
        return "-"
    if "error" in result:
        return f"({result['error']})"
    return fmt_s(result.get(key))


def print_table(table: list[Row]) -> None:
    head = (
        f"{'rows':>9} | {'treegen train':>13} | {'peak (base)':>16} | {'size/leaves':>11} | "
        f"{'sklearn fit':>11} | {'sk peak':>8} | {'J48 build':>10} | ref R8 / J48 / sklearn"
    )
    print(head)
    print("-" * len(head))
    for r in table:
        tg = r.results.get("treegen")
        sk = r.results.get("sklearn")
        j4 = r.results.get("j48")
        ref = REFERENCE.get(r.rows, {})
        refs = " / ".join(f"{v:g} s" if v else "killed" for v in ref.values()) if ref else "-"
        peak = (
            f"{fmt_mb(tg.get('peak_mb'))} ({fmt_mb(tg.get('baseline_mb'))})"
            if tg and "error" not in tg
            else "-"
        )
        size = f"{tg['size']}/{tg['leaves']}" if tg and "error" not in tg else "-"
        skpeak = fmt_mb(sk.get("peak_mb")) if sk and "error" not in sk else "-"
        print(
            f"{r.rows:>9} | {cell(tg):>13} | {peak:>16} | {size:>11} | {cell(sk):>11} | "
            f"{skpeak:>8} | {cell(j4):>10} | {refs}"
        )


def _seconds(r: dict[str, object] | None) -> float | None:
    if r is None or "error" in r:
        return None
    v = r.get("seconds")
    return float(v) if isinstance(v, (int, float)) else None


def print_whole(table: list[Row]) -> None:
    """The whole command (from the ARFF file) next to the trainer alone."""
    print("\nWhole command (treegen --quiet train gen.arff -o m.tree; interpreter, reading,")
    print("training, writing) and read_dataset alone per format:")
    head = (
        f"{'rows':>9} | {'train only':>10} | {'whole cmd':>9} | {'cmd CPU':>8} | "
        f"{'cmd peak':>8} | {'same model':>10} | {'read arff':>9} | {'read .data':>10} | "
        f"{'read csv':>8}"
    )
    print(head)
    print("-" * len(head))
    for r in table:
        tg, cmd, rd = r.results.get("treegen"), r.results.get("command"), r.results.get("readers")
        same = "-"
        if tg and cmd and "error" not in tg and "error" not in cmd:
            same = "yes" if cmd["bits"] == tg["bits"] else "NO"
        peak = fmt_mb(cmd.get("peak_mb")) if cmd and "error" not in cmd else "-"
        reads = [cell(rd, k) for k in ("arff", "c45", "csv")]
        print(
            f"{r.rows:>9} | {cell(tg):>10} | {cell(cmd):>9} | {cell(cmd, 'cpu'):>8} | "
            f"{peak:>8} | {same:>10} | {reads[0]:>9} | {reads[1]:>10} | {reads[2]:>8}"
        )
    by_rows = {r.rows: r for r in table}

    def verdict(ok: bool | None) -> str:
        return "n/a " if ok is None else ("PASS" if ok else "FAIL")

    print("\nTargets (the whole command):")
    r100 = by_rows.get(100_000)
    if r100:
        secs = _seconds(r100.results.get("command"))
        j48 = r100.results.get("j48")
        j48_wall = float(str(j48["wall"])) if j48 and "wall" in j48 else None
        sk = _seconds(r100.results.get("sklearn"))
        if secs is not None:
            ok = None if j48_wall is None else secs <= 0.1 * j48_wall
            print(
                f"  [{verdict(ok)}] 100k: {secs:.2f} s <= 0.1 x J48's whole run "
                f"({fmt_s(j48_wall)}; --j48 measures it)"
            )
            ok = None if sk is None else secs <= sk
            print(f"  [{verdict(ok)}] 100k: {secs:.2f} s <= scikit-learn fit ({fmt_s(sk)})")
            _print_cpu("100k", r100)
        rd = r100.results.get("readers")
        if rd and "error" not in rd:
            for k in ("arff", "c45", "csv"):
                took = float(str(rd[k]))
                print(
                    f"  [{verdict(took <= 0.3 and bool(rd[k + '_fast']))}] 100k: read {k} "
                    f"{took:.2f} s <= 0.3 s (C tokenizer used: {rd[k + '_fast']})"
                )
    r1m = by_rows.get(1_000_000)
    if r1m:
        cmdr = r1m.results.get("command")
        secs = _seconds(cmdr)
        sk = _seconds(r1m.results.get("sklearn"))
        if secs is not None and cmdr is not None:
            ok = None if sk is None else secs <= sk
            print(f"  [{verdict(ok)}] 1M: {secs:.2f} s <= scikit-learn fit ({fmt_s(sk)})")
            _print_cpu("1M", r1m)
            peak_mb = float(str(cmdr["peak_mb"]))
            print(f"  [{verdict(peak_mb < 1024)}] 1M: whole command peak {peak_mb:.0f} MB < 1 GB")
    for r in table:
        tg, cmd = r.results.get("treegen"), r.results.get("command")
        if tg and cmd and "error" not in tg and "error" not in cmd:
            print(
                f"  [{verdict(cmd['bits'] == tg['bits'])}] {r.rows}: the command's model "
                f"is the trainer's, bit for bit ({tg['fingerprint']})"
            )


def _print_cpu(label: str, row: Row) -> None:
    """The same comparison in CPU time, which other jobs on a shared machine disturb far
    less than wall time (the verdicts above are wall time, as the issue states them)."""
    cmd, sk = row.results.get("command"), row.results.get("sklearn")
    if cmd and sk and "cpu" in cmd and "cpu" in sk:
        c, s = float(str(cmd["cpu"])), float(str(sk["cpu"]))
        print(f"  [info] {label}: CPU time {c:.2f} s, scikit-learn fit's {s:.2f} s ({c / s:.2f}x)")


def print_targets(table: list[Row]) -> None:
    print("\nTargets (training):")
    by_rows = {r.rows: r for r in table}

    def verdict(ok: bool | None) -> str:
        return "n/a " if ok is None else ("PASS" if ok else "FAIL")

    r100 = by_rows.get(100_000)
    if r100:
        tg = _seconds(r100.results.get("treegen"))
        j48 = _seconds(r100.results.get("j48"))
        sk = _seconds(r100.results.get("sklearn"))
        ref_j48 = REFERENCE[100_000]["j48"]
        assert ref_j48 is not None
        if tg is not None:
            print(
                f"  [{verdict(tg <= 0.1 * ref_j48)}] 100k: {tg:.2f} s <= 0.1 x J48 "
                f"(SUMMARY {ref_j48:g} s -> {0.1 * ref_j48:.1f} s)"
            )
            if j48 is not None:
                print(
                    f"  [{verdict(tg <= 0.1 * j48)}] 100k: {tg:.2f} s <= 0.1 x J48 measured "
                    f"here ({j48:.2f} s -> {0.1 * j48:.2f} s)"
                )
            ok = None if sk is None else tg <= sk
            print(f"  [{verdict(ok)}] 100k: {tg:.2f} s <= scikit-learn fit ({fmt_s(sk)})")
    r1m = by_rows.get(1_000_000)
    if r1m:
        tgr = r1m.results.get("treegen")
        tg = _seconds(tgr)
        sk = _seconds(r1m.results.get("sklearn"))
        if tg is not None and tgr is not None:
            ok = None if sk is None else tg <= sk
            print(f"  [{verdict(ok)}] 1M: {tg:.2f} s <= scikit-learn fit ({fmt_s(sk)})")
            peak = float(str(tgr["peak_mb"]))
            print(f"  [{verdict(peak < 1024)}] 1M: peak {peak:.0f} MB < 1 GB (whole process)")
    for r in table:
        for note in r.notes:
            print(f"  note ({r.rows} rows): {note}")


def other_engines() -> list[str]:
    """Growth paths of ``train`` besides the default (its ``engine`` keyword), if any."""
    import inspect
    import typing

    from treegen.trainer import train

    param = inspect.signature(train).parameters.get("engine")
    if param is None:
        return []
    hints = typing.get_type_hints(train)
    choices = [str(c) for c in typing.get_args(hints.get("engine", str))]
    return [c for c in choices if c != param.default]


def print_paths(table: list[Row], engines: list[str]) -> None:
    """The default (fast) path's pruned tree against the other engine's, bit for bit."""
    if not engines:
        print("\nFast vs exact path: train() has a single growth path; nothing to compare.")
        return
    print(f"\nFast path (default engine) vs {', '.join(engines)} (pruned model, bit for bit):")
    for r in table:
        tg = r.results.get("treegen")
        for e in engines:
            other = r.results.get(f"engine={e}")
            if other is None or tg is None:
                continue
            if "error" in other or "error" in tg:
                print(f"  {r.rows:>9} rows: {e}: {other.get('error') or tg.get('error')}")
                continue
            same = other["bits"] == tg["bits"]
            print(
                f"  {r.rows:>9} rows: {'IDENTICAL' if same else 'DIFFERENT'} "
                f"(default {cell(tg)}, {e} {cell(other)}; sizes {tg['size']} / {other['size']})"
            )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, action="append", help="row count (repeatable)")
    ap.add_argument("--no-1m", action="store_true", help="leave out the 1M-row run")
    ap.add_argument("--j48", action="store_true", help="also time Weka J48 (rows <= 100k)")
    ap.add_argument("--no-sklearn", action="store_true", help="skip scikit-learn")
    ap.add_argument("--no-export", action="store_true", help="skip the export benchmark")
    ap.add_argument(
        "--no-codegen",
        action="store_true",
        help="skip the side-by-side codegen benchmark (emlearn, m2cgen)",
    )
    ap.add_argument(
        "--no-gbm",
        action="store_true",
        help="skip the XGBoost and LightGBM benchmark (treegen, m2cgen, tl2cgen; "
        "BENCH_FULL=1 adds the 500-round models)",
    )
    ap.add_argument(
        "--no-firmware",
        action="store_true",
        help="skip the firmware benchmark (the C on the simulated chips)",
    )
    ap.add_argument(
        "--no-ensembles",
        action="store_true",
        help="skip the ensemble benchmark (treegen, emlearn, m2cgen, tl2cgen on forests "
        "and boosted models)",
    )
    ap.add_argument(
        "--no-command",
        action="store_true",
        help="skip the whole-command and reader timings (data files)",
    )
    ap.add_argument("--unpruned", action="store_true", help="also time the unpruned tree")
    ap.add_argument(
        "--no-regress",
        action="store_true",
        help="skip the scikit-learn regressors beside emlearn, m2cgen and tl2cgen",
    )
    ap.add_argument(
        "--no-committee",
        action="store_true",
        help="skip --boost/--bag beside Weka's AdaBoostM1/Bagging and their CV accuracy",
    )
    ap.add_argument(
        "--no-options", action="store_true", help="skip the --subsets and rules benchmark"
    )
    ap.add_argument(
        "--exact-max-rows",
        type=int,
        default=100_000,
        help="run the trainer's other engine(s) up to this many rows (default 100000)",
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=3600.0, help="per-job limit, seconds")
    args = ap.parse_args(argv)

    sizes = args.rows or [10_000, 100_000, 1_000_000]
    if args.no_1m or os.environ.get("TREEGEN_BENCH_1M", "1") == "0":
        sizes = [n for n in sizes if n < 1_000_000]
    sk_python = None if args.no_sklearn else sklearn_python()
    if sk_python is None and not args.no_sklearn:
        print("scikit-learn not importable: its column is left empty")
    elif sk_python is not None and sk_python != sys.executable:
        print(f"scikit-learn runs under {sk_python} (not importable here)")
    have_weka = shutil.which("java") is not None and WEKA_JAR.exists()
    if args.j48 and not have_weka:
        print(f"--j48: java or {WEKA_JAR} missing, J48 column left empty")

    engines = other_engines()
    table: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="treegen-bench-") as tmp:
        for n in sizes:
            d = Path(tmp) / str(n)
            d.mkdir()
            print(f"[{n} rows] generating data ...", flush=True)
            save_data(n, args.seed, d)
            row = Row(n)
            print(f"[{n} rows] treegen train (c45, pruned) ...", flush=True)
            row.results["treegen"] = run_worker("treegen", d, args.timeout)
            if args.unpruned:
                row.results["unpruned"] = run_worker("treegen-unpruned", d, args.timeout)
                u = row.results["unpruned"]
                if "error" not in u:
                    row.notes.append(
                        f"unpruned: {float(str(u['seconds'])):.2f} s, size {u['size']}"
                    )
            for e in engines if n <= args.exact_max_rows else []:
                print(f"[{n} rows] treegen train, engine={e} ...", flush=True)
                row.results[f"engine={e}"] = run_worker(f"treegen-engine={e}", d, args.timeout)
            if not args.no_command:
                print(f"[{n} rows] writing ARFF, .names/.data, CSV; whole command ...", flush=True)
                files = d / "files"
                datafiles.write_all(n, files, args.seed)
                row.results["readers"] = run_worker("readers", files, args.timeout)
                row.results["command"] = run_command(files, args.timeout)
            if sk_python is not None:
                print(f"[{n} rows] scikit-learn fit ...", flush=True)
                row.results["sklearn"] = run_worker("sklearn", d, args.timeout, sk_python)
            if args.j48 and have_weka and n <= 100_000:
                print(f"[{n} rows] Weka J48 ...", flush=True)
                row.results["j48"] = run_j48(d, args.timeout)
            table.append(row)
    print()
    print_table(table)
    print_targets(table)
    if not args.no_command:
        print_whole(table)
    print_paths(table, engines)
    if not args.no_export:
        print()
        run_export_bench()
    if not args.no_codegen:
        print()
        run_codegen_bench()
    if not args.no_gbm:
        from bench.gbm_bench import run_gbm_bench

        print()
        run_gbm_bench()
    if not args.no_firmware:
        print()
        run_firmware_bench()
    if not args.no_options:
        print()
        run_options_bench(args.seed)
    if not args.no_ensembles:
        print()
        run_ensemble_bench()
    if not args.no_regress:
        from bench.regress_bench import main as run_regress_bench

        print("\nscikit-learn regressors: treegen beside emlearn, m2cgen and tl2cgen")
        run_regress_bench([])
    if not args.no_committee:
        print()
        run_committee_bench(args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
