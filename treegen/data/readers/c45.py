"""C4.5 files: ``stem.names`` declares classes and attributes, ``stem.data``/``.test`` hold cases.

The ``.names`` grammar follows Release 8's name reader: a name runs up to
``,`` ``:`` ``|`` or a line end, or up to a period followed by white space;
``\\`` escapes the next character (so names may contain ``,`` ``:`` ``.``);
``|`` starts a comment; runs of blanks inside a name count as one space.
The file is the class list (``a, b, c.``) and then one entry per attribute:
``name: continuous.``, ``name: ignore.``, ``name: discrete N.`` (values taken
from the data) or ``name: v1, v2, ...``.  The closing period is optional
(Release 8's own ``vote.names`` omits it).

Data files hold one case per line, comma separated, class last, ``?`` for
unknown; a line ending in ``,`` continues on the next line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from treegen.data.dataset import Schema
from treegen.data.readers.table import Column, RawRow, RawTable, check_row_widths, check_unique
from treegen.data.readers.text import read_text, simple_columns
from treegen.data.words import counted
from treegen.errors import DatasetError

# Attribute types of C5.0/See5 names files that Release 8 does not have.
_C50_TYPES = ("label", "date", "time", "timestamp")

_BLANKS = re.compile(r"[ \t]+")


@dataclass
class _Token:
    text: str
    delim: str  # "," ":" or "" for a line end, period, comment or end of file
    line: int
    col: int


def _tokens(text: str) -> list[_Token]:
    """Split a ``.names`` file into names and the delimiter after each."""
    out: list[_Token] = []
    i, n, line, line_start = 0, len(text), 1, 0
    while i < n:
        c = text[i]
        if c == "\n":
            line, line_start, i = line + 1, i + 1, i + 1
            continue
        if c in " \t\r":
            i += 1
            continue
        if c == "|":
            while i < n and text[i] != "\n":
                i += 1
            continue
        if c in ",:":
            # An empty name before a delimiter: "a, , b" or ": x".
            out.append(_Token("", c, line, i - line_start + 1))
            i += 1
            continue
        start_col = i - line_start + 1
        buf: list[str] = []
        delim = ""
        while i < n:
            c = text[i]
            if c in ",:":
                delim = c
                i += 1
                break
            if c in "\n|":
                break
            if c == "." and (i + 1 >= n or text[i + 1] in " \t\r\n|"):
                i += 1
                break
            if c == "\\" and i + 1 < n and text[i + 1] != "\n":
                buf.append(text[i + 1])
                i += 2
                continue
            buf.append(c)
            i += 1
        out.append(_Token(_BLANKS.sub(" ", "".join(buf)).strip(), delim, line, start_col))
    return out


def parse_names(path: str) -> tuple[list[Column], tuple[str, ...]]:
    """Read a ``.names`` file: attribute columns (class excluded) and the classes."""
    toks = _tokens(read_text(path))
    if not toks:
        raise DatasetError(
            "empty file: expected the class list (e.g. 'yes, no.')", file=path, line=1
        )
    k = 0
    classes: list[_Token] = []
    while True:
        t = toks[k]
        if not t.text:
            raise DatasetError("empty class name", file=path, line=t.line, col=t.col)
        if t.delim == ":":
            raise DatasetError(
                f"expected the class list first, found attribute '{t.text}:'",
                file=path,
                line=t.line,
                col=t.col,
            )
        classes.append(t)
        k += 1
        if t.delim != ",":
            break
        if k >= len(toks):
            raise DatasetError("class list ends with ','", file=path, line=t.line, col=t.col)
    check_unique([c.text for c in classes], "class", path, [(c.line, c.col) for c in classes])
    if k >= len(toks):
        # Nothing to test: training would fail (or make one leaf) far from the cause.
        raise DatasetError(
            "no attributes: the file declares only the classes "
            "(a tree needs at least one attribute)",
            file=path,
            line=classes[-1].line,
        )

    columns: list[Column] = []
    while k < len(toks):
        name = toks[k]
        if name.delim != ":":
            raise DatasetError(
                f"expected 'name: type' but found '{name.text}' without ':'",
                file=path,
                line=name.line,
                col=name.col,
            )
        if not name.text:
            raise DatasetError("empty attribute name", file=path, line=name.line, col=name.col)
        k += 1
        if k >= len(toks) or toks[k].delim == ":":
            raise DatasetError(
                f"attribute '{name.text}' has no type", file=path, line=name.line, col=name.col
            )
        first = toks[k]
        if first.delim == ",":
            values = [first]
            while values[-1].delim == ",":
                k += 1
                if k >= len(toks):  # as the class list's: the file ends after a ','
                    v = values[-1]
                    raise DatasetError(
                        f"value list of attribute '{name.text}' ends with ','",
                        file=path,
                        line=v.line,
                        col=v.col,
                    )
                values.append(toks[k])
            k += 1
            for v in values:
                if not v.text:
                    raise DatasetError(
                        f"empty value in attribute '{name.text}'", file=path, line=v.line, col=v.col
                    )
            check_unique(
                [v.text for v in values],
                f"value of attribute '{name.text}'",
                path,
                [(v.line, v.col) for v in values],
            )
            columns.append(
                Column(name.text, "nominal", tuple(v.text for v in values), name.line, name.col)
            )
            continue
        k += 1
        word = first.text
        if word == "continuous":
            columns.append(Column(name.text, "continuous", (), name.line, name.col))
        elif word == "ignore":
            columns.append(Column(name.text, "ignore", (), name.line, name.col))
        elif re.fullmatch(r"discrete\s+[1-9][0-9]*", word):
            digits = word.split()[1]
            # More values than any file can hold is no limit (0); this also keeps
            # int() from refusing a string of more than 4300 digits.
            columns.append(
                Column(
                    name.text,
                    "open",
                    (),
                    name.line,
                    name.col,
                    max_values=int(digits) if len(digits) <= 18 else 0,
                )
            )
        else:
            # A names file written for C5.0/See5 declares types Release 8 never had.
            known = (
                "a C5.0 type, not Release 8's: declare it 'ignore' to skip the column"
                if word in _C50_TYPES
                else "expected continuous, ignore, discrete N, or two or more values"
            )
            raise DatasetError(
                f"attribute '{name.text}': unknown type '{word}' ({known})",
                file=path,
                line=first.line,
                col=first.col,
            )
    check_unique(
        [c.name for c in columns], "attribute name", path, [(c.line, c.col) for c in columns]
    )
    return columns, tuple(c.text for c in classes)


def _split_cells(line: str) -> tuple[list[str], list[int], bool]:
    """Cells of one data line (comment removed), their columns, and 'continues'."""
    cells: list[str] = []
    cols: list[int] = []
    buf: list[str] = []
    start = -1
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if c == "|":
            break
        if c == ",":
            cells.append("".join(buf))
            cols.append(start if start >= 0 else i + 1)
            buf, start = [], -1
        elif c == "\\" and i + 1 < n:
            if start < 0:
                start = i + 1
            buf.append("\x00" + line[i + 1])  # mark as escaped for the period rule
            i += 1
        else:
            if start < 0 and c not in " \t\r":
                start = i + 1
            buf.append(c)
        i += 1
    last = "".join(buf)
    continues = bool(cells) and not last.strip()
    if not continues:
        cells.append(last)
        cols.append(start if start >= 0 else i + 1)
    out = []
    for k, cell in enumerate(cells):
        cell = cell.strip(" \t\r")
        if (
            k == len(cells) - 1
            and not continues
            and cell.endswith(".")
            and not cell.endswith("\x00.")
        ):
            cell = cell[:-1].rstrip(" \t")  # the case-ending period
        out.append(_BLANKS.sub(" ", cell.replace("\x00", "")))
    return out, cols, continues


def _fast_split(line: str) -> list[str] | None:
    """The common case (no escapes, comment or continuation) without a per-character loop."""
    if "\\" in line or "|" in line:
        return None
    parts = line.split(",")
    if len(parts) > 1 and not parts[-1].strip():
        return None  # continuation line: let the careful path handle it
    cells = [p.strip(" \t") for p in parts]
    if "  " in line or "\t" in line:
        cells = [_BLANKS.sub(" ", c) for c in cells]
    if cells[-1].endswith("."):
        cells[-1] = cells[-1][:-1].rstrip(" \t")  # the case-ending period
    return cells


def read_cases(path: str, columns: list[Column]) -> RawTable:
    """Read a ``.data`` / ``.test`` file against declared columns (class last)."""
    table = RawTable(path, columns, class_index=len(columns) - 1)
    pending: RawRow | None = None
    line_no = 0
    for line_no, line in enumerate(read_text(path).split("\n"), start=1):
        fast = _fast_split(line) if pending is None else None
        if fast is not None:
            cells, cols, continues = fast, None, False
        else:
            cells, cols, continues = _split_cells(line)
        if pending is None and len(cells) == 1 and not cells[0] and not continues:
            continue  # blank or comment-only line
        if "" in cells:
            k = cells.index("")
            col = cols[k] if cols is not None else simple_columns(line)[k]
            raise DatasetError(
                "empty value (write '?' for an unknown value)", file=path, line=line_no, col=col
            )
        values: list[str | None] = [None if text == "?" else text for text in cells]
        if pending is None:
            pending = RawRow(line_no, values, cols, line)
        else:
            assert pending.cols is not None and cols is not None
            pending.values.extend(values)
            pending.cols.extend(cols)
        if not continues:
            table.rows.append(pending)
            pending = None
    if pending is not None:
        table.rows.append(pending)
    table.end_line = max(line_no, 1)
    check_row_widths(table, f"{counted(len(columns) - 1, 'attribute')} and the class")
    return table


def c45_paths(path: str) -> tuple[str, str]:
    """(names file, cases file) for DATA: ``stem``, ``stem.data``, ``.test`` or ``.names``."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix in (".data", ".test"):
        return str(p.with_suffix(".names")), path
    if suffix == ".names":
        return path, str(p.with_suffix(".data"))
    return path + ".names", path + ".data"


def schema_columns(schema: Schema) -> list[Column]:
    """Columns of a model's schema, for reading C4.5 cases by position."""
    cols = [Column(a.name, a.kind, a.values) for a in schema.attributes]
    cols.append(Column(schema.target, "nominal", schema.classes))
    return cols


def read_c45(path: str) -> tuple[RawTable, tuple[str, ...]]:
    """Read ``.names`` and the cases file; returns the table (class last) and classes."""
    names_path, cases_path = c45_paths(path)
    columns, classes = parse_names(names_path)
    columns.append(Column("class", "nominal", classes))
    return read_cases(cases_path, columns), classes
