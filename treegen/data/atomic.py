"""Atomic output: a file is either completely written or not touched at all.

Every output treegen writes (model files, generated C) goes through here: the
text is written to a temporary file in the destination folder, flushed to
disk, and renamed over the target, so a failure (bad input found late, a full
disk, Ctrl-C) never leaves a half-written file behind, and an existing file
is only replaced once its successor is complete.  A symbolic link is followed
(the file it names is replaced, the link stays), and a target that exists but is
no regular file (``/dev/null``, a FIFO) is written in place: renaming over it
would replace the device itself.

The rename would replace any file the folder lets us unlink, whatever the file's
own permissions say: so a regular file that its owner may not write (``chmod
a-w``), or that another user owns (a shared folder with the sticky bit, or any
file when running as root, which ``os.access`` approves of), is refused before
anything is written.  Every error a write raises names the output's path (never
the temporary file's, and never a bare "Permission denied").
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from treegen.errors import EmitError


def _named(err: OSError, target: Path, doing: str) -> OSError:
    """``err`` as an OSError naming ``target`` (what the user asked to write), with
    what was being done; the temporary file's name would only confuse."""
    reason = err.strerror or str(err)
    return OSError(err.errno, f"{reason} ({doing})", str(target))


def _tmp_in(folder: Path, name: str) -> tuple[int, str]:
    # Same folder as the target: os.replace is atomic only within one file system.
    try:
        return tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    except OSError as err:
        raise _named(err, folder / name, f"cannot create a file in {folder}") from None


def _file_mode(target: Path) -> int:
    """The mode a plainly created file would get (mkstemp's is 0600), or the old file's."""
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def _write_tmp(folder: Path, name: str, data: bytes) -> str:
    fd, tmp = _tmp_in(folder, name)
    try:
        os.fchmod(fd, _file_mode(folder / name))
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except BaseException as err:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(err, OSError):
            raise _named(err, folder / name, "writing it") from None
        raise
    return tmp


def _replace(tmp: str, target: Path) -> None:
    try:
        os.replace(tmp, target)
    except OSError as err:
        raise _named(err, target, "replacing it") from None


def _refuse_protected(target: Path, st: os.stat_result) -> None:
    """The error for an existing regular file the rename must not replace: one without
    its owner's write permission, or one another user owns (checked by owner and mode,
    not ``os.access``, which says yes to root)."""
    euid = os.geteuid() if hasattr(os, "geteuid") else st.st_uid
    if st.st_uid != euid:
        raise EmitError(
            f"belongs to another user (uid {st.st_uid}); not replaced (remove it or "
            "choose another output)",
            file=str(target),
        )
    if not st.st_mode & stat.S_IWUSR:
        raise EmitError(
            "is read-only (its owner has no write permission); not replaced (chmod u+w "
            "it or choose another output)",
            file=str(target),
        )


def check_folder(folder: Path, target: str) -> None:
    """An error naming ``target`` unless ``folder``, the one it goes into, is a folder
    (the one rule for a single file's output, also checked before work that would be
    lost: ``plot``'s rendering, ``synth``'s two C4.5 files)."""
    if not folder.is_dir():
        what = "does not exist" if not folder.exists() else "is not a folder"
        raise EmitError(f"output folder {what} ({folder})", file=target)


def _target(path: Path) -> tuple[Path, bool]:
    """The file to write for ``path`` (a symbolic link resolved) and whether it is a
    device or FIFO, written in place; a folder in the way, or a file the rename must
    not replace (:func:`_refuse_protected`), is an error."""
    if path.is_dir():
        raise EmitError("is a folder; give a file name", file=str(path))
    try:
        st = path.stat()  # through any links
    except OSError:
        st = None  # a new file (or a dangling link: its target is created)
    if st is not None and not stat.S_ISREG(st.st_mode):
        # written in place through the name given: a link to a pipe (/dev/stdout under
        # a shell's |) resolves to a name like "pipe:[123]" that cannot be opened
        return path, True
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    if st is None:
        return target, False
    _refuse_protected(target, st)
    return target, False


def _write_in_place(target: Path, data: bytes) -> None:
    try:
        with open(target, "wb") as f:
            f.write(data)
    except OSError as err:  # a write error names no file: name the target
        raise OSError(err.errno, err.strerror, str(target)) from None


def write_text_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` (UTF-8, ``\\n`` line ends) to ``path`` atomically."""
    write_bytes_atomic(path, text.encode("utf-8"))


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (a picture, say)."""
    target, special = _target(Path(path))
    if special:
        _write_in_place(target, data)
        return
    folder = target.parent
    check_folder(folder, str(target))
    tmp = _write_tmp(folder, target.name, data)
    try:
        _replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _refuse_a_file_in_the_way(folder: Path, out: Path) -> None:
    """The one rule for a folder an output needs: an error naming a file where ``folder``
    or a folder above it is needed, up to the first that exists ("-o afile/x": mkdir's
    bare "Not a directory" named afile/x); ``out``, the output folder, in words of its
    own."""
    for up in [folder, *folder.parents]:
        if up.exists():
            if up.is_dir():
                return
            if up == out:
                raise EmitError("output folder is a file", file=str(up))
            raise EmitError("is a file where a folder is needed", file=str(up))


def write_files_atomic(out_dir: str | os.PathLike[str], files: Mapping[str, str]) -> None:
    """Write several files into ``out_dir`` (created if missing), all or none:
    :func:`write_tree_atomic` of plain file names, so that a failure leaves no file
    changed and no folder this call created."""
    folder = Path(out_dir)
    for name in files:
        if not name or os.sep in name or (os.altsep and os.altsep in name) or name in (".", ".."):
            raise EmitError(f"'{name}' is not a plain file name", file=str(folder))
    write_tree_atomic(folder, files)


def _relative(out: Path, name: str) -> PurePosixPath:
    """``name`` as a path inside the output folder: relative, '/'-separated, no '..'."""
    rel = PurePosixPath(name)
    if (
        not name
        or "\\" in name
        or rel.is_absolute()
        or any(part in ("", ".", "..") for part in name.split("/"))
    ):
        raise EmitError(f"'{name}' is not a path inside the output folder", file=str(out))
    return rel


def write_tree_atomic(out_dir: str | os.PathLike[str], files: Mapping[str, str]) -> None:
    """Write files at paths relative to ``out_dir`` (``src/predict.c``), creating the
    folders they need, all or none -- :func:`write_files_atomic` over several folders.

    Every target and every folder in the way is checked first; then all temporaries
    are written, and only when every one is complete are they renamed into place.  A
    failure before that point leaves no file changed, and removes the folders this
    call created.
    """
    out = Path(out_dir)
    rels = {name: _relative(out, name) for name in files}
    folders = sorted({out.joinpath(*rel.parts[:-1]) for rel in rels.values()}, key=str)
    for folder in folders:
        _refuse_a_file_in_the_way(folder, out)
    for rel in rels.values():
        if out.joinpath(*rel.parts).is_dir():  # the file's name is the writer's, not the user's
            raise EmitError(
                "is a folder where a file of the output goes; remove it, or choose another "
                "output folder",
                file=str(out.joinpath(*rel.parts)),
            )
    targets = {name: _target(out.joinpath(*rel.parts)) for name, rel in rels.items()}
    created: list[Path] = []
    written: list[tuple[str, Path]] = []
    try:
        for folder in folders:
            for up in reversed([folder, *folder.parents]):
                if not up.exists():
                    try:
                        up.mkdir()
                    except OSError as err:
                        raise _named(err, up, "creating the folder") from None
                    created.append(up)
        for name, text in files.items():
            target, special = targets[name]
            if not special:
                written.append((_write_tmp(target.parent, target.name, text.encode()), target))
        for tmp, target in written:
            _replace(tmp, target)
        for name, text in files.items():
            target, special = targets[name]
            if special:
                _write_in_place(target, text.encode())
    except BaseException:
        for tmp, _ in written:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        for folder in reversed(created):
            with contextlib.suppress(OSError):
                folder.rmdir()  # only while empty: never a folder that got a file
        raise
