"""ARFF files as Weka users bring them, through the commands.

A file written with blanks between its values trains, shows, evaluates and verifies
like the comma file; what Weka reads and treegen does not (docs/formats.md lists
it) is one line naming the file, line and column, exit 2, and no model written.
Instance weights (``{w}`` after a row) train, count in a tree's eval and in cv, are
left out by predict, and are that error for every other command.
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
    "weight-negative": (f"{ROW},{{-1}}\n", FIRST, 23, "weight '-1' is not a number at least 0"),
    "weight-word": (f"{ROW} {{ x }}\n", FIRST, 24, "weight 'x' is not a number at least 0"),
    "weight-open": (f"{ROW},{{2\n", FIRST, 22, "instance weight without closing '}'"),
    "weight-then-text": (f"{ROW},{{2}} z\n", FIRST, 26, "unexpected text after the instance"),
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


def _weighted(tmp_path: Path) -> tuple[Path, Path]:
    """weather.numeric with a weight on every third row (2 or 3: whole numbers), and the
    same data with those rows repeated (as the c45 flavour counts a whole weight)."""
    rows = BODY.strip().splitlines()
    weighted, copies = [], []
    for i, row in enumerate(rows):
        w = (1, 2, 3)[i % 3]
        weighted.append(row if w == 1 else f"{row},{{{w}}}" if i % 2 else f"{row} {{ {w}.0 }}")
        copies += [row] * w
    a, b = tmp_path / "weighted.arff", tmp_path / "copies.arff"
    a.write_text(HEAD + "@data\n" + "\n".join(weighted) + "\n", encoding="utf-8")
    b.write_text(HEAD + "@data\n" + "\n".join(copies) + "\n", encoding="utf-8")
    return a, b


def test_instance_weights_train_as_copies_of_their_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    weighted, copies = _weighted(tmp_path)
    shown = []
    for data in (weighted, copies, WEATHER):
        model = tmp_path / f"{data.stem}.tree"
        assert (
            run_cli(capsys, "train", str(data), "-q", "--min-cases", "2", "-o", str(model))[0] == 0
        )
        code, out, _ = run_cli(capsys, "show", str(model))
        assert code == 0
        shown.append(out)
    assert shown[0] == shown[1] != shown[2]


@pytest.mark.parametrize(
    ("command", "message"),
    [
        (["rules", "DATA", "-o", "OUT"], ":11:21: instance weights ('{w}' after a row) are read"),
        (["verify", "MODEL", "DATA"], ":11:21: instance weights ('{w}' after a row) are read"),
        (["eval", "RULES", "DATA"], ":11:21: instance weights ('{w}' after a row) are read"),
        (["eval", "COMMITTEE", "DATA"], ":11:21: instance weights ('{w}' after a row) are read"),
        (["train", "DATA", "--boost", "2", "-o", "OUT"], ": instance weights are for one tree"),
        (["cv", "DATA", "--folds", "3", "--bag", "2"], ": instance weights are for one tree"),
    ],
)
def test_instance_weights_are_refused_where_not_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str], message: str
) -> None:
    weighted, _ = _weighted(tmp_path)
    model, out = tmp_path / "m.tree", tmp_path / "out.file"
    rules, committee = tmp_path / "m.rules", tmp_path / "m.committee"
    assert run_cli(capsys, "train", str(WEATHER), "-q", "-o", str(model))[0] == 0
    assert run_cli(capsys, "rules", str(WEATHER), "-o", str(rules))[0] == 0
    assert run_cli(capsys, "train", str(WEATHER), "-q", "--bag", "2", "-o", str(committee))[0] == 0
    given = {
        "MODEL": str(model),
        "RULES": str(rules),
        "COMMITTEE": str(committee),
        "OUT": str(out),
        "DATA": str(weighted),
    }
    code, stdout, err = run_cli(capsys, *(given.get(w, w) for w in command))
    assert code == 2 and stdout == "" and not out.exists()
    assert err.count("\n") == 1 and err.startswith(f"treegen: error: {weighted}{message}"), err


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--flavor", "j48", "--prune", "reduced-error"], "--prune: reduced-error pruning takes"),
        (["--boost", "2"], "{data}: instance weights are for one tree: --boost weights"),
    ],
)
def test_cv_refuses_what_training_refuses_before_the_first_fold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], options: list[str], message: str
) -> None:
    weighted, _ = _weighted(tmp_path)
    code, out, err = run_cli(capsys, "cv", str(weighted), "--folds", "3", *options)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("treegen: error: " + message.format(data=weighted)), err


def test_eval_counts_a_whole_weight_as_that_many_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tree's eval of the weighted file prints what it prints for the file whose
    weighted rows are repeated: the items, errors and matrix cells are the weights."""
    weighted, copies = _weighted(tmp_path)
    model = tmp_path / "m.tree"
    # a tree of 4 nodes that misclassifies 4 of the 14 rows
    train = ("train", str(WEATHER), "-q", "--no-prune", "--min-cases", "3", "-o", str(model))
    assert run_cli(capsys, *train)[0] == 0
    code, by_weight, err = run_cli(capsys, "eval", str(model), str(weighted))
    assert code == 0, err
    code, by_copies, _ = run_cli(capsys, "eval", str(model), str(copies))
    assert by_weight == by_copies and "(27 items)" in by_weight
    assert "(0.0%)" not in by_weight


def test_eval_counts_fractional_weights(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every row weighs 0.25 but the first, which weighs 10.5; a one-leaf tree says
    'yes' for every row, so the errors are the weights of the 5 'no' rows (the first
    among them), and each cell the weight of its rows."""
    rows = BODY.strip().splitlines()
    assert rows[0].endswith(",no") and sum(r.endswith(",no") for r in rows) == 5
    data = tmp_path / "fractions.arff"
    weighted = [f"{rows[0]},{{10.5}}"] + [f"{r},{{0.25}}" for r in rows[1:]]
    data.write_text(HEAD + "@data\n" + "\n".join(weighted) + "\n", encoding="utf-8")
    model = tmp_path / "m.tree"
    assert (
        run_cli(capsys, "train", str(WEATHER), "-q", "--min-cases", "7", "-o", str(model))[0] == 0
    )
    code, out, err = run_cli(capsys, "eval", str(model), str(data))
    assert code == 0, err
    assert "(13.75 items)" in out and "\t   1  11.5(83.6%)" in out, out
    assert "\t 2.25     \t(a): class yes\n\t 11.5     \t(b): class no\n" in out, out


def test_predict_leaves_the_weights_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    weighted, _ = _weighted(tmp_path)
    model = tmp_path / "m.tree"
    assert run_cli(capsys, "train", str(WEATHER), "-q", "-o", str(model))[0] == 0
    code, by_weight, err = run_cli(capsys, "predict", str(model), str(weighted), "--proba")
    assert code == 0, err
    assert by_weight == run_cli(capsys, "predict", str(model), str(WEATHER), "--proba")[1]


def test_cv_of_unit_weights_is_the_unweighted_cv(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file weighing every row 1 cross-validates as the file without weights: the
    same folds, trees and errors, printed with the weights' columns."""
    ones = tmp_path / "ones.arff"
    rows = BODY.strip().splitlines()
    ones.write_text(HEAD + "@data\n" + "".join(f"{r},{{1}}\n" for r in rows), encoding="utf-8")
    code, plain, _ = run_cli(capsys, "cv", str(WEATHER), "--folds", "3")
    code, out, err = run_cli(capsys, "cv", str(ones), "--folds", "3")
    assert code == 0, err
    errors = plain.split("Misclassified: ")[1].split(" of ")[0]
    assert f"Misclassified: {errors} (" in out and " of weight 14 in 14 rows;" in out, out
    assert plain.split("\n")[-3] == out.split("\n")[-3]  # the mean error line
