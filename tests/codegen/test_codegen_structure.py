"""Structural checks on the emitted C with pycparser: one ``if`` per comparison and
one ``switch`` per nominal test in the ifs style, no floating constant or type in
integer modes, no ``double`` unless asked for, no call to anything but the model's
own functions, and a call graph without cycles (no recursion)."""

from __future__ import annotations

import re
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest
from pycparser import c_ast, c_parser

from treegen.codegen.emit import emit
from treegen.codegen.ir import IR, Compare, Switch
from treegen.codegen.lower import lower
from treegen.codegen.options import ExportOptions

from support import codegen_models as cm
from support.modes import STYLES, modes

FAKE_STDINT = "\n".join(
    f"typedef {c} {t};"
    for t, c in [
        ("int8_t", "signed char"),
        ("uint8_t", "unsigned char"),
        ("int16_t", "short"),
        ("uint16_t", "unsigned short"),
        ("int32_t", "int"),
        ("uint32_t", "unsigned int"),
    ]
)

MODES = modes(fixed={"input_type": "int32", "scale": Fraction(100)})


def parse(files: dict[str, str], tmp: Path) -> c_ast.FileAST:
    if shutil.which("gcc") is None:
        pytest.skip("gcc (as preprocessor) is not installed")
    (tmp / "inc").mkdir(exist_ok=True)
    (tmp / "inc" / "stdint.h").write_text(FAKE_STDINT + "\n")
    for name, text in files.items():
        (tmp / name).write_text(text)
    pre = subprocess.run(
        ["gcc", "-E", "-P", "-nostdinc", "-I", str(tmp / "inc"), str(tmp / "predict.c")],
        capture_output=True,
        text=True,
        check=True,
    )
    return c_parser.CParser().parse(pre.stdout, "predict.c")


class Census(c_ast.NodeVisitor):
    def __init__(self) -> None:
        self.ifs_in_walk = 0
        self.switches = 0
        self.float_constants: list[str] = []
        self.type_names: set[str] = set()
        self.calls: dict[str, set[str]] = {}
        self.defined: set[str] = set()
        self.func = ""

    def visit_FuncDef(self, node: c_ast.FuncDef) -> None:
        self.func = node.decl.name
        self.defined.add(self.func)
        self.calls.setdefault(self.func, set())
        self.generic_visit(node)

    def visit_If(self, node: c_ast.If) -> None:
        if "_walk" in self.func:
            self.ifs_in_walk += 1
        self.generic_visit(node)

    def visit_Switch(self, node: c_ast.Switch) -> None:
        self.switches += 1
        self.generic_visit(node)

    def visit_Constant(self, node: c_ast.Constant) -> None:
        if node.type in ("float", "double", "long double"):
            self.float_constants.append(node.value)

    def visit_IdentifierType(self, node: c_ast.IdentifierType) -> None:
        self.type_names.update(node.names)

    def visit_FuncCall(self, node: c_ast.FuncCall) -> None:
        assert isinstance(node.name, c_ast.ID)
        self.calls.setdefault(self.func, set()).add(node.name.name)
        self.generic_visit(node)


def census(ir: IR, style: str, tmp: Path) -> Census:
    c = Census()
    c.visit(parse(emit(ir, style), tmp))
    return c


# The synthetic thresholds include 1e30, which overflows any int32 scale by design.
CASES = [(w, m) for w in ("golf", "syn") for m in sorted(MODES) if (w, m) != ("syn", "fixed")]


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("which,mode", CASES)
def test_structure(which: str, mode: str, style: str, tmp_path: Path) -> None:
    model = cm.golf() if which == "golf" else cm.synthetic(5, 120)
    ir = lower(model, ExportOptions(prefix="m", style=style, **MODES[mode]))  # type: ignore[arg-type]
    c = census(ir, style, tmp_path)
    n_compare = sum(isinstance(n, Compare) for n in ir.nodes)
    n_switch = sum(isinstance(n, Switch) for n in ir.nodes)
    if style == "ifs":
        assert c.ifs_in_walk == n_compare
        assert c.switches == n_switch
    else:
        assert c.switches == 0
    floats_allowed = mode in ("float", "double")
    if not floats_allowed:
        assert c.float_constants == []
        assert "float" not in c.type_names or mode == "keys"  # keys: the input type only
    if mode != "double":
        assert "double" not in c.type_names
    # Only the model's own functions are called, and none calls itself (directly or not).
    called = set().union(*c.calls.values())
    assert called <= c.defined, called - c.defined
    assert all(name.startswith("m_") for name in c.defined)
    seen: dict[str, int] = {}

    def acyclic(f: str) -> bool:  # depth of the call graph is tiny (a few helpers)
        if seen.get(f) == 1:
            return False
        if seen.get(f) == 2:
            return True
        seen[f] = 1
        ok = all(acyclic(g) for g in c.calls.get(f, ()))
        seen[f] = 2
        return ok

    assert all(acyclic(f) for f in c.defined)


def test_keys_mode_touches_floats_only_to_read_bits(tmp_path: Path) -> None:
    ir = lower(cm.synthetic(5, 120), ExportOptions(prefix="m", float_compare="int"))
    files = emit(ir, "ifs")
    assert "float" in files["predict.h"]  # the API still takes float x[]
    body = re.sub(r"/\*.*?\*/", "", files["predict.c"], flags=re.DOTALL)
    # float appears only in the key function's parameter and union member
    uses = [line.strip() for line in body.splitlines() if "float" in line]
    assert uses == ["static uint32_t m_key(float v)", "float f;"]


@pytest.mark.slow
def test_deep_tree_is_split_into_functions(tmp_path: Path) -> None:
    model = cm.synthetic(2, 50, spine=230)
    ir = lower(model, ExportOptions(prefix="m"))
    c = census(ir, "ifs", tmp_path)
    walks = [f for f in c.defined if "_walk" in f]
    assert len(walks) > 1
    assert c.ifs_in_walk == sum(isinstance(n, Compare) for n in ir.nodes)
    # no line is indented deeper than 48 levels of nesting plus the function body
    depth = max(
        len(line) - len(line.lstrip(" ")) for line in emit(ir, "ifs")["predict.c"].splitlines()
    )
    assert depth <= 4 * 49
