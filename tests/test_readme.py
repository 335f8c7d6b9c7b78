"""The README stays true: its Python examples run, its command reference is the parser's."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from treegen.cli.main import build_parser

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
GOLF = ROOT / "tests" / "data" / "reference" / "golf" / "golf"


def cli_reference() -> str:
    """The usage of every subcommand, at a fixed width so the text does not depend on
    the terminal."""
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"  # argparse reads the width when it formats
    try:
        return "\n".join(p.format_usage().strip() for p in sub.choices.values())
    finally:
        if old is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = old


def test_the_command_reference_is_the_parsers() -> None:
    block = README.split("<!-- cli-reference -->\n```\n", 1)[1].split("\n```", 1)[0]
    assert block == cli_reference()


@pytest.mark.parametrize("index", range(len(re.findall(r"^```python$", README, re.M))))
def test_every_python_example_runs(index: int, tmp_path: Path,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    code = re.findall(r"^```python\n(.*?)^```$", README, re.M | re.S)[index]
    data = tmp_path / "tests" / "data" / "reference" / "golf"
    data.mkdir(parents=True)
    for suffix in (".names", ".data"):
        (data / f"golf{suffix}").write_text(GOLF.with_suffix(suffix).read_text())
    monkeypatch.chdir(tmp_path)
    exec(compile(code, f"README.md python block {index}", "exec"), {})
    assert (tmp_path / "build" / "predict.c").is_file()
