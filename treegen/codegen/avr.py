"""What an AVR build of predict.c cannot hold, said in one treegen line.

avr-gcc's pointers and ``size_t`` are 16 bits, so no object may exceed 32,767 bytes
(PTRDIFF_MAX): a larger constant table stops the build with "size of array is too
large", which names no option.  :func:`too_large` finds the largest table of the
generated predict.c; :func:`avr_message` says its size, the limit and the options that
shrink it (an imported ensemble's: :func:`ensemble_avr_message`).  The emitters put
that message in an ``#error`` under ``__AVR__`` (treegen.codegen.emit, and
treegen.ensemble.emit), and ``export --report``, ``export --on avr`` and
``verify --on avr`` refuse with the line the C carries before any compiler runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from treegen.codegen.ctype import TYPES
from treegen.codegen.options import ExportOptions
from treegen.codegen.parts import source_and_header

AVR_MAX_OBJECT = 32767
"""The largest object, in bytes, avr-gcc accepts (PTRDIFF_MAX with 16-bit pointers)."""

_BYTES = {t.c_name: t.bits // 8 for t in TYPES.values()}

# The constant tables the templates declare: "static const TYPE NAME[N]" or "[N][M]".
_TABLE = re.compile(r"^static const (\w+) (\w+)\[(\d+)\](?:\[(\d+)\])?", re.M)


@dataclass(frozen=True, slots=True)
class Table:
    name: str
    size: int  # bytes


def tables(source: str) -> list[Table]:
    """Every constant table the generated ``source`` declares, with its size in bytes."""
    out = []
    for ctype, name, n, m in _TABLE.findall(source):
        out.append(Table(name, _BYTES.get(ctype, 1) * int(n) * int(m or 1)))
    return out


def too_large(source: str) -> Table | None:
    """The largest table of ``source`` when it is above :data:`AVR_MAX_OBJECT`."""
    big = max(tables(source), key=lambda t: t.size, default=None)
    return big if big is not None and big.size > AVR_MAX_OBJECT else None


def shrinkers(missing: str, proba: bool, input_type: str) -> list[str]:
    """The export options that make a tree's tables smaller, of those the export (its
    ``--missing``, whether it has predict_proba, its ``--input-type``) does not use."""
    out = []
    if missing == "c45":
        out.append("--missing none (no share tables)")
    if proba:
        out.append("--missing none --no-proba (no distributions)")
    if input_type in ("float", "double"):
        out.append("an integer --input-type (1- or 2-byte thresholds)")
    return out + ["a smaller tree (train with a larger -m or a smaller -c)"]


ENSEMBLE_VALUES = "_value"
"""The suffix of an ensemble's table of leaf values (doubles), which no export option
shrinks: only fewer leaves do."""


def ensemble_shrinkers(table: Table, input_type: str) -> list[str]:
    """What makes an imported ensemble's largest table smaller: its leaves' values only
    by fewer leaves; its tests' tables by an integer input type too."""
    out = []
    if not table.name.endswith(ENSEMBLE_VALUES) and input_type in ("float", "double"):
        out.append("an integer --input-type (1- or 2-byte thresholds)")
    # In no one library's words: scikit-learn's max_leaf_nodes is LightGBM's num_leaves.
    return out + ["a smaller model (fit it with fewer trees, or fewer leaves a tree)"]


def _refusal(table: Table, verb: str, ways: list[str]) -> str:
    return (
        f"the table {table.name} takes {table.size:,} bytes, above the {AVR_MAX_OBJECT:,} "
        f"an AVR object may have; {verb} {', or '.join(ways)}"
    )


def avr_message(table: Table, missing: str, proba: bool, input_type: str) -> str:
    """One line: the table, its size, the limit, and what shrinks it (a tree's)."""
    return _refusal(table, "export with", shrinkers(missing, proba, input_type))


def ensemble_avr_message(table: Table, input_type: str) -> str:
    """:func:`avr_message` for an imported ensemble: "export a smaller model" where no
    option shrinks the table, else "export with" the options, or a smaller model."""
    ways = ensemble_shrinkers(table, input_type)
    return _refusal(table, "export" if len(ways) == 1 else "export with", ways)


AVR_ERROR = re.compile(r'^#error "treegen: (.*)"$', re.M)
"""The line an emitter writes under ``__AVR__`` with its own :func:`avr_message`."""


def check_files(files: dict[str, str], opts: ExportOptions) -> str | None:
    """The refusal of an AVR build of ``files`` exported with ``opts``, or None: the
    message the emitter put in the C (each kind says what shrinks its own tables), else
    a tree's."""
    source = files[source_and_header(files)[0]]
    table = too_large(source)
    if table is None:
        return None
    written = AVR_ERROR.search(source)
    if written is not None:
        return written.group(1)
    return avr_message(table, opts.missing, opts.wants_proba, opts.input_type)
