"""Column names in an option's COL[,COL] list (treegen.data.colnames): ``\\,`` is a comma."""

from __future__ import annotations

import shlex

import pytest

from treegen.data.colnames import option_name, split_names


def test_split_names() -> None:
    assert split_names("a,b") == ["a", "b"]
    assert split_names("a\\,b,c") == ["a,b", "c"]
    assert split_names(" a b ") == [" a b "]  # kept as given: the CLI strips blanks
    assert split_names("a,,b") == ["a", "", "b"] and split_names("") == [""]


@pytest.mark.parametrize("name", ["id", "my id", "a,b", "a, b,c", "it's", "类别", "x\\y"])
def test_option_name_reads_back(name: str) -> None:
    """What a message suggests typing is the name itself once the shell and the option
    have read it."""
    (word,) = shlex.split(option_name(name))
    assert split_names(word) == [name]
