"""A CSV or C4.5 file's weight column (``--weights COLUMN``): each row's instance weight.

The column is taken out of the table before it is encoded, so it is no attribute, and
its cells become the rows' weights, as an ARFF row's ``{w}`` does
(:mod:`treegen.data.readers.arff`): a finite number at least 0, else an error at the
cell's line and column.  Taken out, the file is the weighted ARFF file's twin: the same
attributes, classes, weights and so the same tree.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from treegen.data.dataset import Schema
from treegen.data.readers.table import RawTable, parse_number, shorten
from treegen.errors import DatasetError, UsageError

OPTION = "--weights"


def take_weight_column(table: RawTable, name: str, target: str | None) -> None:
    """Move column ``name`` of ``table`` into its rows' weights.  Without ``target`` and
    with the weight column last, the class is the column before it (the last one left),
    as it is in the same file without the weight column."""
    names = [c.name for c in table.columns]
    if name not in names:
        raise UsageError(f"no column named '{name}' (columns: {', '.join(names)})", option=OPTION)
    j = names.index(name)
    if j == table.class_index and target is not None:
        raise UsageError(f"column '{name}' is the class column", option=OPTION)
    if len(names) < 3:
        raise UsageError(f"'{name}' would leave no attribute beside the class", option=OPTION)
    for row in table.rows:
        cell = row.values[j]
        col = row.col(j)  # fills row.cols before the cell leaves them
        row.weight = _weight(cell, name, (table.path, row.line, col))
        del row.values[j]
        if row.cols is not None:
            del row.cols[j]
        row.raw = ""  # its columns are row.cols now, not the line's cells
    del table.columns[j]
    if j < table.class_index or (target is None and j == table.class_index):
        table.class_index -= 1


def refuse_attribute_options(name: str, nominal: Sequence[str], ignore: Sequence[str]) -> None:
    """The weight column is taken out before the attributes are made, so --nominal or
    --ignore naming it too would find no such column: say which column it is instead."""
    for opt, given in (("--ignore", ignore), ("--nominal", nominal)):
        if name in given:
            raise UsageError(
                f"column '{name}' is also named by {opt} (a weight column is no attribute: "
                f"leave it out of {opt})",
                option=OPTION,
            )


def refuse_model_column(schema: Schema, name: str) -> None:
    """A weight column read for a model may not be one of its attributes or its class:
    the file's columns would then no longer be the model's."""
    if name in (a.name for a in schema.attributes):
        raise UsageError(
            f"'{name}' is an attribute of the model, not a weight column", option=OPTION
        )
    if name == schema.target:
        raise UsageError(f"'{name}' is the model's class, not a weight column", option=OPTION)


def _weight(cell: str | None, name: str, at: tuple[str, int, int | None]) -> float:
    """The weight a cell gives: a finite number at least 0 (a missing cell is none)."""
    path, line, col = at
    if cell is None:
        raise DatasetError(
            f"missing weight (column '{name}'): a weight is a number at least 0",
            file=path,
            line=line,
            col=col,
        )
    value = parse_number(cell.strip())
    if value is None or not math.isfinite(value) or value < 0:
        raise DatasetError(
            f"weight '{shorten(cell)}' (column '{name}') is not a number at least 0",
            file=path,
            line=line,
            col=col,
        )
    return value
