"""Shared pieces of the hardening tests: seeded hostile datasets and the export-mode
table (support.batch compiles many of the exports into one shared library).

A fuzz case is ``(seed, index)``: every random choice comes from
``numpy.random.default_rng([seed, index])``, so a failure is reproduced by its
case id alone.  ``TREEGEN_FUZZ=long`` makes the fuzz tests run more cases.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from treegen.codegen.ctype import TYPES
from treegen.codegen.emit import emit, make_env
from treegen.codegen.ir import IR
from treegen.codegen.lower import lower
from treegen.codegen.options import ExportOptions
from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.model.core import Model
from treegen.trainer import Criterion, TrainOptions, train

LONG = os.environ.get("TREEGEN_FUZZ", "") == "long"


def named_case() -> tuple[str, int] | None:
    """The case ``TREEGEN_FUZZ_CASE=KIND:INDEX`` names, or None."""
    only = os.environ.get("TREEGEN_FUZZ_CASE", "")
    if not only:
        return None
    kind, _, index = only.partition(":")
    return kind, int(index)


def case_indices(kind: str, seconds: float, least: int) -> Iterator[int]:
    """The cases to run: the one ``TREEGEN_FUZZ_CASE=KIND:INDEX`` names (none when it
    names another fuzz's), else 0, 1, ... for ``seconds`` and at least ``least``."""
    named = named_case()
    if named is not None:
        if named[0] == kind:
            yield named[1]
        return
    deadline = time.monotonic() + seconds
    index = 0
    while time.monotonic() < deadline or index < least:
        yield index
        index += 1


# ---------------------------------------------------------------------------
# Export modes
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Mode:
    """One way to export a model: the style and the export options the fuzz varies
    (``missing="none"`` is ``--missing none``; ``proba`` None is the CLI's default)."""

    style: str
    input_type: str
    float_compare: str = "float"
    scale: Fraction | None = None
    missing: str = "c45"
    proba: bool | None = None

    @property
    def name(self) -> str:
        s = f"{self.style}-{self.input_type}"
        if self.float_compare != "float":
            s += "-keys"
        if self.scale is not None:
            s += f"-x{self.scale}"
        if self.missing != "c45":
            s += f"-missing-{self.missing}"
        if self.proba is not None:
            s += "-proba" if self.proba else "-no-proba"
        return s

    def options(self, prefix: str) -> ExportOptions:
        t = TYPES[self.input_type]
        lo, hi = t.range if t.is_int else (0, 0)
        # Unsigned types: the default sentinel (the type's minimum, 0) is nominal code 0,
        # so these take the maximum, as a user with nominal attributes must.
        missing = hi if t.is_int and lo == 0 else None
        return ExportOptions(
            prefix=prefix,
            style=self.style,
            input_type=self.input_type,
            float_compare=self.float_compare,
            scale=self.scale,
            missing_value=missing,
            missing=self.missing,
            proba=self.proba,
        )


def all_modes() -> list[Mode]:
    """Every style x every input type, float keys and fixed point with scales, each with
    C4.5's missing values and with ``--missing none``; and ``--missing none --proba``
    (float, keys, int16) and ``--missing c45 --proba`` spelt out."""
    modes: list[Mode] = []
    for style in ("ifs", "table"):
        for missing in ("c45", "none"):
            for t in TYPES:
                modes.append(Mode(style, t, missing=missing))
            modes.append(Mode(style, "float", "int", missing=missing))
            for t, k in (
                ("int16", Fraction(100)),
                ("int32", Fraction(1000)),
                ("uint16", Fraction(1, 4)),
                ("int8", Fraction(3)),
            ):
                modes.append(Mode(style, t, scale=k, missing=missing))
        modes.append(Mode(style, "float", missing="none", proba=True))
        modes.append(Mode(style, "float", "int", missing="none", proba=True))
        modes.append(Mode(style, "int16", missing="none", proba=True))
        modes.append(Mode(style, "float", proba=True))
    return modes


# ---------------------------------------------------------------------------
# Hostile datasets
# ---------------------------------------------------------------------------


def _continuous(rng: np.random.Generator, n: int, j48: bool) -> npt.NDArray[np.float64]:
    big = 1e300 if j48 else 1e37  # c45 trains on float32 values: beyond FLT_MAX is refused
    kind = int(rng.integers(0, 9))
    if kind == 0:  # small integers: many duplicates
        return rng.integers(-3, 4, n).astype(np.float64)
    if kind == 1:  # constant column
        return np.full(n, float(rng.choice([0.0, -0.0, 1.5, 1e-310, -7.0])))
    if kind == 2:  # extreme magnitudes of both signs
        return rng.choice([-big, -1e20, -1.0, 0.0, 1e-20, 1.0, 1e20, big], n)
    if kind == 3:  # subnormals (double and float32) and zeros
        return rng.choice([0.0, -0.0, 5e-324, 1e-320, -4e-310, 1.4e-45, 1e-39, -1e-40], n)
    if kind == 4:  # clusters of values one ulp apart, in double and in float32
        base = rng.choice([1.0, 0.1, 100.0, -3.3, 1e-30], 3)
        vals = []
        for b in base:
            f = np.float32(b)
            vals += [
                b,
                float(np.nextafter(b, np.inf)),
                float(np.nextafter(b, -np.inf)),
                float(f),
                float(np.nextafter(f, np.float32(np.inf))),
            ]
        return rng.choice(np.asarray(vals), n)
    if kind == 5:  # two decimals
        return np.round(rng.normal(0, 50, n), 2)
    if kind == 6:  # large integers near the integer types' limits
        return rng.choice(
            [
                -129.0,
                -128.0,
                127.0,
                128.0,
                255.0,
                256.0,
                32767.0,
                32768.0,
                65535.0,
                -32769.0,
                2147483647.0,
                -2147483649.0,
                4294967296.0,
            ],
            n,
        )
    if kind == 7:  # full-precision doubles
        return rng.uniform(-1000, 1000, n)
    return rng.standard_normal(n) * float(10.0 ** rng.integers(-5, 6))


def random_dataset(rng: np.random.Generator, j48: bool) -> Dataset:
    """1-30 attributes of mixed kinds, 2-10 classes, 0-40% missing, declared nominal
    values never seen in training, labels partly determined by the attributes."""
    n_attr = int(rng.integers(1, 31))
    n_classes = int(rng.integers(2, 11))
    n = int(rng.integers(10, 160))
    attrs: list[Attribute] = []
    cols = []
    for j in range(n_attr):
        if rng.random() < 0.4:
            k = int(rng.integers(1, 13))
            used = int(rng.integers(1, k + 1))  # codes >= used are declared, never seen
            cols.append(rng.integers(0, used, n).astype(np.float64))
            attrs.append(Attribute(f"n{j}", "nominal", tuple(f"v{i}" for i in range(k))))
        else:
            cols.append(_continuous(rng, n, j48))
            attrs.append(Attribute(f"c{j}", "continuous"))
    X = np.stack(cols, axis=1)
    # Labels: a few attributes' ranks decide the class, plus noise.
    score = np.zeros(n)
    for j in rng.choice(n_attr, size=min(n_attr, 3), replace=False):
        score += np.argsort(np.argsort(X[:, j], kind="stable"), kind="stable")
    y = (score * n_classes // (score.max() + 1)).astype(np.int32) % n_classes
    noise = rng.random(n) < rng.uniform(0, 0.3)
    y[noise] = rng.integers(0, n_classes, int(noise.sum()))
    miss = rng.uniform(0, 0.4)
    X[rng.random(X.shape) < miss] = np.nan
    schema = Schema(tuple(attrs), tuple(f"k{c}" for c in range(n_classes)), "class")
    return Dataset(schema, X, y.astype(np.int32))


def random_options(rng: np.random.Generator, j48: bool) -> TrainOptions:
    return TrainOptions(
        min_cases=int(rng.integers(1, 6)),
        cf=float(rng.choice([0.001, 0.1, 0.25, 0.5, 0.99])),
        prune=bool(rng.random() < 0.6),
        # drawn for every model, so the draws after it stay the same; --subsets and
        # --criterion gain are Release 8's alone (refused with --flavor j48)
        subsets=bool(rng.random() < 0.4) and not j48,
        criterion=_criterion(str(rng.choice(["gainratio", "gain"])), j48),
        flavor="j48" if j48 else "c45",
    )


def _criterion(drawn: str, j48: bool) -> Criterion:
    return "gainratio" if j48 or drawn == "gainratio" else "gain"


def fuzz_model(seed: int, index: int) -> tuple[Model, Dataset]:
    rng = np.random.default_rng([seed, index])
    j48 = bool(rng.random() < 0.5)
    ds = random_dataset(rng, j48)
    return train(ds, random_options(rng, j48), engine="dfs" if rng.random() < 0.2 else "level"), ds


# ---------------------------------------------------------------------------
# Exports
# ---------------------------------------------------------------------------


_ENV = make_env()  # one environment: compiling the templates costs more than rendering


def export(model: Model, mode: Mode, prefix: str) -> tuple[IR, dict[str, str]]:
    ir = lower(model, mode.options(prefix))
    return ir, emit(ir, mode.style, _ENV)
