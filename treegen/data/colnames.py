"""Column names written in an option's ``COL[,COL]`` list: ``\\,`` is a comma in a name.

``--nominal`` and ``--ignore`` (and the import commands' ``--feature-names`` and
``--classes``) take comma-separated names, yet a CSV header may quote a
name with a comma in it (``"weight, kg"``) and an ARFF or C4.5 file may declare one; such
a column could not be named at all.  :func:`split_names` reads a list (the CLI's option
type) and :func:`option_name` writes a name the way a message suggests typing it, so the
escape has this one home; :func:`refuse_nominal_and_ignored` is the one rule between the
two lists.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

from treegen.errors import UsageError

# A comma not preceded by a backslash separates two names.
_SEPARATOR = re.compile(r"(?<!\\),")


def split_names(text: str) -> list[str]:
    """The names of ``A,B,...``: split at each comma but ``\\,``, which is a comma in the
    name.  Names are kept as given (no blanks stripped); an empty one is returned as ``''``
    for the caller to refuse."""
    return [part.replace("\\,", ",") for part in _SEPARATOR.split(text)]


def option_name(name: str) -> str:
    """``name`` as an option value to type in a shell: its commas escaped for
    :func:`split_names`, then quoted if the shell would split or expand it."""
    return shlex.quote(name.replace(",", "\\,"))


__all__ = ["option_name", "split_names"]


def refuse_nominal_and_ignored(nominal: Sequence[str], ignore: Sequence[str]) -> None:
    """A column named by both ``--nominal`` and ``--ignore`` is ignored, so ``--nominal``
    would go unused: an error, as every option the others make pointless is."""
    both = next((name for name in nominal if name in ignore), None)
    if both is not None:
        raise UsageError(
            f"names '{both}', also named by --ignore (an ignored column is no attribute)",
            option="--nominal",
        )
