"""No option is accepted abbreviated.

With argparse's default, ``--prob`` meant ``--proba``; a later option starting the same
way would then change what an old script means, or make it an error.  The property runs
over every proper prefix of every long option of every treegen parser, and over every
``ArgumentParser`` the repository builds (by reading the source).
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

import pytest

from treegen.cli.main import build_parser
from treegen.firmware import check as firmware_check

from support.cli import required_argv, run_cli, subparsers

ROOT = Path(__file__).resolve().parents[2]


def _prefixes(parser: argparse.ArgumentParser) -> list[str]:
    """Every proper prefix (``--x`` or longer) of the parser's long options that is no
    option itself."""
    options = {s for a in parser._actions for s in a.option_strings}
    out = set()
    for opt in options:
        if opt.startswith("--"):
            out.update(opt[:k] for k in range(3, len(opt)))
    return sorted(out - options)


def test_no_abbreviated_option_is_accepted() -> None:
    parser = build_parser()
    cases = [([], p) for p in _prefixes(parser)]
    for name, sub in subparsers().items():
        cases += [([name, *required_argv(sub)], p) for p in _prefixes(sub)]
    assert len(cases) > 300  # every subcommand's options were reached
    for argv, prefix in cases:
        try:
            _, extra = parser.parse_known_args([*argv, prefix])
        except SystemExit:  # an abbreviation taken for an option that wants a value
            pytest.fail(f"treegen {' '.join(argv)} {prefix}: taken as an option")
        assert extra == [prefix], (argv, prefix)


def test_an_abbreviation_is_a_one_line_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "predict", "m.tree", "d.csv", "--prob")
    assert code == 2 and out == ""
    # predict's --help lists its options ('treegen --help', the hint before, lists none)
    assert err == (
        "treegen: error: predict: unrecognized arguments: --prob (see 'treegen predict --help')\n"
    )


def test_the_firmware_check_takes_no_abbreviation(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        firmware_check.main(["--rand", "x"])
    assert exc.value.code == 2
    assert "unrecognized arguments: --rand x" in capsys.readouterr().err


def _parser_calls(tree: ast.AST) -> list[ast.Call]:
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and (
            (isinstance(node.func, ast.Attribute) and node.func.attr == "ArgumentParser")
            or (isinstance(node.func, ast.Name) and node.func.id == "ArgumentParser")
        )
    ]


def test_every_argument_parser_in_the_source_refuses_abbreviations() -> None:
    """Every ``ArgumentParser(...)`` the repository makes passes ``allow_abbrev=False``
    (treegen's own parsers are OneLineParsers, which force it: tested above)."""
    sources = [*ROOT.joinpath("treegen").rglob("*.py"), *ROOT.joinpath("bench").rglob("*.py")]
    calls = 0
    for path in sources:
        for call in _parser_calls(ast.parse(path.read_text(), str(path))):
            calls += 1
            given = {k.arg: k.value for k in call.keywords}
            value = given.get("allow_abbrev")
            assert isinstance(value, ast.Constant) and value.value is False, (
                f"{path.relative_to(ROOT)}:{call.lineno}: ArgumentParser without allow_abbrev=False"
            )
    assert calls >= 3
