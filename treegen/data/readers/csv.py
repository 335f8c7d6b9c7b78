"""CSV files: a header row, then one case per line.

Fields are separated by ``,`` (by a tab for ``.tsv``/``.tab`` files, or
when the header has tabs or semicolons but no commas outside quotes) and
may be quoted with ``"`` (a doubled ``""`` inside quotes is one quote, and a
quoted field may span lines).  ``?`` and empty cells are missing.  The class
is ``--target NAME`` or the last column.  Column kinds are inferred later
(:func:`treegen.data.readers.encode.build_dataset`): a column whose non-missing
cells are all numbers is continuous, any other is nominal with its values in
first-seen order.
"""

from __future__ import annotations

import re
from pathlib import Path

from treegen.data.dataset import printed_name
from treegen.data.readers.table import (
    Column,
    RawRow,
    RawTable,
    check_row_widths,
    check_unique,
    shorten,
)
from treegen.data.readers.text import (
    FieldError,
    QuoteError,
    read_text,
    simple_columns,
    split_fields,
    split_simple,
)
from treegen.data.words import counted
from treegen.errors import DatasetError

_Record = tuple[int, list[str | None], "list[int] | None", str]
_QUOTED = re.compile(r'"[^"]*"')


def _records(text: str, path: str, sep: str) -> list[_Record]:
    """Non-blank records: line number, cells (None = missing), columns, raw line.

    Columns are None for plainly split lines (computed on demand for errors);
    quoted fields may span lines.
    """
    out: list[_Record] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line_no, line = i + 1, lines[i]
        i += 1
        if not line.strip():
            continue
        plain = split_simple(line, sep=sep, quotes='"', backslash=False)
        if plain is not None:
            out.append((line_no, [None if not f or f == "?" else f for f in plain], None, line))
            continue
        while True:
            try:
                fields, cols, quoted = split_fields(line, sep=sep, quotes='"', backslash=False)
                break
            except QuoteError as err:
                if i >= len(lines):
                    raise DatasetError(
                        "unterminated quote", file=path, line=line_no, col=err.col
                    ) from None
                line = line + "\n" + lines[i]
                i += 1
            except FieldError as err:
                # The record may span lines: name the line and column the text is at.
                before = line[: err.col - 1]
                raise DatasetError(
                    str(err),
                    file=path,
                    line=line_no + before.count("\n"),
                    col=err.col - (before.rfind("\n") + 1),
                ) from None
        values: list[str | None] = [
            None if not f or (f == "?" and not q) else f
            for f, q in zip(fields, quoted, strict=True)
        ]
        out.append((line_no, values, cols, line))
    return out


# Excel's first line "sep=;" names the separator of the lines below it.
_EXCEL_SEP = re.compile(r"\ufeff?\s*sep=.\s*\Z")


def separator(path: str, text: str) -> str:
    """``,`` normally; a tab for .tsv/.tab files or a header with tabs but no commas;
    ``;`` for a header with semicolons but no commas (spreadsheets in some locales).
    Only the header's unquoted text counts: ``"x,y";b;c`` names a column ``x,y``."""
    if Path(path).suffix.lower() in (".tsv", ".tab"):
        return "\t"
    header = next((line for line in text.split("\n", 50) if line.strip()), "")
    # A quoted name's commas are its own; a doubled "" inside quotes splits the quoted
    # text in two spans, which the pattern removes all the same.
    header = _QUOTED.sub("", header)
    if "," not in header:
        if "\t" in header:
            return "\t"
        if ";" in header:
            return ";"
    return ","


def _csvsaver_hint(table: RawTable, line: int | None, sep: str) -> str:
    """Why row ``line`` may have too many cells: Weka's CSVSaver quotes with '...' and
    backslashes, which is not CSV's quoting ('over,cast' is two cells here)."""
    raw = next((r.raw for r in table.rows if r.line == line), "")
    if any(f.strip()[:1] == "'" for f in raw.split(sep)):
        return (
            " (a value in '...' as Weka's CSVSaver quotes it? CSV quotes with \"...\": "
            "give treegen the ARFF file)"
        )
    return ""


def _comment_hint(line: int, raw: str) -> str:
    """Why the rows may not fit the header: a data logger's ``# ...`` line above it,
    read as the header (CSV has no comments)."""
    if not raw.lstrip("\ufeff \t").startswith("#"):
        return ""
    shown = printed_name(shorten(raw))
    return f" (line {line}, '{shown}', is read as the header: a comment? CSV has none: delete it)"


def read_csv(path: str, target: str | None = None) -> RawTable:
    """Read a CSV file into a table whose columns are all of kind ``infer``."""
    return parse_csv(path, read_text(path), target)


def parse_csv(path: str, text: str, target: str | None = None) -> RawTable:
    """:func:`read_csv` on the file's ``text`` (the fast reader passes the header only)."""
    sep = separator(path, text)
    records = _records(text, path, sep)
    if not records:
        raise DatasetError("empty file: expected a header row", file=path, line=1)
    header_line, header, header_cols, header_raw = records[0]
    name_cols = header_cols if header_cols is not None else simple_columns(header_raw, sep)
    for i, (name, col) in enumerate(zip(header, name_cols, strict=False)):
        if not name:
            # The two usual sources: pandas' to_csv() names no index column, and a
            # spreadsheet's export may end every line with a separator.
            why = (
                " (pandas writes its index so: name it, or write with index=False)"
                if i == 0 and len(header) > 1
                else f" (line {header_line}, '{printed_name(header_raw)}', is Excel's "
                "separator line, not a header: delete it; treegen tells the separator from "
                "the header)"
                if _EXCEL_SEP.match(header_raw)
                else " (a separator at the end of the line?)"
                if i == len(header) - 1 and i > 0
                else ""
            )
            raise DatasetError(
                f"empty column name in the header{why}", file=path, line=header_line, col=col
            )
    names = [n or "" for n in header]
    check_unique(names, "column name", path, [(header_line, c) for c in name_cols])
    columns = [
        Column(n, "infer", (), header_line, c) for n, c in zip(names, name_cols, strict=False)
    ]
    table = RawTable(path, columns, end_line=header_line + 1)
    for line_no, values, cols, raw in records[1:]:
        table.rows.append(RawRow(line_no, values, cols, raw, sep))
    if records[1:]:
        table.end_line = records[-1][0] + 1
    try:
        check_row_widths(table, f"{counted(len(columns), 'column')} in the header")
    except DatasetError as err:
        err.message += _csvsaver_hint(table, err.line, sep) or _comment_hint(
            header_line, header_raw
        )
        raise
    if target is None:
        table.class_index = len(columns) - 1
    elif target in names:
        table.class_index = names.index(target)
    else:
        raise DatasetError(
            f"no column named '{target}' for --target (columns: {', '.join(names)})",
            file=path,
            line=header_line,
        )
    return table
