"""ARFF's tokens as Weka's ArffLoader reads them.

Weka reads an ARFF file with a ``StreamTokenizer`` for which ``,`` and every
character up to the space (blanks, tabs, control characters) are whitespace: a
run of them, mixed in any way, is one separator, and one at the start or end of
a line separates nothing.  So ``a b``, ``a<TAB>b``, ``a , b`` and ``a,b,`` are all
the two values ``a`` and ``b``, and a value with a blank in it must be quoted.
``%`` starts a comment; ``'...'`` and ``"..."`` quote, with backslash escapes.

Two stricter rules than Weka's are kept (each an error there or a surprise):
text right after a closing quote (``'x y'z``) is an error rather than a second
value, and a quote inside a word (``it's``) is part of it.
"""

from __future__ import annotations

import re

from treegen.data.readers.text import ESCAPES, AfterQuoteError, QuoteError

# Weka's separators: ',' and the characters 0..32 (its whitespaceChars(0, ' ')).
_WORD = re.compile(r"[^\x00-\x20,]+")
_SPECIAL = ("'", '"', "%", "\\", "{")

Tokens = tuple[list[str], list[int], list[bool], int]


def _separator(c: str) -> bool:
    return c <= " " or c == ","


def plain_tokens(line: str) -> list[str] | None:
    """The values of a line with no quotes, comments, escapes or braces, else None."""
    if any(s in line for s in _SPECIAL):
        return None
    return _WORD.findall(line)


def token_columns(line: str) -> list[int]:
    """The 1-based columns of :func:`plain_tokens`'s values (only an error needs them)."""
    return [m.start() + 1 for m in _WORD.finditer(line)]


def split_tokens(text: str, *, brace_stops: bool = True) -> Tokens:
    """The tokens of ``text``: their values, 1-based columns, whether each was quoted,
    and the index of a ``{`` that starts a token when ``brace_stops`` (an instance
    weight, or a sparse row's end), else -1.  Raises :class:`QuoteError` for a quote
    never closed and :class:`AfterQuoteError` for text right after a closing quote."""
    values: list[str] = []
    cols: list[int] = []
    quoted: list[bool] = []
    i, n = 0, len(text)
    while True:
        while i < n and _separator(text[i]):
            i += 1
        if i >= n or text[i] == "%":
            return values, cols, quoted, -1
        c = text[i]
        if c == "{" and brace_stops:
            return values, cols, quoted, i
        start = i
        if c in "'\"":
            buf: list[str] = []
            i += 1
            while True:
                if i >= n:
                    raise QuoteError(start + 1)
                d = text[i]
                if d == "\\" and i + 1 < n:
                    buf.append(ESCAPES.get(text[i + 1], text[i + 1]))
                    i += 2
                elif d == c:
                    break
                else:
                    buf.append(d)
                    i += 1
            i += 1
            if i < n and not _separator(text[i]) and text[i] != "%":
                if not (brace_stops and text[i] == "{"):
                    raise AfterQuoteError(i + 1)
            values.append("".join(buf))
            quoted.append(True)
        else:
            while i < n and not _separator(text[i]) and text[i] != "%":
                i += 1
            values.append(text[start:i])
            quoted.append(False)
        cols.append(start + 1)
