"""Option errors name what their caller typed: the keyword from Python, the flag from
the command line.

The one table is :data:`treegen.model.optnames.KEYWORD_OF_FLAG`; these tests hold it
against the API's signatures and the CLI's parsers, and run each kind of option error
both ways.
"""

from __future__ import annotations

import argparse
import inspect
import typing
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

import treegen
from treegen.api import DataKeywords
from treegen.cli.main import build_parser
from treegen.codegen.options import ExportOptions
from treegen.errors import TreegenError
from treegen.model.options import TrainOptions
from treegen.model.optnames import FLAGS, KEYWORD_OF_FLAG, KEYWORDS, keyword_text, on_command_line

from support.cli import run_cli

GOLF = Path(__file__).resolve().parents[1] / "data" / "reference" / "golf" / "golf"


def _parameters(fn: Callable[..., object]) -> set[str]:
    """The keywords ``fn`` takes: its named parameters and the keys of the TypedDict its
    ``**keywords`` are typed with (``Unpack[...]``; ``Any`` adds none)."""
    hints = typing.get_type_hints(fn)
    names: set[str] = set()
    for name, p in inspect.signature(fn).parameters.items():
        if p.kind is p.VAR_KEYWORD:
            if typing.get_origin(hints[name]) is typing.Unpack:
                (typed,) = typing.get_args(hints[name])
                names |= set(typing.get_type_hints(typed))
        elif p.kind is not p.VAR_POSITIONAL and name != "self":
            names.add(name)
    return names


_EXPORT_FIELDS = {f.name for f in fields(ExportOptions)}

# What each command's options are from Python: the keywords of its counterpart.
ACCEPTED = {
    "train": _parameters(treegen.train),
    "rules": _parameters(treegen.train_rules),
    # export_c's and verify's **overrides are ExportOptions' fields.
    "export": _parameters(treegen.Model.export_c) | _EXPORT_FIELDS,
    "verify": _parameters(treegen.Model.verify) | _EXPORT_FIELDS,
}

# The flags no option error from Python names, and why.
CLI_ONLY = {
    "--help": "argparse's",
    "--quiet": "the command line's diagnostics",
    "--verbose": "the command line's progress",
    "--output": "a path the API takes as save()'s or export_c()'s argument; argparse checks it",
    "--target@export": "export's is the output language, only C: export_c writes C",
    "--target@verify": "as export's",
    "--layout": "packaging (an Arduino library, a Zephyr module) is the command line's",
    "--cmake": "as --layout",
    "--report": "export --report compiles for a chip: the firmware tools are the CLI's",
    "--on": "the simulated chips (verify --on) are the command line's",
    "--show": "verify --show prints the report, which the API returns",
}


def _flags(command: str) -> list[str]:
    parser = build_parser(command)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return [s for a in sub.choices[command]._actions for s in a.option_strings if s[:2] == "--"]


@pytest.mark.parametrize("command", sorted(ACCEPTED))
def test_each_flag_of_a_command_is_a_keyword_its_function_takes(command: str) -> None:
    """A flag the table maps to a keyword its Python counterpart does not take would
    tell a Python user to pass what it refuses; a flag in neither the table nor the
    CLI's own would leave its errors naming the flag."""
    for flag in _flags(command):
        if flag in CLI_ONLY or f"{flag}@{command}" in CLI_ONLY:
            continue
        assert flag in KEYWORD_OF_FLAG, f"{command} {flag}: in no table"
        assert KEYWORD_OF_FLAG[flag] in ACCEPTED[command], (command, flag)


@pytest.mark.parametrize(("flag", "keyword"), sorted(KEYWORD_OF_FLAG.items()))
def test_the_table_maps_each_flag_to_a_keyword_the_api_takes(flag: str, keyword: str) -> None:
    assert keyword in set().union(*ACCEPTED.values()), flag
    assert not flag.replace("--", "", 1).startswith("-")


def test_the_table_agrees_with_the_training_options_names() -> None:
    """The trainer's checks spell their options through OptionNames; the table must
    turn each flag they name back into the keyword they would have named."""
    for key in [f.name for f in fields(TrainOptions)] + ["boost", "bag", "bag_seed"]:
        assert KEYWORD_OF_FLAG[FLAGS(key)] == KEYWORDS(key), key
    assert set(typing.get_type_hints(DataKeywords)) >= {KEYWORD_OF_FLAG["--weights"]}


@pytest.mark.parametrize(
    ("text", "spelt"),
    [
        ("int needs --input-type float", "int needs input_type='float'"),
        ("an integer --input-type (floats use NaN)", "an integer input_type (floats use NaN)"),
        ("only to --style table with --missing none", "only to style='table' with missing='none'"),
        ("--no-proba needs --missing none: it sums", "proba=False needs missing='none': it sums"),
        ("cannot go with --proba: they", "cannot go with proba=True: they"),
        ("needs --input-type float or double", "needs input_type='float' or 'double'"),
        ("(not --prune reduced-error)", "(not prune='reduced-error')"),
        # A value of the user's own is quoted for a shell: left as the CLI writes it.
        ("use --nominal 'x' to treat", "use --nominal 'x' to treat"),
        ("as --nominal takes them", "as --nominal takes them"),
        ("--target humidity: the model uses", "--target humidity: the model uses"),
        # Given no value, it is the keyword.
        ("named 'a' for --target (columns: b)", "named 'a' for target (columns: b)"),
        ("choose another with --missing-value", "choose another with missing_value"),
        ("a tree's probabilities: --proba", "a tree's probabilities: proba=True"),
        # Not a flag: inside a word, or one the API has no keyword for.
        ("file a--missing none", "file a--missing none"),
        ("--on avr", "--on avr"),
    ],
)  # fmt: skip
def test_keyword_text(text: str, spelt: str) -> None:
    assert keyword_text(text) == spelt
    assert keyword_text(spelt) == spelt  # once is enough: the API's calls nest


def _golf(tmp_path: Path) -> treegen.Model:
    return treegen.train(f"{GOLF}.names").save(tmp_path / "golf.tree")


def _rules(tmp_path: Path) -> treegen.Model:
    return treegen.train_rules(f"{GOLF}.names").save(tmp_path / "golf.rules")


def _forest(tmp_path: Path) -> treegen.Model:
    ensemble = pytest.importorskip("sklearn.ensemble")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    est = ensemble.RandomForestClassifier(3, max_depth=3, random_state=0)
    return treegen.from_sklearn(est.fit(X, X[:, 0] > 0)).save(tmp_path / "forest.tree")


# (what to call, its keywords, the API's message, the same options as flags, the CLI's).
CASES = [
    (
        _golf,
        {"float_compare": "int", "input_type": "int16"},
        "float_compare: int needs input_type='float'",
        ["--float-compare", "int", "--input-type", "int16"],
        "--float-compare: int needs --input-type float",
    ),
    (
        _golf,
        {"proba": False},
        "proba: proba=False needs missing='none': the C4.5 missing-value rule",
        ["--no-proba"],
        "--proba: --no-proba needs --missing none: the C4.5 missing-value rule",
    ),
    (
        _golf,
        {"inline_top": 2},
        "inline_top: applies only to style='table' with missing='none'",
        ["--inline-top", "2"],
        "--inline-top: applies only to --style table with --missing none",
    ),
    (
        _golf,
        {"scale": 10},
        "scale: needs an integer input_type",
        ["--scale", "10"],
        "--scale: needs an integer --input-type",
    ),
    (
        _golf,
        {"missing_value": 3},
        "missing_value: needs an integer input_type (floats use NaN)",
        ["--missing-value", "3"],
        "--missing-value: needs an integer --input-type (floats use NaN)",
    ),
    (
        _golf,
        {"input_type": "int16", "scale": {"nosuch": 2}},
        "scale: unknown attribute 'nosuch'",
        ["--input-type", "int16", "--scale", "nosuch=2"],
        "--scale: unknown attribute 'nosuch'",
    ),
    (
        _golf,
        {"prefix": "int"},
        "prefix: prefix 'int' is a reserved word",
        ["--prefix", "int"],
        "--prefix: prefix 'int' is a reserved word",
    ),
    (
        _rules,
        {"missing": "none"},
        "missing: a ruleset has one missing-value rule (a condition on a missing value does "
        "not hold), which costs one comparison: missing='none' is for trees",
        ["--missing", "none"],
        "--missing: a ruleset has one missing-value rule (a condition on a missing value does "
        "not hold), which costs one comparison: --missing none is for trees",
    ),
    (
        _forest,
        {"scores": True},
        "scores: a forest has no decision_function: proba=True exports its predict_proba",
        ["--scores"],
        "--scores: a forest has no decision_function: --proba exports its predict_proba",
    ),
]


@pytest.mark.parametrize(("make", "keywords", "api", "flags", "cli"), CASES)
@pytest.mark.parametrize("method", ["export_c", "verify", "export_options"])
def test_export_options_name_the_keyword_from_python_and_the_flag_from_the_cli(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    make: Callable[[Path], treegen.Model],
    keywords: dict[str, object],
    api: str,
    flags: list[str],
    cli: str,
    method: str,
) -> None:
    model = make(tmp_path)
    call = {
        "export_c": lambda: model.export_c(tmp_path / "out", **keywords),
        "verify": lambda: model.verify(**keywords),
        # Options a model's kind refuses (a ruleset's missing="none") are refused when
        # lowered: export_options checks only the record.
        "export_options": lambda: model.export_c(
            tmp_path / "out", model.export_options(**keywords)
        ),
    }[method]
    with pytest.raises(TreegenError) as info:
        call()
    assert str(info.value).startswith(api), str(info.value)
    assert not (tmp_path / "out").exists()
    command = "export" if method != "verify" else "verify"
    output = ["-o", str(tmp_path / "out")] if command == "export" else []
    code, _, err = run_cli(capsys, command, str(model.path), *flags, *output)
    assert code == 2 and err.startswith(f"treegen: error: {cli}"), err


@pytest.mark.parametrize(
    ("keywords", "api", "flags", "cli"),
    [
        (
            {"input_type": "foo"},
            "input_type: unknown input type 'foo' (choose from float, double, int8, ",
            [],  # the parser's choices refuse it first
            "",
        ),
        (
            {"missing_value": 5},
            "missing_value: needs an integer input_type (floats use NaN)",
            ["--missing-value", "5"],
            "--missing-value: needs an integer --input-type (floats use NaN)",
        ),
        (
            {"scores": True, "proba": True},
            "scores: cannot go with proba=True: they export different functions",
            ["--scores", "--proba"],
            "--scores: cannot go with --proba: they export different functions",
        ),
        (
            {"float_compare": "int", "input_type": "int16"},
            "float_compare: int needs input_type='float'",
            ["--input-type", "int16", "--float-compare", "int"],
            "--float-compare: int needs --input-type float",
        ),
    ],
)
def test_export_options_built_from_python_name_the_keyword(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    keywords: dict[str, object],
    api: str,
    flags: list[str],
    cli: str,
) -> None:
    """treegen.ExportOptions(...) has no keyword_errors wrapper around it: its own
    checks name the keyword from Python, while the same record built by the CLI names
    the flag."""
    with pytest.raises(TreegenError) as info:
        treegen.ExportOptions(**keywords)  # type: ignore[arg-type]
    assert str(info.value).startswith(api), str(info.value)
    if not flags:
        return
    model = str(_golf(tmp_path).path)
    code, _, err = run_cli(capsys, "export", model, *flags, "-o", str(tmp_path / "out"))
    assert code == 2 and err.startswith(f"treegen: error: {cli}"), err


def test_verify_names_cc_and_the_cli_names_its_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = _golf(tmp_path)
    with pytest.raises(TreegenError, match="^cc: C compiler 'no-such-cc' not found$"):
        model.verify(cc="no-such-cc")
    code, _, err = run_cli(capsys, "verify", str(model.path), "--cc", "no-such-cc")
    assert code == 2 and err == "treegen: error: --cc: C compiler 'no-such-cc' not found\n"


def test_one_rule_names_the_options_of_a_wrapped_function_and_of_a_record(
    tmp_path: Path,
) -> None:
    """The API's wrapper and ExportOptions' own checks follow the one rule: the keyword
    from Python, the flag inside the command line's context, whichever raised it."""
    model = _golf(tmp_path)
    with pytest.raises(TreegenError, match="^cc: C compiler 'no-such-cc' not found$"):
        model.verify(cc="no-such-cc")
    with pytest.raises(TreegenError, match="^input_type: "):
        ExportOptions(input_type="foo")  # type: ignore[arg-type]
    with on_command_line():
        with pytest.raises(TreegenError, match="^--cc: C compiler 'no-such-cc' not found$"):
            model.verify(cc="no-such-cc")
        with pytest.raises(TreegenError, match="^--input-type: "):
            ExportOptions(input_type="foo")  # type: ignore[arg-type]


def test_train_names_weight_column_and_the_cli_names_weights(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The readers' --weights is train's weight_column (its weights= are arrays')."""
    says = ": is for a CSV or C4.5 file's weight column; an ARFF file gives"
    with pytest.raises(TreegenError, match=f"^weight_column{says}"):
        treegen.train(f"{GOLF}.arff", weight_column="windy")
    argv = ["train", f"{GOLF}.arff", "--weights", "windy", "-o", str(tmp_path / "g.tree")]
    code, _, err = run_cli(capsys, *argv)
    assert code == 2 and err.startswith(f"treegen: error: --weights{says}"), err


def test_a_column_both_nominal_and_ignored_names_both_keywords(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The readers' error about two options names both as the caller spelt them."""
    says = ": names 'outlook', also named by {} (an ignored column is no attribute)"
    with pytest.raises(TreegenError) as err:
        treegen.train(f"{GOLF}.arff", nominal=["outlook"], ignore=["outlook"])
    assert str(err.value) == "nominal" + says.format("ignore")
    argv = ["train", f"{GOLF}.arff", "--nominal", "outlook", "--ignore", "outlook"]
    code, _, err_text = run_cli(capsys, *argv, "-o", str(tmp_path / "g.tree"))
    assert code == 2 and err_text == f"treegen: error: --nominal{says.format('--ignore')}\n"


def test_the_estimator_names_the_keyword(tmp_path: Path) -> None:
    X = np.random.default_rng(0).normal(size=(40, 2))
    clf = treegen.C45Classifier().fit(X, X[:, 0] > 0)
    with pytest.raises(TreegenError, match="^input_type: unknown input type 'foo'"):
        clf.export_c(tmp_path, input_type="foo")
    with pytest.raises(TreegenError, match="^style: unknown style 'x'"):
        clf.export_c(tmp_path, style="x")
    assert list(tmp_path.iterdir()) == []
    # fit passes sample_weight to treegen.train as its weights=: named as fit takes it.
    with pytest.raises(TreegenError, match=r"^sample_weight: must be one number per row"):
        treegen.C45Classifier().fit(X, X[:, 0] > 0, sample_weight=[1.0, 2.0])


def test_from_sklearn_names_its_keywords() -> None:
    """The importers' errors name their own keywords already (the CLI renames them to
    its flags): no flag to translate."""
    tree = pytest.importorskip("sklearn.tree")
    X = np.random.default_rng(0).normal(size=(40, 2))
    est = tree.DecisionTreeClassifier(random_state=0).fit(X, X[:, 0] > 0)
    with pytest.raises(TreegenError, match="^feature_names: "):
        treegen.from_sklearn(est, feature_names=["a"])


def test_train_names_target_where_the_cli_names_its_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(TreegenError) as info:
        treegen.train(f"{GOLF}.arff", target="nosuch")
    assert "no attribute named 'nosuch' for target (attributes: " in str(info.value)
    argv = ["train", f"{GOLF}.arff", "--target", "nosuch", "-o", str(tmp_path / "g.tree")]
    code, _, err = run_cli(capsys, *argv)
    assert code == 2 and "no attribute named 'nosuch' for --target (attributes: " in err
