"""Every command that reads DATA takes the fast path: the C tokenizer
reads the file, the C accelerator classifies the rows, and ``cv`` reads its file once.

The Python readers and the numpy classifier are spied on: a command that falls back to
either (or reads its file twice) fails here, while its output stays the same and the
other tests would not notice.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from treegen.cli import common
from treegen.data import readers, synthetic
from treegen.data.dataset import Dataset
from treegen.data.readers import fast
from treegen.model import classify
from treegen.trainer import native
from treegen.verify.build import have_compiler

from support.cli import run_cli

pytestmark = pytest.mark.skipif(
    not fast.available() or native.cscan is None,
    reason="the C tokenizer or accelerator is not built",
)


class _Spies:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.reads: list[str] = []
        self.python_reads: list[str] = []
        self.numpy_classified = 0
        read_dataset, read_python = common.read_dataset, readers.read_python
        proba = classify._proba

        def spy_read(path: str, **kw: object) -> Dataset:
            self.reads.append(path)
            return read_dataset(path, **kw)  # type: ignore[arg-type]

        def spy_python(path: str, fmt: str, **kw: object) -> Dataset:
            self.python_reads.append(path)
            return read_python(path, fmt, **kw)  # type: ignore[arg-type]

        def spy_proba(*args: object) -> object:
            self.numpy_classified += 1
            return proba(*args)  # type: ignore[arg-type]

        monkeypatch.setattr(common, "read_dataset", spy_read)
        monkeypatch.setattr(readers, "read_python", spy_python)
        monkeypatch.setattr(classify, "_proba", spy_proba)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    ds = synthetic.generate(synthetic.summary_spec(3000, 2))
    assert np.isnan(ds.X).any()  # rows with missing values: the fixed-point pass runs too
    return synthetic.write_arff(ds, tmp_path / "gen.arff")


@pytest.mark.slow
@pytest.mark.parametrize("flavor", ["c45", "j48"])
def test_train_predict_eval_cv_take_the_fast_path(
    data: Path,
    flavor: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spies = _Spies(monkeypatch)
    model = str(tmp_path / "m.tree")
    code, _, err = run_cli(capsys, "train", str(data), "-o", model, "--flavor", flavor)
    assert code == 0, err
    assert "training errors" in err  # the summary classified the training rows
    for argv in (("predict", model, str(data)), ("eval", model, str(data))):
        code, out, err = run_cli(capsys, *argv)
        assert code == 0, err
        assert out
    assert spies.reads == [str(data)] * 3
    code, out, err = run_cli(capsys, "cv", str(data), "--folds", "3", "--flavor", flavor)
    assert code == 0, err
    assert spies.reads == [str(data)] * 4  # cv: one read for all its folds
    assert spies.python_reads == []
    assert spies.numpy_classified == 0


@pytest.mark.skipif(not have_compiler("gcc"), reason="gcc is not installed")
def test_verify_data_reads_with_the_tokenizer(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    model = str(tmp_path / "m.tree")
    assert run_cli(capsys, "train", str(data), "-o", model, "-q")[0] == 0
    spies = _Spies(monkeypatch)
    code, _, err = run_cli(capsys, "verify", model, str(data), "--random", "0")
    assert code == 0, err
    assert spies.reads == [str(data)]
    assert spies.python_reads == []
