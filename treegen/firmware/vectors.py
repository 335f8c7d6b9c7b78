"""The test vectors as a C source (vectors.c) for the firmware examples' main.c.

``tg_vectors`` holds the rows in the C input domain (what verify feeds the C:
treegen.codegen.inputs), in flash: ``PROGMEM`` on AVR, where a plain ``const``
array would be copied to the 2 KiB of SRAM.  Floats are C99 hexadecimal literals,
exact by construction (no decimal rounding to get right), NaN (sign, quiet bit and
payload as given), the infinities and -0.0 spelled out.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from treegen.codegen.literals import c_int
from treegen.codegen.parts import HEADER
from treegen.verify.build import CApi


def _nan(bits: int) -> str:
    """A float NaN with exactly these bits: sign, quiet bit and payload (a negative
    NaN must reach the C as one, to test that it goes where a positive one does)."""
    if bits == 0x7FC00000:
        return '__builtin_nanf("")'
    sign = "-" if bits & 0x80000000 else ""
    quiet = bits & 0x00400000
    payload = bits & 0x003FFFFF
    return f'{sign}__builtin_nan{"" if quiet else "s"}f("{payload:#x}")'


def _float(v: float, bits: int) -> str:
    if math.isnan(v):
        return _nan(bits)
    if math.isinf(v):
        return "__builtin_inff()" if v > 0 else "-__builtin_inff()"
    if v == 0:
        return "-0.0f" if math.copysign(1.0, v) < 0 else "0.0f"
    return v.hex() + "f"


def vectors_c(ir: CApi, X: npt.NDArray[np.generic], first_index: int = 0) -> str:
    """C source defining ``tg_vectors``, ``tg_n_vectors`` and ``tg_first_index``
    (the index printed for row 0, when the vectors are split over several runs)."""
    enc = ir.encoding
    assert enc.input_type != "double", "the firmware examples take float or integer rows"
    n, m = X.shape
    assert 0 < n <= 0xFFFF and m == ir.n_features
    P, U = ir.prefix, ir.prefix.upper()
    if enc.is_int:
        cells = [[c_int(int(v), enc.input_type) for v in row] for row in X.tolist()]
    else:
        # The bits too: float32 -> double keeps a NaN's sign but may quiet it.
        f32 = np.ascontiguousarray(X, dtype=np.float32)
        cells = [
            [_float(float(v), int(b)) for v, b in zip(row, brow, strict=True)]
            for row, brow in zip(f32.tolist(), f32.view(np.uint32).tolist(), strict=True)
        ]
    rows = ",\n".join("    {" + ", ".join(r) + "}" for r in cells)
    return (
        f"/* Test vectors for the treegen firmware examples' main.c (written by "
        f"treegen.firmware). */\n"
        f'#include "{HEADER}"\n'
        "#if defined(__AVR__)\n#include <avr/pgmspace.h>\n#define TG_FLASH PROGMEM\n"
        "#else\n#define TG_FLASH\n#endif\n\n"
        f"const uint16_t tg_n_vectors = {n}u;\n"
        f"const uint32_t tg_first_index = {first_index}ul;\n"
        f"const {P}_input_t tg_vectors[{n}][{U}_N_FEATURES] TG_FLASH = {{\n{rows}\n}};\n"
    )
