"""Broken files: one FILE:LINE error line, exit 2, no traceback, outputs untouched."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import numpy as np
import pytest

from treegen.cli.main import main

from support.fuzz import LONG
from support.mutate import mutate_bytes

CORPUS = Path(__file__).resolve().parents[1] / "data" / "broken"
ENTRIES = [
    tuple(line.split("\t"))
    for line in (CORPUS / "MANIFEST").read_text(encoding="utf-8").splitlines()
    if line
]
SENTINEL = b"an existing output file: must survive a failed run\n"


def _argv(path: str, out: Path) -> list[str]:
    if path.startswith("model/"):
        return ["export", path, "-o", str(out)]
    if path.startswith("rules/"):
        # The ruleset is checked before DATA is read (which does not exist).
        return ["predict", path, "no-such.data", "-o", str(out / "out.tree")]
    return ["train", path, "-o", str(out / "out.tree")]


def _guard(out: Path) -> list[Path]:
    """Existing output files a failed run must leave as they are."""
    out.mkdir(parents=True, exist_ok=True)
    files = [out / "out.tree", out / "predict.c", out / "predict.h"]
    for f in files:
        f.write_bytes(SENTINEL)
    return files


def test_corpus_is_large_and_covers_every_format() -> None:
    assert len(ENTRIES) >= 60
    kinds = {p.split("/")[0] for p, _, _ in ENTRIES}
    assert kinds == {"csv", "c45", "arff", "model", "rules"}
    assert all(len(e) == 3 and e[2] for e in ENTRIES)


@pytest.mark.parametrize("path,loc,what", ENTRIES, ids=[e[0] for e in ENTRIES])
def test_corpus_entry(
    path: str,
    loc: str,
    what: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(CORPUS)
    guarded = _guard(tmp_path / "out")
    status = main(_argv(path, tmp_path / "out"))
    err = capsys.readouterr().err
    assert status == 2, (what, err)
    assert err.count("\n") == 1 and "Traceback" not in err, err
    # FILE:LINE (FILE alone for a file that does not exist), a column or not, the message.
    assert re.match(rf"treegen: error: {re.escape(loc)}(:\d+)?: \S", err), (what, err)
    assert all(f.read_bytes() == SENTINEL for f in guarded)


# ---- mutation fuzz --------------------------------------------------------------------


def _valid_files() -> dict[str, bytes]:
    import make_corpus as mc

    return {
        "golf.csv": mc.CSV.encode(),
        "golf.arff": mc.ARFF.encode(),
        "golf.names": mc.NAMES.encode(),
        "golf.data": mc.DATA.encode(),
        "golf.tree": mc.model_text().encode(),
    }


@pytest.mark.slow
@pytest.mark.parametrize(
    "target", ["golf.csv", "golf.arff", "golf.names", "golf.data", "golf.tree"]
)
def test_mutation_fuzz(
    target: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.syspath_prepend(str(CORPUS))
    valid = _valid_files()
    monkeypatch.chdir(tmp_path)
    for name, data in valid.items():
        Path(name).write_bytes(data)
    rng = np.random.default_rng([15, sum(target.encode())])
    budget = 60.0 if LONG else float(os.environ.get("TREEGEN_FUZZ_SECONDS", "1.5"))
    deadline = time.monotonic() + budget
    runs = 0
    while time.monotonic() < deadline or runs < 20:
        mutant = mutate_bytes(valid[target], rng)
        Path(target).write_bytes(mutant)
        data_path = "golf.data" if target.endswith((".names", ".data")) else target
        argv = (
            ["show", "golf.tree"]
            if target == "golf.tree"
            else ["train", data_path, "-o", "out/out.tree", "-q"]
        )
        guarded = _guard(tmp_path / "out")
        try:
            status = main(argv)
        except SystemExit as exc:  # argparse: never expected here
            raise AssertionError(f"SystemExit {exc.code} on {mutant[:200]!r}") from None
        out = capsys.readouterr()
        assert status in (0, 2), (status, mutant[:300], out.err)
        if status == 2:
            assert out.err.count("\n") == 1 and out.err.startswith("treegen: error: "), (
                mutant[:300],
                out.err,
            )
            assert all(f.read_bytes() == SENTINEL for f in guarded), mutant[:300]
        runs += 1
