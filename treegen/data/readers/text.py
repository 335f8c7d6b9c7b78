"""Reading a data file as text: UTF-8 (a BOM is accepted), any line ending.

Every reader goes through :func:`read_text` so that BOMs, CRLF or CR line
endings, unreadable files and bytes that are not UTF-8 are handled, and
reported, the same way for all formats.
"""

from __future__ import annotations

import os

from treegen.errors import DatasetError, ModelFileError, TreegenError


def read_bytes(
    path: str, error: type[TreegenError], missing: str, folder: str, limit: int = -1
) -> bytes:
    """The file's bytes (its first ``limit``, if given); a missing file (``missing``), a
    folder (``folder``) or an unreadable file is an ``error`` naming ``path``.  Shared by
    the data readers, the model file loader and the importers."""
    try:
        with open(path, "rb") as f:
            return f.read(limit)
    except FileNotFoundError:
        raise error(missing, file=path) from None
    except IsADirectoryError:
        raise error(folder, file=path) from None
    except OSError as err:
        raise error(f"cannot read: {err.strerror}", file=path) from None


def read_model_bytes(path: str | os.PathLike[str], limit: int = -1) -> bytes:
    """An imported model file's bytes (its first ``limit``): a missing file or a folder
    worded as every other file treegen reads.  The importers' one reading rule."""
    return read_bytes(
        os.fspath(path), ModelFileError, "no such file", "is a folder, not a model file", limit
    )


def byte_position(data: bytes, offset: int) -> tuple[int, int]:
    """The 1-based line and column of byte ``offset`` of ``data`` (lines end at ``\n``):
    where a decoding error is reported."""
    line = data.count(b"\n", 0, offset) + 1
    return line, offset - (data.rfind(b"\n", 0, offset) + 1) + 1


def _utf16(data: bytes) -> bool:
    """Whether ``data`` looks like UTF-16 text (Excel's "Unicode Text", Windows tools): a
    UTF-16 byte-order mark, or ASCII text with a NUL after (or before) every character."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return True
    head = data[:200]
    return len(head) >= 4 and (
        head[1::2].count(0) == len(head) // 2 or head[::2].count(0) == len(head) // 2
    )


# The first bytes of compressed files people keep data in (gzip, zip, bzip2, xz, zstd),
# which are no text: the error names the compression rather than a byte.
_COMPRESSED = (
    (b"\x1f\x8b", "gzip"),
    (b"PK\x03\x04", "zip"),
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
)


def read_text(path: str) -> str:
    """The file's text with ``\\n`` line ends and without a byte-order mark."""
    data = read_bytes(path, DatasetError, "no such file", "is a directory, not a data file")
    for magic, name in _COMPRESSED:
        if data.startswith(magic):
            raise DatasetError(
                f"a {name}-compressed file, not text: decompress it first", file=path
            )
    # UTF-16 is text, but not UTF-8: say so rather than name its first odd byte.
    utf16 = _utf16(data)
    hint = "UTF-16 text: convert the file to UTF-8" if utf16 else "convert the file to UTF-8"
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line, col = byte_position(data, err.start)
        raise DatasetError(
            f"byte 0x{data[err.start]:02x} is not UTF-8 text ({hint})",
            file=path,
            line=line,
            col=col,
        ) from None
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        what = f"this looks like {hint}" if utf16 else "this is not a text file"
        raise DatasetError(f"NUL byte: {what}", file=path, line=line)
    return text


class FieldError(ValueError):
    """A field :func:`split_fields` cannot read; ``col`` is where, the message what."""

    def __init__(self, col: int, message: str) -> None:
        super().__init__(message)
        self.col = col


class QuoteError(FieldError):
    """An unterminated quoted field; ``col`` is where the quote opened (a CSV field may
    go on on the next line)."""

    def __init__(self, col: int) -> None:
        super().__init__(col, "unterminated quote")


class AfterQuoteError(FieldError):
    """Text between a closing quote and the separator (``"5" ft``); ``col`` is where it
    starts.  Neither dropped (the field would read as ``5``) nor glued on: an error."""

    def __init__(self, col: int) -> None:
        super().__init__(col, "text after a closing quote (quote the whole field)")


ESCAPES = {"n": "\n", "t": "\t", "r": "\r"}


def simple_columns(line: str, sep: str = ",") -> list[int]:
    """1-based start columns of the fields of a line split plainly on ``sep``.

    Computed only when an error needs a column: the fast paths of the
    readers skip it for the millions of cells that are fine.
    """
    cols: list[int] = []
    pos = 0
    for p in line.split(sep):
        stripped = p.lstrip()
        cols.append(pos + len(p) - len(stripped) + 1 if stripped.strip() else pos + 1)
        pos += len(p) + len(sep)
    return cols


def split_simple(
    line: str, *, sep: str = ",", quotes: str = "\"'", backslash: bool = True
) -> list[str] | None:
    """The stripped fields of a line with no quotes or escapes, else None (then
    :func:`split_fields` reads it)."""
    if any(q in line for q in quotes) or (backslash and "\\" in line):
        return None
    return [p.strip() for p in line.split(sep)]


def split_fields(
    line: str, *, sep: str = ",", quotes: str = "\"'", backslash: bool = True
) -> tuple[list[str], list[int], list[bool]]:
    """Split one line into fields, honouring quotes: a line that :func:`split_simple`
    did not take, or a quoted ARFF name.

    Returns the field texts (unquoted, surrounding blanks removed), the
    1-based column where each field starts, and whether each was quoted (a
    quoted ``?`` is a value, not a missing mark).  ``backslash`` enables ARFF's
    ``\\'`` escapes; without it a doubled quote inside quotes stands for one (RFC 4180).
    Raises :class:`QuoteError` for an unterminated quote, :class:`AfterQuoteError` for
    text after a closing quote other than blanks before the separator.
    """
    fields: list[str] = []
    cols: list[int] = []
    quoted: list[bool] = []
    buf: list[str] = []
    start, is_quoted = -1, False
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if c == sep:
            fields.append("".join(buf) if is_quoted else "".join(buf).strip())
            cols.append(start if start >= 0 else i + 1)
            quoted.append(is_quoted)
            buf, start, is_quoted = [], -1, False
        elif c in quotes and not "".join(buf).strip():
            q, open_col = c, i + 1
            start, is_quoted, buf = i + 1, True, []
            i += 1
            while True:
                if i >= n:
                    raise QuoteError(open_col)
                c = line[i]
                if backslash and c == "\\" and i + 1 < n:
                    buf.append(ESCAPES.get(line[i + 1], line[i + 1]))
                    i += 2
                    continue
                if c == q:
                    if not backslash and i + 1 < n and line[i + 1] == q:
                        buf.append(q)
                        i += 2
                        continue
                    break
                buf.append(c)
                i += 1
            # Skip blanks between the closing quote and the separator (which may be a
            # tab itself: a .tsv file's quoted field is followed by one).
            while i + 1 < n and line[i + 1] in " \t" and line[i + 1] != sep:
                i += 1
        elif is_quoted:
            # The blanks after the closing quote are skipped: this is something else.
            raise AfterQuoteError(i + 1)
        else:
            if start < 0 and c not in " \t":
                start = i + 1
            buf.append(c)
        i += 1
    fields.append("".join(buf) if is_quoted else "".join(buf).strip())
    cols.append(start if start >= 0 else i + 1)
    quoted.append(is_quoted)
    return fields, cols, quoted
