"""The bytes of a data file for the fast path (:mod:`treegen.data.readers.fast`).

A file's first bytes cut at a line end (read further while its header does not end
within them), checked as ``read_text()`` would check them; its data rows in pieces of
:data:`PIECE` bytes, each a view of one buffer; its line ends counted by the C
tokenizer.  Whatever the fast path does not handle raises :class:`Fallback`: the
caller runs the Python reader instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from treegen.data.native import ctok
from treegen.data.readers.table import RawTable
from treegen.data.readers.text import read_bytes
from treegen.errors import DatasetError

__all__ = [
    "HEAD",
    "PIECE",
    "Fallback",
    "Section",
    "bom_end",
    "checked",
    "count_line_ends",
    "head",
    "next_line",
    "row_pieces",
    "whole_bytes",
    "with_header",
]

_LINE = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n|\Z)")
PIECE = 1 << 23  # bytes of data rows per C call when a file is read in pieces
HEAD = 1 << 20  # bytes read first for a header (more while it does not end)


class Fallback(Exception):
    """Run the Python reader instead (the reason is the message)."""


def whole_bytes(path: str) -> bytes:
    """The file's bytes, or None where read_text() would refuse them or transform
    more than a BOM and line ends (those it does the same way as ctok)."""
    return checked(read_bytes(path, DatasetError, "no such file", "is a directory"))


def checked(data: bytes) -> bytes:
    """``data`` (whole lines of a file), or Fallback / UnicodeDecodeError where
    read_text() would refuse them (see whole_bytes)."""
    if b"\0" in data:
        raise Fallback("NUL byte")
    if not data.isascii():
        data.decode("utf-8")  # UnicodeDecodeError: the Python reader reports it
    return data


def head(path: str, size: int | None = None) -> tuple[bytes, bool]:
    """The first ``size`` (default :data:`HEAD`) bytes of the file or a little less, cut
    after a line end (the whole file if it is that short), and whether that is the
    whole file."""
    if size is None:
        size = HEAD  # read when called: the tests make it small
    try:
        with open(path, "rb") as f:
            data = f.read(size + 1)
    except OSError:
        return whole_bytes(path), True  # the whole-file reader says what is wrong
    if len(data) <= size:
        return checked(data), True
    cut = max(data.rfind(b"\n"), data.rfind(b"\r")) + 1
    return checked(data[:cut]), False


def with_header(
    path: str,
    header: Callable[[str, bytes, str | None], tuple[RawTable, int, str]],
    target: str | None,
) -> tuple[bytes, bool, RawTable, int, str]:
    """The file's first bytes holding its header, whether they are the whole file,
    and ``header``'s table, data offset and separator (read further while the header
    does not end within them)."""
    size = HEAD
    while True:
        data, whole = head(path, size)
        try:
            return (data, whole, *header(path, data, target))
        except Fallback:
            if whole:
                raise
        size *= 4


def next_line(data: bytes, pos: int) -> tuple[int, str]:
    """The line starting at ``pos``: where the next one starts, and its text."""
    m = _LINE.match(data, pos)
    assert m is not None
    return m.end(), m.group(0).rstrip(b"\r\n").decode("utf-8")


def bom_end(data: bytes) -> int:
    """Where the text starts: after a UTF-8 byte order mark, if there is one."""
    return 3 if data.startswith(b"\xef\xbb\xbf") else 0


@dataclass(frozen=True)
class Section:
    """The data rows of a file: its path, its first bytes (``whole``: all of it),
    where the rows start, the format and separator."""

    path: str
    head: bytes
    whole: bool
    offset: int
    fmt: str
    sep: str


def row_pieces(section: Section) -> Iterator[memoryview]:
    """The file's data rows (from ``section.offset``) in pieces of about :data:`PIECE`
    bytes, each but the last ending after a line end (a CR LF is not split), checked as
    :func:`checked` checks.  Each is a view of one buffer the file is read into, valid
    until the next is asked for: a new bytes object a piece (and its concatenation with
    the last piece's unfinished line, and the piece cut from that) faulted in 24 MB of
    fresh pages every 8 MB of the file."""
    with open(section.path, "rb") as f:
        f.seek(section.offset)
        buf = bytearray(PIECE)
        have = 0  # the last read's unfinished line, moved to the buffer's start
        while True:
            if have == len(buf):  # a line longer than the buffer: a larger one
                buf = buf + bytearray(len(buf))
            with memoryview(buf) as view, view[have:] as free:
                got = f.readinto(free)
            if not got:
                if have:
                    _check_piece(buf, have)
                    yield memoryview(buf)[:have]
                return
            end = have + got
            cut = max(buf.rfind(b"\n", 0, end), buf.rfind(b"\r", 0, end - 1)) + 1
            if cut:
                _check_piece(buf, cut)
                yield memoryview(buf)[:cut]
            have = end - cut
            buf[:have] = buf[cut:end]  # (the same length: the buffer is not resized)


def _check_piece(buf: bytearray, size: int) -> None:
    """:func:`checked` on ``buf[:size]`` without copying it where it is ASCII: the
    whole buffer is tested first (the bytes after the piece are the file's too, or
    zeros, or earlier bytes of the file), the piece alone only where that fails."""
    if buf.find(b"\0", 0, size) >= 0:
        raise Fallback("NUL byte")
    if not buf.isascii():
        checked(bytes(buf[:size]))


def count_line_ends(section: Section) -> int:
    """How many line ends (CR or LF bytes) the file holds after ``section.offset``,
    read a block at a time into one buffer and counted by the tokenizer."""
    assert ctok is not None
    count = 0
    buf = bytearray(PIECE)
    with open(section.path, "rb") as f:
        f.seek(section.offset)
        while got := f.readinto(buf):
            count += ctok.line_ends(buf, got)
    return count
