"""The chip checks the configuration fuzzes of imported ensembles share (scikit-learn's,
support/sklearn_fuzz_check.py; XGBoost's and LightGBM's, support/gbm_fuzz_check.py):
the host's compilers never build the C's binary64 routines or a 16-bit int's
promotions, so a defect there shows only on a chip's compiler or the chip itself.
:func:`avr_strict` compiles a rendered C with avr-gcc under the strict flags (cheap:
every C a fuzz builds); :func:`check_chip` runs a model's C on a simulated chip (one
case in :data:`CHIP_EVERY` of a long run).  Each returns its failures (empty: none).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import numpy as np

from support.sklearn_fuzz import pick

CHIP_EVERY = 10
"""``TREEGEN_FUZZ=long`` (or one named case): one case in this many also on a chip."""

CHIPS = ("avr", "m0plus", "m4f", "rv32imc")
"""The simulated chips :func:`check_chip` draws from (the installed ones)."""

# A refusal of these words is no finding: the model is too large for the chip (its
# flash, or an AVR object's table), or the drawn mode is one the model refuses in one
# line (a categorical test read as a number, a threshold no int16 holds at the scale).
_NO_FINDING = ("fit in", "an AVR object", "categor", "scale")


def avr_strict(files: dict[str, str], mode: dict[str, Any], workdir: Path) -> list[str]:
    """The C (``files``, rendered in ``mode``) compiled by avr-gcc under the strict
    flags, where it is installed: the host's compilers never build the C's binary64
    routines or a 16-bit int's promotions (a byte-wide node word's shift once failed
    only there).  A C whose table is too large for an AVR object (its own #error) or
    whose input is double is no finding."""
    from treegen.codegen.avr import too_large

    from support.strict import compile_strict

    (source,) = (text for name, text in files.items() if name.endswith(".c"))
    if shutil.which("avr-gcc") is None or mode.get("input_type") == "double":
        return []
    if too_large(source) is not None:
        return []
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        compile_strict("avr-gcc", "-std=c99", files, workdir, ["-mmcu=atmega328p", "-Os"])
    except AssertionError as exc:
        lines = str(exc).strip().splitlines() or [""]
        said = next((line for line in lines if "error" in line), lines[0])
        return [f"avr-gcc {mode}: {said[:300]}"]
    return []


def check_chip(ens: Any, rng: np.random.Generator) -> list[str]:
    """The C of ``ens`` (an imported ensemble, a treegen ``Model``'s value) on a
    simulated chip drawn from :data:`CHIPS` (where its compiler and simulator are
    installed), in a mode drawn from ``rng``, against the Python model on verify's rows
    (thresholds, their neighbours, missing and random values).  A model too large for
    the chip or a mode it refuses is no finding.  (A fully grown forest's C once did
    not compile for the chips, whose binary64 routines the host's C never builds.)"""
    from treegen.codegen.options import ExportOptions
    from treegen.errors import TreegenError
    from treegen.firmware import targets
    from treegen.firmware.parity import verify_on

    chips = [c for c in CHIPS if targets.available(targets.target(c), run=True)]
    if not chips:
        return []
    chip = str(pick(rng, *chips))
    mode: dict[str, Any] = {"style": pick(rng, "ifs", "table")}
    u = rng.random()
    if u < 0.3:
        mode.update(input_type="int16", scale=pick(rng, 1, 10))
    elif u < 0.5:
        mode["missing"] = "none"
    elif u < 0.7 and not ens.regressor and ens.anomaly is None:
        mode["proba" if ens.method == "forest" else "scores"] = True
    try:
        result = verify_on(ens, ExportOptions(prefix="c", **mode), [], [chip], n_random=120)
    except TreegenError as exc:
        text = str(exc)
        if any(w in text for w in _NO_FINDING):
            return []
        return [f"{chip} {mode}: {text}"]
    return [] if result.report.ok else [f"{chip} {mode}: {result.report.text()[:400]}"]
