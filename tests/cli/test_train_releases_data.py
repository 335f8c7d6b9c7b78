"""``treegen --quiet train`` lets the data go once the trainer has its context (issue 36).

Nothing reads the Dataset after training when the command prints nothing, so the quiet
path trains through :func:`treegen.trainer.prepare.prepare` and
:func:`~treegen.trainer.fit.grow_prepared` without holding it (its float64 matrix was
160 MB of the peak at 1M rows): the same model file as the summary path, which keeps
the data for the training errors.
"""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from treegen.cli import train as cli_train
from treegen.data.dataset import Dataset
from treegen.data.readers import read_dataset
from treegen.trainer import TrainOptions, train
from treegen.trainer.fit import grow_prepared
from treegen.trainer.prepare import prepare

from support.cli import run_cli

REF = Path(__file__).resolve().parent.parent / "data" / "reference"


def _datasets_alive() -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, Dataset))


@pytest.mark.parametrize("name", ["golf", "crx", "hypo"])
@pytest.mark.parametrize("flavor", ["c45", "j48"])
def test_quiet_train_holds_no_dataset_and_writes_the_same_model(
    name: str, flavor: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    data = str(REF / name / f"{name}.data")
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
    assert run_cli(capsys, "train", data, "--flavor", flavor, "-o", str(loud))[0] == 0
    assert seen == [before]  # the summary path keeps the data (and trains as before)
    assert quiet.read_bytes() == loud.read_bytes()


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
