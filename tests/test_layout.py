"""The package layout stays readable: no import cycles, few loose modules, documented folders."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import treegen

PKG = Path(treegen.__file__).resolve().parent


def _module_name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in PKG.rglob("*.py")}


def _imports(path: Path, name: str, known: set[str]) -> set[str]:
    """Every treegen module ``path`` imports, at module level or inside functions."""
    is_pkg = path.name == "__init__.py"
    here = name if is_pkg else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = here.split(".")[: len(here.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            # "from pkg import mod" imports the module pkg.mod when there is one.
            targets = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names
            ]
        else:
            continue
        for t in targets:
            if t in known and t != name:
                out.add(t)
    return out


@functools.cache
def _graph() -> dict[str, set[str]]:
    mods = _modules()
    known = set(mods)
    return {m: _imports(p, m, known) for m, p in mods.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def test_no_import_cycles() -> None:
    graph = _graph()
    # Packages import their own submodules to re-export them; a submodule
    # importing its package's other modules through the package is fine as
    # long as no module depends on itself through another one.
    assert _cycles(graph) == []


def test_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_at_most_four_loose_modules() -> None:
    loose = sorted(p.name for p in PKG.glob("*.py"))
    assert len(loose) <= 4, loose


def test_every_folder_says_its_role() -> None:
    for init in PKG.rglob("__init__.py"):
        doc = ast.get_docstring(ast.parse(init.read_text("utf-8")))
        assert doc and len(doc.split()) >= 8, f"{init} has no docstring saying its role"
    for folder in (p for p in PKG.rglob("*") if p.is_dir() and any(p.glob("*.py"))):
        assert (folder / "__init__.py").is_file(), f"{folder} is not a package"


# Which folder of treegen/ may import which: the pipeline's direction, one table.  A
# folder may always import itself and the loose modules that import nothing of treegen
# (BELOW_ALL); docs/ARCHITECTURE.md shows this table
# (test_architecture_shows_the_edge_table holds the two equal).
EDGES: dict[str, set[str]] = {
    "data": set(),
    "model": {"data"},
    "trainer": {"data", "model"},
    "analysis": {"data", "model"},
    "codegen": {"data", "model"},
    "verify": {"data", "model", "codegen"},
    "rules": {"data", "model", "trainer", "analysis", "codegen", "verify"},
    "ensemble": {"data", "model", "analysis", "codegen", "verify"},
    "committee": {"data", "model", "trainer", "analysis", "codegen", "verify"},
    "kinds": {"data", "model", "analysis", "codegen", "verify", "rules", "ensemble", "committee"},
    "firmware": {"data", "model", "trainer", "codegen", "verify", "ensemble", "kinds"},
    "packaging": {"data", "codegen", "kinds"},
    "api": {"data", "model", "trainer", "codegen", "verify", "rules", "committee", "kinds"},
    "estimator": {"data", "model", "trainer", "api", "ensemble"},
    "cli": {
        "data",
        "model",
        "trainer",
        "analysis",
        "codegen",
        "rules",
        "committee",
        "kinds",
        "firmware",
        "packaging",
        "estimator",
    },
}
# The loose modules: the package itself re-exports the API; __main__ runs the CLI.
LOOSE_EDGES: dict[str, set[str]] = {
    "treegen": {"api", "codegen", "estimator", "model"},
    "__main__": {"cli"},
    "errors": set(),
    "lazy": set(),
}
# Loose modules any folder may import: the error hierarchy, and the first-use imports of
# a package's names.
BELOW_ALL = {"errors", "lazy"}


def _folder(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "treegen"


def folder_edges(graph: dict[str, set[str]]) -> dict[tuple[str, str], list[str]]:
    """Every import from one folder (or loose module) into another, with its modules."""
    out: dict[tuple[str, str], list[str]] = {}
    for mod, targets in graph.items():
        for t in targets:
            a, b = _folder(mod), _folder(t)
            if a != b and b not in BELOW_ALL:
                out.setdefault((a, b), []).append(f"{mod} -> {t}")
    return out


def test_folders_import_only_down_the_edge_table() -> None:
    """Module-level and function-level imports alike (``_imports`` walks every node)."""
    allowed = {**EDGES, **LOOSE_EDGES}
    folders = {_folder(m) for m in _graph()}
    assert folders <= set(allowed), f"folders missing from the table: {folders - set(allowed)}"
    bad = {
        edge: sorted(mods)
        for edge, mods in folder_edges(_graph()).items()
        if edge[1] not in allowed[edge[0]]
    }
    assert bad == {}


def test_edge_table_has_no_cycle() -> None:
    graph = {a: {b for b in bs if b in EDGES} for a, bs in EDGES.items()}
    assert _cycles(graph) == []


def test_edge_check_finds_an_upward_import() -> None:
    edges = folder_edges({"treegen.model.x": {"treegen.codegen.y"}, "treegen.codegen.y": set()})
    assert ("model", "codegen") in edges and "codegen" not in EDGES["model"]


ROOT = PKG.parent
ARCHITECTURE = ROOT / "docs" / "ARCHITECTURE.md"


def test_architecture_shows_the_edge_table() -> None:
    text = ARCHITECTURE.read_text("utf-8")
    table = text.split("| folder | may import |", 1)[1].split("\n\n", 1)[0]
    shown: dict[str, set[str]] = {}
    for row in table.splitlines()[2:]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        shown[cells[0].strip("`")] = set(re.findall(r"`(\w+)`", cells[1])) - BELOW_ALL
    assert shown == EDGES


def _exists(token: str) -> bool:
    """A path as the docs write it: from the repository, from treegen/ or from any of
    its folders (``native/classify.c`` in the row of ``model/``, ``arff.py`` in that of
    ``data/readers/``)."""
    token = token.rstrip("/")
    return any((base / token).exists() for base in _bases())


@functools.cache
def _bases() -> tuple[Path, ...]:
    return (ROOT, PKG, *(p for p in PKG.rglob("*") if p.is_dir() and "__" not in p.name))


def test_architecture_names_only_what_exists() -> None:
    """Every file, folder and symbol ARCHITECTURE.md names in backquotes exists."""
    tokens = re.findall(r"`([^`\s]+)`", ARCHITECTURE.read_text("utf-8"))
    paths = [t for t in tokens if re.fullmatch(r"[\w./-]+\.(py|c|h|j2|md)|[\w-]+/[\w./-]*", t)]
    # NAME, FORMAT ...: a placeholder, not a path.
    paths = [t for t in paths if not re.search(r"(^|/)[A-Z]+(/|\.|$)", t)]
    assert len(paths) > 50
    missing = sorted({p for p in paths if not _exists(p)})
    assert missing == []
    source = "\n".join(
        p.read_text("utf-8") for p in [*PKG.rglob("*.py"), *ROOT.glob("tests/**/*.py")]
    )
    symbols = [t for t in tokens if re.fullmatch(r"[A-Z][A-Za-z0-9_]+", t)]
    assert len(symbols) > 10
    unknown = sorted({s for s in symbols if not re.search(rf"\b{s}\b", source)})
    assert unknown == []


def _owners() -> dict[str, str]:
    """The "Who owns what" table: each row's first cell (``data/``, ``treegen/lazy.py``)
    mapped to the text of its row."""
    text = ARCHITECTURE.read_text("utf-8")
    table = text.split("| folder / module | owns |", 1)[1].split("\n\n", 1)[0]
    rows: dict[str, str] = {}
    for row in table.splitlines()[2:]:
        head, _, owns = row.strip().strip("|").partition("|")
        rows[head.strip().strip("`")] = owns
    return rows


def _unnamed(rows: dict[str, str]) -> list[str]:
    """Every module (a .py but ``__init__.py``, a .c of a ``native/`` folder) that its
    folder's row does not name as ``NAME`` or as the end of its path (``native/NAME``)."""
    sources = [p for p in PKG.rglob("*.py") if p.name != "__init__.py"]
    sources += [p for p in PKG.rglob("*.c") if p.parent.name == "native"]
    missing = []
    for path in sorted(sources):
        rel = path.relative_to(PKG).as_posix()
        folder, _, inner = rel.partition("/")
        if not inner:  # a loose module has a row of its own
            if f"treegen/{rel}" not in rows:
                missing.append(rel)
            continue
        named = re.findall(r"`([^`\s]+)`", rows.get(f"{folder}/", ""))
        if not any(rel == n or rel.endswith(f"/{n}") for n in named):
            missing.append(rel)
    return missing


def test_architecture_names_every_module() -> None:
    """The table of ARCHITECTURE.md names every module in its folder's row."""
    missing = _unnamed(_owners())
    assert not missing, "ARCHITECTURE.md's table does not name: " + ", ".join(missing)


def test_unnamed_finds_a_module_left_out() -> None:
    rows = _owners()
    rows["verify/"] = rows["verify/"].replace("`oracle.py`", "the oracle")
    assert _unnamed(rows) == ["verify/oracle.py"]
