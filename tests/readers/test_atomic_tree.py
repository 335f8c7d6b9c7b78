"""write_tree_atomic: several files in several folders, all of them or none."""

from __future__ import annotations

from pathlib import Path

import pytest

from treegen.data import atomic
from treegen.data.atomic import write_tree_atomic
from treegen.errors import EmitError

from support.disk import fail_write


def listing(d: Path) -> list[str]:
    return sorted(p.relative_to(d).as_posix() + ("/" if p.is_dir() else "") for p in d.rglob("*"))


def test_writes_the_tree(tmp_path: Path) -> None:
    out = tmp_path / "a" / "lib"
    write_tree_atomic(out, {"x.txt": "x\n", "src/y.c": "y\n", "examples/e/e.ino": "e\n"})
    assert listing(out) == [
        "examples/",
        "examples/e/",
        "examples/e/e.ino",
        "src/",
        "src/y.c",
        "x.txt",
    ]
    write_tree_atomic(out, {"src/y.c": "new\n"})
    assert (out / "src" / "y.c").read_text() == "new\n" and (out / "x.txt").read_text() == "x\n"


def test_a_failed_write_changes_nothing_and_removes_new_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "lib"
    write_tree_atomic(out, {"x.txt": "old\n"})
    calls = fail_write(monkeypatch, 3)
    with pytest.raises(OSError):
        write_tree_atomic(out, {"x.txt": "new\n", "src/y.c": "y\n", "src/deep/z.c": "z\n"})
    assert len(calls) == 3
    assert listing(out) == ["x.txt"] and (out / "x.txt").read_text() == "old\n"


@pytest.mark.parametrize("name", ["", "/abs.c", "../up.c", "a/../b.c", "a//b.c", "./a.c", "a\\b.c"])
def test_only_paths_inside_the_folder(tmp_path: Path, name: str) -> None:
    with pytest.raises(EmitError, match="is not a path inside the output folder"):
        write_tree_atomic(tmp_path / "out", {"ok.c": "", name: ""})
    assert not (tmp_path / "out").exists()


def test_a_file_where_a_folder_is_needed(tmp_path: Path) -> None:
    out = tmp_path / "lib"
    out.mkdir()
    (out / "src").write_text("a file\n")
    with pytest.raises(EmitError, match="is a file where a folder is needed"):
        write_tree_atomic(out, {"a.c": "a\n", "src/b.c": "b\n"})
    assert listing(out) == ["src"]
    with pytest.raises(EmitError, match="output folder is a file"):
        write_tree_atomic(out / "src", {"a.c": "a\n"})


def test_a_file_above_the_output_folder_is_named(tmp_path: Path) -> None:
    """-o afile/x: mkdir failed with a bare 'Not a directory' naming afile/x; the file in
    the way is named, and nothing is created (write_files_atomic, the API's export, too)."""
    (tmp_path / "afile").write_text("a file\n")
    for out in (tmp_path / "afile" / "x", tmp_path / "afile" / "x" / "y"):
        with pytest.raises(EmitError) as info:
            write_tree_atomic(out, {"a.c": "a\n", "src/b.c": "b\n"})
        assert str(info.value) == f"{tmp_path / 'afile'}: is a file where a folder is needed"
    assert listing(tmp_path) == ["afile"]
    with pytest.raises(EmitError) as info:
        atomic.write_files_atomic(tmp_path / "afile" / "x", {"a.c": "a\n"})
    assert str(info.value) == f"{tmp_path / 'afile'}: is a file where a folder is needed"
