"""One home for the numbers Python shares with C: treegen/model/constants.py (the node
kinds), treegen/trainer/constants.py (tolerances, the class limit) and
treegen/rules/constants.py (c4.5rules' description lengths).

Python imports them from there; setup.py hands each to the C compiler as a
``TG_<NAME>`` macro; the C sources use those macros and no copies of their
own, and refuse to build without them.
"""

from __future__ import annotations

import ast
import re
import runpy
import shutil
import subprocess
import sysconfig
from pathlib import Path
from typing import Any

import pytest
import setuptools

from treegen.model import constants as model_constants
from treegen.model import native as model_native
from treegen.rules import constants as rules_constants
from treegen.rules import native as rules_native
from treegen.trainer import constants as trainer_constants
from treegen.trainer import native as trainer_native

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "treegen"
TRAINER = PACKAGE / "trainer"
NATIVE = TRAINER / "native"
# Every folder of C kernels that takes TG_ macros, and the constants modules.
RULES = PACKAGE / "rules"
NATIVE_DIRS = [PACKAGE / "model" / "native", NATIVE, RULES / "native"]
CONSTANTS = [PACKAGE / "model" / "constants.py", TRAINER / "constants.py", RULES / "constants.py"]


def _values(*modules: object) -> dict[str, int | float]:
    out: dict[str, int | float] = {}
    for module in modules or (model_constants, trainer_constants):
        out.update(
            {
                name: value
                for name, value in vars(module).items()
                if not name.startswith("_") and isinstance(value, int | float)
            }
        )
    return out


def _c_files() -> list[Path]:
    return [p for d in NATIVE_DIRS for p in sorted(d.glob("*.[ch]"))]


def _setup_extensions(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The extensions setup.py declares (setuptools.setup intercepted)."""
    seen: dict[str, Any] = {}
    monkeypatch.setattr(setuptools, "setup", lambda **kw: seen.update(kw))
    monkeypatch.chdir(ROOT)
    runpy.run_path(str(ROOT / "setup.py"), run_name="setup")
    return list(seen["ext_modules"])


def _c_code(path: Path) -> str:
    """A C source without its comments (prose may quote the numbers)."""
    text = re.sub(r"/\*.*?\*/", " ", path.read_text("utf-8"), flags=re.DOTALL)
    return re.sub(r"//[^\n]*", " ", text)


# What each extension module is handed: the model's classifier only the node kinds.
_WANT = {
    "treegen.model.native._cclassify": _values(model_constants),
    "treegen.trainer.native._cprune": _values(),
    "treegen.trainer.native._cscan": _values(),
    "treegen.rules.native._crules": _values(model_constants, trainer_constants, rules_constants),
}


def test_setup_passes_every_constant_to_every_extension(monkeypatch: pytest.MonkeyPatch) -> None:
    exts = [e for e in _setup_extensions(monkeypatch) if e.define_macros]
    assert sorted(e.name for e in exts) == sorted(_WANT)
    for ext in exts:
        want = _WANT[ext.name]
        got = {name: ast.literal_eval(value) for name, value in ext.define_macros}
        assert got == {f"TG_{name}": value for name, value in want.items()}, ext.name
        # The same double, not merely a close one.
        assert all(type(got[f"TG_{n}"]) is type(v) for n, v in want.items())


def test_c_uses_only_macros_that_setup_defines() -> None:
    used = set()
    for path in _c_files():
        used |= set(re.findall(r"\bTG_[A-Z0-9_]+\b", _c_code(path)))
    assert used, "the C sources use the shared constants"
    shared = _values(model_constants, trainer_constants, rules_constants)
    assert used - {"TG_CONSTANTS"} <= {f"TG_{name}" for name in shared}


@pytest.mark.parametrize("path", CONSTANTS, ids=lambda p: p.parent.name)
def test_constants_module_is_plain_literals(path: Path) -> None:
    """setup.py reads it without importing treegen: nothing but NAME = literal."""
    tree = ast.parse(path.read_text("utf-8"))
    body = tree.body[1:] if ast.get_docstring(tree) else tree.body
    for node in body:
        assert isinstance(node, ast.Assign), ast.dump(node)
        ast.literal_eval(node.value)


# Where a number equal to a shared constant means something else.
_OTHER_MEANING = {
    ("stats.py", "_CF_TABLE"),  # Release 8's CF table starts 0.0, 0.001, ...
    ("mdl.py", "CERTAIN"),  # c4.5rules' certain probability, not J48's tolerance
}


def test_no_python_copy_of_a_shared_float() -> None:
    floats = {v for v in _values().values() if isinstance(v, float)}
    found = []
    # The trainer's floats, in the trainer and c4.5rules (which ranks by its bound).
    for path in sorted([*TRAINER.rglob("*.py"), *(PACKAGE / "rules").rglob("*.py")]):
        if path.name == "constants.py":
            continue
        tree = ast.parse(path.read_text("utf-8"))
        skip: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and (path.name, t.id) in _OTHER_MEANING
                for t in node.targets
            ):
                skip |= {id(n) for n in ast.walk(node.value)}
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and type(node.value) is float
                and node.value in floats
                and id(node) not in skip
            ):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}")
    assert not found


_C_NUMBER = re.compile(r"(?<![\w.])(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?(?![\w.])")


def test_no_c_copy_of_a_shared_number() -> None:
    values = _values()
    floats = {v for v in values.values() if isinstance(v, float)}
    # Small integers (the kind codes among them) are everywhere in C.
    ints = {v for v in values.values() if isinstance(v, int) and v >= 10}
    found = []
    for path in _c_files():
        for literal in _C_NUMBER.findall(_c_code(path)):
            is_float = any(ch in literal for ch in ".eE")
            if (float(literal) in floats) if is_float else (int(literal) in ints):
                found.append(f"{path.name}: {literal}")
    assert not found
    assert "LEAF = TG_KIND_LEAF" in _c_code(NATIVE / "common.h")


@pytest.mark.parametrize("module", sorted(_WANT))
def test_built_accelerator_has_these_constants(module: str) -> None:
    """A build made from an older constants.py is caught here (rebuild: make venv)."""
    mod = {
        "treegen.model.native._cclassify": model_native.cclassify,
        "treegen.trainer.native._cprune": trainer_native.cprune,
        "treegen.trainer.native._cscan": trainer_native.cscan,
        "treegen.rules.native._crules": rules_native.crules,
    }[module]
    if mod is None:
        pytest.skip("accelerator off or not built")
    assert mod.TG_CONSTANTS == _WANT[module]


def _compile(source: Path, macros: list[tuple[str, str]]) -> subprocess.CompletedProcess[str]:
    include = sysconfig.get_paths()["include"]
    native = [f"-I{d}" for d in NATIVE_DIRS]
    cmd = ["gcc", "-std=c99", "-fsyntax-only", f"-I{include}", *native, str(source)]
    cmd += [f"-D{name}={value}" for name, value in macros]
    return subprocess.run(cmd, capture_output=True, text=True, check=False)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc")
def test_c_build_without_the_macros_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
        pytest.skip("no Python.h")
    exts = {e.name: e for e in _setup_extensions(monkeypatch)}
    sources = {
        "treegen.trainer.native._cprune": NATIVE / "cprune.c",
        "treegen.trainer.native._cscan": NATIVE / "scan.c",
        "treegen.model.native._cclassify": PACKAGE / "model" / "native" / "cclassify.c",
        "treegen.rules.native._crules": RULES / "native" / "rpaths.c",
    }
    for name, source in sources.items():
        bare = _compile(source, [])
        assert bare.returncode != 0 and "constants.py" in bare.stderr, name
        full = _compile(source, exts[name].define_macros)
        assert full.returncode == 0, full.stderr
