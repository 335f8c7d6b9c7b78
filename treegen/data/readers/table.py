"""What every reader produces before encoding: a table of raw text cells.

The three formats differ only in syntax.  Each reader turns its file into a
:class:`RawTable` (declared columns plus rows of text cells with their line
and column), and :mod:`treegen.data.readers.encode` does everything else in one
place: type inference, ``--nominal`` / ``--ignore``, mapping onto a model's schema,
number parsing and the errors for bad values.  That keeps the three readers
giving the *same* :class:`~treegen.data.dataset.Dataset` for the same data.  What
the readers share of the table is here too: a number's syntax, the order of labels
no header declares, the checks of names and row widths.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from treegen.data.readers.arfftok import token_columns
from treegen.data.readers.text import simple_columns
from treegen.data.words import counted
from treegen.errors import DatasetError

# "continuous"/"nominal": declared by the file; "open": nominal with values
# taken from the data in first-seen order (C4.5 "discrete N", CSV labels);
# "infer": CSV, decided from the cells; "ignore": skipped; "reject": a type
# treegen cannot use (ARFF string/date), an error unless ignored.
ColKind = Literal["continuous", "nominal", "open", "infer", "ignore", "reject"]

# strtod-like but strict: no "nan", "inf", hex, digit separators or blanks, and ASCII
# digits only (a str pattern's \d is any Unicode digit, which float() reads: "١" was 1.0
# where strtod, Release 8 and Weka read no number).
NUMBER_TEXT = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
_NUMBER = re.compile(rf"{NUMBER_TEXT}\Z", re.ASCII)


@dataclass
class Column:
    """One declared column: name, kind, declared values and where it was declared."""

    name: str
    kind: ColKind
    values: tuple[str, ...] = ()
    line: int | None = None
    col: int | None = None
    max_values: int = 0  # C4.5 "discrete N": at most N values (0 = no limit)
    reject_reason: str = ""


def column_kind(c: Column, nominal: Sequence[str], ignore: Sequence[str]) -> str:
    """The kind a column is read as once ``--ignore`` and ``--nominal`` are applied: an
    ignored column is skipped; a continuous or undeclared one named by ``--nominal`` is
    read as an open nominal (its values taken from the data)."""
    if c.name in ignore:
        return "ignore"
    if c.name in nominal and c.kind in ("continuous", "infer"):
        return "open"
    return c.kind


@dataclass
class RawRow:
    """The text cells of one case (``None`` = missing) and where each started.

    ``cols`` may be left None for a line that was split plainly on ``sep``
    (no quotes or escapes); :meth:`col` then recomputes it from ``raw``.  ``sep``
    ``" "`` marks an ARFF line split as Weka splits it, on blanks and commas alike.
    """

    line: int
    values: list[str | None]
    cols: list[int] | None = None
    raw: str = ""
    sep: str = ","
    weight: float | None = None  # an ARFF row's instance weight ({w}), when read

    def col(self, j: int) -> int | None:
        """1-based column where cell ``j`` starts (None if there is no such cell)."""
        if self.cols is None:
            raw = self.raw
            self.cols = token_columns(raw) if self.sep == " " else simple_columns(raw, self.sep)
        if 0 <= j < len(self.cols):
            return self.cols[j]
        return None


@dataclass
class RawTable:
    """A parsed file: declared columns, rows, and which column is the class."""

    path: str
    columns: list[Column]
    rows: list[RawRow] = field(default_factory=list)
    class_index: int = -1
    # Where the row count is reported for an empty file (line after the header).
    end_line: int = 1

    def weights(self) -> list[float] | None:
        """Each row's instance weight (1 where a row gives none), or None when no row
        gives one."""
        if all(r.weight is None for r in self.rows):
            return None
        return [1.0 if r.weight is None else r.weight for r in self.rows]


def parse_number(text: str) -> float | None:
    """The value of a numeric cell (inf if the literal overflows a double), or None
    when it is not a number."""
    if not _NUMBER.match(text):
        return None
    return float(text)  # float(), unlike int(), has no digit limit


def shorten(text: str, limit: int = 40) -> str:
    """``text`` for an error message: a 200,000-digit cell is not repeated in full."""
    if len(text) <= limit:
        return text
    return f"{text[: limit // 2]}...{text[-8:]} ({len(text)} characters)"


def check_unique(
    names: Sequence[str], what: str, path: str, where: Sequence[tuple[int | None, int | None]]
) -> None:
    """Raise for the second occurrence of a duplicated name."""
    seen: set[str] = set()
    for i, name in enumerate(names):
        if name in seen:
            line, col = where[i]
            raise DatasetError(f"duplicate {what} '{name}'", file=path, line=line, col=col)
        seen.add(name)


def check_row_widths(table: RawTable, what: str) -> None:
    """Every row must have exactly one cell per declared column."""
    width = len(table.columns)
    for row in table.rows:
        n = len(row.values)
        if n != width:
            col = row.col(width) if n > width else row.col(n - 1)
            raise DatasetError(
                f"expected {counted(width, 'value')} ({what}), found {n}",
                file=table.path,
                line=row.line,
                col=col,
            )


_INTEGER = re.compile(r"[+-]?\d+\Z", re.ASCII)


def label_order(seen: Sequence[str]) -> tuple[tuple[str, ...], str]:
    """The classes of a column of labels no header declares (a CSV's, or a numeric class
    read with --nominal), from their texts in first-seen order: sorted as scikit-learn's
    ``np.unique(y)`` sorts them, typed as they read.  Integers (``+7``, ``10``) sort as
    numbers and are recorded as ``"int"``, other numbers likewise as ``"float"``, and
    anything else sorts as text (code point order) and stays ``"str"``; texts that read as
    the same number (``1`` and ``01``) stay text."""
    if seen and all(_INTEGER.match(t.strip()) for t in seen):
        ints = [int(t) for t in seen]
        if len(set(ints)) == len(ints):
            return tuple(t for _, t in sorted(zip(ints, seen, strict=True))), "int"
    numbers = [parse_number(t.strip()) for t in seen]
    if seen and all(v is not None for v in numbers):
        floats = [float(v) for v in numbers if v is not None]
        if len(set(floats)) == len(floats):
            return tuple(t for _, t in sorted(zip(floats, seen, strict=True))), "float"
    return tuple(sorted(seen)), "str"
