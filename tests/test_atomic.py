"""Atomic writes: complete files or untouched ones, never a partial file or a stray temporary."""

from __future__ import annotations

from pathlib import Path

import pytest

from treegen.data.atomic import write_files_atomic, write_text_atomic
from treegen.errors import EmitError


def test_write_text_replaces_whole_file(tmp_path: Path) -> None:
    path = tmp_path / "out.txt"
    write_text_atomic(path, "one\n")
    write_text_atomic(path, "two\r\n")
    assert path.read_bytes() == b"two\r\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_failed_multi_file_write_changes_nothing(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = tmp_path / "build"
    write_files_atomic(out, {"predict.c": "old c\n", "predict.h": "old h\n"})
    from treegen.data import atomic

    real = atomic._write_tmp
    calls = []

    def failing(folder: Path, name: str, text: str) -> str:
        calls.append(name)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        return real(folder, name, text)

    monkeypatch.setattr(atomic, "_write_tmp", failing)
    with pytest.raises(OSError):
        write_files_atomic(out, {"predict.c": "new c\n", "predict.h": "new h\n"})
    assert (out / "predict.c").read_text() == "old c\n"  # the first file was not replaced
    assert (out / "predict.h").read_text() == "old h\n"
    assert sorted(p.name for p in out.iterdir()) == ["predict.c", "predict.h"]


def test_bad_destinations(tmp_path: Path) -> None:
    with pytest.raises(EmitError, match="output folder does not exist"):
        write_text_atomic(tmp_path / "missing" / "m.tree", "x")
    with pytest.raises(EmitError, match="is a folder"):
        write_text_atomic(tmp_path, "x")
    (tmp_path / "file").write_text("")
    with pytest.raises(EmitError, match="output folder is a file"):
        write_files_atomic(tmp_path / "file", {"a.c": ""})
    with pytest.raises(EmitError, match="not a plain file name"):
        write_files_atomic(tmp_path / "d", {"../a.c": ""})
    assert not (tmp_path / "d").exists()
