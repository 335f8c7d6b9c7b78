"""``treegen train`` lets the data go once the trainer has its context.

Nothing reads the Dataset after training but the training errors the summary prints,
which are counted from the trainer's own tables (trainer/errcount.py).  So both the
quiet path and the summary path train through :func:`treegen.trainer.prepare.prepare`
and :func:`~treegen.trainer.fit.grow_prepared` without holding it (its float64 matrix
was 160 MB of the peak at 1M rows): the same model file either way, and the summary's
count of training errors is the one ``treegen eval`` gives.
"""

from __future__ import annotations

import gc
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from treegen.analysis.evaluate import test_set_beside as stem_test_of
from treegen.cli import train as cli_train
from treegen.data import synthetic
from treegen.data.dataset import Dataset
from treegen.data.readers import read_dataset
from treegen.model.classify import predict
from treegen.model.classify_r8 import predict_r8
from treegen.trainer import TrainOptions, train
from treegen.trainer.fit import grow_prepared
from treegen.trainer.prepare import prepare

from support.cli import run_cli

REF = Path(__file__).resolve().parent.parent / "data" / "reference"


def _datasets_alive() -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, Dataset))


@pytest.mark.parametrize(
    "name", ["golf/golf.data", "soybean-r8/soybean-r8.data", "crx/crx.arff", "hypo/hypo.data"]
)
@pytest.mark.parametrize("flavor", ["c45", "j48"])
def test_train_holds_no_dataset_and_writes_the_same_model(
    name: str, flavor: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    data = str(REF / name)
    # With a STEM.test beside it the summary also evaluates the tree there, training
    # the unpruned tree again from the data, which it then keeps.
    test_beside = stem_test_of(data) is not None
    before = _datasets_alive()
    seen: list[int] = []
    real = cli_train.grow_prepared

    def spy(*args: object, **kwargs: object) -> object:
        seen.append(_datasets_alive())
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(cli_train, "grow_prepared", spy)
    quiet, loud = tmp_path / "q.tree", tmp_path / "l.tree"
    assert run_cli(capsys, "--quiet", "train", data, "--flavor", flavor, "-o", str(quiet))[0] == 0
    assert seen == [before]  # growth ran with no Dataset alive beyond the test's own
    code, _, err = run_cli(capsys, "train", data, "--flavor", flavor, "-o", str(loud))
    assert code == 0, err
    # Nor with the summary, which counts the errors from the trainer's tables.
    assert seen == ([before] if test_beside else [before, before])
    assert quiet.read_bytes() == loud.read_bytes()
    summary = re.search(r"(\d+) training errors? \(", err)
    assert summary is not None, err
    assert int(summary.group(1)) == _errors_by_eval(capsys, loud, data)


def _errors_by_eval(capsys: pytest.CaptureFixture[str], model: Path, data: str) -> int:
    """The errors ``treegen eval`` counts for MODEL on DATA (its "Errors" count)."""
    code, out, err = run_cli(capsys, "eval", str(model), data)
    assert code == 0, err
    found = re.search(r"\n\s*\d+\s+(\d+)\(", out)
    assert found is not None, out
    return int(found.group(1))


@pytest.mark.parametrize(
    "opts",
    [
        TrainOptions(),
        TrainOptions(flavor="j48"),
        TrainOptions(subsets=True, min_cases=3),
        TrainOptions(prune=False, criterion="gain"),
    ],
)
def test_prepare_then_grow_is_train(opts: TrainOptions) -> None:
    ds = read_dataset(str(REF / "crx" / "crx.data"), float32=opts.flavor == "c45")
    assert grow_prepared(prepare(ds, opts)) == train(ds, opts)


@pytest.mark.parametrize("test_beside", [False, True])
def test_the_summary_counts_what_eval_counts_where_the_cs_answer_differs(
    test_beside: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """On this set the C's fixed-point sums and Release 8's float sums order near ties
    differently on two rows with unknown values: the summary's count is eval's (Release
    8's), whether the errors come from the trainer's tables or (with a STEM.test beside
    the data) from the Dataset."""
    ds = synthetic.generate(synthetic.random_spec(7, max_rows=1500))
    model = train(ds, TrainOptions(prune=False))
    assert np.any(predict(model, ds.X) != predict_r8(model, ds.X))  # the case in point
    data = synthetic.write_c45(ds, tmp_path, "s7")
    if test_beside:
        shutil.copy(tmp_path / "s7.data", tmp_path / "s7.test")
    out = tmp_path / "s7.tree"
    code, _, err = run_cli(capsys, "train", str(data), "--no-prune", "-o", str(out))
    assert code == 0, err
    summary = re.search(r"(\d+) training errors? \(", err)
    assert summary is not None, err
    want = int(np.count_nonzero(predict_r8(model, ds.X) != ds.y))
    assert int(summary.group(1)) == want == _errors_by_eval(capsys, out, str(data))
