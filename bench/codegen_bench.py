"""Code-generation benchmark: treegen against emlearn and m2cgen, one run.

Five scikit-learn trees, ``DecisionTreeClassifier(random_state=0)`` on a 75/25
stratified split (``random_state=0``): iris, breast_cancer and digits (shipped with
scikit-learn), and ``make_classification(50000, 20 features, 10 informative,
3 classes, random_state=0)`` with ``max_leaf_nodes=255`` (s255) and unlimited (s6157).
Each generator turns the same fitted tree into C:

* treegen: ``treegen.from_sklearn`` then ``treegen export`` per style (ifs, table) and
  per mode of :data:`TREEGEN_MODES` that ``treegen export --help`` offers (lean modes
  appear once the CLI has ``--missing``/``--proba``);
* emlearn, same input type: inline, and loadable (int16 only in emlearn 0.23);
* m2cgen (``score(double *, double *)``, class = first largest output).

Per variant: flash (``.text + .data``, rodata included) and RAM (``.data + .bss``) of
the model object(s) plus a one-line wrapper ``int bench_predict(const T *x)``, for
Cortex-M0+ and M4F (arm-none-eabi-gcc -Os), AVR (avr-gcc -mmcu=atmega328p -Os) and
RV32IMC and RV32IMAFC (riscv64-unknown-elf-gcc -Os with picolibc's headers);
host ns per prediction (gcc -O2, a C harness, at least 1e6 calls over the test rows,
best of 5), cycling through the rows in order and (``shuffled ns``) in a fixed
pseudo-random order drawn before timing; the time of ``gcc -O2 -c``; and the rows
of the test split where the C's class differs from ``estimator.predict``.
``python -m bench.codegen_bench`` runs it alone (needs scikit-learn, emlearn, m2cgen:
``pip install -e '.[bench]'``).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

# treegen export modes: name -> (options, the export options they need).  A mode
# whose options ``treegen export --help`` does not list is skipped, so the lean modes
# of the lean modes show up as soon as the CLI offers them.
TREEGEN_MODES: dict[str, tuple[list[str], tuple[str, ...]]] = {
    "default": ([], ()),
    "full": (["--missing", "c45", "--proba"], ("--missing", "--proba")),
    "lean": (["--missing", "none"], ("--missing",)),
}
STYLES = ("ifs", "table")
TARGETS: dict[str, list[str]] = {
    "M0+": ["arm-none-eabi-gcc", "-mcpu=cortex-m0plus", "-mthumb", "-Os"],
    "M4F": [
        "arm-none-eabi-gcc",
        "-mcpu=cortex-m4",
        "-mthumb",
        "-mfloat-abi=hard",
        "-mfpu=fpv4-sp-d16",
        "-Os",
    ],
    "AVR": ["avr-gcc", "-mmcu=atmega328p", "-Os"],
    "RV32IMC": [
        "riscv64-unknown-elf-gcc",
        "-march=rv32imc",
        "-mabi=ilp32",
        "--specs=picolibc.specs",
        "-Os",
    ],
    "RV32IMAFC": [
        "riscv64-unknown-elf-gcc",
        "-march=rv32imafc",
        "-mabi=ilp32f",
        "--specs=picolibc.specs",
        "-Os",
    ],
}
SIZE_TOOL = {
    "M0+": "arm-none-eabi-size",
    "M4F": "arm-none-eabi-size",
    "AVR": "avr-size",
    "RV32IMC": "riscv64-unknown-elf-size",
    "RV32IMAFC": "riscv64-unknown-elf-size",
}
C_TYPES = {"float": "float", "int16": "int16_t", "double": "double"}
NP_TYPES = {"float": np.float32, "int16": np.int16, "double": np.float64}
MIN_CALLS = 1_000_000
REPEATS = 5

HARNESS = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int bench_predict(const BENCH_T *x);

int main(int argc, char **argv)
{
    FILE *f = fopen(argv[1], "rb");
    long n = atol(argv[2]), calls = atol(argv[4]), i, r;
    BENCH_T *rows = malloc(sizeof(BENCH_T) * (size_t)(n * NF));
    uint32_t *order = NULL;
    volatile long sink = 0;
    double best = 1e30;
    if (!f || !rows || fread(rows, sizeof(BENCH_T), (size_t)(n * NF), f) != (size_t)(n * NF))
        return 3;
    if (argv[3][0] == 'c') {            /* check: one class per test row */
        for (i = 0; i < n; i++)
            printf("%d\n", bench_predict(rows + i * NF));
        return 0;
    }
    if (argv[3][0] == 's') {            /* shuffled: a fixed pseudo-random order */
        unsigned long long s = 88172645463325252ull;
        order = malloc(sizeof(uint32_t) * (size_t)calls);
        if (!order)
            return 3;
        for (i = 0; i < calls; i++) {   /* xorshift64, drawn before the clock starts */
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            order[i] = (uint32_t)(s % (unsigned long long)n);
        }
    }
    for (r = 0; r < 5; r++) {           /* time: best of 5 */
        struct timespec a, b;
        double ns;
        clock_gettime(CLOCK_MONOTONIC, &a);
        if (order)
            for (i = 0; i < calls; i++)
                sink += bench_predict(rows + (long)order[i] * NF);
        else
            for (i = 0; i < calls; i++)
                sink += bench_predict(rows + (i % n) * NF);
        clock_gettime(CLOCK_MONOTONIC, &b);
        ns = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec))
             / (double)calls;
        if (ns < best)
            best = ns;
    }
    printf("%.2f %ld\n", best, (long)sink);
    return 0;
}
"""


@dataclass
class Variant:
    """One generated model: its C sources, the wrapper body, and the results."""

    dataset: str
    generator: str
    style: str
    input_type: str
    sources: dict[str, str]  # file name -> text, written beside the wrapper
    compiled: list[str]  # the .c files that make the model object(s)
    include: list[str] = field(default_factory=list)
    results: dict[str, str] = field(default_factory=dict)


def datasets() -> dict[str, tuple[Any, np.ndarray]]:
    """name -> (fitted estimator, X of the test split)."""
    from sklearn.datasets import load_breast_cancer, load_digits, load_iris, make_classification
    from sklearn.model_selection import train_test_split
    from sklearn.tree import DecisionTreeClassifier

    s_x, s_y = make_classification(
        50000, n_features=20, n_informative=10, n_classes=3, random_state=0
    )
    data: dict[str, tuple[np.ndarray, np.ndarray, dict[str, Any]]] = {
        "iris": (*load_iris(return_X_y=True), {}),
        "breast_cancer": (*load_breast_cancer(return_X_y=True), {}),
        "digits": (*load_digits(return_X_y=True), {}),
        "s255": (s_x, s_y, {"max_leaf_nodes": 255}),
        "s6157": (s_x, s_y, {}),
    }
    out = {}
    for name, (X, y, params) in data.items():
        Xtr, Xte, ytr, _ = train_test_split(X, y, test_size=0.25, stratify=y, random_state=0)
        est = DecisionTreeClassifier(random_state=0, **params).fit(Xtr, ytr)
        out[name] = (est, Xte)
    return out


def export_options_offered() -> set[str]:
    help_text = subprocess.run(
        [sys.executable, "-m", "treegen", "export", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {w.strip("[],") for w in help_text.split() if w.startswith(("--", "[--"))}


def treegen_variants(
    name: str, est: Any, input_type: str, offered: set[str], work: Path
) -> list[Variant]:
    import treegen

    model_file = work / f"{name}.tree"
    treegen.from_sklearn(est).save(model_file)
    out = []
    for mode, (opts, needs) in TREEGEN_MODES.items():
        if not all(n in offered for n in needs):
            continue
        for style in STYLES:
            d = work / f"tg-{name}-{style}-{mode}-{input_type}"
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "treegen",
                    "-q",
                    "export",
                    str(model_file),
                    "-o",
                    str(d),
                    "--style",
                    style,
                    "--input-type",
                    input_type,
                    "--prefix",
                    "model",
                    "--name",  # predict.c and predict.h, as the harness includes
                    "predict",
                    *opts,
                ],
                check=True,
            )
            sources = {p.name: p.read_text() for p in d.iterdir()}
            sources["bench_model.c"] = (
                '#include "predict.h"\n'
                f"int bench_predict(const {C_TYPES[input_type]} *x)"
                " { return model_predict(x); }\n"
            )
            out.append(
                Variant(
                    name,
                    "treegen",
                    f"{style} {mode}",
                    input_type,
                    sources,
                    ["predict.c", "bench_model.c"],
                )
            )
    return out


def emlearn_variants(name: str, est: Any, input_type: str) -> list[Variant]:
    import emlearn

    out = []
    # emlearn 0.23's loadable trees take int16_t features only.
    for method in ("inline", "loadable") if input_type == "int16" else ("inline",):
        conv = emlearn.convert(est, method=method, dtype=C_TYPES[input_type])
        text = conv.save(name="em", format="c")
        n_features = est.n_features_in_
        wrapper = (
            f'#include "em_model.h"\nint bench_predict(const {C_TYPES[input_type]} *x)'
            f" {{ return (int)em_predict(x, {n_features}); }}\n"
        )
        out.append(
            Variant(
                name,
                "emlearn",
                method,
                input_type,
                {"em_model.h": text, "bench_model.c": wrapper},
                ["bench_model.c"],
                [emlearn.includedir],
            )
        )
    return out


def m2cgen_variants(name: str, est: Any) -> list[Variant]:
    import m2cgen

    n_classes = len(est.classes_)
    try:
        text = m2cgen.export_to_c(est)
    except RecursionError:
        return [
            Variant(
                name, "m2cgen", "ifs", "double", {}, [], results={"error": "m2cgen: RecursionError"}
            )
        ]
    wrapper = (
        '#include "m2c_model.h"\n'
        "int bench_predict(const double *x) {\n"
        f"    double out[{n_classes}]; int c, best = 0;\n"
        "    score((double *)x, out);\n"
        f"    for (c = 1; c < {n_classes}; c++) if (out[c] > out[best]) best = c;\n"
        "    return best;\n}\n"
    )
    return [
        Variant(
            name,
            "m2cgen",
            "ifs",
            "double",
            {"m2c_model.h": text, "bench_model.c": wrapper},
            ["bench_model.c"],
        )
    ]


def _run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)


def measure(v: Variant, X: np.ndarray, want: np.ndarray, work: Path) -> None:
    if "error" in v.results:
        return
    d = work / f"{v.dataset}-{v.generator}-{v.style.replace(' ', '-')}-{v.input_type}"
    d.mkdir()
    for fname, text in v.sources.items():
        (d / fname).write_text(text)
    inc = [f"-I{p}" for p in [str(d), *v.include]]
    for target, cc in TARGETS.items():
        if shutil.which(cc[0]) is None:
            v.results[target] = "-"
            continue
        flash = ram = 0
        ok = True
        for src in v.compiled:
            obj = f"{target}-{src}.o"
            r = _run([*cc, *inc, "-c", src, "-o", obj], d)
            if r.returncode != 0:
                ok = False
                break
            s = _run([SIZE_TOOL[target], obj], d).stdout.splitlines()[1].split()
            n_text, n_data, n_bss = int(s[0]), int(s[1]), int(s[2])
            flash += n_text + n_data
            ram += n_data + n_bss
        v.results[target] = f"{flash}/{ram}" if ok else "error"
    t0 = time.perf_counter()
    for src in v.compiled:
        r = _run(["gcc", "-O2", *inc, "-c", src, "-o", f"host-{src}.o"], d)
        if r.returncode != 0:
            v.results["error"] = f"gcc: {(r.stderr.splitlines() or ['?'])[0]}"
            return
    v.results["gcc -O2"] = f"{time.perf_counter() - t0:.2f}"
    (d / "harness.c").write_text(HARNESS)
    ctype = C_TYPES[v.input_type]
    r = _run(
        [
            "gcc",
            "-O2",
            f"-DBENCH_T={ctype}",
            f"-DNF={X.shape[1]}",
            "harness.c",
            *[f"host-{s}.o" for s in v.compiled],
            "-o",
            "harness",
        ],
        d,
    )
    if r.returncode != 0:
        v.results["error"] = f"harness: {(r.stderr.splitlines() or ['?'])[0]}"
        return
    rows = np.ascontiguousarray(X, dtype=NP_TYPES[v.input_type])
    rows.tofile(d / "rows.bin")
    n = str(rows.shape[0])
    got = np.asarray(
        _run(["./harness", "rows.bin", n, "check", "0"], d).stdout.split(), dtype=np.int64
    )
    v.results["mismatches"] = str(int(np.count_nonzero(got != want)))
    calls = str(max(MIN_CALLS, rows.shape[0]))
    ns = _run(["./harness", "rows.bin", n, "time", calls], d).stdout.split()
    v.results["host ns"] = ns[0] if ns else "error"
    # The same calls in a fixed pseudo-random row order: the cyclic order above repeats
    # every len(rows) calls, which a branch predictor can partly learn.
    ns = _run(["./harness", "rows.bin", n, "shuffled", calls], d).stdout.split()
    v.results["shuffled ns"] = ns[0] if ns else "error"


COLUMNS = (
    "M0+",
    "M4F",
    "AVR",
    "RV32IMC",
    "RV32IMAFC",
    "host ns",
    "shuffled ns",
    "gcc -O2",
    "mismatches",
)


def format_table(variants: list[Variant]) -> str:
    head = (
        "| tree | generator | variant | input | M0+ flash/RAM | M4F flash/RAM | "
        "AVR flash/RAM | RV32IMC flash/RAM | RV32IMAFC flash/RAM | host ns | shuffled ns | "
        "gcc -O2 s | mismatches |"
    )
    lines = [head, "|" + "---|" * 13]
    for v in variants:
        cells = [v.results.get(c, "-") for c in COLUMNS]
        if "error" in v.results:
            cells[-1] = v.results["error"]
        lines.append(
            f"| {v.dataset} | {v.generator} | {v.style} | {v.input_type} | "
            + " | ".join(cells)
            + " |"
        )
    return "\n".join(lines)


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    gcc = _run(["gcc", "-dumpfullversion"], Path.cwd()).stdout.strip()
    return (
        f"{cpu}, {os.cpu_count()} cores, gcc {gcc}, "
        f"{datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}"
    )


def run_codegen_bench(only: list[str] | None = None, log: Callable[[str], None] = print) -> str:
    """Run the benchmark; returns (and logs) the Markdown table."""
    try:
        import emlearn  # noqa: F401
        import m2cgen  # noqa: F401
        import sklearn  # noqa: F401
    except ImportError as exc:
        msg = f"codegen bench: skipped ({exc.name} not installed: pip install -e '.[bench]')"
        log(msg)
        return msg
    offered = export_options_offered()
    variants: list[Variant] = []
    with tempfile.TemporaryDirectory(prefix="treegen-cgbench-") as tmp:
        work = Path(tmp)
        for name, (est, Xte) in datasets().items():
            if only and name not in only:
                continue
            log(f"[{name}] {est.tree_.node_count} nodes: generating and measuring ...")
            want = np.searchsorted(est.classes_, est.predict(Xte))
            types = ["float", "int16"] if name == "digits" else ["float"]
            vs: list[Variant] = []
            for it in types:
                vs += treegen_variants(name, est, it, offered, work)
                vs += emlearn_variants(name, est, it)
            vs += m2cgen_variants(name, est)
            for v in vs:
                measure(v, Xte, want, work)
            variants += vs
    table = format_table(variants)
    text = f"Codegen ({machine()}):\n\n{table}\n"
    log(text)
    return text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n")[0])
    ap.add_argument("--only", nargs="*", help="datasets to run (default: all five)")
    args = ap.parse_args(argv)
    run_codegen_bench(args.only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
