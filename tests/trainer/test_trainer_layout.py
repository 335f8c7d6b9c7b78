"""Habits of the trainer's code: documented public functions, imports at the top."""

from __future__ import annotations

import ast
from pathlib import Path

TRAINER = Path(__file__).resolve().parents[2] / "treegen" / "trainer"


def _defs(tree: ast.AST) -> list[tuple[str, ast.AST]]:
    """Every function and class with its dotted name (methods as Class.name)."""
    out: list[tuple[str, ast.AST]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                out.append((prefix + child.name, child))
                if isinstance(child, ast.ClassDef):
                    visit(child, f"{prefix}{child.name}.")

    visit(tree, "")
    return out


def _is_overload_stub(node: ast.AST) -> bool:
    return isinstance(node, ast.FunctionDef) and any(
        isinstance(d, ast.Name) and d.id == "overload" for d in node.decorator_list
    )


def test_every_public_function_and_class_has_a_docstring() -> None:
    missing = []
    for path in sorted(TRAINER.rglob("*.py")):
        for name, node in _defs(ast.parse(path.read_text("utf-8"))):
            public = not any(part.startswith("_") for part in name.split("."))
            assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            if public and not _is_overload_stub(node) and not ast.get_docstring(node):
                missing.append(f"{path.relative_to(TRAINER)}: {name}")
    assert not missing


def test_no_imports_inside_functions() -> None:
    """Imports sit at the top of a module (the optional C modules load through
    treegen.model.native.load, with importlib)."""
    found = []
    for path in sorted(TRAINER.rglob("*.py")):
        rel = str(path.relative_to(TRAINER))
        for name, node in _defs(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ClassDef):
                continue
            for inner in ast.walk(node):
                if isinstance(inner, ast.Import | ast.ImportFrom):
                    found.append(f"{rel}: {name}")
    assert found == []
