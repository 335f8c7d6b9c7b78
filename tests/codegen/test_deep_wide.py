"""Deep chains and 300-value attributes: no recursion anywhere, C99 nesting kept."""

from __future__ import annotations

import inspect
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from test_hostile_names import _strip_comments_and_strings

from treegen.codegen.emit import emit
from treegen.codegen.lower import lower
from treegen.codegen.options import ExportOptions
from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.errors import EncodingError
from treegen.kinds.check import verify
from treegen.model import classify
from treegen.model.core import Model
from treegen.model.file import load_model, model_from_json, model_to_json, save_model
from treegen.model.show import format_tree
from treegen.trainer import TrainOptions, train
from treegen.verify.build import STRICT_FLAGS

from support import codegen_models as cm
from support.fuzz import LONG

# A recursion over the tree would need a frame per level: far more than this allows.
HEADROOM = 120


@contextmanager
def shallow_stack() -> Iterator[None]:
    """Lower the recursion limit to the current depth + HEADROOM frames."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + HEADROOM)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def chain_data(blocks: int, size: int = 26) -> Dataset:
    """Blocks of ``size`` equal values, classes alternating: C4.5 peels one block per
    level (a branch needs min(25, 10% of the cases per class) cases), so the tree is a
    chain of depth blocks - 1."""
    x = np.repeat(np.arange(blocks, dtype=np.float64), size)
    y = (np.repeat(np.arange(blocks), size) % 2).astype(np.int32)
    return Dataset(Schema((Attribute("x", "continuous"),), ("a", "b"), "class"), x[:, None], y)


def _every_stage(model: Model, tmp: Path) -> None:
    with shallow_stack():
        for style in ("c45", "j48"):
            text = format_tree(model, style)
            assert text.count("\n") >= model.depth()
        save_model(model, tmp / "deep.tree")
        back = load_model(tmp / "deep.tree")
        assert back == model and model_from_json(model_to_json(model)) == model
        X = np.asarray(
            [
                [v] + [np.nan] * (len(model.schema.attributes) - 1)
                for v in (-1.0, 0.5, model.depth() / 2, 1e9, np.nan)
            ]
        )
        classify.predict(model, X)
        for style in ("ifs", "table"):
            emit(lower(model, ExportOptions(style=style)), style)


@pytest.mark.slow
@pytest.mark.parametrize(
    "engine,flavor,prune", [("level", "c45", True), ("dfs", "j48", False), ("level", "j48", False)]
)
def test_train_deep_chain(engine: str, flavor: str, prune: bool, tmp_path: Path) -> None:
    blocks = 1001 if LONG else 3 * HEADROOM
    ds = chain_data(blocks)
    with shallow_stack():
        model = train(
            ds,
            TrainOptions(min_cases=2, prune=prune, flavor=flavor),  # type: ignore[arg-type]
            engine=engine,
        )  # type: ignore[arg-type]
    assert model.depth() == blocks - 1 > 2 * HEADROOM
    assert (classify.predict(model, ds.X) == ds.y).all()
    _every_stage(model, tmp_path)


def _max_block_nesting(src: str) -> int:
    depth = best = 0
    for ch in _strip_comments_and_strings(src):
        if ch == "{":
            depth += 1
            best = max(best, depth)
        elif ch == "}":
            depth -= 1
    assert depth == 0
    return best


def _compiles_and_matches(files: dict[str, str], opts: ExportOptions, d: Path) -> None:
    """The 1500-deep chain's C passes gcc's strict syntax check; the C of a 350-deep chain
    (the oracles walk every branch of a missing value: quadratic in depth, still seven
    functions deep in the ifs style) equals the Python model."""
    if shutil.which("gcc") is None:
        return
    d.mkdir()
    for name, text in files.items():
        (d / name).write_text(text, encoding="utf-8")
    r = subprocess.run(
        ["gcc", *STRICT_FLAGS, "-fsyntax-only", str(d / "predict.c")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.returncode == 0 and not r.stderr, r.stderr[:2000]
    report = verify(cm.chain(350), opts, n_random=200)
    assert report.ok, report.text()


@pytest.mark.slow
def test_chain_of_depth_1500_through_every_stage_and_the_compiler(tmp_path: Path) -> None:
    model = cm.chain(1500)
    assert model.depth() == 1500
    _every_stage(model, tmp_path)
    files = emit(lower(model, ExportOptions(style="ifs")), "ifs")
    nest = _max_block_nesting(files["predict.c"])
    assert nest <= 127, nest  # C99 5.2.4.1: 127 nesting levels of blocks
    assert len(re.findall(r"^static \w+ model_walk\w*\(", files["predict.c"], re.M)) >= 1500 // 48
    for style in ("ifs", "table"):
        opts = ExportOptions(style=style)
        _compiles_and_matches(emit(lower(model, opts), style), opts, tmp_path / style)


@pytest.mark.slow
def test_lean_chain_of_depth_1500_keeps_c99_nesting(tmp_path: Path) -> None:
    # --missing none has its own lowering (treegen.codegen.lean) and templates.
    model = cm.chain(1500)
    for style in ("ifs", "table"):
        opts = ExportOptions(style=style, missing="none")
        with shallow_stack():
            files = emit(lower(model, opts), style)
        assert _max_block_nesting(files["predict.c"]) <= 127
        _compiles_and_matches(files, opts, tmp_path / style)


def wide_model(k: int = 300) -> Model:
    rng = np.random.default_rng(300)
    v = np.arange(4 * k) % k
    X = np.stack([v.astype(np.float64), rng.random(4 * k)], axis=1)
    y = (v % 3).astype(np.int32)
    schema = Schema(
        (Attribute("v", "nominal", tuple(f"v{i}" for i in range(k))), Attribute("x", "continuous")),
        ("a", "b", "c"),
        "class",
    )
    return train(Dataset(schema, X, y), TrainOptions())


def test_wide_nominal_trains_and_export_says_why_not(tmp_path: Path) -> None:
    model = wide_model(300)
    root = model.nodes[0]
    assert root.kind == "nominal" and len(root.children) == 300
    _every_stage_but_emit(model, tmp_path)
    with pytest.raises(EncodingError) as err:
        lower(model, ExportOptions())
    msg = str(err.value)
    assert "\n" not in msg and "'v'" in msg and "300 values" in msg and "at most 255" in msg


def test_255_values_still_export() -> None:
    model = cm.wide_nominal(255)
    for style in ("ifs", "table"):
        assert "predict.c" in emit(lower(model, ExportOptions(style=style)), style)


def _every_stage_but_emit(model: Model, tmp: Path) -> None:
    save_model(model, tmp / "wide.tree")
    assert load_model(tmp / "wide.tree") == model
    for style in ("c45", "j48"):
        assert "v299" in format_tree(model, style)
