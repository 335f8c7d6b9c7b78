"""Reading a model's data with the class column renamed (``target``) or without labels
(``labels=False``): the C tokenizer's path and the Python reference agree, over
generated datasets in CSV, ARFF and C4.5."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from treegen.data import synthetic
from treegen.data.dataset import Dataset
from treegen.data.readers import detect_format, fast, read_dataset, read_python


def _same(a: Dataset, b: Dataset) -> None:
    assert a.schema == b.schema and a.source == b.source
    assert a.X.tobytes() == b.X.tobytes() and a.y.tobytes() == b.y.tobytes()


def _both(path: Path, **kw: object) -> Dataset:
    got = read_dataset(str(path), **kw)  # type: ignore[arg-type]
    used_fast = not fast.last_fallback
    ref = read_python(str(path), detect_format(str(path)), **kw)  # type: ignore[arg-type]
    _same(got, ref)
    assert used_fast == fast.available(), fast.last_fallback
    return got


@pytest.mark.parametrize("seed", range(8))
def test_renamed_class_and_no_labels_read_alike(tmp_path: Path, seed: int) -> None:
    ds = synthetic.generate(synthetic.random_spec(seed, max_rows=400))
    arff = synthetic.write_arff(ds, tmp_path / "g.arff")
    csv = synthetic.write_csv(ds, tmp_path / "g.csv")
    c45 = synthetic.write_c45(ds, tmp_path, "g")
    schema = read_dataset(str(arff)).schema
    renamed_csv = tmp_path / "r.csv"
    header, _, rest = csv.read_text().partition("\n")
    renamed_csv.write_text(header.rsplit(",", 1)[0] + ",label\n" + rest)
    renamed_arff = tmp_path / "r.arff"
    renamed_arff.write_text(arff.read_text().replace("@attribute 'class'", "@attribute 'label'"))
    for path in (arff, csv):
        labelled = _both(path, schema=schema)
        assert np.array_equal(labelled.y, ds.y)
        unlabelled = _both(path, schema=schema, labels=False)
        assert (unlabelled.y == -1).all()
        assert unlabelled.X.tobytes() == labelled.X.tobytes()
    for path in (renamed_arff, renamed_csv):
        assert (_both(path, schema=schema).y == -1).all()  # no column named 'class'
        assert np.array_equal(_both(path, schema=schema, target="label").y, ds.y)
        assert (_both(path, schema=schema, target="label", labels=False).y == -1).all()
    assert (_both(c45, schema=schema, labels=False).y == -1).all()
    assert np.array_equal(_both(c45, schema=schema).y, ds.y)
