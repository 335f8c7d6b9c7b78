"""``treegen --version``'s account of the C accelerator where a module is missing: each
module the build left out (or all of them) is named, as ``describe`` words it."""

from __future__ import annotations

import pytest

from treegen import __version__
from treegen.model import native as model_native
from treegen.rules import native as rules_native
from treegen.trainer import native as trainer_native

from support.cli import run_cli


def test_one_module_not_built_is_named(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for mod, name in ((trainer_native, "cscan"), (model_native, "cclassify")):
        monkeypatch.setattr(mod, name, object())  # built, whatever this machine built
    monkeypatch.setattr(trainer_native, "cprune", object())
    monkeypatch.setattr(rules_native, "crules", None)
    code, out, err = run_cli(capsys, "--version")
    assert (code, err) == (0, "")
    assert out == (
        f"treegen {__version__}; C accelerator: growth on, pruning on, "
        "classification on, rules off\n"
    )


def test_none_built_says_numpy_runs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("TREEGEN_NO_NATIVE", raising=False)
    monkeypatch.setattr(trainer_native, "cscan", None)
    monkeypatch.setattr(trainer_native, "cprune", None)
    monkeypatch.setattr(model_native, "cclassify", None)
    monkeypatch.setattr(rules_native, "crules", None)
    code, out, err = run_cli(capsys, "--version")
    assert (code, err) == (0, "")
    assert out == (
        f"treegen {__version__}; C accelerator off: not built, treegen runs its numpy code\n"
    )


def test_a_module_that_does_not_import_is_none(monkeypatch: pytest.MonkeyPatch) -> None:
    """An extension module that was not built loads as None: the numpy code runs."""
    monkeypatch.delenv("TREEGEN_NO_NATIVE", raising=False)
    assert model_native.load("treegen.model.native._not_built") is None
    monkeypatch.setenv("TREEGEN_NO_NATIVE", "1")
    assert model_native.load("treegen.model.native._cclassify") is None
