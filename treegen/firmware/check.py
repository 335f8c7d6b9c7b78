"""``make firmware``: every model, style and input encoding on every simulated chip.

    python -m treegen.firmware.check [--models golf,crx,hypo] [--on TARGET ...]
                                     [--random N] [--jobs N]

For the reference datasets in ``tests/data/reference`` (golf: the bundled example,
nominal and continuous; crx: nominal and continuous with missing values; hypo:
mostly continuous, many missing values) it trains the default c45 tree, then for
both styles (ifs, table), full and lean (``--missing none`` without predict_proba),
and three encodings -- float input, float input with
``--float-compare int`` ("keys") and int16 input (fixed point, a ``--scale`` per
continuous attribute chosen from the data) -- exports, builds the firmware for each
target, runs it in the simulator and compares every line with the Python model; and
the same for a scikit-learn forest and boosted model on hypo (treegen.firmware.ensembles),
table and ifs styles
(:func:`treegen.firmware.parity.verify_on`: the data rows, every threshold and its
neighbours, missing values, random rows).  Prints one line per run, a table of
flash, RAM, stack and cycles or instructions side by side, and ends with
``N passed, N failed``; exit status 1 on any mismatch, crash or timeout, 2 when a
tool is missing.  A development tool: it reads the datasets from the checkout.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from treegen.codegen.ctype import TYPES
from treegen.codegen.ir import Leaf
from treegen.codegen.lower import lower
from treegen.codegen.options import ExportOptions, MissingRule, Style
from treegen.data.dataset import Dataset
from treegen.data.readers import read_dataset
from treegen.ensemble.core import Ensemble
from treegen.errors import TreegenError
from treegen.firmware import ensembles, targets
from treegen.firmware.objinfo import ObjectInfo
from treegen.firmware.parity import verify_on
from treegen.model import Model
from treegen.trainer import train
from treegen.verify.oracle import codes, missing_mask

# The rows of a run on which no feature the model tests is missing: a function of the
# model's kind, chosen where the run is set up (the check never asks a value its kind).
KnownRows = Callable[[Any, ExportOptions, np.ndarray], np.ndarray]

MODELS = ("golf", "crx", "hypo")
# Style, and "-lean": --missing none without predict_proba (the smallest C; inputs
# are promised never missing), besides the full C4.5 export.
STYLES = ("ifs", "table", "ifs-lean", "table-lean")
MODES = ("float", "keys", "int16")
REFERENCE = Path(__file__).resolve().parents[2] / "tests" / "data" / "reference"
SCALES = (1000, 100, 10, 1)


def load(name: str, root: Path = REFERENCE) -> tuple[Model, Dataset]:
    """The default c45 tree of a reference dataset, and its training data."""

    ds = read_dataset(str(root / name / f"{name}.names"))
    return train(ds), ds


def int16_scales(model: Model, ds: Dataset) -> tuple[tuple[str, Fraction], ...] | str:
    """A --scale NAME=K per continuous attribute the tree tests: the largest K in
    1000, 100, 10, 1 that keeps its thresholds and data values inside int16 (the
    thresholds alone if the data cannot fit); a reason string if no K fits."""
    lo, hi = TYPES["int16"].range
    limit = min(-lo - 1, hi - 1)  # the type's minimum is the missing value
    out: list[tuple[str, Fraction]] = []
    for j, a in enumerate(model.schema.attributes):
        thr = [
            abs(n.threshold)
            for n in model.nodes
            if n.kind == "continuous" and n.attribute == j and math.isfinite(n.threshold)
        ]
        if not thr:
            continue
        col = ds.X[:, j]
        data = float(np.max(np.abs(col[~np.isnan(col)]), initial=0.0))
        fit = [k for k in SCALES if max(thr) * k <= limit]
        if not fit:
            return f"attribute {a.name}: threshold {max(thr):g} does not fit int16 even unscaled"
        with_data = [k for k in fit if data * k <= limit]
        out.append((a.name, Fraction(with_data[0] if with_data else fit[0])))
    return tuple(out)


def export_options(
    name: str, model: Model, ds: Dataset, style: str, mode: str
) -> ExportOptions | str:
    """The options of one combination (``style`` as in :data:`STYLES`), or why it
    cannot be encoded."""
    name_of_style, _, lean = style.partition("-")
    base: Style = "table" if name_of_style == "table" else "ifs"
    missing: MissingRule = "none" if lean else "c45"
    proba = False if lean else None
    if mode == "float":
        return ExportOptions(prefix=name, style=base, missing=missing, proba=proba)
    if mode == "keys":
        return ExportOptions(
            prefix=name, style=base, float_compare="int", missing=missing, proba=proba
        )
    scales = int16_scales(model, ds)
    if isinstance(scales, str):
        return scales
    opts = ExportOptions(
        prefix=name,
        style=base,
        input_type="int16",
        feature_scales=scales,
        missing=missing,
        proba=proba,
    )
    try:
        lower(model, opts)
    except TreegenError as err:
        return str(err)
    return opts


@dataclass
class Outcome:
    model: str
    style: str
    mode: str
    target: str
    rows: int
    failed: int
    failure: str | None
    predict: ObjectInfo
    counts: tuple[int, int, int]  # min, median, max over all rows
    known: int  # median over the rows without a missing value (-1: none)
    images: int
    seconds: float
    first_mismatch: str = ""

    @property
    def ok(self) -> bool:
        return self.failed == 0 and self.failure is None


def run_one(
    name: str,
    model: Model | Ensemble,
    ds: Dataset,
    opts: ExportOptions,
    mode: str,
    target: str,
    n_random: int,
    known_rows: KnownRows,
    seed: int = 0,
) -> Outcome:
    start = time.monotonic()
    res = verify_on(model, opts, [ds], [target], n_random=n_random, seed=seed)
    report, run, X = res.report, res.runs[target], res.rows
    c = run.count[run.done]
    known = known_rows(model, opts, X)
    kc = run.count[run.done & known]
    counts = (int(c.min()), int(np.median(c)), int(c.max())) if c.size else (-1, -1, -1)
    return Outcome(
        name,
        opts.style or "ifs",
        mode,
        target,
        report.rows,
        report.failed_rows,
        run.failure,
        run.predict,
        counts,
        int(np.median(kc)) if kc.size else -1,
        run.images,
        time.monotonic() - start,
        report.mismatches[0] if report.mismatches else "",
    )


def _known_rows(model: Model, opts: ExportOptions, X: np.ndarray) -> np.ndarray:
    """Rows on which no feature the tree tests is missing (or an invalid code)."""
    ir = lower(model, opts)
    tested = {n.feature for n in ir.nodes if not isinstance(n, Leaf)}
    known = np.ones(X.shape[0], dtype=bool)
    for j, f in enumerate(ir.features):
        if j not in tested:
            continue
        if f.kind == "continuous":
            known &= ~missing_mask(X[:, j], ir.encoding)
        elif f.kind == "nominal":
            known &= codes(X[:, j], len(f.values), ir.encoding) >= 0
    return known


Job = tuple[str, str, Model | Ensemble, Dataset, ExportOptions, str, str, int, KnownRows]


def _job(args: Job) -> Outcome:
    label, *rest = args
    o = run_one(*rest)  # type: ignore[arg-type]
    o.style = label
    return o


def describe(o: Outcome) -> str:
    t = targets.target(o.target)
    what = (
        f"{o.rows - o.failed} of {o.rows} rows identical"
        if o.ok
        else f"FAILED: {o.failed} of {o.rows} rows"
        + (f"; {o.failure}" if o.failure else "")
        + (f"; {o.first_mismatch}" if o.first_mismatch else "")
    )
    lo, med, hi = o.counts
    return (
        f"{o.model:5} {o.style:5} {o.mode:5} {o.target:6} {what}; {t.unit} min {lo}, "
        f"median {med}, max {hi}; {o.images} image(s), {o.seconds:.1f} s"
    )


def table(outcomes: Sequence[Outcome]) -> list[str]:
    """Flash / RAM / stack of predict.o and the median count, float / keys / int16."""
    by = {(o.model, o.target, o.style, o.mode): o for o in outcomes}
    keys = sorted(
        {(o.model, o.target, o.style) for o in outcomes},
        key=lambda k: (
            (*MODELS, *ensembles.ENSEMBLES).index(k[0]),
            list(targets.TARGETS).index(k[1]),
            STYLES.index(k[2]),
        ),
    )

    def triple(k: tuple[str, str, str], get: str) -> str:
        cells = []
        for mode in MODES:
            o = by.get((*k, mode))
            if o is None:
                cells.append("-")
            elif get == "flash":
                cells.append(str(o.predict.flash))
            elif get == "ram":
                cells.append(str(o.predict.ram))
            elif get == "stack":
                cells.append(str(o.predict.stack) if o.predict.stack is not None else "dyn")
            elif get == "median":
                cells.append(str(o.counts[1]))
            else:
                cells.append(str(o.known))
        return " / ".join(cells)

    head = [
        "model",
        "target",
        "style",
        "flash",
        "RAM",
        "stack",
        "median, all rows",
        "median, no missing value",
    ]
    rows = [
        [*k, *(triple(k, g) for g in ("flash", "ram", "stack", "median", "known"))] for k in keys
    ]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def ratios(outcomes: Sequence[Outcome]) -> list[str]:
    """AVR: float with --float-compare int (keys) and plain float against int16."""
    by = {(o.model, o.target, o.style, o.mode): o for o in outcomes}
    out = []
    for (model, target, style, mode), o in sorted(by.items()):
        if target != "avr" or mode != "int16":
            continue
        k, f = by.get((model, target, style, "keys")), by.get((model, target, style, "float"))
        if k is None or f is None or min(o.counts[1], o.known) <= 0:
            continue
        out.append(
            f"avr {model} {style}: keys / int16 = {k.known / o.known:.2f} (no missing "
            f"value), {k.counts[1] / o.counts[1]:.2f} (all rows); float / int16 = "
            f"{f.known / o.known:.2f}, {f.counts[1] / o.counts[1]:.2f}"
        )
    return out


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        allow_abbrev=False,
        prog="python -m treegen.firmware.check",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    every = ",".join((*MODELS, *ensembles.ENSEMBLES))
    p.add_argument(
        "--models",
        default=every,
        help=f"reference datasets' trees and scikit-learn ensembles on hypo, "
        f"comma-separated (default {every})",
    )
    p.add_argument(
        "--on",
        action="append",
        choices=list(targets.TARGETS),
        default=[],
        help="targets (default: all); repeatable",
    )
    p.add_argument("--random", type=int, default=300, help="random rows per run (default 300)")
    p.add_argument(
        "--jobs",
        type=int,
        default=min(2, os.cpu_count() or 1),
        help="runs at the same time (default: 2 or the number of cores)",
    )
    args = p.parse_args(argv)
    on = args.on or list(targets.TARGETS)
    try:
        for name in on:
            targets.require(targets.target(name))
    except TreegenError as err:
        print(f"firmware: error: {err}", file=sys.stderr)
        return 2
    jobs: list[Job] = []
    for name in args.models.split(","):
        if name in ensembles.ENSEMBLES:
            _, ds = load("hypo")
            try:
                ens = ensembles.fit(name, ds)
            except TreegenError as err:
                print(f"firmware: error: {err}", file=sys.stderr)
                return 2
            print(f"{name}: {len(ens.trees)} trees, {ens.n_nodes} nodes, on hypo")
            for estyle in ensembles.STYLES:
                for mode in MODES:
                    eo = ensembles.ensemble_options(name, ens, ds, estyle, mode)
                    if isinstance(eo, str):
                        print(f"{name:5} {estyle:5} {mode:5} skipped: {eo}")
                        continue
                    jobs += [
                        (estyle, name, ens, ds, eo, mode, t, args.random, ensembles.known_rows)
                        for t in on
                    ]
            continue
        if name not in MODELS:
            print(f"firmware: error: --models: unknown {name!r}", file=sys.stderr)
            return 2
        model, ds = load(name)
        print(f"{name}: {model.size} nodes, depth {model.depth()}, {ds.n_rows} data rows")
        for style in STYLES:
            for mode in MODES:
                opts = export_options(name, model, ds, style, mode)
                if isinstance(opts, str):
                    print(f"{name:5} {style:5} {mode:5} skipped: {opts}")
                    continue
                jobs += [
                    (style, name, model, ds, opts, mode, t, args.random, _known_rows) for t in on
                ]
    start = time.monotonic()
    outcomes: list[Outcome] = []
    errors = 0
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(_job, job) for job in jobs]
        for job, fut in zip(jobs, futures, strict=True):
            try:
                o = fut.result()
            except TreegenError as err:
                # A run that cannot build (say, a model too large for the chip) is a
                # failed run, reported, not the end of the check.
                style, name, _, _, _, mode, target, _, _ = job
                print(f"{name:5} {style:5} {mode:5} {target:6} FAILED: {err}", flush=True)
                errors += 1
                continue
            print(describe(o), flush=True)
            outcomes.append(o)
    print()
    print(
        "predict.o (flash, RAM, stack in bytes) and cycles (avr) or instructions "
        "(Cortex-M, RISC-V) per prediction, float / keys / int16:"
    )
    for line in table(outcomes) + [""] + ratios(outcomes):
        print(line)
    passed = sum(o.ok for o in outcomes)
    print(f"{len(jobs)} runs in {time.monotonic() - start:.0f} s")
    print(f"{passed} passed, {len(jobs) - passed} failed")
    return 0 if passed == len(jobs) else 1


if __name__ == "__main__":
    sys.exit(main())
