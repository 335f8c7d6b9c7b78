"""Seeded synthetic datasets for benchmarks and tests, like scikit-learn's ``make_classification``.

:func:`generate` turns a :class:`Spec` (row count, attribute kinds, classes,
missing-value and label-noise rates, concept depth, seed) into a
:class:`~treegen.data.dataset.Dataset`.  Labels come from a random "concept"
tree over the attributes (so real structure exists for a learner to find),
then a fraction of labels is flipped (noise) and a fraction of values is
blanked (missing, applied after labelling, as in real data).  Everything is
driven by the seed, so a dataset is the pair (generator version, spec) and is
reproducible bit for bit: the benchmark's model hashes and the tests depend
on that, so a change to the sequence of random draws is a breaking change.

Continuous attributes come in three textures, because the interesting
threshold cases differ: small integers (many ties), two-decimal values, and
full-precision doubles.  :func:`write_arff`, :func:`write_c45` and
:func:`write_csv` save a dataset for other tools, atomically (values with
``repr``, which round-trips exactly through Java's ``Double.valueOf``).
``treegen synth`` (:mod:`treegen.cli.synth`) is the command line over
:func:`generate`; ``python -m treegen.data.synthetic`` runs it too.

* :func:`summary_spec`: the benchmark's scaling data (``make bench``): 10
  continuous + 10 nominal attributes (3-8 values), 3 classes, a depth-7
  concept tree, 10% label noise, 5% missing values.  Generation is
  vectorised, so 1M rows take seconds.
* :func:`random_spec`: a varied small spec per seed, for differential tests
  (the Weka comparison, the two trainer engines).
* :func:`special_datasets`: hand-made corner cases, one rule each.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from treegen.data.atomic import write_files_atomic, write_text_atomic
from treegen.data.dataset import Attribute, Dataset, Schema

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Spec:
    """What to generate.  ``seed`` fixes every random choice."""

    rows: int
    n_continuous: int
    n_nominal: int
    n_classes: int
    missing: float
    noise: float
    depth: int
    seed: int
    min_values: int = 2
    max_values: int = 8


def summary_spec(rows: int, seed: int = 0) -> Spec:
    """SUMMARY.md's scaling benchmark data at ``rows`` rows."""
    return Spec(rows, 10, 10, 3, 0.05, 0.10, 7, seed, min_values=3, max_values=8)


def random_spec(seed: int, min_rows: int = 30, max_rows: int = 3000) -> Spec:
    """A varied small spec for differential testing (2-5 classes, mixed attributes)."""
    rng = np.random.default_rng([7, seed])
    # Log-uniform row count: most cases small (fast), some near max_rows.
    rows = round(float(np.exp(rng.uniform(np.log(min_rows), np.log(max_rows)))))
    n_cont = int(rng.integers(0, 6))
    n_nom = int(rng.integers(0 if n_cont else 1, 6))
    return Spec(
        rows=rows,
        n_continuous=n_cont,
        n_nominal=n_nom,
        n_classes=int(rng.integers(2, 6)),
        missing=float(rng.choice([0.0, 0.02, 0.05, 0.15, 0.3])),
        noise=float(rng.choice([0.0, 0.05, 0.1, 0.25])),
        depth=int(rng.integers(2, 7)),
        seed=seed,
        min_values=2,
        max_values=int(rng.integers(2, 7)),
    )


def _continuous_column(rng: np.random.Generator, rows: int, texture: int) -> FloatArray:
    if texture == 0:  # small integers: heavy ties
        return rng.integers(0, int(rng.integers(3, 60)), rows).astype(np.float64)
    if texture == 1:  # two decimals, like measured data
        return np.round(rng.normal(rng.uniform(-50, 50), rng.uniform(0.5, 30), rows), 2)
    return rng.uniform(-1e3, 1e3, rows) * rng.uniform(1e-3, 1.0)  # full double precision


def generate(spec: Spec) -> Dataset:
    """A Dataset following ``spec`` (attribute kinds shuffled, class last)."""
    rng = np.random.default_rng([11, spec.seed])
    m = spec.n_continuous + spec.n_nominal
    kinds = ["continuous"] * spec.n_continuous + ["nominal"] * spec.n_nominal
    order = rng.permutation(m)
    kinds = [kinds[i] for i in order]
    attrs: list[Attribute] = []
    cols: list[FloatArray] = []
    for j, kind in enumerate(kinds):
        if kind == "continuous":
            attrs.append(Attribute(f"c{j}", "continuous"))
            cols.append(_continuous_column(rng, spec.rows, int(rng.integers(0, 3))))
        else:
            k = int(rng.integers(spec.min_values, spec.max_values + 1))
            attrs.append(Attribute(f"n{j}", "nominal", tuple(f"v{i}" for i in range(k))))
            p = rng.dirichlet(np.full(k, 2.0))
            cols.append(rng.choice(k, spec.rows, p=p).astype(np.float64))
    X = np.column_stack(cols) if cols else np.zeros((spec.rows, 0))
    y = _concept(rng, X, attrs, spec)
    flip = rng.random(spec.rows) < spec.noise
    y[flip] = rng.integers(0, spec.n_classes, int(flip.sum()))
    if spec.missing > 0 and m:
        X[rng.random(X.shape) < spec.missing] = np.nan
    schema = Schema(tuple(attrs), tuple(f"k{i}" for i in range(spec.n_classes)), "class")
    return Dataset(schema, X, y.astype(np.int32), f"<gen seed={spec.seed}>")


def _concept(
    rng: np.random.Generator, X: FloatArray, attrs: list[Attribute], spec: Spec
) -> npt.NDArray[np.int64]:
    """Labels from a random tree of depth ``spec.depth``, evaluated level by level."""
    n = X.shape[0]
    y = np.zeros(n, dtype=np.int64)
    # Each frontier entry: (row indices, remaining depth).
    frontier: list[tuple[npt.NDArray[np.intp], int]] = [(np.arange(n), spec.depth)]
    # Leaf labels cycle through a shuffled class order so every class occurs.
    cycle = rng.permutation(spec.n_classes)
    n_leaves = 0
    while frontier:
        rows, depth = frontier.pop()
        if depth == 0 or len(rows) < 2 or not attrs:
            y[rows] = cycle[n_leaves % spec.n_classes]
            n_leaves += 1
            continue
        j = int(rng.integers(0, len(attrs)))
        col = X[rows, j]
        if attrs[j].is_continuous:
            left = col <= np.quantile(col, rng.uniform(0.2, 0.8))
        else:
            k = len(attrs[j].values)
            chosen = rng.permutation(k) < int(rng.integers(1, k))  # a proper, non-empty subset
            left = chosen[col.astype(np.intp)]
        frontier.append((rows[left], depth - 1))
        frontier.append((rows[~left], depth - 1))
    return y


def _quote(name: str) -> str:
    return "'" + name.replace("\\", "\\\\").replace("'", "\\'") + "'"


def arff_text(ds: Dataset, relation: str = "gen") -> str:
    """``ds`` as ARFF (class last); values exact via ``repr``."""
    out = [f"@relation {_quote(relation)}", ""]
    for a in ds.attributes:
        if a.is_continuous:
            out.append(f"@attribute {_quote(a.name)} numeric")
        else:
            out.append(f"@attribute {_quote(a.name)} {{{','.join(_quote(v) for v in a.values)}}}")
    classes = ",".join(_quote(c) for c in ds.classes)
    out += [f"@attribute {_quote(ds.schema.target)} {{{classes}}}", "", "@data"]
    for row, label in zip(ds.X.tolist(), ds.y.tolist(), strict=True):
        cells = []
        for a, v in zip(ds.attributes, row, strict=True):
            if math.isnan(v):  # missing
                cells.append("?")
            elif a.is_continuous:
                cells.append(repr(v))
            else:
                cells.append(_quote(a.values[int(v)]))
        cells.append(_quote(ds.classes[label]))
        out.append(",".join(cells))
    return "\n".join(out) + "\n"


def write_arff(ds: Dataset, path: Path, relation: str = "gen") -> Path:
    """Write ``ds`` as ARFF to ``path`` (see :func:`arff_text`); returns ``path``."""
    write_text_atomic(path, arff_text(ds, relation))
    return path


def _cells(ds: Dataset) -> list[list[str]]:
    """Each row's cells as text, class last; continuous values with ``repr``, ``?`` for
    a missing value."""
    rows = []
    for row, label in zip(ds.X.tolist(), ds.y.tolist(), strict=True):
        cells = []
        for a, v in zip(ds.attributes, row, strict=True):
            if math.isnan(v):
                cells.append("?")
            else:
                cells.append(repr(v) if a.is_continuous else a.values[int(v)])
        cells.append(ds.classes[label])
        rows.append(cells)
    return rows


def c45_texts(ds: Dataset) -> tuple[str, str]:
    """``ds`` as C4.5 files: the ``.names`` text and the ``.data`` text."""
    names = [", ".join(ds.classes) + "."]
    for a in ds.attributes:
        names.append(f"{a.name}: {'continuous' if a.is_continuous else ', '.join(a.values)}.")
    data = "".join(",".join(cells) + "\n" for cells in _cells(ds))
    return "\n".join(names) + "\n", data


def write_c45(ds: Dataset, directory: Path, stem: str) -> Path:
    """``stem.names`` and ``stem.data`` in C4.5 format, both or neither; returns the
    ``.data`` path."""
    names, data = c45_texts(ds)
    write_files_atomic(directory, {f"{stem}.names": names, f"{stem}.data": data})
    return directory / f"{stem}.data"


def csv_text(ds: Dataset) -> str:
    """``ds`` as CSV: a header row of the attribute names and the class column's, then
    one row per case, ``?`` for a missing value.  The generated names and values need
    no quoting."""
    header = [a.name for a in ds.attributes] + [ds.schema.target]
    return "".join(",".join(cells) + "\n" for cells in [header, *_cells(ds)])


def write_csv(ds: Dataset, path: Path) -> Path:
    """Write ``ds`` as CSV to ``path`` (see :func:`csv_text`); returns ``path``."""
    write_text_atomic(path, csv_text(ds))
    return path


def _dataset(
    attrs: list[Attribute],
    cols: list[FloatArray],
    y: npt.NDArray[np.int64],
    n_classes: int,
    name: str,
) -> Dataset:
    schema = Schema(tuple(attrs), tuple(f"k{i}" for i in range(n_classes)), "class")
    return Dataset(schema, np.column_stack(cols), y.astype(np.int32), f"<special {name}>")


def special_datasets() -> dict[str, Dataset]:
    """Hand-made corner cases for the differential test (each aims at one rule).

    * ``dup-columns``: a nominal and a continuous attribute duplicated (exact
      gain-ratio ties between identical columns; the earlier one must win);
    * ``xor``: class = a XOR b over balanced binary nominals (every split has
      gain 0: J48 must return one leaf);
    * ``near-duplicates``: continuous values 1e-6..1e-4 apart (the 1e-5
      "distinct value" rule and threshold printing at 6 decimals);
    * ``tiny-and-huge``: values around 1e-4 and 1e8 (threshold formats);
    * ``many-classes``: 10 classes on 300 rows;
    * ``degenerate-columns``: an all-missing, a constant continuous and a
      nominal attribute using one of its values only;
    * ``heavy-missing``: 60% of values missing.
    """
    out: dict[str, Dataset] = {}
    rng = np.random.default_rng(2024)

    base = generate(Spec(400, 2, 2, 3, 0.05, 0.05, 4, 901, max_values=4))
    j_nom = next(j for j, a in enumerate(base.attributes) if a.is_nominal)
    j_con = next(j for j, a in enumerate(base.attributes) if a.is_continuous)
    attrs = list(base.attributes)
    cols = [base.X[:, j].copy() for j in range(len(attrs))]
    attrs.insert(0, Attribute("dup_first", "continuous"))
    cols.insert(0, base.X[:, j_con].copy())
    attrs.append(Attribute("dup_last", "nominal", base.attributes[j_nom].values))
    cols.append(base.X[:, j_nom].copy())
    out["dup-columns"] = _dataset(attrs, cols, base.y.astype(np.int64), 3, "dup-columns")

    a = np.tile([0, 0, 1, 1], 10)  # balanced: every split has gain exactly 0
    b = np.tile([0, 1, 0, 1], 10)
    out["xor"] = _dataset(
        [Attribute("a", "nominal", ("f", "t")), Attribute("b", "nominal", ("f", "t"))],
        [a.astype(np.float64), b.astype(np.float64)],
        a ^ b,
        2,
        "xor",
    )

    n = 300
    centers = rng.integers(0, 6, n).astype(np.float64)
    jitter = rng.choice([0.0, 1e-6, 5e-6, 1e-5, 2e-5, 1e-4], n)
    x1 = centers + jitter
    # Class follows the centre, except at centre 2 where it follows the jitter,
    # so the best cut sits among values 1e-6..1e-4 apart.
    y = np.where(centers == 2, jitter >= 1e-5, centers >= 3).astype(np.int64)
    out["near-duplicates"] = _dataset(
        [Attribute("x", "continuous"), Attribute("z", "continuous")],
        [x1, np.round(rng.normal(0, 1, n), 3)],
        y,
        2,
        "near-duplicates",
    )

    small = rng.uniform(0, 5e-4, n)
    huge = rng.uniform(1e8, 3e8, n)
    y = ((small > 2.5e-4).astype(np.int64) + (huge > 2e8).astype(np.int64)) % 3
    y[rng.random(n) < 0.1] = rng.integers(0, 3)
    out["tiny-and-huge"] = _dataset(
        [Attribute("small", "continuous"), Attribute("huge", "continuous")],
        [small, huge],
        y,
        3,
        "tiny-and-huge",
    )

    mc = generate(Spec(300, 3, 3, 10, 0.05, 0.05, 6, 902))
    out["many-classes"] = mc

    x = rng.normal(0, 1, n)
    y = (x > 0.3).astype(np.int64)
    y[rng.random(n) < 0.1] ^= 1
    out["degenerate-columns"] = _dataset(
        [
            Attribute("all_missing", "continuous"),
            Attribute("constant", "continuous"),
            Attribute("one_value", "nominal", ("p", "q", "r")),
            Attribute("x", "continuous"),
        ],
        [np.full(n, np.nan), np.full(n, 7.0), np.zeros(n), x],
        y,
        2,
        "degenerate-columns",
    )

    out["heavy-missing"] = generate(Spec(800, 3, 3, 3, 0.6, 0.05, 4, 903))
    return out


if __name__ == "__main__":
    # ``python -m treegen.data.synthetic ARGS`` is ``treegen synth ARGS``.  Run through
    # runpy, not imported: the command line imports this module, which must not import
    # the command line back.
    import runpy
    import sys

    sys.argv = ["treegen", "synth", *sys.argv[1:]]
    runpy.run_module("treegen", run_name="__main__", alter_sys=True)
