"""Ensemble benchmark: treegen's C for scikit-learn ensembles beside emlearn's,
m2cgen's and tl2cgen's, one run.

The models and the rows are bench/ensemble_models.py's (its docstring describes the
sensor data and every estimator): a RandomForest of 10 trees of depth 8, ExtraTrees of
the same size, GradientBoosting of 100 stages of depth 3 and AdaBoost (SAMME, 50 trees
of depth 3) on 8 sensor features and 4 classes; HistGradientBoosting with NaN and a
categorical column; GradientBoosting and HistGradientBoosting also on two of the
classes; and (``--big``, or ``BENCH_FULL=1`` in the environment) RandomForest and
ExtraTrees of 100 unlimited trees on digits and HistGradientBoosting's defaults.
Each generator turns the same fitted estimator into C (bench/ensemble_forms.py: every
form behind the same ``int bench_predict(const float *x)``): treegen's table and ifs
styles (and, for the forests, the ifs style with int16_t input, ``--input-type int16``
with and without ``--missing none``); emlearn's inline float with hard voting
(``leaf_bits 0``, its smallest float form) and with 8-bit proportions, its default
(inline, int16) and loadable int16 (forests only: it reads nothing else); m2cgen and
tl2cgen where they accept the model.

Per form (bench/ensemble_measure.py says how each is measured): flash on the
Cortex-M0+ and the ATmega328P (a linked firmware minus an empty one, -Os,
gc-sections; "does not fit" above 32 KiB or 2 KiB of RAM on the ATmega), RAM
(.data + .bss of the same link) and the stack bound, host ns per prediction (gcc
-O2, the median of interleaved timings; in test-row order and shuffled), AVR cycles
per prediction in simavr, and the rows where the class differs from
``estimator.predict``: on the host (gcc -O2 and clang -O2) and on the ATmega328P,
the Cortex-M0+ (every form that fits) and the M4F (treegen's float forms), through
treegen's firmware (treegen.firmware.sim); and on the host the rows where the tool's
probabilities (a forest's ``predict_proba``) or raw scores (a boosted model's
``decision_function``) differ from scikit-learn's in any bit, for the tools whose C
computes them.  The forms with int16_t input (emlearn's int16 forms, treegen's) all get
the same int16 rows (bench/ensemble_models.py's ``int16_rows``: the float rows
converted as ``(int16_t)x`` converts them, every threshold's integer neighbours, the
extremes) and their test rows' conversions to time: their wrong classes are counted
against the float truth on the conversions of the float rows, and against
``estimator.predict`` on the int16 rows as floats (the model given the same inputs:
their probabilities and their chip runs too).  Then the issue's targets, each PASS or
FAIL: measured as described, never adjusted to pass; the host time against the fastest
other form of any input type and input type by input type.

``python -m bench.ensemble_bench [--models NAME ...] [--big] [--chip-rows N] [--cpu-time]``
runs it alone (``--cpu-time``: the host timings in CPU time, CLOCK_PROCESS_CPUTIME_ID, on
a machine other jobs share); ``make bench`` runs it after the others (``--no-ensembles``
leaves it out).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from bench import ensemble_measure as em
from bench import harness as hw
from bench.ensemble_forms import FORESTS, Form, all_forms, vector_kind
from bench.ensemble_models import MODELS, Fitted, Int16Rows, check_rows, fit, int16_rows

DEFAULT_MODELS = ("forest", "extra", "gboost", "gboost_bin", "hist", "hist_bin", "adaboost")
BIG_MODELS = ("digits", "extra_digits", "hist_full")
CHIPS = ("avr", "m0plus")
ROUNDS = 3
CHIP_ROWS = 2000  # rows on the simulated chips (0: all)
JOBS = min(2, os.cpu_count() or 1)  # builds and simulator runs at a time
ATMEGA_FLASH, ATMEGA_RAM, ATMEGA_STACK = 32 * 1024, 2 * 1024, 2 * 1024
FLASH_RATIO = {"forest": 0.6, "boosted": 0.5}


@dataclass
class Result:
    form: Form
    # Rows whose class differs from estimator.predict on the float rows: gcc, clang and
    # (a float form) the chips.  An int16 form: on the float rows' int16 conversions.
    mismatches: dict[str, int | str] = field(default_factory=dict)
    # An int16 form: rows whose class differs from estimator.predict on the int16 rows
    # as floats (the model given the same inputs): gcc, clang, the chips.
    wrong16: dict[str, int | str] = field(default_factory=dict)
    # Rows whose predict_proba / decision_function differs in any bit: gcc, clang (an
    # int16 form: on the int16 rows).
    vector: dict[str, int | str] = field(default_factory=dict)
    ns: list[float] = field(default_factory=list)
    shuffled: list[float] = field(default_factory=list)
    ns_error: str = ""
    cost: dict[str, hw.LinkCost] = field(default_factory=dict)
    chips: dict[str, em.ChipRun] = field(default_factory=dict)
    strict: list[str] | None = None  # treegen only
    # treegen only: where the C stops at its own #error, a table too large for the target
    refused: list[str] = field(default_factory=list)

    @property
    def median_ns(self) -> float | None:
        return statistics.median(self.ns) if self.ns else None

    @property
    def median_shuffled(self) -> float | None:
        return statistics.median(self.shuffled) if self.shuffled else None


@dataclass
class ModelRun:
    fitted: Fitted
    rows: int
    chip_rows: int
    splits: int
    results: list[Result]
    int16: Int16Rows | None = None  # the forests' int16 rows
    chip_rows16: int = 0  # of them on the chips
    seconds: float = 0.0
    phases: dict[str, float] = field(default_factory=dict)  # wall seconds of each phase


def _splits(est: Any) -> int:
    if type(est).__name__ == "HistGradientBoostingClassifier":
        return sum(
            int((~p.nodes["is_leaf"].astype(bool)).sum()) for it in est._predictors for p in it
        )
    members = np.asarray(est.estimators_, dtype=object).ravel()
    return sum(int((m.tree_.children_left >= 0).sum()) for m in members)


def _chip_subset(
    X: npt.NDArray[np.float64], want: npt.NDArray[np.int64], n_test: int, cap: int
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """All rows, or (``cap`` > 0) the test rows first and then evenly spaced others."""
    if cap <= 0 or X.shape[0] <= cap:
        return X, want
    head = min(n_test, cap)
    rest = np.linspace(n_test, X.shape[0] - 1, max(cap - head, 0)).astype(int)
    idx = np.concatenate([np.arange(head), rest])
    return X[idx], want[idx]


def _wrong(got: npt.NDArray[np.int64] | str, want: npt.NDArray[np.int64]) -> int | str:
    """How many of ``got`` differ from ``want``, or why there are none."""
    return got if isinstance(got, str) else int(np.count_nonzero(got != want))


def _limit_threads() -> Any:
    """One thread for scikit-learn's OpenMP (the machine is shared; HistGradientBoosting
    fits 30x slower when its threads compete)."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(1)


def _each(job: Callable[..., None], args: list[tuple[Any, ...]]) -> None:
    """``job(*a)`` for every ``a``, :data:`JOBS` at a time (compilers and simulators are
    processes of their own); never during a timing."""
    with ThreadPoolExecutor(JOBS) as pool:
        for done in [pool.submit(job, *a) for a in args]:
            done.result()


def run_model(
    name: str, work: Path, chip_rows: int, chips: bool, log: Callable[[str], None]
) -> ModelRun:
    start = time.monotonic()
    with _limit_threads():
        f = fit(name)
        X, want = check_rows(f)
        truth = (
            f.est.predict_proba(X) if vector_kind(f.est) == "proba" else f.est.decision_function(X)
        )
    est = f.est
    log(f"[{name}] {f.title}: {_splits(est)} splits, {X.shape[0]} rows; generating C ...")
    forms = all_forms(est)
    results = [Result(fo) for fo in forms]
    api = hw.BenchApi(int(est.n_features_in_), len(est.classes_))
    Xc, wc = _chip_subset(X, want, f.X_test.shape[0], chip_rows)
    i16 = int16_rows(f, X) if any(fo.input == "int16" for fo in forms) else None
    if i16 is not None:
        X16, want16, truth16 = i16.rows, i16.want, est.predict_proba(i16.rows)
        Xc16, wc16 = _chip_subset(X16, want16, i16.n_test, chip_rows)
        test16 = X16[: i16.n_test]

    def build(i: int, r: Result) -> None:
        fo = r.form
        d = work / name / f"{i}-{fo.tool}"
        log(f"[{name}] {fo.label}: host, M0+ and AVR links ...")
        for cc in ("gcc", "clang"):
            if fo.input == "int16" and i16 is not None:
                # The float rows' conversions (the first rows) against the float truth,
                # every int16 row against the int16 truth.
                got = em.host_classes(fo, X16, d / "host", cc)
                k, from_float = i16.n_converted, want[i16.converted]
                r.mismatches[cc] = _wrong(got[:k] if not isinstance(got, str) else got, from_float)
                r.wrong16[cc] = _wrong(got, want16)
            else:
                r.mismatches[cc] = _wrong(em.host_classes(fo, X, d / "host", cc), want)
            if r.mismatches[cc] == hw.too_slow(cc):  # its vector build would be as slow
                if fo.vector:
                    r.vector[cc] = r.mismatches[cc]
                continue
            if fo.vector:
                rows, ref = (X16, truth16) if fo.input == "int16" else (X, truth)
                bits = em.host_vectors(fo, rows, d / "vector", cc)
                r.vector[cc] = bits if isinstance(bits, str) else em.vector_mismatches(bits, ref)
        for chip in CHIPS:
            r.cost[chip] = hw.link_cost(fo, chip, d / chip)
        if fo.tool == "treegen":
            r.strict, r.refused = em.strict_failures(fo, d / "strict")

    phases = {"fit and generate": time.monotonic() - start}
    _each(build, [(i, r) for i, r in enumerate(results) if not r.form.error])
    phases["build and check"] = time.monotonic() - start - sum(phases.values())
    log(f"[{name}] host timings ({ROUNDS} rounds, interleaved) ...")
    for _ in range(ROUNDS):
        for i, r in enumerate(results):
            if r.form.error or isinstance(r.mismatches.get("gcc"), str):
                continue
            host = work / name / f"{i}-{r.form.tool}" / "host"
            test = test16 if r.form.input == "int16" else f.X_test
            for order, into in (("time", r.ns), ("shuffled", r.shuffled)):
                ns = em.host_ns(r.form, test, host, order)
                if isinstance(ns, str):
                    r.ns_error = ns
                else:
                    into.extend(ns)

    def on_chip(r: Result, chip: str) -> None:
        rows, ref, into = (Xc, wc, r.mismatches)
        if r.form.input == "int16":  # the int16 rows, against their own truth
            rows, ref, into = (Xc16, wc16, r.wrong16)
        log(f"[{name}] {r.form.label} on {chip} ({rows.shape[0]} rows) ...")
        run = em.chip_run(r.form, api, rows, ref, chip, r.cost.get(chip))
        r.chips[chip] = run
        into[chip] = run.note if run.mismatches < 0 else run.mismatches

    phases["timing"] = time.monotonic() - start - sum(phases.values())
    if chips:
        _each(
            on_chip,
            [
                (r, chip)
                for r in results
                if not r.form.error
                for chip in (
                    # the M4F: treegen's float forms (its int16 forms run the same C as
                    # on the M0+, kept out of the bench's time)
                    [*CHIPS, "m4f"]
                    if r.form.tool == "treegen" and r.form.input == "float"
                    else CHIPS
                )
            ],
        )
    phases["chips"] = time.monotonic() - start - sum(phases.values())
    total = time.monotonic() - start
    on_chips = Xc.shape[0] if chips else 0
    on16 = Xc16.shape[0] if chips and i16 is not None else 0
    return ModelRun(f, X.shape[0], on_chips, _splits(est), results, i16, on16, total, phases)


# ---- the tables -------------------------------------------------------------------------


def _n(v: float | int | None, digits: int = 0) -> str:
    if v is None or (isinstance(v, (int, float)) and v < 0):
        return "-"
    return f"{v:,.{digits}f}"


def _avr_fits(c: hw.LinkCost) -> bool:
    return c.total_flash <= ATMEGA_FLASH and c.total_ram + (c.stack or 0) <= ATMEGA_RAM


def _flash(c: hw.LinkCost | None, chip: str) -> str:
    if c is None:
        return "-"
    if c.error:
        return c.error if c.error == "-" else f"({c.error[:60]})"
    text = _n(c.flash)
    if chip == "avr" and c.total_flash > ATMEGA_FLASH:
        text += " (does not fit)"
    elif chip == "avr" and not _avr_fits(c):
        text += " (RAM: does not fit)"
    return text


def _ram(r: Result) -> str:
    parts = []
    for chip in ("m0plus", "avr"):
        c = r.cost.get(chip)
        if c is None or c.error:
            parts.append("-")
        else:
            parts.append(f"{_n(c.ram)} + {_n(c.stack) if c.stack is not None else '?'}")
    return " / ".join(parts)


def _mis(r: Result, key: str, int16: bool = False) -> str:
    """A count of wrong rows: against the float rows' truth, or (``int16``) an int16
    form's against the int16 rows' ("-" for a float form)."""
    v = (r.wrong16 if int16 else r.mismatches).get(key)
    if v is None:
        return "-"
    return str(v) if isinstance(v, int) else v[:40]


def _vec(r: Result) -> str:
    if not r.form.vector:
        return "none"
    cells = [r.vector.get(cc, "-") for cc in ("gcc", "clang")]
    return " / ".join(str(v) if isinstance(v, int) else v[:40] for v in cells)


def model_table(m: ModelRun) -> str:
    head = (
        "| tool | form | M0+ flash | AVR flash | RAM + stack M0+ / AVR | host ns | "
        "shuffled ns | AVR cycles | M0+ instr. | wrong gcc / clang | "
        "int16 rows wrong gcc / clang | "
        f"{vector_kind(m.fitted.est)} bits wrong gcc / clang | wrong AVR | "
        "wrong M0+ | wrong M4F |"
    )
    lines = [head, "|" + "---|" * 15]
    for r in m.results:
        fo = r.form
        if fo.error:
            lines.append(f"| {fo.tool} | {fo.form} | refused: {fo.error} |" + " |" * 12)
            continue
        i16 = fo.input == "int16"  # its vector and chip columns: on the int16 rows
        avr, m0 = r.chips.get("avr"), r.chips.get("m0plus")
        cyc = _n(avr.median) if avr and avr.median >= 0 else (avr.note if avr else "-")
        ins = _n(m0.median) if m0 and m0.median >= 0 else (m0.note if m0 else "-")
        ns = _n(r.median_ns, 1) if r.ns else (r.ns_error[:30] or "-")
        cells = [
            fo.tool,
            fo.form,
            _flash(r.cost.get("m0plus"), "m0plus"),
            _flash(r.cost.get("avr"), "avr"),
            _ram(r),
            ns,
            _n(r.median_shuffled, 1),
            cyc,
            ins,
            f"{_mis(r, 'gcc')} / {_mis(r, 'clang')}",
            f"{_mis(r, 'gcc', True)} / {_mis(r, 'clang', True)}" if i16 else "-",
            _vec(r),
            _mis(r, "avr", i16),
            _mis(r, "m0plus", i16),
            _mis(r, "m4f", i16),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


# ---- the targets ------------------------------------------------------------------------


def _verdict(ok: bool | None) -> str:
    return "n/a " if ok is None else ("PASS" if ok else "FAIL")


def _form(m: ModelRun, tool: str, form: str | None = None) -> Result | None:
    for r in m.results:
        if r.form.tool == tool and (form is None or r.form.form == form):
            return r
    return None


def _m0_flash(r: Result | None) -> int | None:
    if r is None or r.form.error:
        return None
    c = r.cost.get("m0plus")
    return c.flash if c is not None and not c.error else None


def targets(m: ModelRun) -> list[str]:
    """The issue's targets for this model, one line each."""
    name = m.fitted.name
    kind = type(m.fitted.est).__name__
    out: list[str] = []
    tg = [r for r in m.results if r.form.tool == "treegen" and not r.form.error]
    # 0 mismatches, every treegen form, everywhere it ran (a chip it does not fit is
    # listed, not counted).
    # An int16 form against the model given its int16 rows.
    for r in tg:
        i16 = r.form.input == "int16"
        wrong = r.wrong16 if i16 else r.mismatches
        every = {**wrong, **{f"{k} {r.form.vector}": v for k, v in r.vector.items()}}
        ran = {k: v for k, v in every.items() if isinstance(v, int)}
        ok = bool(ran) and all(v == 0 for v in ran.values())
        text = ", ".join(f"{k} {v}" for k, v in every.items())
        n_host = m.int16.rows.shape[0] if i16 and m.int16 is not None else m.rows
        what = "int16 rows" if i16 else "rows"
        rows = f"{n_host} {what} on the host, {m.chip_rows16 if i16 else m.chip_rows} on the chips"
        out.append(f"[{_verdict(ok)}] {name}: treegen {r.form.form}: 0 mismatches ({text}; {rows})")
    # Flash on the Cortex-M0+.
    table = _m0_flash(_form(m, "treegen", "table"))
    if kind in FORESTS:
        ref = _form(m, "emlearn", "inline float lb0")
        base = _m0_flash(ref)
        if table is not None and base:
            ok = table <= FLASH_RATIO["forest"] * base
            out.append(
                f"[{_verdict(ok)}] {name}: treegen table M0+ flash {table:,} B <= 0.6 x emlearn "
                f"inline float lb0 {base:,} B ({table / base:.2f}x)"
            )
    elif kind != "AdaBoostClassifier":
        for tool in ("tl2cgen", "m2cgen"):
            other = _form(m, tool)
            base = _m0_flash(other)
            if other is not None and other.form.error:
                out.append(f"[n/a ] {name}: {tool} refuses the model ({other.form.error})")
            elif table is not None and base:
                ok = table <= FLASH_RATIO["boosted"] * base
                out.append(
                    f"[{_verdict(ok)}] {name}: treegen table M0+ flash {table:,} B <= 0.5 x "
                    f"{tool} {base:,} B ({table / base:.2f}x)"
                )
    else:
        out.append(f"[info] {name}: no other generator reads AdaBoost; treegen table {table} B")
    out += _host_time(m)
    # The strict flags.
    for r in tg:
        if r.strict is not None:
            ok = not r.strict
            stopped = sorted({line.split()[0] for line in r.refused})
            clean = ", ".join(c for c in em.STRICT_COMPILERS if c not in stopped)
            why = "; ".join(r.strict[:3]) if r.strict else clean
            if r.refused:  # not built there at all: the C's own one-line stop, no warning
                why += f"; {', '.join(stopped)}: refused by treegen's #error, {r.refused[0]}"
            out.append(
                f"[{_verdict(ok)}] {name}: treegen {r.form.form} warning-free, c89 and c99 ({why})"
            )
    if name == "forest":
        out += _atmega_target(m)
    return out


def _host_time(m: ModelRun) -> list[str]:
    """Host time against the fastest other form: of any input type, then (where the
    forms take more than one) input type by input type, the same inputs on both sides;
    each followed (info) by the fastest other form with 0 wrong classes on the host
    against its input's truth (a float form's rows, an int16 form's int16 rows)."""
    name = m.fitted.name
    inputs = sorted({r.form.input for r in m.results if not r.form.error})
    scopes = [("any input type", None), *((f"{t} input", t) for t in inputs if len(inputs) > 1)]
    out: list[str] = []
    for label, key in (("in order", "median_ns"), ("shuffled", "median_shuffled")):
        for scope, kind in scopes:
            timed = [
                r for r in m.results if getattr(r, key) is not None and kind in (None, r.form.input)
            ]
            mine = [(getattr(r, key), r.form.form) for r in timed if r.form.tool == "treegen"]
            others = [r for r in timed if r.form.tool != "treegen"]
            exact = [r for r in others if _host_wrong(r) == 0]
            for tag, pool in (("", others), ("info", exact)):
                if not mine or not pool:
                    continue
                a = min(mine)
                b = min((getattr(r, key), r.form.label) for r in pool)
                verdict = _verdict(a[0] <= b[0]) if not tag else "info"
                which = "fastest other" if not tag else "fastest other with 0 host mismatches"
                out.append(
                    f"[{verdict}] {name}: host ns ({label}, {scope}) treegen {a[1]} {a[0]:.1f} "
                    f"<= {which}, {b[1]} {b[0]:.1f} ({a[0] / b[0]:.2f}x)"
                )
    return out


def _host_wrong(r: Result) -> int | str | None:
    """gcc's wrong classes against the truth of the form's own input."""
    return (r.wrong16 if r.form.input == "int16" else r.mismatches).get("gcc")


def _atmega_target(m: ModelRun) -> list[str]:
    r = _form(m, "treegen", "table")
    if r is None or r.form.error or "avr" not in r.cost or r.cost["avr"].error:
        return ["[n/a ] forest: fits the ATmega328P (no avr-gcc link)"]
    c = r.cost["avr"]
    run = r.chips.get("avr")
    if run is None or run.mismatches < 0:
        why = "simavr not run" if run is None else run.note
        return [f"[n/a ] forest: fits the ATmega328P ({why}; flash {c.total_flash:,} B)"]
    wrong = run.mismatches
    checks = {
        f"firmware flash {c.total_flash:,} <= {ATMEGA_FLASH:,}": c.total_flash <= ATMEGA_FLASH,
        f"predict.o .data/.bss/.rodata {c.object_ram} B = 0": c.object_ram == 0,
        f"stack {c.stack} <= {ATMEGA_STACK}": c.stack is not None and c.stack <= ATMEGA_STACK,
        f"simavr mismatches {wrong} = 0 ({m.chip_rows} rows)": wrong == 0,
    }
    ok = all(checks.values())
    return [f"[{_verdict(ok)}] forest: treegen table fits the ATmega328P: " + ", ".join(checks)]


# ---- the run ----------------------------------------------------------------------------


def machine() -> str:
    from bench.codegen_bench import machine as host

    try:
        load = os.getloadavg()[0]
    except OSError:
        load = float("nan")
    clock = os.environ.get("BENCH_CLOCK") or "CLOCK_MONOTONIC"
    return f"{host()}, load average {load:.1f}, host timings by {clock}"


def versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    out = []
    for pkg in ("scikit-learn", "emlearn", "m2cgen", "tl2cgen", "treelite"):
        try:
            out.append(f"{pkg} {version(pkg)}")
        except PackageNotFoundError:
            out.append(f"{pkg} missing")
    return ", ".join(out)


def report(runs: list[ModelRun]) -> str:
    parts = [f"Ensembles ({machine()}; {versions()}):\n"]
    for m in runs:
        f = m.fitted
        phases = ", ".join(f"{k} {v:.0f} s" for k, v in m.phases.items())
        parts.append(
            f"\n{f.name}: {f.title}; {m.splits:,} splits; {m.rows:,} rows checked "
            f"({f.X_test.shape[0]:,} test rows, the rest at thresholds, NaN, categories), "
            f"{m.chip_rows:,} on the chips; {m.seconds:.0f} s ({phases})\n\n{model_table(m)}\n"
        )
    parts.append("\nTargets:\n")
    for m in runs:
        parts += [f"  {line}\n" for line in targets(m)]
    return "".join(parts)


def run_ensemble_bench(
    models: list[str] | None = None,
    *,
    big: bool = False,
    chip_rows: int = CHIP_ROWS,
    chips: bool = True,
    log: Callable[[str], None] = print,
) -> str:
    """Run the benchmark; returns (and logs) the tables and the targets.  ``big`` (or
    ``BENCH_FULL`` set to anything but 0 in the environment) adds the big models."""
    try:
        import emlearn  # noqa: F401
        import m2cgen  # noqa: F401
        import sklearn  # noqa: F401
        import tl2cgen  # noqa: F401
    except ImportError as exc:
        msg = f"ensemble bench: skipped ({exc.name} not installed: pip install -e '.[bench]')"
        log(msg)
        return msg
    big = big or os.environ.get("BENCH_FULL", "0") not in ("", "0")
    names = models or [*DEFAULT_MODELS, *(BIG_MODELS if big else ())]
    runs = []
    with tempfile.TemporaryDirectory(prefix="treegen-ensbench-") as tmp:
        for name in names:
            runs.append(run_model(name, Path(tmp), chip_rows, chips, log))
    text = report(runs)
    log(text)
    return text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        allow_abbrev=False,
        description="treegen's C for scikit-learn ensembles beside emlearn's, m2cgen's and "
        "tl2cgen's: flash, time, mismatches, and the targets",
    )
    ap.add_argument(
        "--models", nargs="+", choices=MODELS, help="models to run (default: all but the big ones)"
    )
    ap.add_argument(
        "--big",
        action="store_true",
        help=f"also {', '.join(BIG_MODELS)} (slow; BENCH_FULL=1 in the environment does the same)",
    )
    ap.add_argument(
        "--chip-rows",
        type=int,
        default=CHIP_ROWS,
        help=f"rows run on the simulated chips: the test rows first, then evenly spaced "
        f"others (default {CHIP_ROWS}; 0: all)",
    )
    ap.add_argument("--no-chips", action="store_true", help="no simulator runs")
    ap.add_argument(
        "--cpu-time",
        action="store_true",
        help="time with CPU time (CLOCK_PROCESS_CPUTIME_ID), not wall clock: on a shared machine",
    )
    args = ap.parse_args(argv)
    if args.cpu_time:
        os.environ["BENCH_CLOCK"] = "CLOCK_PROCESS_CPUTIME_ID"
    run_ensemble_bench(args.models, big=args.big, chip_rows=args.chip_rows, chips=not args.no_chips)
    return 0


if __name__ == "__main__":
    sys.exit(main())
