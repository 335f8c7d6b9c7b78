"""Weka ARFF files: ``@relation``, ``@attribute``, ``@data``, dense and sparse rows.

Supported: keywords in any case; attribute names and values quoted with
``'`` or ``"`` (backslash escapes as Weka writes them) or bare; ``%``
comments, also after content; ``numeric``/``real``/``integer`` attributes
(continuous) and ``{v1, v2, ...}`` nominal ones; ``?`` for a missing value (and a
numeric attribute's ``NaN``, Java's and so Weka's missing value); values
separated by commas, blanks or both, as Weka's tokenizer separates them
(:mod:`~treegen.data.readers.arfftok`), and a first row on the ``@data`` line;
sparse rows ``{index value, ...}`` (indices increasing, as Weka requires) where an
omitted entry is 0 for a numeric attribute and the first declared value for a
nominal one (Weka's meaning).
``string``, ``date`` and ``relational`` attributes cannot be used for a tree:
they are an error that names the attribute unless it is ignored
(``--ignore NAME``).  Instance weights (``{w}`` after a row) are read when asked, else
rejected.
"""

from __future__ import annotations

import math
import re

from treegen.data.readers.arfftok import plain_tokens, split_tokens
from treegen.data.readers.table import (
    Column,
    RawRow,
    RawTable,
    check_row_widths,
    check_unique,
    parse_number,
    shorten,
)
from treegen.data.readers.text import FieldError, read_text, split_fields
from treegen.data.words import counted
from treegen.errors import DatasetError

_CONTINUOUS = ("numeric", "real", "integer")


def _name_and_rest(text: str, path: str, line: int, col: int) -> tuple[str, str, int]:
    """Split ``NAME rest`` where NAME may be quoted; returns (name, rest, rest column)."""
    if text[:1] and text[0] in "'\"":  # ('' is "in" every string)
        # Find the closing quote (skipping backslash escapes) to locate the rest.
        q, i = text[0], 1
        while i < len(text) and text[i] != q:
            i += 2 if text[i] == "\\" else 1
        if i >= len(text):
            raise DatasetError(
                "unterminated quote in attribute name", file=path, line=line, col=col
            )
        name = _unquote_name(text[: i + 1])
        rest = text[i + 1 :]
    else:
        m = re.match(r"[^\s{]+", text)
        if not m:
            raise DatasetError("missing attribute name", file=path, line=line, col=col)
        name, rest = m.group(0), text[m.end() :]
    stripped = rest.lstrip()
    return name, stripped, col + len(text) - len(stripped)


def _unquote_name(quoted: str) -> str:
    fields, _, _ = split_fields(quoted, sep="\x01")
    return fields[0]


def _attribute(text: str, path: str, line: int, col: int) -> Column:
    """Parse what follows ``@attribute``."""
    name, rest, rest_col = _name_and_rest(text, path, line, col)
    if not name:
        raise DatasetError("empty attribute name", file=path, line=line, col=col)
    if not rest:
        raise DatasetError(f"attribute '{name}' has no type", file=path, line=line, col=col)
    if rest.startswith("{"):
        close = _closing_brace(rest)
        if close < 0:
            raise DatasetError(
                f"attribute '{name}': missing '}}'", file=path, line=line, col=rest_col
            )
        try:
            # Blanks separate the values as commas do: {a b} is two values to Weka.
            values, vcols, _, _ = split_tokens(rest[1:close], brace_stops=False)
        except FieldError as err:
            raise DatasetError(str(err), file=path, line=line, col=rest_col + err.col) from None
        if not values:
            raise DatasetError(
                f"attribute '{name}' declares no values", file=path, line=line, col=rest_col
            )
        for v, c in zip(values, vcols, strict=True):
            if not v:
                raise DatasetError(
                    f"empty value in attribute '{name}'", file=path, line=line, col=rest_col + c
                )
        check_unique(
            values, f"value of attribute '{name}'", path, [(line, rest_col + c) for c in vcols]
        )
        return Column(name, "nominal", tuple(values), line, col)
    word = rest.split()[0].lower()
    if word in _CONTINUOUS:
        return Column(name, "continuous", (), line, col)
    if word == "relational":
        # Its nested @attribute ... @end block is not parsed: stop here, clearly.
        raise DatasetError(
            f"attribute '{name}': relational attributes are not supported",
            file=path,
            line=line,
            col=rest_col,
        )
    if word in ("string", "date"):
        return Column(
            name, "reject", (), line, col, reject_reason=f"{word} attributes are not supported"
        )
    raise DatasetError(
        f"attribute '{name}': unknown type '{rest.split()[0]}' (expected numeric, "
        "real, integer or {values})",
        file=path,
        line=line,
        col=rest_col,
    )


def _closing_brace(text: str) -> int:
    """Index of the ``}`` that closes ``text[0] == '{'``, skipping quoted parts."""
    q = ""
    i = 1
    while i < len(text):
        c = text[i]
        if q:
            if c == "\\":
                i += 1
            elif c == q:
                q = ""
        elif c in "'\"":
            q = c
        elif c == "}":
            return i
        i += 1
    return -1


def _sparse_row(
    body: str,
    columns: list[Column],
    path: str,
    line: int,
    col0: int,
) -> tuple[list[str | None], list[int]]:
    """Expand ``{i v, j w}`` (``col0``: the column of its ``{``) into a dense row of
    cells; as in Weka, blanks separate the entries as well as commas do."""
    values: list[str | None] = [
        ("0" if c.kind == "continuous" else (c.values[0] if c.values else None)) for c in columns
    ]
    cols = [col0] * len(columns)
    try:
        tokens, tcols, quoted, _ = split_tokens(body, brace_stops=False)
    except FieldError as err:
        raise DatasetError(str(err), file=path, line=line, col=col0 + err.col) from None
    previous = -1
    for k in range(0, len(tokens), 2):
        digits, c = tokens[k], col0 + tcols[k]
        if quoted[k] or k + 1 == len(tokens) or not re.fullmatch(r"\d+", digits, re.ASCII):
            entry = " ".join(tokens[k : k + 2])
            raise DatasetError(
                f"sparse entry '{entry}' is not 'INDEX VALUE'", file=path, line=line, col=c
            )
        # Compared as text first: int() refuses strings of more than 4300 digits.
        index = int(digits) if len(digits) <= 18 else len(columns)
        if index >= len(columns):
            raise DatasetError(
                f"sparse index {shorten(digits)} is out of range (0..{len(columns) - 1})",
                file=path,
                line=line,
                col=c,
            )
        if index <= previous:
            # Weka refuses it too ("indices have to be ordered"): a repeated index
            # would keep only its last value, silently.
            raise DatasetError(
                f"sparse index {index} is not above the one before it ({previous}): "
                "the indices of a sparse row must increase",
                file=path,
                line=line,
                col=c,
            )
        previous = index
        value = tokens[k + 1]
        values[index] = None if value == "?" and not quoted[k + 1] else value
        cols[index] = c  # the entry's column, where its index starts
    return values, cols


def read_arff(path: str, target: str | None = None, *, weights: bool = False) -> RawTable:
    """Read an ARFF file; the class is ``target`` or else the last attribute.  A row's
    instance weight (``{w}`` after it) is read with ``weights`` (training), else an
    error at it."""
    return parse_arff(path, read_text(path), target, weights=weights)


def arff_keyword(stripped: str) -> str:
    """The lower-cased first word of a header line (``@data``, ``@attribute``, ...):
    ``%`` starts a comment anywhere outside quotes, right after a keyword too."""
    return stripped.split(None, 1)[0].split("%", 1)[0].lower()


def parse_arff(
    path: str, text: str, target: str | None = None, *, weights: bool = False
) -> RawTable:
    """:func:`read_arff` on the file's ``text`` (the fast reader passes the header only)."""
    columns: list[Column] = []
    table = RawTable(path, columns)
    in_data = False
    line_no = 0
    for line_no, line in enumerate(text.split("\n"), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("%"):
            continue
        col = len(line) - len(line.lstrip()) + 1
        if not in_data:
            keyword = arff_keyword(stripped)
            rest = stripped[len(keyword) :].strip()
            rest_col = col + len(stripped) - len(stripped[len(keyword) :].lstrip())
            if keyword == "@relation":
                continue
            if keyword == "@attribute":
                columns.append(_attribute(_strip_comment(rest), path, line_no, rest_col))
                continue
            if keyword == "@data":
                in_data = True
                if not columns:
                    raise DatasetError(
                        "@data before any @attribute", file=path, line=line_no, col=col
                    )
                check_unique(
                    [c.name for c in columns],
                    "attribute name",
                    path,
                    [(c.line, c.col) for c in columns],
                )
                if not _strip_comment(rest):
                    continue
                # Weka reads the rest of the @data line as the first row; the keyword
                # blanked out, the row's cells keep their columns.
                end = len(line) - len(line.lstrip()) + len(keyword)
                line, col = " " * end + line[end:], rest_col
            else:
                raise DatasetError(
                    f"expected @relation, @attribute or @data, found '{stripped.split()[0]}'",
                    file=path,
                    line=line_no,
                    col=col,
                )
        row = _data_row(line, columns, (path, line_no, col), weights)
        if row is not None:
            table.rows.append(_nan_missing(row, columns) if "NaN" in line else row)
    if not in_data:
        raise DatasetError(
            "no @data section" if columns else "empty file: no @attribute lines",
            file=path,
            line=max(line_no, 1),
        )
    table.end_line = max(line_no, 1)
    check_row_widths(table, counted(len(columns), "attribute"))
    names = [c.name for c in columns]
    if target is None:
        table.class_index = len(columns) - 1
    elif target in names:
        table.class_index = names.index(target)
    else:
        raise DatasetError(
            f"no attribute named '{target}' for --target (attributes: {', '.join(names)})",
            file=path,
        )
    return table


def _strip_comment(text: str) -> str:
    """Drop a trailing ``% comment`` outside quotes and braces' quoted values."""
    q = ""
    escaped = False
    for i, c in enumerate(text):
        if q:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == q:
                q = ""
        elif c in "'\"":
            q = c
        elif c == "%":
            return text[:i].rstrip()
    return text


_WEIGHTS = (
    "instance weights ('{w}' after a row) are read by train, cv, predict and a tree's eval "
    "only (treegen.train too)"
)
# Java's Double.valueOf reads these as NaN, which is Weka's missing value.
_JAVA_NAN = frozenset({"NaN", "+NaN", "-NaN"})


def _nan_missing(row: RawRow, columns: list[Column]) -> RawRow:
    """``row`` with a numeric attribute's ``NaN`` missing, as Weka reads it."""
    for j, (v, c) in enumerate(zip(row.values, columns, strict=False)):
        if v in _JAVA_NAN and c.kind == "continuous":
            row.values[j] = None
    return row


def _data_row(
    line: str, columns: list[Column], at: tuple[str, int, int], weights: bool
) -> RawRow | None:
    """One data line's row, or None for a line of separators only (Weka skips it).
    ``at``: the file, the line's number and its first column; ``weights``: whether an
    instance weight is read (else it is an error)."""
    path, line_no, col = at
    body = line.strip()
    if body.startswith("{"):
        close = _closing_brace(body)
        if close < 0:
            raise DatasetError("sparse row without closing '}'", file=path, line=line_no, col=col)
        tail = _strip_comment(body[close + 1 :]).lstrip(", \t")
        values, cols = _sparse_row(body[1:close], columns, path, line_no, col)
        row = RawRow(line_no, values, cols)
        if tail:
            tail_col = col + len(body) - len(body[close + 1 :].lstrip(", \t"))
            if not tail.startswith("{"):
                raise DatasetError(
                    f"unexpected text after sparse row: '{tail}'",
                    file=path,
                    line=line_no,
                    col=tail_col,
                )
            row.weight = _weight(tail, weights, (path, line_no, tail_col))
        return row
    plain = plain_tokens(line)
    if plain is not None:
        if not plain:
            return None
        # " ": the cells' columns are recomputed as Weka's tokens (table.RawRow.col).
        return RawRow(line_no, [None if f == "?" else f for f in plain], None, line, " ")
    try:
        fields, cols, quoted, brace = split_tokens(line)
    except FieldError as err:
        raise DatasetError(str(err), file=path, line=line_no, col=err.col) from None
    weight = None
    if brace >= 0:
        weight = _weight(_strip_comment(line[brace:]), weights, (path, line_no, brace + 1))
    if not fields:
        if weight is not None:
            raise DatasetError("an instance weight without a row", file=path, line=line_no, col=col)
        return None
    row_values: list[str | None] = [
        None if f == "?" and not q else f for f, q in zip(fields, quoted, strict=True)
    ]
    return RawRow(line_no, row_values, cols, weight=weight)


def _weight(text: str, weights: bool, at: tuple[str, int, int]) -> float:
    """The instance weight ``{w}`` that ``text`` starts with (at ``at``: file, line and
    column), the last thing on its line: a finite number, not negative, as J48 can
    weigh a case.  With ``weights`` False, the error that they are not read."""
    path, line_no, col = at
    if not weights:
        raise DatasetError(_WEIGHTS, file=path, line=line_no, col=col)
    close = text.find("}")
    if close < 0:
        raise DatasetError("instance weight without closing '}'", file=path, line=line_no, col=col)
    rest = text[close + 1 :].strip(" ,\t\r")
    if rest:
        raise DatasetError(
            f"unexpected text after the instance weight: '{shorten(rest)}'",
            file=path,
            line=line_no,
            col=col + close + 1 + text[close + 1 :].index(rest[0]),
        )
    inner = text[1:close].strip()
    value = parse_number(inner)
    if value is None or not math.isfinite(value) or value < 0:
        raise DatasetError(
            f"instance weight '{shorten(inner)}' is not a number at least 0",
            file=path,
            line=line_no,
            col=col + 1 + text[1:close].index(inner[0]) if inner else col,
        )
    return value
