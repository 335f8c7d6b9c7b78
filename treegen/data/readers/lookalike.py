"""CSV columns of numbers that a few cells made nominal, and a class column of
measurements: what to tell the user.

A CSV column is continuous only when every non-missing cell is a number
(:func:`treegen.data.readers.encode.build_dataset`, docs/formats.md). One ``NA`` or
``NaN`` cell (pandas' and R's missing markers; treegen's are ``?`` and the empty
cell), or numbers written with a decimal comma (``1,5``, as Excel writes ``;`` files
in many locales) or a thousands separator (``"1,234"``), so make the whole column
nominal, one value per distinct number, and training goes on without a word. The rule
stays; :func:`numeric_lookalikes` finds the columns it hit that way, for the commands
that train to name them; :func:`numeric_class` a class column of measurements
(``2.5``), read as a class per value; and :func:`identifier_columns` a column of row
numbers, names or timestamps (a value a row), nominal but no attribute to learn from.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

import numpy as np

from treegen.data.colnames import option_name
from treegen.data.dataset import Dataset, Schema, printed_name
from treegen.data.readers.table import parse_number, shorten

_DECIMAL_COMMA = re.compile(r"[+-]?\d*,\d+\Z", re.ASCII)
# '1,234', '1,234,567.5': a thousands separator (or, for one comma, a decimal comma).
_THOUSANDS = re.compile(r"[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?\Z", re.ASCII)
# More distinct non-numbers than this and the column holds labels, not numbers with
# a marker or two among them; scanning a column of text stops there.
_MOST_MARKERS = 3
_SHOWN = 2  # decimal-comma values quoted in a note


def comma_number(text: str) -> bool:
    """Whether ``text`` is a number written with a decimal comma or thousands
    separators (``1,5``, ``1,234,567.5``), which treegen does not read as a number."""
    return bool(_DECIMAL_COMMA.match(text) or _THOUSANDS.match(text))


def numeric_lookalikes(schema: Schema, forced: Collection[str]) -> list[tuple[str, str]]:
    """The name and a note of each nominal attribute of ``schema`` (not among
    ``forced``, the columns ``--nominal`` named) whose values are numbers but for at
    most a few non-numbers, or numbers written with a decimal comma. ``schema`` is one
    inferred from a CSV file: an ARFF or C4.5 file declares its nominal attributes
    itself."""
    notes: list[tuple[str, str]] = []
    for a in schema.attributes:
        if a.kind != "nominal" or a.name in forced:
            continue
        why = _why(a.values)
        if why is not None:
            notes.append(
                (
                    a.name,
                    f"column '{printed_name(a.name)}' is read as nominal ({len(a.values)} "
                    f"values): {why}; --nominal {option_name(a.name)} reads it as nominal "
                    "without this warning",
                )
            )
    return notes


# From this many rows a nominal column with a different value in each is named.
IDENTIFIER_ROWS = 20


def identifier_columns(ds: Dataset) -> list[tuple[str, str]]:
    """The name and a note of each nominal attribute of ``ds`` (its schema inferred from a
    CSV file, so that its values are the ones its cells hold) whose every known cell
    holds a value no other row has, in at least :data:`IDENTIFIER_ROWS` rows: a row
    number, a name or a timestamp, which tells nothing about rows to come and puts
    every value in the exported header."""
    notes: list[tuple[str, str]] = []
    for j, a in enumerate(ds.attributes):
        # The cheap test first: fewer values than rows cannot be one a row.
        if a.kind != "nominal" or len(a.values) < IDENTIFIER_ROWS:
            continue
        known = int(np.count_nonzero(~np.isnan(ds.X[:, j])))
        if known == len(a.values):
            notes.append(
                (
                    a.name,
                    f"column '{printed_name(a.name)}' holds a different value in each of "
                    f"its {known} rows (an identifier or a timestamp?): a value no other "
                    "row has tells nothing about new rows, and the exported header lists "
                    f"every one; --ignore {option_name(a.name)} leaves it out",
                )
            )
    return notes


def numeric_class(schema: Schema, forced: Collection[str]) -> str | None:
    """A note when every class label of ``schema`` (inferred from a CSV file) is a
    number and one is not a whole number: a measurement, which the class rule reads as
    a class per value (an ARFF file's numeric class is refused). None when ``forced``
    (the ``--nominal`` columns) names the class, or labels such as 0/1 and 1.0/2.0."""
    if schema.target in forced or not schema.classes:
        return None
    numbers = [parse_number(label) for label in schema.classes]
    if any(v is None for v in numbers) or all(v is not None and v.is_integer() for v in numbers):
        return None
    name = printed_name(schema.target)
    return (
        f"class column '{name}' holds numbers ({len(numbers)} values, such as "
        f"'{_shown(schema.classes[0])}'): each value is a class of its own; treegen trains "
        "classifiers (regressors come from scikit-learn: docs/regression.md); --nominal "
        f"{option_name(schema.target)} reads them as labels without this warning"
    )


def _why(values: Sequence[str]) -> str | None:
    """Why a column of these values is nominal though they look like numbers, or None
    when they do not (labels, or too few numbers to tell)."""
    numbers = 0
    commas: list[str] = []
    others: list[str] = []
    for v in values:
        if parse_number(v) is not None:
            numbers += 1
        elif comma_number(v):
            commas.append(v)
        else:
            others.append(v)
            if len(others) > _MOST_MARKERS:
                return None
    looks = numbers + len(commas)
    if looks < 2 or looks <= len(others):
        return None
    # '1,5' is a decimal comma; '1,234' may be one, but is a thousands separator to an
    # English spreadsheet, and '1,234,567' can only be that.
    grouped = any(_THOUSANDS.match(v) for v in commas)
    comma = "a comma (a thousands separator, or a decimal comma)" if grouped else "a decimal comma"
    if others:
        listed = ", ".join(f"'{_shown(v)}'" for v in others)
        why = f"all its values but {listed} are numbers (a missing value is '?' or an empty cell)"
        if commas:
            why += f", some written with {comma} ('{_shown(commas[0])}')"
        return why
    listed = ", ".join(f"'{_shown(v)}'" for v in commas[:_SHOWN])
    more = ", ..." if len(commas) > _SHOWN else ""
    point = "'.', and it reads no separators" if grouped else "'.'"
    return (
        f"{len(commas)} of its values ({listed}{more}) are numbers written with {comma}, "
        f"which is no number to treegen (its decimal point is {point})"
    )


def _shown(value: str) -> str:
    return printed_name(shorten(value))
