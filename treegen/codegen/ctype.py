"""The C scalar types the exported code uses: one record per type, the only table of them.

Each :class:`CType` is one ``--input-type`` choice.  The integer ones are also the
column types of the constant tables (:func:`smallest_uint`, :func:`smallest_int`), so
one record says how a value of that type is spelled in C, held in numpy, bounded,
and read back from ROM.  Everything else (the choices ``--input-type`` offers, the
cffi buffer type, the numpy dtype of verify's rows, literal suffixes, the reader
macros) is derived from :data:`TYPES`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, slots=True)
class CType:
    name: str  # as --input-type spells it
    c_name: str  # the C type (<stdint.h> for the integers)
    dtype: type[np.generic]  # numpy scalar type holding exactly the C values
    bits: int
    is_int: bool
    signed: bool
    # Suffix of the PREFIX_RDn macro that reads one element of a constant table
    # (pgm_read_* on AVR, a plain load elsewhere); None: there is no pgm_read_*
    # for the type, the table is read with a plain load.
    reader: str | None

    @property
    def range(self) -> tuple[int, int]:
        """Smallest and largest value of an integer type."""
        assert self.is_int, self.name
        if self.signed:
            return -(1 << (self.bits - 1)), (1 << (self.bits - 1)) - 1
        return 0, (1 << self.bits) - 1


def _int(bits: int, signed: bool) -> CType:
    name = f"{'' if signed else 'u'}int{bits}"
    return CType(name, f"{name}_t", np.dtype(name).type, bits, True, signed, f"RD{bits}")


FLOAT = CType("float", "float", np.float32, 32, False, True, "RDF")
DOUBLE = CType("double", "double", np.float64, 64, False, True, None)
TYPES: dict[str, CType] = {
    t.name: t
    for t in (
        FLOAT,
        DOUBLE,
        *(_int(b, True) for b in (8, 16, 32)),
        *(_int(b, False) for b in (8, 16, 32)),
    )
}
"""Every type by name, in the order ``--input-type`` lists them."""

INPUT_TYPES: tuple[str, ...] = tuple(TYPES)
INT_TYPES: tuple[CType, ...] = tuple(t for t in TYPES.values() if t.is_int)
UINT32 = TYPES["uint32"]


def smallest_uint(max_value: int) -> CType:
    """The narrowest unsigned type holding 0..max_value (a table column's type)."""
    for t in INT_TYPES:
        if not t.signed and max_value <= t.range[1]:
            return t
    raise ValueError(max_value)


def smallest_int(lo: int, hi: int) -> CType:
    """The narrowest integer type holding lo..hi, unsigned when lo >= 0."""
    if lo >= 0:
        return smallest_uint(hi)
    for t in INT_TYPES:
        if t.signed and t.range[0] <= lo and hi <= t.range[1]:
            return t
    raise ValueError((lo, hi))
