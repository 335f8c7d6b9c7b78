"""Release 8's test-set evaluation (``c4.5 -f NAME -u``) against ``c45r8_u.out``.

On the seven reference sets with a ``NAME.test`` file:

* ``treegen eval MODEL NAME.test --unpruned RAW`` prints Release 8's
  "Evaluation on test data" block and confusion matrix, character for
  character (everything from that header to the end of ``c45r8_u.out``);
  on ``NAME.data`` it prints the "Evaluation on training data" table of the
  same file;
* ``treegen train NAME`` (C4.5 stem with a ``.test`` beside it) prints the
  same test block on stderr after its summary; ``-q`` prints nothing; a
  stem without ``.test`` prints only the summary.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from support.cli import run_cli

REF = Path(__file__).resolve().parents[1] / "data" / "reference"
WITH_TEST = sorted(p.name for p in REF.iterdir() if (p / "c45r8_u.out").exists())
TEST_HEAD = "Evaluation on test data"
TRAIN_HEAD = "Evaluation on training data"


def _block(text: str, head: str, stop: str | None = None) -> str:
    start = text.index("\n" + head)
    end = text.index("\n" + stop, start + 1) if stop else len(text)
    return text[start:end].rstrip("\n") + "\n"


def _models(capsys: pytest.CaptureFixture[str], tmp: Path, name: str) -> tuple[str, str]:
    stem = str(REF / name / name)
    pruned, raw = str(tmp / "p.tree"), str(tmp / "u.tree")
    assert run_cli(capsys, "-q", "train", stem, "-o", pruned)[0] == 0
    assert run_cli(capsys, "-q", "train", stem, "--no-prune", "-o", raw)[0] == 0
    return pruned, raw


def test_seven_sets_have_a_test_file() -> None:
    assert len(WITH_TEST) == 7
    assert all((REF / n / f"{n}.test").exists() for n in WITH_TEST)


@pytest.mark.parametrize("name", WITH_TEST)
def test_eval_on_test_file_equals_release8(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str
) -> None:
    want = (REF / name / "c45r8_u.out").read_text()
    pruned, raw = _models(capsys, tmp_path, name)
    code, out, _ = run_cli(
        capsys, "eval", pruned, str(REF / name / f"{name}.test"), "--unpruned", raw
    )
    assert code == 0
    assert _block(out, TEST_HEAD) == _block(want, TEST_HEAD)
    code, out, _ = run_cli(
        capsys, "eval", pruned, str(REF / name / f"{name}.data"), "--unpruned", raw
    )
    assert code == 0
    assert _block(out, TRAIN_HEAD, "\n\t  (a)") == _block(want, TRAIN_HEAD, TEST_HEAD)


@pytest.mark.parametrize("name", WITH_TEST)
def test_train_prints_the_test_evaluation(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str
) -> None:
    want = (REF / name / "c45r8_u.out").read_text()
    code, out, err = run_cli(
        capsys, "train", str(REF / name / name), "-o", str(tmp_path / "m.tree")
    )
    assert code == 0 and out == ""
    assert err.startswith("treegen: wrote ")
    assert _block(err, TEST_HEAD) == _block(want, TEST_HEAD)
    code, out, err = run_cli(
        capsys, "-q", "train", str(REF / name / f"{name}.names"), "-o", str(tmp_path / "m.tree")
    )
    assert (code, out, err) == (0, "", "")


def test_train_without_test_file_prints_only_the_summary(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for suffix in (".names", ".data"):
        shutil.copy(REF / "monk1" / f"monk1{suffix}", tmp_path / f"m{suffix}")
    code, _, err = run_cli(capsys, "train", str(tmp_path / "m"), "-o", str(tmp_path / "m.tree"))
    assert code == 0 and TEST_HEAD not in err and len(err.splitlines()) == 1


def test_unpruned_train_prints_its_own_columns(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run_cli(
        capsys, "train", "--no-prune", str(REF / "monk1" / "monk1"), "-o", str(tmp_path / "m.tree")
    )
    assert code == 0
    block = _block(err, TEST_HEAD)
    assert "\tSize      Errors\n" in block and "Before Pruning" not in block
