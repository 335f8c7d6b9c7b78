"""What kind of file a path holds, told from its first bytes (not from its name).

The command line uses it to say what went wrong when a file is given where another
kind belongs ("golf.names is a C4.5 names file; show reads a model file"), instead
of the error the wrong reader would give ("truncated file").  Recognition is
deliberately cautious: a kind is only named when the content leaves little doubt,
and :func:`file_kind` returns None otherwise (the reader then reports as usual).
A treegen model, ruleset, ensemble or committee is recognised by its ``"format"`` field
even when the file is damaged, so a broken model is never taken for data.

Only the first :data:`HEAD` bytes of a regular file are read: a FIFO or a terminal
(``/dev/stdin``) is never consumed by looking at it.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from treegen.data.readers import CSV_SUFFIXES, detect_format
from treegen.data.readers.c45 import c45_paths

HEAD = 64 * 1024


@dataclass(frozen=True)
class FileKind:
    """A kind of file: ``name`` as a message says it ("a C4.5 names file"), ``role``
    what it is for: "data", "model" (any treegen model file), "pickle", "source"
    (C code), "json" (JSON that is no treegen file), or for a library's own model file
    the import command that converts it (:data:`LIBRARY_ROLES`)."""

    name: str
    role: str


MODEL = FileKind("a treegen model file", "model")
RULESET = FileKind("a treegen ruleset file", "model")
ENSEMBLE = FileKind("a treegen ensemble file", "model")
COMMITTEE = FileKind("a treegen committee file", "model")
PICKLE = FileKind("a Python pickle", "pickle")
NAMES = FileKind("a C4.5 names file", "data")
C45_DATA = FileKind("a C4.5 data file", "data")
ARFF = FileKind("an ARFF data file", "data")
CSV = FileKind("a CSV data file", "data")
C_SOURCE = FileKind("a C source file", "source")
JSON = FileKind("a JSON file that is no treegen model", "json")
# The libraries' own files, which an import command converts (role: that command).
XGBOOST = FileKind("an XGBoost model", "import-xgboost")
LIGHTGBM = FileKind("a LightGBM text model", "import-lightgbm")
SKOPS = FileKind("a skops file", "import-sklearn")
LIBRARY_ROLES = ("import-xgboost", "import-lightgbm", "import-sklearn")

# The "format" field that comes first (a committee's member trees say "treegen-model"
# further on).  treegen.kinds registers the formats with their readers; any other
# "treegen-..." format is a model file of a kind named here only in general.
_FORMATS = {
    "treegen-model": MODEL,
    "treegen-rules": RULESET,
    "treegen-ensemble": ENSEMBLE,
    "treegen-committee": COMMITTEE,
}
_FORMAT = re.compile(r'"format"\s*:\s*"(treegen-[A-Za-z0-9_-]+)"')
_C_LINE = re.compile(r"^\s*#\s*(?:include|define|ifndef|ifdef|if|pragma)\b", re.M)
# A C4.5 names statement ends at a period followed by blank space or the end (a period
# inside a value, "3.5", does not end it), or with its line unless that ends in a comma.
_STATEMENT_END = re.compile(r"\.(?=\s|$)")
_NAMES_ATTRIBUTE = re.compile(r"^[^:,]+:\s*\S")
_NAMES_KEYWORD = re.compile(r":\s*(?:continuous|discrete\s+\d+|ignore)\s*$")
# XGBoost's save_model writes "learner" first, in JSON and in UBJSON (a count, then it).
_XGBOOST_JSON = re.compile(r'\{\s*"learner"\s*:')
_XGBOOST_UBJSON = re.compile(rb"\{[iUIlL][\x00-\xff]{1,8}learner")
_QUOTED = re.compile(r'"[^"]*"')  # a CSV quoted field ("" inside it: two of these)


def _head(path: str) -> tuple[bytes, bool] | None:
    """The first HEAD bytes of ``path`` if it is a regular file, and whether that is
    the whole file; None for anything else (missing, a folder, a FIFO, unreadable)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        with open(path, "rb") as f:
            data = f.read(HEAD + 1)
    except OSError:
        return None
    return data[:HEAD], len(data) <= HEAD


# What follows a pickle's PROTO opcode: FRAME (protocol 4 and 5), or for protocols 2 and 3
# the opcodes an object starts with (GLOBAL, EMPTY_DICT, EMPTY_LIST, MARK, ...).
_PICKLE_SECOND = {4: b"\x95", 5: b"\x95", 2: b"c}](KXN\x8c\x81", 3: b"c}](KXN\x8c\x81"}


def _is_pickle(data: bytes) -> bool:
    """Starts like a pickle of protocol 2 or later (joblib's files too): PROTO, the
    protocol, then an opcode that protocol starts with."""
    if len(data) < 3 or data[0] != 0x80:
        return False
    return data[2] in _PICKLE_SECOND.get(data[1], b"")


def _text(data: bytes) -> str | None:
    """``data`` as UTF-8 text (a character cut at the end of the head dropped), or None
    for binary content."""
    if b"\0" in data:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        if err.start < len(data) - 3:
            return None
        text = data[: err.start].decode("utf-8")
    return text.removeprefix("\ufeff")


def _lines(text: str, comment: str) -> list[str]:
    """The non-blank lines, with whole-line comments starting with ``comment`` left out."""
    out = []
    for line in text.splitlines():
        s = line.strip()
        if s and not s.startswith(comment):
            out.append(s)
    return out


def _names_statements(text: str, whole: bool) -> list[str]:
    """The statements of ``text`` read as a C4.5 names file (``|`` comments dropped)."""
    statements: list[str] = []
    pending = ""
    for line in text.splitlines():
        pending = f"{pending} {line.split('|', 1)[0].strip()}".strip()
        if pending.endswith(","):
            continue  # a list of values goes on on the next line
        statements += [s.strip() for s in _STATEMENT_END.split(pending)]
        pending = ""
    statements.append(pending)
    if not whole:
        statements = statements[:-1]  # the head may end inside a statement
    return [s for s in statements if s]


def _names(text: str, whole: bool) -> tuple[bool, bool]:
    """Whether ``text`` reads as a names file (a class list, then only ``attribute:
    declaration`` statements), and whether it has what only a names file has (a
    statement ending in a period, or a declaration ``continuous``/``discrete N``/
    ``ignore``) rather than what a table with a colon in its first column has too."""
    statements = _names_statements(text, whole)
    if len(statements) < 2 or ":" in statements[0]:
        return False, False
    if not all(_NAMES_ATTRIBUTE.match(s) for s in statements[1:]):
        return False, False
    periods = _STATEMENT_END.search("\n".join(line.split("|", 1)[0] for line in text.splitlines()))
    return True, periods is not None or any(_NAMES_KEYWORD.search(s) for s in statements)


def _fields(line: str, sep: str) -> int:
    # A "..." cell may hold the separator (pandas quotes "New York, NY" so): counted
    # as one field. A quote left open on its line stays, and its count is off.
    return len(_QUOTED.sub("", line).split(sep))


def _is_table(lines: list[str]) -> bool:
    """At least two lines, each with the same number (two or more) of comma-, tab- or
    semicolon-separated fields (a field quoted whole on its line counts as one: a cell
    that runs on to the next line makes the count unequal, so the answer cautious)."""
    if len(lines) < 2:
        return False
    sample = lines[:50]
    for sep in (",", "\t", ";"):
        n = _fields(sample[0], sep)
        if n >= 2 and all(_fields(line, sep) == n for line in sample):
            return True
    return False


def _c45_data(path: str) -> bool:
    """Whether a comma-separated table is C4.5 cases rather than CSV, which the content
    cannot tell (a CSV header looks like a row): by its name, else by a STEM.names beside
    it."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix in CSV_SUFFIXES:
        return False
    return suffix in (".data", ".test") or p.with_suffix(".names").is_file()


def _is_skops(data: bytes) -> bool:
    """A zip archive whose first member is one that skops writes: an array
    (``<id>.npy``) or its ``schema.json`` (written last, past the head, in most files)."""
    if not data.startswith(b"PK\x03\x04") or len(data) < 30:
        return False
    first = data[30 : 30 + int.from_bytes(data[26:28], "little")]
    return first == b"schema.json" or re.fullmatch(rb"[0-9]+\.npy", first) is not None


def _lightgbm(text: str) -> bool:
    """Starts as LightGBM's text model: a line ``tree``, then its ``version=``."""
    lines = text.splitlines()[:3]
    return len(lines) > 1 and lines[0].strip() == "tree" and lines[1].startswith("version=")


def file_kind(path: str) -> FileKind | None:
    """The kind of file ``path`` holds, or None when it is not a regular file or its
    content is none of the kinds (or too damaged to tell)."""
    head = _head(path)
    if head is None:
        return None
    data, whole = head
    if _is_pickle(data):
        return PICKLE
    if _is_skops(data):
        return SKOPS
    if _XGBOOST_UBJSON.match(data):
        return XGBOOST
    text = _text(data)
    if text is None:
        return None
    found = _FORMAT.search(text[:4096])
    if found is not None:
        return _FORMATS.get(found.group(1), MODEL)
    start = text.lstrip()
    if _XGBOOST_JSON.match(start):
        return XGBOOST
    if _lightgbm(start):
        return LIGHTGBM
    if start.startswith(("{", "[")):
        if whole:
            try:
                json.loads(text)
            except (ValueError, RecursionError):  # not JSON, or nested too deep to tell
                return None
            return JSON
        return None
    c_start = start.startswith(("/*", "//")) or _C_LINE.match(start) is not None
    if c_start and _C_LINE.search(text):
        return C_SOURCE
    arff = _lines(text, "%")
    if arff and arff[0].lower().startswith("@relation"):
        return ARFF
    names, surely = _names(text, whole)
    table = _is_table(_lines(text, "|"))
    if names and (surely or not table):
        return NAMES
    if table:
        return C45_DATA if _c45_data(path) else CSV
    return None


DATA_WANTED = "data (C4.5 .names/.data, ARFF or CSV)"
MODEL_WANTED = "a model file (.tree, .rules, .committee or .trees)"
# The roles that are wrong where a model, or data, belongs.
WRONG_FOR_MODEL = ("data", "pickle", "source", *LIBRARY_ROLES)
WRONG_FOR_DATA = ("model", "pickle", "source", "json", *LIBRARY_ROLES)


def data_files(path: str) -> list[str]:
    """The files reading DATA ``path`` opens (C4.5: STEM.names and STEM.data)."""
    if detect_format(path) == "c45":
        return [p for p in dict.fromkeys([path, *c45_paths(path)]) if os.path.exists(p)]
    return [path]


def data_kinds(path: str) -> list[tuple[str, FileKind | None]]:
    """The files reading DATA ``path`` opens (:func:`data_files`), each with its kind."""
    return [(f, file_kind(f)) for f in data_files(path)]


def wrong_for_data(
    path: str, kinds: Sequence[tuple[str, FileKind | None]] | None = None
) -> tuple[str, FileKind] | None:
    """The first file that reading DATA ``path`` opens whose content is of a kind that is
    no data (a model, a pickle, C source, other JSON), with that kind; None if none is.
    ``kinds``: those files' :func:`data_kinds`, where the caller has looked already."""
    for f, kind in data_kinds(path) if kinds is None else kinds:
        if kind is not None and kind.role in WRONG_FOR_DATA:
            return f, kind
    return None


def wrong_for_model(path: str) -> FileKind | None:
    """The kind of ``path`` if its content is one that is no model (data, a pickle, C
    source); None otherwise, and for content not recognised (its reader then speaks)."""
    kind = file_kind(path)
    return kind if kind is not None and kind.role in WRONG_FOR_MODEL else None
