"""The benchmark's data as files: ARFF, C4.5 ``.names``/``.data`` and CSV.

``make bench`` times the whole ``treegen train FILE`` command on these
(bench/run.py), and docs/SCALING.md's figures come from them.  The rows are
the generator's (treegen/data/synthetic.py ``summary_spec``), written column by
column so that 1M rows take seconds: continuous values with ``repr`` (exact),
``?`` for a missing value (an empty cell in the CSV file).  ARFF quotes its
nominal values as Weka writes them.

Usage, from the repository root:  python -m bench.datafiles ROWS DIR
(writes DIR/gen.arff, gen.names, gen.data, gen.csv)
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

from treegen.data import synthetic
from treegen.data.dataset import Dataset


def _cells(ds: Dataset, quote: str, missing: str, lo: int, hi: int) -> list[list[str]]:
    """Per column (class last), the cell texts of rows ``lo:hi``."""
    out: list[list[str]] = []
    for j, a in enumerate(ds.attributes):
        col = ds.X[lo:hi, j]
        if a.is_continuous:
            texts = [missing if math.isnan(v) else repr(v) for v in col.tolist()]
        else:
            names = [f"{quote}{v}{quote}" for v in a.values]
            texts = [missing if math.isnan(v) else names[int(v)] for v in col.tolist()]
        out.append(texts)
    classes = [f"{quote}{c}{quote}" for c in ds.classes]
    out.append([classes[c] for c in ds.y[lo:hi].tolist()])
    return out


def _write_rows(path: Path, head: str, ds: Dataset, quote: str, missing: str) -> None:
    """``head`` then the rows, 100k at a time (4M rows' strings would not fit)."""
    with open(path, "w") as f:
        f.write(head)
        for lo in range(0, ds.n_rows, 100_000):
            cols = _cells(ds, quote, missing, lo, min(lo + 100_000, ds.n_rows))
            f.write("\n".join(",".join(r) for r in zip(*cols, strict=True)) + "\n")


def write_all(rows: int, directory: Path, seed: int = 0) -> dict[str, Path]:
    """Write the three files (once: existing ones of the same size are kept)."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = {
        "arff": directory / "gen.arff",
        "c45": directory / "gen.data",
        "csv": directory / "gen.csv",
    }
    stamp = directory / "rows.txt"
    if (
        stamp.exists()
        and stamp.read_text() == f"{rows} {seed}\n"
        and all(p.exists() for p in paths.values())
    ):
        return paths
    ds = synthetic.generate(synthetic.summary_spec(rows, seed))
    names_lines = [", ".join(ds.classes) + "."] + [
        f"{a.name}: {'continuous' if a.is_continuous else ', '.join(a.values)}."
        for a in ds.attributes
    ]
    (directory / "gen.names").write_text("\n".join(names_lines) + "\n")
    header = ["@relation gen", ""]
    for a in ds.attributes:
        kind = "numeric" if a.is_continuous else "{" + ",".join(f"'{v}'" for v in a.values) + "}"
        header.append(f"@attribute {a.name} {kind}")
    header += ["@attribute class {" + ",".join(f"'{c}'" for c in ds.classes) + "}", "", "@data"]
    _write_rows(paths["arff"], "\n".join(header) + "\n", ds, "'", "?")
    _write_rows(paths["c45"], "", ds, "", "?")
    names = [a.name for a in ds.attributes] + ["class"]
    _write_rows(paths["csv"], ",".join(names) + "\n", ds, "", "")
    stamp.write_text(f"{rows} {seed}\n")
    return paths


if __name__ == "__main__":
    for fmt, p in write_all(int(sys.argv[1]), Path(sys.argv[2])).items():
        print(fmt, p, p.stat().st_size)
