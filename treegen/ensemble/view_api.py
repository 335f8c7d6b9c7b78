"""What an ensemble's predict.c and predict.h export besides the class (treegen.ensemble.emit).

The doubles (``predict_proba``, ``decision_function``, an IsolationForest's scores) and
their documentation, a regressor's outputs and API flag, and an IsolationForest's power
of two in C: glibc's pow constants for x = 2 (treegen.ensemble.pow2) as C literals.
"""

from __future__ import annotations

from dataclasses import dataclass

from treegen.codegen.f64 import f64_initializer
from treegen.codegen.literals import c_double, c_rows, c_u64
from treegen.ensemble import pow2
from treegen.ensemble.ir import EnsembleIR


@dataclass(frozen=True, slots=True)
class Doubles:
    """The doubles predict.c exports besides the class (EnsembleIR.doubles)."""

    name: str  # predict_proba or decision_function
    arg: str
    macro: str  # PREFIX_<macro> is their count
    n: int
    difference: bool  # AdaBoost's two classes: one column, -sum0 + sum1
    doc: str
    anomaly: bool = False  # an IsolationForest's scores (templates/_pow2.j2)


@dataclass(frozen=True, slots=True)
class DoublesView:
    doubles: Doubles | None


@dataclass(frozen=True, slots=True)
class Outputs:
    """predict.h's count of a regressor's outputs (the header view has classes only)."""

    n_outputs: int


@dataclass(frozen=True, slots=True)
class Pow2Consts:
    """glibc's pow constants for x = 2 (treegen.ensemble.pow2), as C uint64_t constants
    (treegen.codegen.literals.c_u64)."""

    hi: str
    lo: str
    inv: str
    nhi: str
    nlo: str
    c2: str
    c3: str
    c4: str
    c5: str
    shift: str
    neg_offset: str  # -offset_: decision_function = score_samples + this
    den: str  # the denominator, a double constant
    soft_den: str
    unit: bool  # Anomaly.unit: every row's quotient is 1, no division


@dataclass(frozen=True, slots=True)
class Pow2View:
    """An IsolationForest's scores in C (templates/_pow2.j2); empty table: none."""

    pow2_table: tuple[str, ...]
    pow2_c: Pow2Consts | None


def pow2_view(ir: EnsembleIR) -> Pow2View:
    if ir.anomaly is None:
        return Pow2View((), None)
    t = pow2.table()
    rows = [f"{{0x{v >> 32:08X}u, 0x{v & 0xFFFFFFFF:08X}u}}" for v in t]

    h = c_u64

    c = Pow2Consts(
        h(pow2.LOG2_HI), h(pow2.LOG2_LO), h(pow2.INV_LN2_N), h(pow2.NEG_LN2_HI_N),
        h(pow2.NEG_LN2_LO_N), h(pow2.C2), h(pow2.C3), h(pow2.C4), h(pow2.C5), h(pow2.SHIFT),
        h(pow2.as_bits(-ir.anomaly.offset)), c_double(ir.anomaly.denominator),
        f64_initializer(ir.anomaly.denominator), ir.anomaly.unit,
    )  # fmt: skip
    return Pow2View(c_rows(rows), c)


@dataclass(frozen=True, slots=True)
class RegressView:
    """Whether predict.c/.h have a regressor's API (templates/_regress.j2): predict
    writes the outputs, predict_bits their binary64 bits."""

    regress: bool


def doubles_api(ir: EnsembleIR) -> Doubles | None:
    api = ir.proba_api
    if api is None or api.values:
        return None
    where = (
        "bit for bit where double is binary64; where it has 32 bits (avr-gcc), the "
        "nearest binary32 of that value"
    )
    if ir.anomaly is not None:
        doc = (
            "The IsolationForest's score_samples (scores[0]) and decision_function "
            "(scores[1]), with glibc's pow: what scikit-learn returns where numpy's power "
            f"is the C library's (docs/regression.md), {where}."
        )
        return Doubles(api.name, "scores", "N_SCORES", 2, False, doc, anomaly=True)
    if ir.doubles == "proba":
        doc = f"The estimator's predict_proba, proba[{ir.prefix.upper()}_N_PROBA], {where}."
        return Doubles(api.name, "proba", "N_PROBA", api.n, False, doc)
    doc = (
        f"The estimator's decision_function (the raw scores its class is decided on), "
        f"scores[{ir.prefix.upper()}_N_SCORES], {where}."
    )
    return Doubles(api.name, "scores", "N_SCORES", api.n, ir.decision == "diff", doc)
