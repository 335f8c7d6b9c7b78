"""Benchmark workers: one measurement per fresh Python process.

``python bench/workers.py KIND DATA_DIR`` loads the dataset saved by
``bench/run.py`` (``X.npy``, ``y.npy``, ``schema.pkl``), records the process's
peak RSS after loading (the baseline: interpreter + data), runs one job and
prints one JSON line.  A separate process per job keeps the peak memory of
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
import pickle
import resource
import sys
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from treegen.data.dataset import Dataset, Schema
from treegen.model.core import Model


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


def tree_fingerprint(model: Model) -> str:
    """Hash of the canonical (order-free, printed-precision) tree: equal trees, equal hash."""
    import reftrees

    text = reftrees.render(reftrees.from_model(model, "c45"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def model_bits(model: Model) -> str:
    """Hash of every node field (``repr`` of a float is exact): equal iff bit-identical."""
    return hashlib.sha256(repr(model.nodes).encode()).hexdigest()[:16]


def run_treegen(ds: Dataset, prune: bool, engine: str | None = None) -> dict[str, object]:
    from treegen.trainer import TrainOptions, train

    t0 = time.perf_counter()
    if engine is None:
        model = train(ds, TrainOptions(prune=prune))
    else:
        model = train(ds, TrainOptions(prune=prune), engine=engine)  # type: ignore[arg-type]
    seconds = time.perf_counter() - t0
    return {
        "seconds": seconds,
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
    from sklearn.tree import DecisionTreeClassifier  # type: ignore[import-untyped]

    X = one_hot(ds)
    clf = DecisionTreeClassifier(criterion="entropy", random_state=0)
    t0 = time.perf_counter()
    clf.fit(X, ds.y)
    seconds = time.perf_counter() - t0
    return {"seconds": seconds, "size": int(clf.tree_.node_count), "features": X.shape[1]}


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
