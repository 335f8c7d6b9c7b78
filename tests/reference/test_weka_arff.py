"""J48 on ARFF files written as users write them, against treegen ``--flavor j48``.

Reference and generated datasets are written in the ways Weka's ArffLoader reads
(values separated by blanks, tabs, mixed or trailing commas, double quotes, comments,
CRLF line ends, the first row on the ``@data`` line, the class first, sparse rows,
nominal values declared with blanks between them, ``NaN`` for a missing number).
Weka's J48 reads each file and prints its tree; treegen reads the same file and must
build the same tree, as ``treegen show --format j48`` prints it
(tests/reference/test_weka_diff.py's check).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import pytest

from treegen.data import synthetic
from treegen.data.dataset import Dataset
from treegen.data.readers import read_dataset, read_python
from treegen.trainer import TrainOptions, train

from support import reftrees as rt
from support.weka import REF, compile_driver, java_or_skip, printed_j48, run_j48

pytestmark = pytest.mark.toolchain

J48 = TrainOptions(flavor="j48")
DATASETS = ["golf", "labor-neg", "crx", "gen3", "gen17"]


def _dataset(name: str) -> Dataset:
    if name.startswith("gen"):
        return synthetic.generate(synthetic.random_spec(int(name[3:])))
    return read_dataset(str(REF / name / f"{name}.arff"))


def _quote(text: str, q: str = "'") -> str:
    return q + text.replace("\\", "\\\\").replace(q, "\\" + q) + q


def _cell(ds: Dataset, j: int, v: float, q: str, nan: str) -> str:
    a = ds.attributes[j]
    if math.isnan(v):
        return nan if a.is_continuous else "?"
    return repr(v) if a.is_continuous else _quote(a.values[int(v)], q)


def _cells(ds: Dataset, q: str, nan: str = "?") -> list[list[str]]:
    """Each row's values (class last): numbers by repr (``nan`` when missing), nominal
    values quoted by ``q``."""
    return [
        [*(_cell(ds, j, v, q, nan) for j, v in enumerate(x)), _quote(ds.classes[label], q)]
        for x, label in zip(ds.X.tolist(), ds.y.tolist(), strict=True)
    ]


def _header(ds: Dataset, q: str, sep: str, class_first: bool = False) -> list[str]:
    attrs = [
        f"@attribute {_quote(a.name, q)} numeric"
        if a.is_continuous
        else f"@attribute {_quote(a.name, q)} {{{sep.join(_quote(v, q) for v in a.values)}}}"
        for a in ds.attributes
    ]
    cls = f"@attribute class {{{sep.join(_quote(c, q) for c in ds.classes)}}}"
    return ["@relation 'as users write it'", *([cls, *attrs] if class_first else [*attrs, cls])]


def _sparse(ds: Dataset, row: list[str]) -> str:
    """A row as ``{i v i v ...}``: 0 and the first declared value left out (Weka's)."""
    entries = []
    for i, (a, cell) in enumerate(zip(ds.attributes, row, strict=False)):
        default = "0.0" if a.is_continuous else _quote(a.values[0], "'")
        if cell != default:
            entries.append(f"{i} {cell}")
    entries.append(f"{len(ds.attributes)} {row[-1]}")
    return "{" + " ".join(entries) + "}"


Style = Callable[[Dataset], str]


def _dense(q: str, join: Callable[[list[str]], str], eol: str = "\n", sep: str = ",") -> Style:
    def text(ds: Dataset) -> str:
        lines = [*_header(ds, q, sep), "@data", *(join(r) for r in _cells(ds, q))]
        return eol.join(lines) + eol

    return text


def _mixed(r: list[str]) -> str:
    return "".join(c + (" , ", "\t", ",", "  ")[i % 4] for i, c in enumerate(r))


def _commented(r: list[str]) -> str:
    return " ".join(r) + " % a comment\n% a comment line\n"


STYLES: dict[str, Style] = {
    "spaces": _dense("'", " ".join),
    "tabs": _dense("'", "\t".join, sep="\t"),
    "mixed": _dense("'", _mixed, sep=" , "),
    "trailing-comma": _dense("'", lambda r: ",".join(r) + ","),
    "double-quotes": _dense('"', " ".join),
    "comments": _dense("'", _commented),
    "crlf": _dense("'", " ".join, eol="\r\n"),
    "blank-declarations": _dense("'", ",".join, sep=" "),
    "data-line": lambda ds: _dense("'", " ".join)(ds).replace("@data\n", "@data "),
    "class-first": lambda ds: (
        "\n".join(
            [*_header(ds, "'", ",", class_first=True), "@data"]
            + [",".join([r[-1], *r[:-1]]) for r in _cells(ds, "'")]
        )
        + "\n"
    ),
    "nan-missing": lambda ds: (
        "\n".join([*_header(ds, "'", ","), "@data"] + [" ".join(r) for r in _cells(ds, "'", "NaN")])
        + "\n"
    ),
    "sparse": lambda ds: (
        "\n".join([*_header(ds, "'", ","), "@data"] + [_sparse(ds, r) for r in _cells(ds, "'")])
        + "\n"
    ),
}


@pytest.fixture(scope="module")
def j48(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    """File stem -> (the file, J48's printed output on it)."""
    java = java_or_skip("J48 on ARFF files as users write them")
    work = tmp_path_factory.mktemp("weka-arff")
    files = []
    for name in DATASETS:
        ds = _dataset(name)
        for style, text in STYLES.items():
            path = work / f"{name}.{style}.arff"
            path.write_bytes(text(ds).encode("utf-8"))
            files.append(path)
    outputs = run_j48(java, compile_driver(work), files)
    return {f.stem: (f, outputs[f.stem]) for f in files}


@pytest.mark.parametrize("style", sorted(STYLES))
@pytest.mark.parametrize("name", DATASETS)
def test_j48_tree_on_the_file_as_written(
    j48: dict[str, tuple[Path, str]], name: str, style: str
) -> None:
    path, out = j48[f"{name}.{style}"]
    ds = read_dataset(str(path), target="class")
    ref = read_python(str(path), "arff", target="class")
    assert ds.schema == ref.schema and ds.X.tobytes() == ref.X.tobytes()
    weka = rt.parse_j48(out)
    assert rt.diff(printed_j48(train(ds, J48)), weka.tree) == []
    assert weka.training_total == ds.n_rows
