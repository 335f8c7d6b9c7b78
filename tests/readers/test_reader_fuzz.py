"""Mutated data files in every reader: the C tokenizer's fast path and the Python
reader give the same Dataset or the same one-line error, and the CLI holds to its
contract on them (training, boosting, bagging and c4.5rules on each).

Seed files: CSV (plain and quoted), ARFF dense, sparse and weighted, C4.5 names with
data; each is damaged (:func:`support.mutate.mutate_bytes`, or ``mutate_tokens``: words
replaced by hostile numbers) and read three ways:
for training, for training with its instance weights (ARFF), and onto the clean
file's schema as float32 (what ``eval`` and ``predict`` of a c45 model do).  A
``DatasetError`` must be the same text from :func:`read_dataset` and
:func:`read_python`; any other exception fails.  A case is ``(file, index)``:
``default_rng([SEED, file's number, index])``; ``TREEGEN_FUZZ_CASE=FILE:INDEX``
runs that one, ``TREEGEN_FUZZ=long`` many more.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from treegen.data.dataset import Dataset, Schema
from treegen.data.readers import detect_format, fast, read_dataset, read_python
from treegen.errors import DatasetError

from support.fuzz import LONG, case_indices
from support.fuzzrun import Guard, call, check_run
from support.mutate import mutate_bytes, mutate_tokens

SEED = 37

HEAD = (
    "@relation r\n"
    "@attribute a numeric\n@attribute 'b c' {x,'y z',w}\n@attribute d real\n"
    "@attribute e {p,q}\n@attribute class {k0,k1,k2}\n@data\n"
)
ROWS = [
    (1.5, "x", 3e-5, "p", "k0"),
    (-2, "'y z'", 12, "q", "k1"),
    ("?", "w", -0.0, "?", "k2"),
    (1e30, "x", 7, "p", "k1"),
    (4, "?", 1e-40, "q", "k0"),
    (0.25, "w", 2, "p", "k2"),
] * 4


def _row(r: tuple[object, ...]) -> str:
    return ",".join(str(v) for v in r)


SOURCES: dict[str, dict[str, str]] = {
    "dense.arff": {"m.arff": HEAD + "".join(_row(r) + "\n" for r in ROWS)},
    "weighted.arff": {
        "m.arff": HEAD + "".join(_row(r) + f",{{{i % 3 + 0.5}}}\n" for i, r in enumerate(ROWS))
    },
    "sparse.arff": {
        "m.arff": HEAD
        + "".join(
            "{" + ",".join(f"{j} {v}" for j, v in enumerate(r) if v not in (0, "x")) + "}\n"
            for r in ROWS
        )
    },
    "plain.csv": {
        "m.csv": "a,b,d,e,class\n" + "".join(_row(r).replace("'", "") + "\n" for r in ROWS)
    },
    "quoted.csv": {
        "m.csv": 'a,"b, c",d,e,class\n'
        + "".join(_row(r).replace("'y z'", '"y, z"') + "\n" for r in ROWS)
    },
    "c45.data": {
        "m.names": "k0, k1, k2.\na: continuous.\nb: x, y z, w.\nd: continuous.\ne: p, q.\n",
        "m.data": "".join(_row(r).replace("'", "") + "\n" for r in ROWS),
    },
}
FILES = sorted(SOURCES)
COMMANDS = [
    ["train"],
    ["train", "--flavor", "j48", "-m", "1"],
    ["train", "--boost", "3", "--no-prune"],
    ["train", "--bag", "2", "--subsets"],
    ["rules"],
    ["rules", "-m", "1", "-c", "0.5"],
]


def _read(reader: object, path: str, **kw: object) -> Dataset | str:
    try:
        if reader is read_python:
            return read_python(path, detect_format(path), **kw)  # type: ignore[arg-type]
        return read_dataset(path, **kw)  # type: ignore[arg-type]
    except DatasetError as err:
        return str(err)


def _same(a: Dataset | str, b: Dataset | str, what: str) -> None:
    if isinstance(a, str) or isinstance(b, str):
        assert a == b, what
        return
    assert a.schema == b.schema, what
    assert a.X.tobytes() == b.X.tobytes() and a.y.tobytes() == b.y.tobytes(), what
    assert (a.weights is None) == (b.weights is None), what
    if a.weights is not None and b.weights is not None:
        assert a.weights.tobytes() == b.weights.tobytes(), what


def run_case(name: str, index: int, folder: Path) -> None:
    rng = np.random.default_rng([SEED, FILES.index(name), index])
    folder.mkdir(parents=True, exist_ok=True)
    files = SOURCES[name]
    clean: Schema | None = None
    for fname, text in files.items():
        (folder / fname).write_text(text)
    path = str(folder / list(files)[-1])
    weighted = name == "weighted.arff"
    clean = read_python(path, detect_format(path), weights=weighted).schema
    victim = list(files)[int(rng.integers(len(files)))]
    mutate = mutate_tokens if rng.random() < 0.4 else mutate_bytes
    (folder / victim).write_bytes(mutate(files[victim].encode(), rng))
    case = f"{name}:{index}"
    kws: list[dict[str, object]] = [{"weights": True}, {"schema": clean, "float32": True}]
    if not weighted:
        kws.append({})
    for kw in kws:
        got = _read(read_dataset, path, **kw)
        why = list(fast.last_fallback)
        ref = _read(read_python, path, **kw)
        _same(got, ref, f"case {case} {sorted(kw)}: fast {why}: {got!r} != {ref!r}")
    # Then a command that trains on it: C4.5 or J48, a committee, or c4.5rules.
    guard = Guard(folder / "out")
    out = str(guard.folder / "out.tree")
    command = COMMANDS[int(rng.integers(len(COMMANDS)))]
    status, err = call(case, [*command, path, "-q", "-o", out])
    check_run(case, status, err, guard, (path, str(folder / victim)), (out,))


@pytest.mark.parametrize("name", FILES)
def test_mutated_data_files(name: str, tmp_path: Path) -> None:
    seconds = 60.0 if LONG else float(os.environ.get("TREEGEN_FUZZ_SECONDS", "0.1"))
    for index in case_indices(name, seconds, 3):
        run_case(name, index, tmp_path / f"w{index}")


def test_the_seed_files_take_the_fast_path(tmp_path: Path) -> None:
    """The plain seeds go through the C tokenizer, so the comparison above tests it."""
    if not fast.available():
        pytest.skip("C tokenizer not built")
    for name in ("dense.arff", "plain.csv", "c45.data"):
        for fname, text in SOURCES[name].items():
            (tmp_path / fname).write_text(text)
        read_dataset(str(tmp_path / list(SOURCES[name])[-1]))
        assert not fast.last_fallback, (name, fast.last_fallback)
