"""Benchmark workers: one measurement per fresh Python process.

``python -m bench.workers KIND DATA_DIR`` (from the repository root) loads the dataset saved by
``bench/run.py`` (``X.npy``, ``y.npy``, ``schema.pkl``), records the process's
peak RSS after loading (the baseline: interpreter + data), runs one job and
prints one JSON line: wall time (``seconds``) and, for the training jobs, the
process's CPU time for the same span (``cpu``), which another job on a shared
machine disturbs far less.  A separate process per job keeps the peak memory of
one job from hiding another's, and makes ``ru_maxrss`` mean "this job".

Kinds:
* ``treegen``: ``train(ds, TrainOptions())`` (c45 flavour, pruned), plus the
  tree's size, leaves and a fingerprint of its canonical printed form;
* ``treegen-unpruned``: the same with ``prune=False``;
* ``treegen-engine=NAME``: the pruned tree with ``train(..., engine=NAME)``
  (the trainer's other growth path), to compare bit for bit;
* ``sklearn``: ``DecisionTreeClassifier(criterion="entropy")`` fit on the
  same rows, nominal attributes one-hot encoded (a missing value is the
  all-zero row), missing continuous values imputed with the column mean;
  only ``fit`` is timed;
* ``readers`` (DATA_DIR holds bench/datafiles.py's files): ``read_dataset``
  alone on each of gen.arff, gen.data and gen.csv.
"""

from __future__ import annotations

import hashlib
import json
import math
import pickle
import resource
import sys
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt

from treegen.data.dataset import Dataset, Schema
from treegen.model.core import Model

# A canonical subtree: a leaf's printed text, or (attribute, sorted branches).
Canon = str | tuple[str, list[tuple[str, str, "Canon"]]]


def peak_mb() -> float:
    """This process's peak resident set size in MB.

    Linux's ``VmHWM`` belongs to the process image and starts afresh at
    ``exec``; ``ru_maxrss`` does not (it inherits the high-water mark of the
    parent that forked us, here the benchmark driver holding 1M rows), so it
    is only the fallback where /proc is missing.
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def load(data_dir: Path) -> Dataset:
    schema: Schema = pickle.loads((data_dir / "schema.pkl").read_bytes())
    X = np.load(data_dir / "X.npy")
    y = np.load(data_dir / "y.npy")
    return Dataset(schema, X, y, str(data_dir))


def canonical_text(model: Model) -> str:
    """The tree in Release 8's number formats, branch order and layout left out.

    Leaves print as ``class (N/E)`` with ``%.1f``, thresholds with ``%g``;
    each test's branches are sorted by (operator, value), one line per
    branch, ``|   `` per level.  This is the text of the tests' canonical
    form (``tests/support/reftrees.py``: ``render(from_model(model, "c45"))``),
    written out here because the benchmark does not import from the tests.
    """
    schema = model.schema
    built: dict[int, Canon] = {}
    for i in range(len(model.nodes) - 1, -1, -1):  # pre-order: children follow parents
        node = model.nodes[i]
        if node.kind == "leaf":
            e = f"{node.errors:.1f}" if node.errors > 0 else f"{0:.1f}"
            built[i] = f"{schema.classes[node.cls]} ({node.items:.1f}/{e})"
            continue
        attr = schema.attributes[node.attribute]
        branches: list[tuple[str, str, Canon]] = []
        if node.kind == "continuous":
            t = f"{node.threshold:g}"
            branches = [("<=", t, built[node.children[0]]), (">", t, built[node.children[1]])]
        elif node.kind == "nominal":
            branches = [("=", attr.values[b], built[c]) for b, c in enumerate(node.children)]
        else:
            for b, c in enumerate(node.children):
                vals = [attr.values[v] for v in node.subsets[b]]
                if len(vals) == 1:
                    branches.append(("=", vals[0], built[c]))
                else:
                    branches.append(("in", "{" + ",".join(sorted(vals)) + "}", built[c]))
        built[i] = (attr.name, sorted(branches, key=lambda br: (br[0], br[1])))
    # The stack holds subtrees still to print and lines already formatted (str
    # with its depth None), so the text comes out in order without recursion.
    lines: list[str] = []
    stack: list[tuple[Canon, int | None]] = [(built[0], 0)]
    while stack:
        tree, depth = stack.pop()
        if depth is None:
            assert isinstance(tree, str)
            lines.append(tree)
        elif isinstance(tree, str):  # the root is a leaf
            lines.append(f": {tree}")
        else:
            name, children = tree
            pending: list[tuple[Canon, int | None]] = []
            for op, value, child in children:
                line = f"{'|   ' * depth}{name} {op} {value}"
                if isinstance(child, str):
                    pending.append((f"{line}: {child}", None))
                else:
                    pending += [(line, None), (child, depth + 1)]
            stack.extend(reversed(pending))
    return "\n".join(lines)


def tree_fingerprint(model: Model) -> str:
    """Hash of the canonical (order-free, printed-precision) tree: equal trees, equal hash."""
    return hashlib.sha256(canonical_text(model).encode()).hexdigest()[:16]


def model_bits(model: Model) -> str:
    """Hash of every node field (``repr`` of a float is exact): equal iff bit-identical.

    The text hashed is the nodes as the one node record of earlier treegens printed
    them (absent fields as its markers: attribute -1, threshold nan, no subsets), so
    a hash stays comparable with the runs before nodes became one class per kind."""
    texts = [
        f"Node(kind={n.kind!r}, cls={n.cls!r}, items={n.items!r}, errors={n.errors!r}, "
        f"dist={n.dist!r}, attribute={getattr(n, 'attribute', -1)!r}, "
        f"threshold={getattr(n, 'threshold', math.nan)!r}, "
        f"subsets={getattr(n, 'subsets', ())!r}, children={n.children!r})"
        for n in model.nodes
    ]
    text = "(" + ", ".join(texts) + ("," if len(texts) == 1 else "") + ")"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def run_treegen(ds: Dataset, prune: bool, engine: str | None = None) -> dict[str, object]:
    from treegen.trainer import TrainOptions, train

    t0, c0 = time.perf_counter(), time.process_time()
    if engine is None:
        model = train(ds, TrainOptions(prune=prune))
    else:
        model = train(ds, TrainOptions(prune=prune), engine=engine)  # type: ignore[arg-type]
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {
        "seconds": seconds,
        "cpu": cpu,
        "size": model.size,
        "leaves": model.n_leaves,
        "fingerprint": tree_fingerprint(model),
        "bits": model_bits(model),
    }


def one_hot(ds: Dataset) -> npt.NDArray[np.float32]:
    """Continuous columns (NaN -> column mean) and one-hot nominal columns (NaN -> zeros)."""
    cols: list[npt.NDArray[np.float32]] = []
    for j, a in enumerate(ds.attributes):
        col = ds.X[:, j]
        if a.is_continuous:
            known = ~np.isnan(col)
            mean = float(col[known].mean()) if known.any() else 0.0
            cols.append(np.where(known, col, mean).astype(np.float32)[:, None])
        elif a.is_nominal:
            codes = np.where(np.isnan(col), -1, np.nan_to_num(col, nan=-1)).astype(np.int64)
            cols.append((codes[:, None] == np.arange(len(a.values))[None, :]).astype(np.float32))
    return np.hstack(cols)


def run_sklearn(ds: Dataset) -> dict[str, object]:
    from sklearn.tree import DecisionTreeClassifier

    X = one_hot(ds)
    clf = DecisionTreeClassifier(criterion="entropy", random_state=0)
    t0, c0 = time.perf_counter(), time.process_time()
    clf.fit(X, ds.y)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {
        "seconds": seconds,
        "cpu": cpu,
        "size": int(clf.tree_.node_count),
        "features": X.shape[1],
    }


def run_readers(files: Path) -> dict[str, object]:
    """``read_dataset`` alone on the bench's ARFF, .data and CSV files (bench/datafiles.py)."""
    from treegen.data.readers import fast, read_dataset

    out: dict[str, object] = {}
    for fmt, name in (("arff", "gen.arff"), ("c45", "gen.data"), ("csv", "gen.csv")):
        t0 = time.perf_counter()
        ds = read_dataset(str(files / name))
        out[fmt] = time.perf_counter() - t0
        out[f"{fmt}_fast"] = not fast.last_fallback
        del ds
    return out


def main(argv: list[str]) -> int:
    kind, data_dir = argv[0], Path(argv[1])
    if kind == "readers":
        base = peak_mb()
        result = run_readers(data_dir)
        result.update(kind=kind, baseline_mb=base, peak_mb=peak_mb())
        print(json.dumps(result))
        return 0
    ds = load(data_dir)
    base = peak_mb()
    if kind == "treegen":
        result = run_treegen(ds, prune=True)
    elif kind == "treegen-unpruned":
        result = run_treegen(ds, prune=False)
    elif kind.startswith("treegen-engine="):
        result = run_treegen(ds, prune=True, engine=kind.partition("=")[2])
    elif kind == "sklearn":
        result = run_sklearn(ds)
    else:
        raise SystemExit(f"unknown worker kind {kind!r}")
    result.update(kind=kind, rows=ds.n_rows, baseline_mb=base, peak_mb=peak_mb())
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
