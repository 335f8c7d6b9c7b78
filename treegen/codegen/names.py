"""C identifiers and comment text derived from user-controlled names.

Attribute, value and class names come from data files and can be anything; the
prefix comes from the command line or the model file name.  Everything that ends up
in C goes through here: :func:`check_prefix` rejects what cannot be a prefix,
:func:`unique_idents` turns arbitrary names into distinct identifier parts (distinct
even after upper-casing, since they appear in macros), and :func:`comment_text` makes
a name safe inside ``/* ... */`` (no ``*/``, no trigraphs, ASCII only).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from treegen.errors import EmitError

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

# C89..C23 keywords, C++ keywords (the header is included from C++) and a few
# macros from <stdint.h> / the standard library that a prefix must not shadow.
RESERVED = frozenset(
    (
        "auto",
        "break",
        "case",
        "char",
        "const",
        "continue",
        "default",
        "do",
        "double",
        "else",
        "enum",
        "extern",
        "float",
        "for",
        "goto",
        "if",
        "inline",
        "int",
        "long",
        "register",
        "restrict",
        "return",
        "short",
        "signed",
        "sizeof",
        "static",
        "struct",
        "switch",
        "typedef",
        "union",
        "unsigned",
        "void",
        "volatile",
        "while",
        "_Alignas",
        "_Alignof",
        "_Atomic",
        "_Bool",
        "_Complex",
        "_Generic",
        "_Imaginary",
        "_Noreturn",
        "_Static_assert",
        "_Thread_local",
        "alignas",
        "alignof",
        "bool",
        "constexpr",
        "false",
        "nullptr",
        "static_assert",
        "thread_local",
        "true",
        "typeof",
        "typeof_unqual",
        "and",
        "and_eq",
        "asm",
        "bitand",
        "bitor",
        "catch",
        "char16_t",
        "char32_t",
        "char8_t",
        "class",
        "compl",
        "concept",
        "consteval",
        "constinit",
        "const_cast",
        "co_await",
        "co_return",
        "co_yield",
        "decltype",
        "delete",
        "dynamic_cast",
        "explicit",
        "export",
        "friend",
        "mutable",
        "namespace",
        "new",
        "noexcept",
        "not",
        "not_eq",
        "operator",
        "or",
        "or_eq",
        "private",
        "protected",
        "public",
        "reinterpret_cast",
        "requires",
        "template",
        "this",
        "throw",
        "try",
        "typeid",
        "typename",
        "using",
        "virtual",
        "wchar_t",
        "xor",
        "xor_eq",
        "main",
        "errno",
        "assert",
        "offsetof",
        "NULL",
        "EOF",
    )
)


def _reserved(prefix: str) -> bool:
    """``prefix`` is a reserved word in any case (``null``, ``EOF``): the one rule of
    :func:`check_prefix` and of the default prefix :func:`prefix_from_path` makes."""
    return prefix in RESERVED or prefix.lower() in RESERVED or prefix.upper() in RESERVED


def check_prefix(prefix: str, option: str = "--prefix") -> str:
    """Return ``prefix`` if it can start every exported symbol, else raise EmitError."""
    if not _IDENT.match(prefix):
        raise EmitError(f"prefix {prefix!r} is not a C identifier", option=option)
    if _reserved(prefix):
        raise EmitError(f"prefix {prefix!r} is a reserved word", option=option)
    # The symbols are PREFIX_name and the macros its upper case: a leading '_' makes the
    # macros _[A-Z]..., a trailing one or "__" puts "__" in every symbol, all reserved
    # (in C++, which includes predict.h, any identifier with "__" is).
    if prefix.startswith("_") or prefix.endswith("_") or "__" in prefix:
        raise EmitError(
            f"prefix {prefix!r} is reserved for the implementation (it would make names "
            "beginning with '_' or holding '__')",
            option=option,
        )
    if len(prefix) > 31:
        raise EmitError(f"prefix {prefix!r} is longer than 31 characters", option=option)
    return prefix


def prefix_from_path(path: str) -> str:
    """A default prefix from a model file name: ``models/golf.tree`` -> ``golf``."""
    stem = path.replace("\\", "/").rsplit("/", 1)[-1].split(".", 1)[0]
    ident = sanitize(stem).lower()[:31].rstrip("_") or "model"
    if _reserved(ident) or ident.startswith("_"):  # check_prefix's rule, or it would refuse
        ident = "m" + ident
    return check_prefix(ident[:31])


def sanitize(name: str) -> str:
    """A valid identifier fragment: runs of other characters become one ``_``."""
    ident = re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_")
    if not ident:
        return "X"
    if ident[0].isdigit():
        ident = "N" + ident
    return ident


def unique_idents(names: Sequence[str]) -> tuple[str, ...]:
    """Upper-case identifier fragments, one per name, pairwise distinct."""
    seen: set[str] = set()
    out: list[str] = []
    for name in names:
        base = sanitize(name).upper()
        ident, n = base, 1
        while ident in seen:
            n += 1
            ident = f"{base}_{n}"
        seen.add(ident)
        out.append(ident)
    return tuple(out)


# The most characters of one comment's text: C99 promises 4095 characters of a source
# line, and a name (or a subset of many values) can be longer; the text is cut there.
COMMENT_CHARS = 1000


def comment_text(text: str) -> str:
    """``text`` made safe inside a C block comment on one line (cut to COMMENT_CHARS,
    ending in '...')."""
    out: list[str] = []
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif 32 <= ord(ch) < 127:
            out.append(ch)
        else:
            out.append(f"<U+{ord(ch):04X}>")
    s = "".join(out)
    # No comment delimiters, no trigraphs (??x), no backslash-newline splices.
    s = s.replace("*/", "* /").replace("/*", "/ *")
    while "??" in s:
        s = s.replace("??", "? ?")
    return s if len(s) <= COMMENT_CHARS else s[: COMMENT_CHARS - 3] + "..."
