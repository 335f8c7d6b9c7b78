"""Random option combinations of every command, good and bad values, on small inputs.

The options are read from the parser itself (each subcommand's actions: flags,
choices, typed values), so a new option is fuzzed without changing this test.  A
case picks a command, zero to four of its options, each with a value from its
choices, a plausible one or a hostile one (negative, zero, NaN, huge, empty, a
missing file), and runs it on golf (a c45 tree, a ruleset, an imported forest).
Status must be 0, 1 only from ``verify`` never (the C must equal the model), or 2
with one ``treegen: error:`` line and no output left behind.  A case is its index:
``default_rng([SEED, index])``; ``TREEGEN_FUZZ_CASE=options:INDEX`` runs that one,
``TREEGEN_FUZZ=long`` many more.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from treegen.cli.main import build_parser

from support.fuzz import LONG, case_indices
from support.fuzzrun import Guard, call, check_run

SEED = 38
GOLF = Path(__file__).resolve().parents[1] / "data" / "reference" / "golf"
# Commands left out: synth writes what it is asked to (any size), and verify --on
# runs simulated chips (a minute each); both have their own tests.
SKIP_OPTIONS = {("verify", "--on"), ("export", "--report")}
COMMANDS = (
    "train", "show", "eval", "predict", "cv", "export", "verify", "info", "rules", "plot",
)  # fmt: skip
HOSTILE = ["-1", "0", "1", "2", "0.5", "nan", "inf", "1e999", "", "x", "99999999999999999999",
           "1.5", "-0", "golf", "missing.file", "/dev/null", "a,b", "\\,", "outlook", "3/4",
           "int", "x=2", "humidity=100", "0x10", "1" + "0" * 400]  # fmt: skip


def _options(command: str) -> list[argparse.Action]:
    parser = build_parser(command)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[
        command
    ]
    return [
        a
        for a in sub._actions
        if a.option_strings
        and not any(s in ("-h", "--help", "-q", "--quiet") for s in a.option_strings)
        and (command, a.option_strings[-1]) not in SKIP_OPTIONS
    ]


def _value(action: argparse.Action, rng: np.random.Generator) -> list[str]:
    """The words after the option: none for a flag, else a choice or a hostile value."""
    if action.nargs == 0:
        return []
    if action.choices and rng.random() < 0.7:
        return [str(rng.choice(list(action.choices)))]
    if action.type in (int, float) or rng.random() < 0.3:
        return [str(rng.choice(["1", "2", "3", "0.25", "5"]))]
    return [HOSTILE[int(rng.integers(len(HOSTILE)))]]


def _argv(command: str, rng: np.random.Generator, models: dict[str, str], out: Path) -> list[str]:
    data = str(GOLF / "golf.data")
    model = models[str(rng.choice(sorted(models)))]
    positional = {
        "train": [data, "-o", str(out / "out.tree")],
        "rules": [data, "-o", str(out / "out.tree")],
        "cv": [data],
        "show": [model],
        "info": [model],
        "plot": [model, "-o", str(out / "out.tree")],
        "eval": [model, data],
        "predict": [model, data],
        "export": [model, "-o", str(out)],
        "verify": [model, data],
    }[command]
    words: list[str] = []
    actions = _options(command)
    for _ in range(int(rng.integers(0, 5))):
        action = actions[int(rng.integers(len(actions)))]
        name = action.option_strings[int(rng.integers(len(action.option_strings)))]
        if name in ("-o", "--output"):
            continue
        words += [name, *_value(action, rng)]
    return [command, *positional, *words]


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    from treegen.cli.main import main

    d = tmp_path_factory.mktemp("models")
    data = str(GOLF / "golf.data")
    assert main(["train", data, "-q", "-o", str(d / "golf.tree")]) == 0
    assert main(["rules", data, "-q", "-o", str(d / "golf.rules")]) == 0
    assert main(["train", data, "-q", "--bag", "2", "-o", str(d / "bag.tree")]) == 0
    return {
        "tree": str(d / "golf.tree"),
        "rules": str(d / "golf.rules"),
        "bag": str(d / "bag.tree"),
    }


def run_case(index: int, models: dict[str, str], work: Path) -> None:
    rng = np.random.default_rng([SEED, index])
    command = COMMANDS[int(rng.integers(len(COMMANDS)))]
    shutil.rmtree(work, ignore_errors=True)
    guard = Guard(work / "out")
    argv = _argv(command, rng, models, guard.folder)
    case = f"options:{index} {argv}"
    status, err = call(case, argv, limit=120)
    allowed = [str(p) for p in guard.folder.iterdir()] if status == 0 else []
    inputs = [*argv, *(w.split("=")[0] for w in argv), command]
    check_run(case, status, err, guard, inputs, allowed)
    # The error names an option (of the command line, or one it needs), or a file.
    if status == 2:
        named = re.search(r"(^|[\s(])-[-a-zA-Z]", err[len("treegen: error: ") :])
        files = [w for w in argv[1:] if os.path.sep in w or f" {w}: " in err]
        files += ["''"] if "" in argv[1:] else []  # an empty file name, as errors print it
        assert named or any(f in err for f in files), (case, err)


def test_random_option_combinations(models: dict[str, str], tmp_path: Path) -> None:
    seconds = 600.0 if LONG else float(os.environ.get("TREEGEN_FUZZ_SECONDS", "0.3"))
    for index in case_indices("options", seconds, 6):
        run_case(index, models, tmp_path / "w")
