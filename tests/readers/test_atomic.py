"""Atomic writes: complete files or untouched ones, never a partial file or a stray temporary."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from treegen.data.atomic import write_files_atomic, write_text_atomic
from treegen.errors import EmitError

from support.disk import fail_write


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
    fail_write(monkeypatch, 2)
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


def test_a_symbolic_link_is_followed(tmp_path: Path) -> None:
    (tmp_path / "real.tree").write_text("old\n")
    (tmp_path / "link.tree").symlink_to("real.tree")
    write_text_atomic(tmp_path / "link.tree", "new\n")
    assert (tmp_path / "link.tree").is_symlink()
    assert (tmp_path / "real.tree").read_text() == "new\n"
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "predict.h").symlink_to(tmp_path / "real.tree")
    write_files_atomic(tmp_path / "out", {"predict.c": "c\n", "predict.h": "h\n"})
    assert (tmp_path / "out" / "predict.h").is_symlink()
    assert (tmp_path / "real.tree").read_text() == "h\n"


@pytest.mark.skipif(os.geteuid() != 0, reason="mknod of a character device needs root")
def test_a_device_is_written_in_place_not_replaced(tmp_path: Path) -> None:
    """``-o /dev/null`` must not rename a regular file over the device (as root it would
    replace the machine's /dev/null): a private null device (1, 3) stands in for it."""
    null = tmp_path / "null"
    os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    write_text_atomic(null, "model\n")
    write_files_atomic(tmp_path, {"null": "c\n", "predict.h": "h\n"})
    assert stat.S_ISCHR(null.stat().st_mode)
    assert (tmp_path / "predict.h").read_text() == "h\n"
    full = tmp_path / "full"
    os.mknod(full, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    with pytest.raises(OSError, match="No space") as err:
        write_text_atomic(full, "model\n")
    assert err.value.filename == str(full) and stat.S_ISCHR(full.stat().st_mode)


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc's fd links")
def test_a_link_to_a_pipe_is_written_through_its_name(tmp_path: Path) -> None:
    """``-o /dev/stdout`` under a shell's ``|``: the link resolves to "pipe:[N]", a name
    that cannot be opened, so the write goes through the name given."""
    r, w = os.pipe()
    try:
        link = tmp_path / "stdout"
        link.symlink_to(f"/proc/self/fd/{w}")
        write_text_atomic(link, "model\n")
        assert os.read(r, 100) == b"model\n"
        assert link.is_symlink() and sorted(p.name for p in tmp_path.iterdir()) == ["stdout"]
    finally:
        os.close(r)
        os.close(w)


def test_a_folder_in_the_way_of_a_later_file_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "predict.c").mkdir()
    # The name is the writer's: not "give a file name", as for a single file's path.
    with pytest.raises(EmitError, match="predict.c: is a folder where a file of the output go"):
        write_files_atomic(tmp_path, {"predict.h": "h\n", "predict.c": "c\n"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["predict.c"]


def test_a_failed_write_leaves_no_folder_it_created(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The output folder and the one above it did not exist: a write that fails after
    creating them (the second file, say) removes them again, as it leaves no file."""
    calls = fail_write(monkeypatch, 2)
    with pytest.raises(OSError, match="No space"):
        write_files_atomic(tmp_path / "new" / "out", {"predict.c": "c\n", "predict.h": "h\n"})
    assert calls == ["predict.c", "predict.h"] and list(tmp_path.iterdir()) == []
