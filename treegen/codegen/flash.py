"""An estimate of the flash a tree's ``predict.c`` takes, without compiling it.

The one place this estimate lives (``treegen info`` prints it).  Flash is the C's
constant tables plus its code.  The tables are counted exactly: the table-style
``predict.c`` is emitted (as ``treegen export --style table`` writes it) and every
``static const`` array it declares is summed at its element's size.  The code (the
walk, the missing-value arithmetic, the nominal and subset tests a tree uses) is not
a fixed number: it is given as the range measured with ``size`` (text + data) of
``-Os`` builds (avr-gcc -mmcu=atmega328p; arm-none-eabi-gcc -mcpu=cortex-m0 -mthumb),
less the tables, on the nine reference trees and four generated ones, each trained
as c45 and j48 (and two with ``--subsets``), for every input type: the bounds below
hold those 30 trees' code with about 20 bytes to spare.  Trees without a nominal test
lie at the low end (no code to decode a nominal value), subset tests at the high end.
When the C encoding changes, measure again (``tests/cli/test_report_cli.py`` compiles
several trees and holds the compiled size within the stated range).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from treegen.codegen.ctype import TYPES
from treegen.codegen.emit import emit
from treegen.codegen.lower import lower
from treegen.codegen.options import ExportOptions, InputType
from treegen.errors import EncodingError
from treegen.model.core import Model


@dataclass(frozen=True, slots=True)
class FlashTarget:
    """One target: the bytes of its C types that tables hold, and the measured range of
    the code's bytes per kind of input value (float, double, integer).  A kind missing
    from ``code`` is one the target's C refuses (avr-gcc's double has 32 bits, which
    predict.c stops on with #error)."""

    target: str
    double_bytes: int
    code: dict[str, tuple[int, int]]


TARGETS: tuple[FlashTarget, ...] = (
    # Measured: float 1320-1728 B, integers 1170-1504 B.
    FlashTarget("avr (atmega328p, -Os)", 4, {"float": (1300, 1750), "int": (1150, 1530)}),
    # Measured: float 521-704 B, double 549-738 B, integers 454-580 B.
    FlashTarget(
        "cortex-m0 (thumb, -Os)",
        8,
        {"float": (500, 730), "double": (530, 760), "int": (440, 600)},
    ),
)


@dataclass(frozen=True, slots=True)
class FlashEstimate:
    """A target's estimate: ``tables`` bytes exactly, ``low`` to ``high`` in all; None
    for all three where the target's C refuses the input type (``why``)."""

    tables: int | None
    low: int | None
    high: int | None
    why: str = ""

    def text(self) -> str:
        """As ``treegen info`` prints it."""
        if self.low is None or self.high is None or self.tables is None:
            return self.why
        code = f"{self.low - self.tables:,}-{self.high - self.tables:,}"
        return f"{self.low:,} to {self.high:,} bytes (tables {self.tables:,}, code {code})"


# A table's declaration in the emitted C: element type, name, dimensions, ROM macro.
_TABLE = re.compile(r"^static const (\w+) \w+((?:\[\d+\])+) \w+_ROM\b", re.M)
_FIXED = {"uint8_t": 1, "int8_t": 1, "uint16_t": 2, "int16_t": 2, "uint32_t": 4, "int32_t": 4}


def table_bytes(source: str, double_bytes: int) -> int:
    """The bytes of every constant table ``source`` (a predict.c) declares."""
    sizes = {**_FIXED, "float": 4, "double": double_bytes}
    total = 0
    for m in _TABLE.finditer(source):
        count = 1
        for dim in re.findall(r"\d+", m.group(2)):
            count *= int(dim)
        assert m.group(1) in sizes, m.group(1)  # a new element type: size it here
        total += sizes[m.group(1)] * count
    return total


def value_kind(input_type: str) -> str:
    """ "float", "double" or "int": the kind of input value the code reads."""
    assert input_type in TYPES, input_type
    return input_type if input_type in ("float", "double") else "int"


def estimate_flash(model: Model, input_type: str = "float") -> dict[str, FlashEstimate]:
    """The estimated flash of the model's table-style ``predict.c``, per target."""

    def source() -> str:
        ir = lower(model, ExportOptions(style="table", input_type=cast(InputType, input_type)))
        return next(text for name, text in emit(ir, "table").items() if name.endswith(".c"))

    return source_flash(source, input_type)


def source_flash(source: Callable[[], str], input_type: str) -> dict[str, FlashEstimate]:
    """The estimated flash, per target, of the table-style ``predict.c`` that
    ``source()`` makes for ``input_type``: its own tables, exact, and one tree walk's
    code.  A committee's C (one table of all its trees, walked by one loop) is
    estimated so too, from its own source."""
    try:
        c = source()
    except EncodingError as exc:  # a threshold the input type cannot hold, say
        return {t.target: FlashEstimate(None, None, None, f"none: {exc}") for t in TARGETS}
    kind = value_kind(input_type)
    out: dict[str, FlashEstimate] = {}
    for t in TARGETS:
        if kind not in t.code:
            why = f"none: predict.c stops with #error on its {t.double_bytes * 8}-bit {input_type}"
            out[t.target] = FlashEstimate(None, None, None, why)
            continue
        tables = table_bytes(c, t.double_bytes)
        lo, hi = t.code[kind]
        out[t.target] = FlashEstimate(tables, tables + lo, tables + hi)
    return out
