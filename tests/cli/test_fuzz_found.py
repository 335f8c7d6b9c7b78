"""Defects the hostile-input fuzz tests found (test_model_fuzz, test_reader_fuzz,
test_option_fuzz), each as its smallest case: one line, exit 2, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.cli import run_cli


def test_xgboost_json_nested_past_the_decoder_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Python 3.11's json decoder gives up with a RecursionError, which reached the user
    # as a traceback.
    path = tmp_path / "m.json"
    path.write_text('{"learner": ' + "[" * 5000 + "]" * 5000 + "}")
    out = tmp_path / "m.trees"
    code, _, err = run_cli(capsys, "import-xgboost", str(path), "-o", str(out))
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"treegen: error: {path}:1:") and "nested" in err, err
    assert "treegen model" not in err  # it is an XGBoost file, said as such
    assert not out.exists()
