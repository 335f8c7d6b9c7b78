"""Names from data files become valid, distinct C identifiers; prefixes are checked;
comment text can never close its comment; only <stdint.h> (and <avr/pgmspace.h>) is
included."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from treegen.codegen.names import (
    RESERVED,
    check_prefix,
    comment_text,
    prefix_from_path,
    sanitize,
    unique_idents,
)
from treegen.codegen.options import ExportOptions
from treegen.errors import EmitError
from treegen.kinds.export import render

from support import codegen_models as cm

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@given(st.lists(st.text(), max_size=12))
def test_unique_idents_are_distinct_identifiers(names: list[str]) -> None:
    idents = unique_idents(names)
    assert len(idents) == len(names) and len(set(idents)) == len(idents)
    assert all(IDENT.match(i) and i == i.upper() for i in idents)


@given(st.text())
def test_sanitize_gives_an_identifier_fragment(name: str) -> None:
    assert IDENT.match(sanitize(name))


@given(st.text())
def test_comment_text_cannot_end_a_comment(text: str) -> None:
    safe = comment_text(text)
    assert "*/" not in safe and "/*" not in safe and "??" not in safe
    assert all(32 <= ord(c) < 127 for c in safe)


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "1abc",
        "a-b",
        "int",
        "while",
        "class",
        "__x",
        "_Foo",
        "_x",
        "_",
        "x_",
        "a__b",
        "x" * 32,
        "é",
    ],
)
def test_bad_prefixes(bad: str) -> None:
    with pytest.raises(EmitError) as err:
        check_prefix(bad)
    assert err.value.option == "--prefix"


@pytest.mark.parametrize("good", ["golf", "m", "x_y", "Model_2", "uint8_t", "x" * 31])
def test_good_prefixes(good: str) -> None:
    assert check_prefix(good) == good


@pytest.mark.parametrize(
    "path,prefix",
    [
        ("models/golf.tree", "golf"),
        ("a/My Model-1.tree", "my_model_1"),
        ("2024.tree", "n2024"),
        ("int.tree", "mint"),
        ("???.tree", "x"),
        ("NULL.tree", "mnull"),  # reserved in upper case, as check_prefix holds it
        ("eof.tree", "meof"),
    ],
)
def test_prefix_from_path(path: str, prefix: str) -> None:
    assert prefix_from_path(path) == prefix and prefix not in RESERVED
    assert check_prefix(prefix) == prefix  # a file's name never makes a --prefix error


@pytest.mark.parametrize("style", ["ifs", "table"])
def test_only_stdint_and_pgmspace_are_included(style: str) -> None:
    files = render(cm.tiny(), ExportOptions(prefix="t", style=style)).files
    includes = re.findall(r"^\s*#\s*include\s*(\S+)", "\n".join(files.values()), re.MULTILINE)
    assert sorted(set(includes)) == ['"t_predict.h"', "<avr/pgmspace.h>", "<stdint.h>"]
    header = files["t_predict.h"]
    # declarations only: no function bodies, no object definitions in the header
    assert "{\n" not in header.replace('extern "C" {\n', "")
