"""The registry loads a kind's code on first use: training imports no other kind.

``treegen train`` and ``treegen.train`` need the tree's file and classifier, not code
generation, jinja2, the ensembles, committees or rulesets (they were 0.1-0.2 s
of every training run).  Each built-in kind is an :class:`~treegen.kinds.Entry` until
then, and its record must agree with the entry when it loads.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from treegen import kinds

GOLF = Path(__file__).resolve().parent.parent / "data" / "reference" / "golf" / "golf.data"

# What training must not import (each one's code, or what it pulls in).
NOT_FOR_TRAINING = (
    "jinja2",
    "treegen.codegen.emit",
    "treegen.kinds.committee",
    "treegen.kinds.ensemble",
    "treegen.kinds.ruleset",
    "treegen.kinds.check",
    "treegen.ensemble.emit",
    "treegen.committee.ccode",
    "treegen.verify.build",
    "treegen.verify.tree",
    "treegen.codegen.ir",
    "treegen.codegen.lower",
)


def _imported_after(code: str) -> set[str]:
    script = f"import sys\n{code}\nprint('\\n'.join(sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    return set(out.split())


@pytest.mark.parametrize(
    "code",
    [
        "from treegen.cli.main import main\nmain(['--quiet', 'train', {data!r}, '-o', {out!r}])",
        "import treegen\ntreegen.train({data!r}).save({out!r})",
    ],
    ids=["cli", "api"],
)
def test_training_imports_no_other_kind(code: str, tmp_path: Path) -> None:
    out = tmp_path / "golf.tree"
    loaded = _imported_after(code.format(data=str(GOLF), out=str(out)))
    assert out.is_file()
    assert "treegen.trainer" in loaded  # the script ran
    assert sorted(set(NOT_FOR_TRAINING) & loaded) == []


def test_every_entry_matches_its_kind() -> None:
    """Loading each built-in kind checks its entry (name, format, value type, show
    formats); all of them load, and show_formats lists what their printers print."""
    names = list(kinds.KINDS)
    assert names[:4] == ["tree", "ruleset", "ensemble", "committee"]
    loaded = [kinds.kind_named(n) for n in names]
    assert [k.name for k in loaded] == names
    assert kinds.show_formats() == tuple(dict.fromkeys(f for k in loaded for f in k.show))


TREE_SHOW = ("c45", "j48", "dot", "rules")


@pytest.mark.parametrize(
    ("show", "writer"),
    [(("c45",), ""), (TREE_SHOW, "treegen.model.file:model_to_dict")],
    ids=["show formats", "writer"],
)
def test_an_entry_that_disagrees_with_its_kind_is_refused(
    show: tuple[str, ...], writer: str
) -> None:
    tree = kinds._TABLE["tree"]
    module = "treegen.kinds.tree"
    entry = kinds.Entry("wrong", "wrong-format", "treegen.model.core:Model", show, module, "TREE")
    kinds.register(replace(entry, to_json=writer))
    try:
        with pytest.raises(RuntimeError, match="does not match treegen.kinds.tree"):
            kinds.kind_named("wrong")
    finally:
        kinds.unregister("wrong")
    assert kinds._TABLE["tree"] is tree


def test_to_json_writes_a_tree_without_its_kind(tmp_path: Path) -> None:
    """The registry writes a tree with the function its entry names, loading neither the
    tree kind nor code generation, and the text is the tree kind's."""
    out = tmp_path / "golf.tree"
    code = (
        "import sys\nfrom treegen.data.readers import read_dataset\n"
        "from treegen.kinds import to_json\nfrom treegen.trainer import train\n"
        f"m = train(read_dataset({str(GOLF)!r}))\n"
        f"open({str(out)!r}, 'w').write(to_json(m))\n"
        "print([n for n in sys.modules if n.startswith(('treegen.kinds.', 'treegen.codegen'))])"
    )
    modules = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert modules == "[]\n"
    from treegen.data.readers import read_dataset
    from treegen.trainer import train

    model = train(read_dataset(str(GOLF)))
    assert out.read_text() == kinds.kind_of(model).to_json(model) == kinds.to_json(model)


def test_kind_of_needs_no_kind_loaded() -> None:
    """An entry tells its values apart without importing the kind: a value exists only
    once its type's module is imported."""
    entry = kinds.Entry("x", "x-format", "no.such.module:Thing", (), "no.such.module", "X")
    assert entry.holds(object()) is False
    tree = replace(entry, value_type="treegen.model.core:Model")
    from support import codegen_models as cm

    assert tree.holds(cm.golf()) is True
