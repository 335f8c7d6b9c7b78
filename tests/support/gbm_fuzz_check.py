"""Holding one fuzz case (support.gbm_fuzz) to its library: the import's class, class
probabilities, margins and regression values equal the library's bit for bit; a refused
configuration is a one-line TreegenError; a share of cases goes through the command
line from a saved file, and a share is compiled to C and verified in a drawn mode, that C
strict on avr-gcc too; a case the caller picks runs on a simulated chip
(support.fuzz_chips).

Each check returns a list of failures (strings), empty when the case holds.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from treegen.ensemble import classify
from treegen.errors import TreegenError

from support import fuzz_chips
from support.floatbits import rows_differ, same_bits
from support.gbm_fuzz import Case, FloatArray


@contextmanager
def _array_rows() -> Iterator[None]:
    """Rows of a model fitted on a DataFrame given as an array: treegen says it takes the
    columns in order (a UserWarning), which is what the fuzz means."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "X does not have valid feature names", UserWarning)
        yield


def _first(mask: np.ndarray, rows: FloatArray) -> str:
    i = int(np.flatnonzero(mask)[0])
    return f"{int(mask.sum())} of {len(mask)} rows, first row {i}: {rows[i].tolist()}"


def _near_tie(
    lib_proba: np.ndarray, scores: np.ndarray, lib: np.ndarray, got: np.ndarray, classes: Any
) -> np.ndarray:
    """Rows where the library's probabilities of its class and of treegen's are one number
    and both classes' scores are below 1 in size: the near ties docs/gbm.md describes
    (a tie elsewhere is a finding)."""
    index = {c: i for i, c in enumerate(np.asarray(classes).tolist())}
    a = np.asarray([index[v] for v in lib.tolist()])
    b = np.asarray([index[v] for v in got.tolist()])
    n = np.arange(len(a))
    small = (np.abs(scores[n, a]) < 1) & (np.abs(scores[n, b]) < 1)
    return np.asarray((lib_proba[n, a] == lib_proba[n, b]) & small)


def compare(case: Case, model: Any, rows: FloatArray, what: str) -> list[str]:
    """The model's predict (and predict_proba, margins) against the case's library."""
    out: list[str] = []
    ens = model.value
    with _array_rows():
        return _compare(case, model, ens, rows, what, out)


def _compare(case: Case, model: Any, ens: Any, rows: FloatArray, what: str,
             out: list[str]) -> list[str]:  # fmt: skip
    got = model.predict(rows)
    lib = case.label(rows)
    if case.regressor:
        if not same_bits(got, lib):
            out.append(f"{what}: values differ on {_first(rows_differ(got, lib), rows)}")
        return out
    bad = np.asarray(got != lib)
    if bad.any() and case.proba is not None and len(model.classes_) > 2:
        scores = classify.scores(ens, rows)
        bad &= ~_near_tie(case.proba(rows), scores, lib, got, model.classes_)
    if bad.any():
        out.append(f"{what}: classes differ on {_first(bad, rows)}")
    if case.proba is not None:
        p = model.predict_proba(rows)
        lp = case.proba(rows)
        if not same_bits(p, lp):
            out.append(f"{what}: predict_proba differs on {_first(rows_differ(p, lp), rows)}")
    margin = case.margin(rows)
    raw = classify.raw_scores(ens, rows)
    if not same_bits(raw, margin):
        out.append(f"{what}: margins differ on {_first(rows_differ(raw, margin), rows)}")
    return out


def check_import(case: Case) -> tuple[Any, list[str]]:
    """Import through the public API and compare; (model or None, failures)."""
    from treegen.estimator.gbm_import import from_lightgbm, from_xgboost

    importer = from_xgboost if case.name.startswith("xgb") else from_lightgbm
    try:
        model = importer(case.source, iterations=case.iterations)
    except TreegenError as e:
        # The library's margins only where they are the question: XGBoost's gblinear (a
        # refused booster) raises on the rows' infinities.
        if (
            case.refused is None
            and "LightGBM predicts that" in str(e)
            and not np.isfinite(case.margin(case.rows)).all()
        ):
            return None, []  # a leaf that is NaN or infinite: refused, in one line
        if case.refused is None and "fitted on one class" in str(e):
            return None, []  # a one-class target, which the libraries fit as binary
        if case.refused is None:
            return None, [f"import refused an accepted configuration: {e}"]
        if "\n" in str(e):
            return None, [f"refusal of {case.refused} is not one line: {e!r}"]
        return None, []
    if case.refused is not None:
        return None, [f"{case.refused} was not refused"]
    return model, compare(case, model, case.rows, "api")


def check_cli(case: Case, tmp: Path, rng: np.random.Generator) -> list[str]:
    """Save the library's file, import it with the command line, load and compare."""
    import treegen
    from treegen.cli.main import main

    xgb = case.name.startswith("xgb")
    path = tmp / ("m.json" if xgb and rng.random() < 0.5 else "m.ubj" if xgb else "m.txt")
    assert case.save is not None
    case.save(str(path))
    argv = ["import-xgboost" if xgb else "import-lightgbm", str(path), "-o", str(tmp / "m.trees")]
    if case.iterations is not None:
        argv += ["--iterations", str(case.iterations)]
    try:
        code = main(argv)
    except SystemExit as e:
        code = int(e.code or 0)
    if case.refused is not None:
        if (tmp / "m.trees").exists():
            return [f"cli: {case.refused} refused, but m.trees was written"]
        return [] if code == 2 else [f"cli: {case.refused} exit {code}, not 2"]
    if code != 0:
        return [f"cli: import exit {code}"]
    model = treegen.load(tmp / "m.trees")
    if case.regressor:
        return compare(case, model, case.rows, "cli")
    # A file holds no classes_: its classes are the library's class indices.
    lib_classes = getattr(case.source, "classes_", None)
    by_index = Case(**case.__dict__)
    if lib_classes is not None:
        by_index.label = lambda r: np.searchsorted(np.asarray(lib_classes), case.label(r))
    return compare(by_index, _Indices(model), case.rows, "cli")


class _Indices:
    """A loaded model answering class indices (its classes are 0 .. k-1 as text or
    integers), to compare with a library's indices."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.value = model.value
        self.classes_ = np.arange(len(model.classes_))

    def predict(self, rows: FloatArray) -> np.ndarray:
        return np.asarray(self.model.predict(rows)).astype(np.int64)

    def predict_proba(self, rows: FloatArray) -> np.ndarray:
        return np.asarray(self.model.predict_proba(rows))


MODES: tuple[dict[str, Any], ...] = (
    {"style": "table"},
    {"style": "ifs"},
    {"style": "table", "input_type": "double"},
    {"style": "ifs", "missing": "none"},
    {"style": "table", "scores": True},
    {"style": "ifs", "input_type": "int16", "scale": 1},
    {"style": "table", "input_type": "int16", "scale": 1},
    {"style": "table", "float_compare": "int"},
)


def check_c(model: Any, case: Case, rng: np.random.Generator, n_modes: int, tmp: Path) -> list[str]:
    """Compile the C in ``n_modes`` drawn modes and verify it on the case's rows; each
    C also strict on avr-gcc (support.fuzz_chips.avr_strict)."""
    from treegen.kinds.export import render

    out: list[str] = []
    rows = case.rows
    for m in rng.choice(len(MODES), size=n_modes, replace=False):
        mode = MODES[int(m)]
        if case.regressor and mode.get("scores"):
            continue  # a regressor's C has predict_bits, not scores (docs/gbm.md)
        if mode.get("missing") == "none":
            rows = rows[~np.isnan(rows).any(axis=1)]
        try:
            with _array_rows():
                report = model.verify(rows, n_random=200, **mode)
        except TreegenError as e:
            msg = str(e)
            if any(w in msg for w in ("categorical", "scale", "maps exactly", "integer")):
                continue  # a mode this model refuses in one line (docs/gbm.md, the C)
            out.append(f"C {mode}: {msg}")
            continue
        if not report.ok:
            out.append(f"C {mode}: {report.text[:1500]}")
        files = render(model.value, model.export_options(**mode)).files
        out += fuzz_chips.avr_strict(files, mode, tmp / f"avr{int(m)}")
    return out


def run_case(
    lib: str, seed: int, index: int, tmp: Path, c_modes: int = 1, chip: bool = False
) -> list[str]:
    """Fit case ``lib:seed:index`` and hold it: the API always, the command line for
    one case in four, the C (``c_modes`` drawn modes) for one in three and, where
    ``chip``, on a simulated chip in a mode drawn from the case's own generator.
    Raises :class:`~support.gbm_fuzz.Refused` where the library refuses the
    configuration."""
    from support.gbm_fuzz_lgb import lgb_case
    from support.gbm_fuzz_xgb import xgb_case

    case = xgb_case(seed, index) if lib == "xgb" else lgb_case(seed, index)
    rng = np.random.default_rng([seed, index, 1])
    model, out = check_import(case)
    # A file does not hold the wrapper's missing value (docs/gbm.md): only the API refuses it.
    accepted = model is not None or case.refused is not None  # not a degenerate fit
    if rng.random() < 0.25 and case.refused != "missing=0" and accepted:
        out += check_cli(case, tmp, rng)
    if model is not None and c_modes and rng.random() < 0.34:
        out += check_c(model, case, rng, c_modes, tmp)
    if model is not None and chip:
        out += fuzz_chips.check_chip(model.value, np.random.default_rng([seed, index, 3]))
    return [f"{case.name} {case.params}: {f}" for f in out]
