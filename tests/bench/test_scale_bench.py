"""``make bench-train``'s machinery (bench/scale_bench.py): its one-class-per-row set
is what it says, a run that fails is reported with its error line, not timed, and the
package's bytecode is current before the timed runs."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from treegen.data.readers import read_dataset

from bench import scale_bench as sb


def test_many_classes_set_has_one_class_per_row(tmp_path: Path) -> None:
    path = tmp_path / "many.arff"
    sb.write_many_classes(path, rows=60, seed=3)
    ds = read_dataset(str(path))
    assert ds.n_rows == 60
    assert len(ds.classes) == 60
    assert np.array_equal(ds.y, np.arange(60))
    assert [a.kind for a in ds.attributes] == ["continuous", "continuous", "nominal"]


@pytest.mark.slow
def test_a_failed_run_is_an_error_entry(tmp_path: Path) -> None:
    missing = tmp_path / "absent.arff"
    got = sb.run(["train", str(missing), "-o", str(tmp_path / "m.tree")], timeout=120)
    assert set(got) == {"error"}
    assert str(got["error"]).startswith("exit 2: ")
    assert "absent.arff" in str(got["error"])


@pytest.mark.slow
def test_a_run_reports_cpu_and_peak_memory(tmp_path: Path) -> None:
    path = tmp_path / "many.arff"
    sb.write_many_classes(path, rows=40)
    got = sb.run(["train", str(path), "-o", str(tmp_path / "m.tree")], timeout=300)
    assert "error" not in got, got
    assert float(got["cpu"]) > 0 and float(got["peak_mb"]) > 10
    assert (tmp_path / "m.tree").exists()


@pytest.mark.slow
@pytest.mark.skipif(not sb.HAS_PROC, reason="VmHWM is read from /proc")
def test_a_runs_peak_is_its_own_not_the_benchs(tmp_path: Path) -> None:
    # wait4's ru_maxrss of a child started from a large process starts at that
    # process's peak; the bench reports the child's own VmHWM instead.
    ballast = np.ones(300 * 2**20 // 8)  # 300 MB touched in this process
    path = tmp_path / "many.arff"
    sb.write_many_classes(path, rows=40)
    got = sb.run(["train", str(path), "-o", str(tmp_path / "m.tree")], timeout=300)
    assert "error" not in got, got
    assert 10 < float(got["peak_mb"]) < 200, got
    assert ballast.sum() > 0


def test_train_cpu_is_set_beside_j48_and_sklearn(capsys: pytest.CaptureFixture[str]) -> None:
    results: dict[tuple[int, str], sb.Result] = {
        (100_000, "train"): {"cpu": 1.5, "wall": 1.6, "peak_mb": 90.0},
        (1_000_000, "train"): {"cpu": 20.0, "wall": 21.0, "peak_mb": 240.0},
    }
    others: dict[tuple[int, str], sb.Result | None] = {
        (100_000, "J48"): {"cpu": 30.0, "wall": 20.0},
        (100_000, "sklearn"): None,
        (1_000_000, "sklearn"): {"cpu": 80.0, "wall": 80.0},
    }
    sb.print_versus([100_000, 1_000_000], results, others)
    lines = capsys.readouterr().out.splitlines()
    j48 = next(line for line in lines if "J48" in line)
    assert "0.050x (<= 0.07x ok)" in j48
    assert any("sklearn" in line and "not installed" in line for line in lines)
    sk = next(line for line in lines if line.split()[:2] == ["1000000", "sklearn"])
    assert "0.250x (<= 0.2x MISSED)" in sk


def test_package_bytecode_is_current_before_the_runs() -> None:
    """Every module's .pyc matches its source (as after an install), so no timed run
    compiles treegen again, even where PYTHONDONTWRITEBYTECODE is set."""
    sb.compile_package()
    sources = sorted((sb.ROOT / "treegen").rglob("*.py"))
    assert len(sources) > 50
    for src in sources:
        pyc = Path(importlib.util.cache_from_source(str(src)))
        head = pyc.read_bytes()[:16]
        assert head[:4] == importlib.util.MAGIC_NUMBER, src
        mtime = int.from_bytes(head[8:12], "little")
        assert mtime == int(src.stat().st_mtime) & 0xFFFFFFFF, src


def test_least_cpu_keeps_the_fastest_run_or_an_error() -> None:
    runs: list[sb.Result] = [
        {"cpu": 1.2, "wall": 2.0, "peak_mb": 47.0},
        {"cpu": 0.8, "wall": 1.5, "peak_mb": 48.0},
        {"cpu": 0.9, "wall": 1.1, "peak_mb": 46.0},
    ]
    assert sb.least_cpu(runs) == runs[1]
    assert sb.least_cpu([*runs, {"error": "exit 2: bad"}]) == {"error": "exit 2: bad"}


def test_median_run_takes_median_times_and_highest_peak_or_an_error() -> None:
    runs: list[sb.Result] = [
        {"cpu": 1.2, "wall": 2.0, "peak_mb": 47.0},
        {"cpu": 0.8, "wall": 1.1, "peak_mb": 48.0},
        {"cpu": 0.9, "wall": 1.5, "peak_mb": 46.0},
    ]
    assert sb.median_run(runs) == {"cpu": 0.9, "wall": 1.5, "peak_mb": 48.0}
    assert sb.median_run([*runs, {"error": "exit 2: bad"}]) == {"error": "exit 2: bad"}
