"""Same model files and C across hash seeds, with the accelerator on and off."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from support.fuzz import fuzz_model

# Trains and exports in subprocesses under other hash seeds: the slow set.
pytestmark = pytest.mark.slow

REF = Path(__file__).resolve().parent / "data" / "reference"

# (data, training options): missing values, nominal subsets, both flavors, a hostile
# fuzz dataset with subnormals, ulp-close values and unseen nominal values.
RUNS = [
    ("crx/crx.data", []),
    ("crx/crx.arff", ["--flavor", "j48", "-m", "3"]),
    ("crx/crx.data", ["--subsets", "-c", "0.1"]),
    ("soybean-r8/soybean-r8.arff", ["--flavor", "j48", "--no-prune", "-m", "1"]),
]
EXPORTS = [
    ["--style", "ifs"],
    ["--style", "table", "--input-type", "int16"],
    ["--style", "ifs", "--float-compare", "int"],
    ["--style", "table", "--missing", "none"],
    ["--style", "ifs", "--missing", "none", "--proba"],
]

SCRIPT = r"""
import sys
from treegen.cli.main import main
runs = sys.argv[1:]
for k, spec in enumerate(runs):
    data, *opts = spec.split("\x1f")
    tree = f"m{k}.tree"  # relative: the provenance comment names these paths
    assert main(["-q", "train", data, "-o", tree, *[o for o in opts if o]]) == 0
    for e, ex in enumerate(%r):
        assert main(["-q", "export", tree, "-o", f"m{k}_e{e}", *ex]) == 0
"""


def _run(tmp: Path, name: str, seed: str, native: bool, runs: list[str]) -> dict[str, str]:
    out = tmp / name
    out.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "TREEGEN_NO_NATIVE"}
    env["PYTHONHASHSEED"] = seed
    if not native:
        env["TREEGEN_NO_NATIVE"] = "1"
    subprocess.run(
        [sys.executable, "-c", SCRIPT % (EXPORTS,), *runs],
        check=True,
        env=env,
        cwd=out,
        capture_output=True,
        text=True,
    )
    return {
        str(p.relative_to(out)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(out.rglob("*"))
        if p.is_file()
    }


@pytest.mark.parametrize("fuzz_index", [3])
def test_same_bytes_across_hash_seeds_and_accelerator(fuzz_index: int, tmp_path: Path) -> None:
    _, ds = fuzz_model(15, fuzz_index)
    # The fuzz dataset as a model-free CSV: every value's repr, NaN as '?'.
    csv = tmp_path / "fuzz.csv"
    names = [a.name for a in ds.schema.attributes]
    lines = [",".join([*names, "class"])]
    for row, y in zip(ds.X, ds.y, strict=True):
        cells = []
        for a, v in zip(ds.schema.attributes, row, strict=True):
            if np.isnan(v):
                cells.append("?")
            else:
                cells.append(a.values[int(v)] if a.is_nominal else repr(float(v)))
        lines.append(",".join([*cells, ds.schema.classes[y]]))
    csv.write_text("\n".join(lines) + "\n", encoding="utf-8")
    runs = ["\x1f".join([str(REF / d), *o]) for d, o in RUNS]
    runs += ["\x1f".join([str(csv), "--subsets"]), "\x1f".join([str(csv), "--flavor", "j48"])]
    results = {
        (seed, native): _run(tmp_path, f"s{seed}_{int(native)}", seed, native, runs)
        for seed, native in (("0", True), ("1", True), ("987654", False), ("31337", False))
    }
    first = next(iter(results.values()))
    assert len(first) == len(runs) * (1 + 2 * len(EXPORTS))
    for key, files in results.items():
        assert files == first, key
