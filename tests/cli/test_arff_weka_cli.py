"""ARFF files as Weka users bring them, through the commands.

A file written with blanks between its values trains, shows, evaluates and verifies
like the comma file; what Weka reads and treegen does not (docs/formats.md lists
it) is one line naming the file, line and column, exit 2, and no model written.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.cli import run_cli

WEATHER = Path(__file__).resolve().parents[1] / "data" / "weka" / "weather.numeric.arff"
HEAD, _, BODY = WEATHER.read_text().partition("@data\n")
FIRST = HEAD.count("\n") + 2  # the first row's line


def test_blank_separated_file_through_every_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spaced = tmp_path / "spaced.arff"
    spaced.write_text(HEAD + "@data\n" + BODY.replace(",", " \t"), encoding="utf-8")
    model = tmp_path / "m.tree"
    for data in (WEATHER, spaced):
        assert (
            run_cli(capsys, "train", str(data), "--flavor", "j48", "-q", "-o", str(model))[0] == 0
        )
        code, shown, _ = run_cli(capsys, "show", str(model), "--format", "j48")
        assert code == 0 and "humidity <= 75: yes (2.0)" in shown
        code, evaluated, _ = run_cli(capsys, "eval", str(model), str(spaced))
        assert code == 0 and "0(0.0%)" in evaluated.replace(" ", "")
        code, verified, err = run_cli(capsys, "verify", str(model), str(spaced))
        assert code == 0, err
        assert " 0 failed" in verified + err


ROW = "sunny,85,85,FALSE,no"
REFUSED = {
    "weight": (f"{ROW},{{2.5}}\n", FIRST, 22, "instance weights"),
    "weight-blank": (f"{ROW.replace(',', ' ')} {{2.5}}\n", FIRST, 22, "instance weights"),
    "infinity": (
        ROW.replace("85,85", "Infinity,85") + "\n",
        FIRST,
        7,
        "'Infinity' is not a finite number",
    ),
    "java-suffix": (
        ROW.replace("85,85", "85d,85") + "\n",
        FIRST,
        7,
        "'85d' is not a finite number",
    ),
    "extra-value": (f"{ROW},no\n", FIRST, 22, "expected 5 values (5 attributes), found 6"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_what_weka_reads_and_treegen_refuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    row, line, col, fragment = REFUSED[name]
    data = tmp_path / "w.arff"
    data.write_text(HEAD + "@data\n" + row, encoding="utf-8")
    model = tmp_path / "w.tree"
    code, out, err = run_cli(capsys, "train", str(data), "-o", str(model))
    assert code == 2 and out == "" and not model.exists()
    assert err.count("\n") == 1 and err.startswith(f"treegen: error: {data}:{line}:{col}: ")
    assert fragment in err


def test_date_attribute_names_its_declaration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "d.arff"
    head = HEAD.replace("@attribute windy", "@attribute when date 'yyyy-MM-dd'\n@attribute windy")
    data.write_text(
        head
        + "@data\n"
        + BODY.replace(",FALSE", ",2020-01-02,FALSE").replace(",TRUE", ",2020-01-02,TRUE"),
        "utf-8",
    )
    code, _, err = run_cli(capsys, "train", str(data))
    assert code == 2 and err.count("\n") == 1
    assert f"{data}:6:12: attribute 'when': date attributes are not supported" in err
