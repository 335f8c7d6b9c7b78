"""A Ctrl-C ends treegen with one line and exit status 130, never a traceback: while a
command runs (main() catches it) and before, while the modules load (the console
script's run() does)."""

from __future__ import annotations

import importlib.abc
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

import treegen.cli
from treegen.cli import run

ROOT = Path(__file__).resolve().parents[2]


class _InterruptedImport(importlib.abc.MetaPathFinder):
    """A finder that is 'interrupted' while treegen.cli.main is imported."""

    def find_spec(self, name: str, path: object, target: ModuleType | None = None) -> None:
        if name == "treegen.cli.main":
            raise KeyboardInterrupt
        return None


def _assert_interrupted(capsys: pytest.CaptureFixture[str]) -> None:
    """run() ends with exit status 130 and the one line, nothing on stdout."""
    with pytest.raises(SystemExit) as info:
        run()
    assert info.value.code == 130
    assert capsys.readouterr() == ("", "treegen: interrupted\n")


def test_the_console_script_and_python_m_treegen_run_run() -> None:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["treegen"] == "treegen.cli:run"
    assert "from treegen.cli import run" in (ROOT / "treegen" / "__main__.py").read_text()


def test_a_ctrl_c_while_the_modules_load_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delitem(sys.modules, "treegen.cli.main", raising=False)
    monkeypatch.delattr(treegen.cli, "main", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_InterruptedImport(), *sys.meta_path])
    _assert_interrupted(capsys)


def test_a_ctrl_c_while_the_parser_is_built_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import treegen.cli.main as cli_main

    def interrupted(command: str | None = None) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_main, "build_parser", interrupted)
    monkeypatch.setattr(sys, "argv", ["treegen", "show", "m.tree"])
    _assert_interrupted(capsys)


def test_run_exits_with_mains_status(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", ["treegen", "show", "no-such.tree"])
    with pytest.raises(SystemExit) as info:
        run()
    assert info.value.code == 2
    assert capsys.readouterr().err.startswith("treegen: error: no-such.tree")
