"""IEEE 754 binary64 arithmetic in portable C, for targets whose ``double`` is not binary64.

scikit-learn's ensembles sum and divide float64 values; on hosts and Cortex-M the C
``double`` is binary64, but avr-gcc's ``double`` has 32 bits.  There the generated C
carries its own correctly rounded routines on integers: :func:`f64_source` renders,
for a symbol prefix, only the routines asked for (and the helpers they call) from
``templates/f64.c.j2``.  A value is ``PREFIX_f64``, a struct of two ``uint32_t``
halves (``hi``: sign, exponent, top 20 fraction bits; ``lo``: the low 32), because
C89 has no 64-bit integer type; constants are written with :func:`f64_initializer`
(its exact bits) or, where ``double`` is binary64, :func:`double_literal`.

Every operation rounds to nearest, ties to even, with signed zeros, gradual
underflow, infinities and overflow to infinity; a NaN result is always the quiet NaN
``0x7FF8000000000000`` (what Berkeley SoftFloat's RISC-V build produces), except
``neg``, which only flips the sign bit.  The routines are ``static``: each is
defined only when the model needs it, so none is ever unused.  Where the export knows
every operand is +0 or a positive normal number and no result leaves the normal range
(a forest's sums of class fractions, divided by its number of trees), ``add_pos`` and
``div_pos`` (:data:`POS_OPS`) give the same results without the paths for signs,
NaN, infinities, subnormals and cancellation: about a third of the code.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Iterable

from treegen.codegen.emit import make_env
from treegen.codegen.literals import c_double, c_hex32
from treegen.codegen.names import check_prefix

OPS: dict[str, str] = {
    "add": "PREFIX_f64 PREFIX_f64_add(PREFIX_f64 a, PREFIX_f64 b): a + b",
    "sub": "PREFIX_f64 PREFIX_f64_sub(PREFIX_f64 a, PREFIX_f64 b): a - b",
    "div": "PREFIX_f64 PREFIX_f64_div(PREFIX_f64 a, PREFIX_f64 b): a / b",
    "lt": "int PREFIX_f64_lt(PREFIX_f64 a, PREFIX_f64 b): a < b (0 if either is NaN)",
    "le": "int PREFIX_f64_le(PREFIX_f64 a, PREFIX_f64 b): a <= b (0 if either is NaN)",
    "eq": "int PREFIX_f64_eq(PREFIX_f64 a, PREFIX_f64 b): a == b (0 if either is NaN)",
    "sign": "int PREFIX_f64_sign(PREFIX_f64 a): 1 if a > 0, -1 if a < 0, else 0 (zeros, NaN)",
    "isnan": "int PREFIX_f64_isnan(PREFIX_f64 a): 1 if a is a NaN",
    "neg": "PREFIX_f64 PREFIX_f64_neg(PREFIX_f64 a): -a (the sign bit flipped)",
    "from_f32": "PREFIX_f64 PREFIX_f64_from_f32(uint32_t x): the binary32 with bits x, exactly",
    "from_u32": "PREFIX_f64 PREFIX_f64_from_u32(uint32_t n): the integer n, exactly",
    "to_f32": "uint32_t PREFIX_f64_to_f32(PREFIX_f64 a): the nearest binary32's bits",
}
"""The routines one can ask for, and their C signatures (``>`` and ``>=`` are ``lt`` and
``le`` with the operands swapped)."""

POS_OPS: dict[str, str] = {
    "add_pos": "PREFIX_f64 PREFIX_f64_add_pos(PREFIX_f64 a, PREFIX_f64 b): a + b for a and b "
    "each +0 or positive normal, the sum finite",
    "div_pos": "PREFIX_f64 PREFIX_f64_div_pos(PREFIX_f64 a, PREFIX_f64 b): a / b for a +0 or "
    "positive normal, b positive normal, the quotient normal",
}
"""Routines for operands known at export to lie in a narrow domain (a forest's sums
and fractions): the same correctly rounded result as ``add`` and ``div`` there, in far
less code; outside it, undefined."""

# What each routine calls: the template defines a routine only when it is needed, and
# defines the callees before the callers.
_CALLS: dict[str, tuple[str, ...]] = {
    "add": ("u64_lt", "u64_add", "u64_sub", "u64_shl", "u64_shr_jam", "round_pack", "nan"),
    "sub": ("add",),
    "div": ("u64_lt", "u64_shl", "u64_clz", "round_pack", "nan"),
    "round_pack": ("u64_clz", "u64_shl", "u64_shr_jam"),
    "lt": ("isnan", "u64_lt"),
    "le": ("isnan", "u64_lt"),
    "eq": ("isnan",),
    "sign": ("isnan",),
    "from_f32": ("nan",),
    "to_f32": ("u64_shr_jam",),
    "add_pos": ("u64_lt", "u64_add", "u64_shl", "u64_shr_jam", "round_pos"),
    "div_pos": ("u64_lt", "u64_shl", "round_pos"),
    "round_pos": ("u64_shr_jam",),
}

NAN_BITS = 0x7FF8000000000000
"""The one NaN the routines produce."""


def needed(ops: Iterable[str]) -> frozenset[str]:
    """``ops`` and every routine they call, directly or not."""
    todo = list(ops)
    unknown = [op for op in todo if op not in OPS and op not in POS_OPS]
    known = ", ".join([*OPS, *POS_OPS])
    assert not unknown, f"unknown binary64 routines {unknown}; known: {known}"
    seen: set[str] = set()
    while todo:
        op = todo.pop()
        if op not in seen:
            seen.add(op)
            todo.extend(_CALLS.get(op, ()))
    return frozenset(seen)


def f64_source(prefix: str, ops: Iterable[str], add_once: bool = False) -> str:
    """C source (C89 and C99, needs ``<stdint.h>``) of the type ``PREFIX_f64`` and the
    routines ``ops`` (names of :data:`OPS` or :data:`POS_OPS`), each ``static``; nothing
    else is defined but, with ``add_once`` (``add_pos`` has one caller), the macro
    ``PREFIX_F64_NOINLINE`` that keeps gcc and clang from inlining ``add_pos``."""
    check_prefix(prefix)
    template = make_env().get_template("f64.c.j2")
    return template.render(P=prefix, U=prefix.upper(), need=needed(ops), add_once=add_once)


def f64_bits(x: float) -> int:
    """The binary64 bit pattern of ``x`` (any float: zeros, infinities, NaN payloads)."""
    return int(struct.unpack("<Q", struct.pack("<d", x))[0])


def f64_initializer(x: float) -> str:
    """``x`` as an initializer of ``PREFIX_f64``: its exact bits, high half first
    (``{0x3FF00000u, 0x00000000u}`` for 1.0)."""
    bits = f64_bits(x)
    return f"{{{c_hex32(bits >> 32)}, {c_hex32(bits & 0xFFFFFFFF)}}}"


def double_literal(x: float) -> str:
    """``x`` as a C ``double`` constant that reads back exactly where ``double`` is
    binary64 (the shortest round-trip digits; ``-0.0`` keeps its sign).  Infinities and
    NaN have no such literal in C89: the caller must not need one."""
    assert math.isfinite(x), x
    return c_double(x)
