"""A CSV column of numbers read as nominal because of a few cells says so on stderr.

One ``NA`` or ``NaN`` cell (pandas' and R's missing markers; treegen's are ``?`` and
the empty cell), or numbers written with a decimal comma (Excel's ``;`` files), make
a whole CSV column nominal, as docs/formats.md states; training then tests the
numbers as labels. The commands that train say which column and which cells did it,
and the model stays what it was.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from treegen import load
from treegen.data.dataset import Attribute, Schema
from treegen.data.readers.lookalike import numeric_lookalikes

from support.cli import run_cli


def _rows(sep: str, income: list[str]) -> str:
    lines = [sep.join(["age", "income", "label"])]
    for i, value in enumerate(income):
        lines.append(sep.join([str(20 + i), value, "yes" if i % 3 else "no"]))
    return "\n".join(lines) + "\n"


INCOMES = ["41962.5", "NA", "38000", "51000.25", "NA", "47000", "39000", "52000"]


@pytest.fixture
def na_csv(tmp_path: Path) -> Path:
    path = tmp_path / "na.csv"
    path.write_text(_rows(",", INCOMES))
    return path


def test_train_names_the_column_and_its_non_number(
    capsys: pytest.CaptureFixture[str], na_csv: Path, tmp_path: Path
) -> None:
    code, out, err = run_cli(capsys, "train", str(na_csv), "-o", str(tmp_path / "m.tree"))
    assert code == 0 and out == ""
    notes = [line for line in err.splitlines() if line.startswith("treegen: warning")]
    assert notes == [
        f"treegen: warning: {na_csv}: column 'income' is read as nominal (7 values): "
        "all its values but 'NA' are numbers (a missing value is '?' or an empty cell); "
        "--nominal income reads it as nominal without this warning"
    ]
    # The rule itself is unchanged: the column is nominal, 'NA' one of its values.
    income = load(str(tmp_path / "m.tree")).schema.attributes[1]
    assert income.kind == "nominal" and "NA" in income.values


@pytest.mark.parametrize(
    ("sep", "income", "said"),
    [
        (
            ";",
            ["41962,5", "38000", "51000,25", "47000", "39000,1"],
            "('41962,5', '51000,25', ...) are numbers written with a decimal comma, which is "
            "no number to treegen (its decimal point is '.')",
        ),
        # '41,962' is forty-one thousand to an English spreadsheet: the note said it was
        # written with a decimal comma, and took '1,234,567' and '1,234.5' for markers.
        (
            ",",
            ['"41,962"', "380", '"1,234,567"', "470", '"1,234.5"'],
            "('41,962', '1,234,567', ...) are numbers written with a comma (a thousands "
            "separator, or a decimal comma), which is no number to treegen (its decimal "
            "point is '.', and it reads no separators)",
        ),
    ],
)
def test_a_comma_in_numbers_is_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, sep: str, income: list[str], said: str
) -> None:
    path = tmp_path / "excel.csv"
    path.write_text(_rows(sep, income))
    code, _, err = run_cli(capsys, "train", str(path), "-o", str(tmp_path / "m.tree"))
    assert code == 0
    assert (
        f"treegen: warning: {path}: column 'income' is read as nominal (5 values): "
        f"3 of its values {said}; --nominal income reads it as nominal without this warning"
    ) in err.splitlines(), err


def test_a_marker_among_comma_numbers_names_both(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "mixed.csv"
    path.write_text(_rows(";", ["41962,5", "NA", "38000", "51000,25", "47000"]))
    code, _, err = run_cli(capsys, "train", str(path), "-o", str(tmp_path / "m.tree"))
    assert code == 0
    assert (
        f"treegen: warning: {path}: column 'income' is read as nominal (5 values): "
        "all its values but 'NA' are numbers (a missing value is '?' or an empty cell), "
        "some written with a decimal comma ('41962,5'); --nominal income reads it as "
        "nominal without this warning"
    ) in err.splitlines(), err


@pytest.mark.parametrize("command", [["rules"], ["cv", "--folds", "2"]])
def test_every_command_that_trains_says_it(
    capsys: pytest.CaptureFixture[str], na_csv: Path, command: list[str]
) -> None:
    code, _, err = run_cli(capsys, command[0], str(na_csv), *command[1:])
    assert code == 0
    assert "column 'income' is read as nominal" in err


@pytest.mark.parametrize(
    "extra", [["--nominal", "income"], ["-q"], ["--ignore", "income"]], ids=str
)
def test_no_warning_when_asked_for(
    capsys: pytest.CaptureFixture[str], na_csv: Path, tmp_path: Path, extra: list[str]
) -> None:
    code, _, err = run_cli(capsys, "train", str(na_csv), "-o", str(tmp_path / "m.tree"), *extra)
    assert code == 0 and "treegen: warning" not in err


def test_labels_and_numbers_stay_quiet(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "plain.csv"
    path.write_text(_rows(",", ["low", "high", "1", "mid", "low", "2", "high", "mid"]))
    code, _, err = run_cli(capsys, "train", str(path), "-o", str(tmp_path / "m.tree"))
    assert code == 0 and "treegen: warning" not in err


def test_a_declared_nominal_attribute_is_the_files_choice(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "d.arff"
    rows = "\n".join(
        f"{v},{'yes' if i % 3 else 'no'}" for i, v in enumerate("1 2 NA 3 4 5".split())
    )
    path.write_text(
        f"@relation r\n@attribute n {{1,2,3,4,5,NA}}\n@attribute c {{yes,no}}\n@data\n{rows}\n"
    )
    code, _, err = run_cli(capsys, "train", str(path), "-o", str(tmp_path / "m.tree"))
    assert code == 0 and "treegen: warning" not in err


def _schema(*values: tuple[str, ...]) -> Schema:
    attrs = tuple(Attribute(f"a{i}", "nominal", v) for i, v in enumerate(values))
    return Schema((*attrs, Attribute("x", "continuous")), ("p", "q"), "class")


def test_the_rule_on_value_lists() -> None:
    schema = _schema(
        ("1", "2", "3", "NaN", "n/a"),  # numbers but two markers: named
        ("a", "b", "1"),  # labels with a number among them: not named
        ("1", "2", "x", "y", "z", "w"),  # four non-numbers: labels
        ("1,5", "2"),  # a decimal comma
        ("1", "NA"),  # one number is no column of numbers
    )
    notes = [text for _, text in numeric_lookalikes(schema, forced=())]
    assert [n.split(":", 1)[0] for n in notes] == [
        "column 'a0' is read as nominal (5 values)",
        "column 'a3' is read as nominal (2 values)",
    ]
    assert "but 'NaN', 'n/a' are numbers" in notes[0]
    assert numeric_lookalikes(schema, forced=("a0", "a3")) == []


def test_many_such_columns_are_summed_up(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # A wide file exported with 'NA' in every column: a few warnings, then a count.
    path = tmp_path / "wide.csv"
    names = [f"x{j}" for j in range(8)]
    rows = [",".join([*names, "label"])]
    for i in range(6):
        rows.append(
            ",".join(["NA" if i == j % 3 else str(i + j) for j in range(8)] + ["ab"[i % 2]])
        )
    path.write_text("\n".join(rows) + "\n")
    code, _, err = run_cli(capsys, "train", str(path), "-o", str(tmp_path / "m.tree"))
    assert code == 0
    warnings = [line for line in err.splitlines() if line.startswith("treegen: warning")]
    assert len(warnings) == 6 and all(f"column 'x{j}'" in warnings[j] for j in range(5))
    assert warnings[5] == (f"treegen: warning: {path}: 3 more columns likewise: 'x5', 'x6', 'x7'")


def test_a_class_of_measurements_is_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A CSV whose last column is a measurement (2.5, 3.5, ...) trains a classifier with
    a class per value and said nothing (100% cv error); an ARFF file's numeric class is
    refused. Whole-number labels (0/1, 1.0/2.0) stay quiet, and --nominal names the
    class column as labels."""
    path = tmp_path / "reg.csv"
    path.write_text("a,y\n" + "".join(f"{i},{i * 0.7 + 0.25}\n" for i in range(40)))
    for command in (["train", "-o", str(tmp_path / "m.tree")], ["rules"], ["cv", "--loo"]):
        code, _, err = run_cli(capsys, command[0], str(path), *command[1:])
        assert code == 0
        warnings = [line for line in err.splitlines() if "warning" in line]
        assert warnings == [
            f"treegen: warning: {path}: class column 'y' holds numbers (40 values, such "
            "as '0.25'): each value is a class of its own; treegen trains classifiers "
            "(regressors come from scikit-learn: docs/regression.md); --nominal y reads "
            "them as labels without this warning"
        ], err
    code, _, err = run_cli(capsys, "train", str(path), "--nominal", "y", "-o", str(path) + ".t")
    assert code == 0 and "warning" not in err
    whole = tmp_path / "whole.csv"
    whole.write_text("a,y\n" + "".join(f"{i},{i % 3}.0\n" for i in range(40)))
    code, _, err = run_cli(capsys, "train", str(whole), "-o", str(tmp_path / "w.tree"))
    assert code == 0 and "warning" not in err


def _logged(path: Path, rows: int, repeat_at: int | None = None) -> Path:
    """A logger's CSV: a timestamp a row (the one at ``repeat_at`` again in the next
    row), a reading, a label."""
    stamps = [f"2024-01-01 10:{i // 60:02d}:{i % 60:02d}" for i in range(rows)]
    if repeat_at is not None:
        stamps[repeat_at + 1] = stamps[repeat_at]
    lines = ["time,temp,label"] + [
        f"{stamp},{15 + i % 13},{'hot' if i % 13 > 6 else 'ok'}" for i, stamp in enumerate(stamps)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_column_with_a_value_a_row_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A timestamp column (a different value in each row) is named, with the way out;
    with --ignore, --quiet, fewer rows than IDENTIFIER_ROWS or one value repeated, not."""
    from treegen.data.readers.lookalike import IDENTIFIER_ROWS

    data = _logged(tmp_path / "log.csv", 40)
    out = str(tmp_path / "m.tree")
    code, _, err = run_cli(capsys, "train", str(data), "-o", out)
    assert code == 0
    assert (
        f"treegen: warning: {data}: column 'time' holds a different value in each of its 40 "
        "rows (an identifier or a timestamp?): a value no other row has tells nothing about "
        "new rows, and the exported header lists every one; --ignore time leaves it out\n"
    ) in err
    for argv in (["--ignore", "time"], ["--quiet"]):
        code, _, err = run_cli(capsys, "train", str(data), *argv, "-o", out)
        assert code == 0 and "identifier" not in err
    few = _logged(tmp_path / "few.csv", IDENTIFIER_ROWS - 1)
    code, _, err = run_cli(capsys, "train", str(few), "-o", out)
    assert code == 0 and "identifier" not in err
    repeated = _logged(tmp_path / "rep.csv", 40, repeat_at=10)
    code, _, err = run_cli(capsys, "train", str(repeated), "-o", out)
    assert code == 0 and "identifier" not in err
