"""The README stays true: its Python and C examples run, its command reference is the parser's."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from treegen.cli.main import build_parser
from treegen.verify.build import STRICT_FLAGS

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
GOLF = ROOT / "tests" / "data" / "reference" / "golf" / "golf"


def cli_reference() -> str:
    """``treegen --help`` and every subcommand's ``--help``, at a fixed width so the
    text does not depend on the terminal."""
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"  # argparse reads the width when it formats
    try:
        pages = [parser.format_help().strip()]
        pages += [
            f"$ treegen {name} --help\n" + p.format_help().strip()
            for name, p in sub.choices.items()
        ]
        return "$ treegen --help\n" + "\n\n".join(pages)
    finally:
        if old is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = old


def test_the_command_reference_is_the_parsers() -> None:
    """The README holds argparse's help as Python 3.11 and 3.12 format it; 3.13's argparse
    lays the same help out otherwise (``-o, --output MODEL``, other columns), so there
    the README must name the same options and subcommands."""
    block = README.split("<!-- cli-reference -->\n```\n", 1)[1].split("\n```", 1)[0]
    if sys.version_info < (3, 13):
        assert block == cli_reference()
    else:
        words = re.compile(r"(?<![\w-])(?:--?[a-z][\w-]*|\$ treegen [\w-]+)")
        assert set(words.findall(block)) == set(words.findall(cli_reference()))


@pytest.mark.parametrize("index", range(len(re.findall(r"^```python$", README, re.M))))
def test_every_python_example_runs(
    index: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code = re.findall(r"^```python\n(.*?)^```$", README, re.M | re.S)[index]
    data = tmp_path / "tests" / "data" / "reference" / "golf"
    data.mkdir(parents=True)
    for suffix in (".names", ".data"):
        (data / f"golf{suffix}").write_text(GOLF.with_suffix(suffix).read_text())
    monkeypatch.chdir(tmp_path)
    exec(compile(code, f"README.md python block {index}", "exec"), {})
    assert (tmp_path / "build" / "predict.c").is_file()


@pytest.mark.parametrize("index", range(len(re.findall(r"^```c$", README, re.M))))
def test_every_c_example_compiles_and_prints_the_models_answer(index: int, tmp_path: Path) -> None:
    """Each C block, with golf's exported predict.c, under the strict flags; its one line
    of output is the Python model's class and fixed-point probability for the same row."""
    import numpy as np

    import treegen

    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    code = re.findall(r"^```c\n(.*?)^```$", README, re.M | re.S)[index]
    model = treegen.train(str(GOLF) + ".names")
    model = model.save(str(tmp_path / "golf.tree"))  # the C prefix comes from the file name
    model.export_c(str(tmp_path))
    (tmp_path / "main.c").write_text(code)
    exe = tmp_path / "example"
    subprocess.run(
        [cc, *STRICT_FLAGS, "-o", str(exe), str(tmp_path / "main.c"), str(tmp_path / "predict.c")],
        check=True,
        capture_output=True,
        timeout=120,
    )
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True, timeout=30).stdout
    row = np.array([[0.0, 85.0, 85.0, 1.0]])  # sunny, 85, 85, windy=false as in the block
    cls = list(model.classes_).index(model.predict(row)[0])
    q15 = int(np.floor(model.predict_proba(row)[0][cls] * 32768))
    assert out == f"class {cls} p {q15}/32768\n"
