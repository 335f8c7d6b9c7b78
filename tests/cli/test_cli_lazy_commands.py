"""A command builds only its own parser: ``treegen train`` imports no other command's module.

``main`` registers the subcommand its arguments name (``main.REGISTRARS``); the
other commands' modules (code generation's options, the firmware and packaging front
ends, the importers) cost every ``train`` 0.04-0.06 s of CPU.  What a
command parses must not change: each subcommand's parser built alone equals the one
of the whole parser, and no name, a misspelt one or ``--help`` get the whole parser.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from treegen import __version__
from treegen.cli import main as cli_main

GOLF = Path(__file__).resolve().parent.parent / "data" / "reference" / "golf" / "golf.data"


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("no subcommands")


def test_the_table_names_every_subcommand() -> None:
    full = _subparsers(cli_main.build_parser())
    listed = [c for _, _, names in cli_main.REGISTRARS for c in names]
    assert sorted(listed) == sorted(full) and len(set(listed)) == len(listed)


@pytest.mark.parametrize("command", sorted(_subparsers(cli_main.build_parser())))
def test_a_command_alone_parses_as_in_the_whole_parser(command: str) -> None:
    whole = _subparsers(cli_main.build_parser())[command]
    alone = _subparsers(cli_main.build_parser(command))
    assert command in alone and len(alone) < len(_subparsers(cli_main.build_parser()))
    assert alone[command].format_help() == whole.format_help()
    assert [a.option_strings for a in alone[command]._actions] == [
        a.option_strings for a in whole._actions
    ]


@pytest.mark.parametrize(
    ("argv", "command"),
    [
        (["train", "x.data"], "train"),
        (["-q", "cv", "x.data"], "cv"),
        (["--quiet", "import-xgboost", "m.json"], "import-xgboost"),
        (["--version"], None),
        ([], None),
    ],
)
def test_the_command_is_the_first_word_not_an_option(argv: list[str], command: str) -> None:
    assert cli_main.command_of(argv) == command


def test_an_unknown_command_gets_the_whole_parser() -> None:
    assert (
        _subparsers(cli_main.build_parser("trian")).keys()
        == _subparsers(cli_main.build_parser()).keys()
    )


def _modules_of_quiet_train(data: Path, out: Path) -> set[str]:
    """The modules a fresh ``treegen --quiet train DATA -o OUT`` has imported at its end."""
    code = (
        "import sys\nfrom treegen.cli.main import main\n"
        f"main(['--quiet', 'train', {str(data)!r}, '-o', {str(out)!r}])\n"
        "print('\\n'.join(sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return set(done.stdout.split())


def test_train_imports_no_other_commands_module(tmp_path: Path) -> None:
    out = tmp_path / "golf.tree"
    loaded = _modules_of_quiet_train(GOLF, out)
    assert out.is_file() and "treegen.cli.train" in loaded
    others = {f"treegen.cli.{m}" for m, _, _ in cli_main.REGISTRARS} - {"treegen.cli.train"}
    assert sorted(others & loaded) == []


def test_the_cli_starts_numpy_with_one_blas_thread() -> None:
    # treegen/__init__.py imports no numpy, so treegen.cli sets OPENBLAS_NUM_THREADS
    # before numpy loads OpenBLAS (its spinning thread pool cost every command 0.05 s).
    code = (
        "import os, sys\nimport treegen\nassert 'numpy' not in sys.modules\n"
        "import treegen.cli.main\nprint(os.environ['OPENBLAS_NUM_THREADS'], treegen.__version__)"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1", __version__]
    # A value the user set is kept.
    env["OPENBLAS_NUM_THREADS"] = "2"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == "2"


def test_a_quiet_train_imports_no_kinds_codegen_or_evaluation(tmp_path: Path) -> None:
    # A plain `treegen --quiet train` on an ARFF file writes the tree through the kinds'
    # registry without loading the tree kind (which loads codegen's options), nor the
    # committees or the evaluation modules (they were 0.01 s of every train's start-up);
    # the file is the tree kind's.
    data = tmp_path / "d.arff"
    rows = [f"{i % 7}.5,{'ab'[i % 2]},{'xy'[(i // 3) % 2]}" for i in range(40)]
    data.write_text(
        "@relation d\n@attribute a numeric\n@attribute b {a,b}\n@attribute class {x,y}\n"
        "@data\n" + "\n".join(rows) + "\n"
    )
    out = tmp_path / "d.tree"
    loaded = _modules_of_quiet_train(data, out)
    assert "treegen.trainer.fit" in loaded
    assert "treegen.kinds" in loaded  # the registry wrote it
    unwanted = ("treegen.kinds.", "treegen.codegen", "treegen.committee", "treegen.analysis")
    assert sorted(m for m in loaded if m.startswith(unwanted)) == []
    from treegen.data.readers import read_dataset
    from treegen.kinds import kind_of
    from treegen.trainer import TrainOptions, train

    model = train(read_dataset(str(data), float32=True), TrainOptions())
    assert out.read_text() == kind_of(model).to_json(model)
