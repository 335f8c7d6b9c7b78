"""Atomic writes refuse to replace protected files, and every write error names the
output.

A rename replaces any file its folder lets us unlink: a read-only file, or (in a
shared folder with the sticky bit, or always as root) another user's.  treegen decides
from the file's owner and mode, not ``os.access`` (which says yes to root, as CI runs).
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from treegen.data import atomic
from treegen.data.atomic import write_bytes_atomic, write_files_atomic, write_text_atomic
from treegen.errors import EmitError

from support.cli import assert_one_line_error, run_process

GOLF = Path(__file__).resolve().parents[1] / "data" / "reference" / "golf" / "golf"
AS_ROOT = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown to another user needs root"
)

Writer = Callable[[Path, str], None]


def _text(path: Path, text: str) -> None:
    write_text_atomic(path, text)


def _bytes(path: Path, text: str) -> None:
    write_bytes_atomic(path, text.encode())


def _files(path: Path, text: str) -> None:
    write_files_atomic(path.parent, {"first.c": "c\n", path.name: text})


WRITERS = {"text": _text, "bytes": _bytes, "files": _files}


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


@pytest.mark.parametrize("writer", WRITERS)
def test_every_mode_without_the_owners_write_bit_is_refused(writer: str, tmp_path: Path) -> None:
    """The property over all 512 permission modes of a file we own: replaced exactly
    when its owner may write it; otherwise left as it was (bytes and mode), nothing
    else written."""
    write = WRITERS[writer]
    target = tmp_path / "out.tree"
    for mode in range(0o1000):
        target.write_text("old\n")
        (tmp_path / "first.c").unlink(missing_ok=True)
        os.chmod(target, mode)
        if mode & stat.S_IWUSR:
            write(target, "new\n")
            assert target.read_text() == "new\n", oct(mode)
            assert stat.S_IMODE(target.stat().st_mode) == mode  # the old file's mode kept
        else:
            with pytest.raises(EmitError, match="is read-only") as err:
                write(target, "new\n")
            assert err.value.file == str(target)
            os.chmod(target, 0o600)
            assert target.read_text() == "old\n", oct(mode)
            assert not (tmp_path / "first.c").exists()  # all or nothing
        assert _leftovers(tmp_path) == []
        os.chmod(target, 0o600)


@AS_ROOT
@pytest.mark.parametrize("writer", WRITERS)
@pytest.mark.parametrize("uid", [1, 1000, 12345, 65534])
def test_another_users_file_in_a_sticky_folder_is_refused(
    writer: str, uid: int, tmp_path: Path
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    target = shared / "model.tree"
    target.write_text("theirs\n")
    os.chmod(target, 0o666)  # writable by everyone: still not ours to replace
    os.chown(target, uid, -1)
    with pytest.raises(EmitError, match=rf"belongs to another user \(uid {uid}\)") as err:
        WRITERS[writer](target, "mine\n")
    assert err.value.file == str(target)
    assert target.read_text() == "theirs\n" and target.stat().st_uid == uid
    assert sorted(p.name for p in shared.iterdir()) == ["model.tree"]


@AS_ROOT
def test_a_link_to_another_users_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "theirs.tree").write_text("theirs\n")
    os.chown(tmp_path / "theirs.tree", 4321, -1)
    (tmp_path / "link.tree").symlink_to("theirs.tree")
    with pytest.raises(EmitError, match="belongs to another user"):
        write_text_atomic(tmp_path / "link.tree", "mine\n")
    assert (tmp_path / "theirs.tree").read_text() == "theirs\n"


def test_a_missing_folder_is_named_with_the_output(tmp_path: Path) -> None:
    target = tmp_path / "missing" / "m.tree"
    with pytest.raises(EmitError, match=r"output folder does not exist \(.*missing\)") as err:
        write_text_atomic(target, "x\n")
    assert err.value.file == str(target)
    (tmp_path / "file").write_text("")
    with pytest.raises(EmitError, match="output folder is not a folder") as err:
        write_bytes_atomic(tmp_path / "file" / "m.tree", b"x\n")
    assert err.value.file == str(tmp_path / "file" / "m.tree")


def test_a_new_file_and_our_own_file_are_written(tmp_path: Path) -> None:
    write_text_atomic(tmp_path / "new.tree", "a\n")
    write_text_atomic(tmp_path / "new.tree", "b\n")
    assert (tmp_path / "new.tree").read_text() == "b\n"


class _FailingFile:
    """A file object whose write fails with ``err``."""

    def __init__(self, fd: int, err: OSError) -> None:
        self._fd, self._err = fd, err

    def __enter__(self) -> _FailingFile:
        return self

    def __exit__(self, *exc: object) -> None:
        os.close(self._fd)

    def write(self, data: bytes) -> int:
        raise self._err


STEPS = ("mkstemp", "fchmod", "write", "fsync", "replace")
ERRNOS = (errno.EACCES, errno.EPERM, errno.ENOSPC, errno.EROFS, errno.EDQUOT, errno.EIO)


def _inject(monkeypatch: pytest.MonkeyPatch, step: str, code: int, folder: Path) -> None:
    """Make ``step`` of the write fail with ``code``, named as the OS would name it:
    the temporary file (mkstemp, replace) or nothing at all (fchmod, write, fsync)."""
    tmp_name = str(folder / ".out.tree.abc123.tmp")
    err = OSError(code, os.strerror(code))
    named = OSError(code, os.strerror(code), tmp_name)
    if step == "mkstemp":
        monkeypatch.setattr(tempfile, "mkstemp", lambda **kw: (_ for _ in ()).throw(named))
    elif step == "fchmod":
        monkeypatch.setattr(os, "fchmod", lambda fd, mode: (_ for _ in ()).throw(err))
    elif step == "write":
        monkeypatch.setattr(atomic.os, "fdopen", lambda fd, mode: _FailingFile(fd, err))
    elif step == "fsync":
        monkeypatch.setattr(os, "fsync", lambda fd: (_ for _ in ()).throw(err))
    else:
        failing = OSError(code, os.strerror(code), tmp_name, None, "out.tree")
        monkeypatch.setattr(os, "replace", lambda a, b: (_ for _ in ()).throw(failing))


@pytest.mark.parametrize("writer", WRITERS)
@pytest.mark.parametrize("step", STEPS)
def test_every_write_error_names_the_output(
    writer: str, step: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The property over each step of a write and each errno a disk or a permission
    gives: the error names the output file (not the temporary), keeps the errno and its
    reason, and leaves the old file and no temporary behind."""
    target = tmp_path / "out.tree"
    # write_files_atomic writes first.c before out.tree: the first to fail is named.
    outputs = {str(target)} | ({str(tmp_path / "first.c")} if writer == "files" else set())
    for code in ERRNOS:
        target.write_text("old\n")
        with monkeypatch.context() as m:
            _inject(m, step, code, tmp_path)
            with pytest.raises(OSError) as exc:
                WRITERS[writer](target, "new\n")
        err = exc.value
        assert err.filename in outputs and err.filename2 is None, (step, code)
        assert err.errno == code and os.strerror(code) in str(err.strerror)
        assert target.read_text() == "old\n"
        assert _leftovers(tmp_path) == []


@pytest.mark.skipif(not os.path.isdir("/sys/kernel"), reason="needs Linux's /sys")
def test_a_folder_that_refuses_files_is_named_by_the_output(tmp_path: Path) -> None:
    """Real refusals, no injection: /sys takes no new file, even from root."""
    with pytest.raises(OSError) as exc:
        write_text_atomic("/sys/model.tree", "x\n")
    assert exc.value.filename == "/sys/model.tree"
    assert "cannot create a file in /sys" in str(exc.value.strerror)
    with pytest.raises(OSError) as exc:
        write_files_atomic("/sys/kernel/out", {"predict.c": "c\n"})
    assert exc.value.filename == "/sys/kernel/out"


@pytest.mark.slow
def test_the_command_line_refuses_a_read_only_model_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "golf.tree"
    out.write_text("keep\n")
    os.chmod(out, 0o444)
    p = run_process("train", f"{GOLF}.names", "-o", str(out))
    assert_one_line_error(p, f"{out}: is read-only", "not replaced")
    os.chmod(out, 0o644)
    assert out.read_text() == "keep\n"


@pytest.mark.slow
@pytest.mark.skipif(not os.path.isdir("/sys/kernel"), reason="needs Linux's /sys")
def test_the_command_line_names_the_output_not_a_temporary(tmp_path: Path) -> None:
    p = run_process("train", f"{GOLF}.names", "-o", "/sys/golf.tree")
    line = assert_one_line_error(p, "/sys/golf.tree: ")
    assert ".tmp" not in line
