"""``export --report`` names the model's depth and the C's missing-value stack apart:
it printed "depth 1" for every --missing none export, the lean IR's stack size, whatever
the model's depth (2 to 12 on the issue's models)."""

from __future__ import annotations

from pathlib import Path

import pytest

from treegen.model.file import save_model

from support import codegen_models as cm
from support.cli import run_cli


@pytest.mark.parametrize("depth", [2, 12])
def test_report_title_has_depth_and_stack(
    depth: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = cm.chain(depth)
    assert model.depth() == depth
    path = tmp_path / "chain.tree"
    save_model(model, path)
    for missing, stack in (
        ("none", "--missing none: no missing-value stack"),
        ("c45", f"missing-value stack CHAIN_STACK_SIZE = {depth} choices"),
    ):
        out = tmp_path / missing
        argv = ["-q", "export", str(path), "--missing", missing, "-o", str(out), "--report"]
        code, stdout, err = run_cli(capsys, *argv)
        assert code == 0, err
        title = stdout.splitlines()[0]
        assert f"; model depth {depth} (tests on its longest path); {stack}" in title, title
