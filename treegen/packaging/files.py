"""Every file of a layout, and writing them: :func:`package_files` maps each path,
relative to the output folder, to its text; :func:`write_package` writes them all or
none (:func:`treegen.data.atomic.write_tree_atomic`), the C files included."""

from __future__ import annotations

from typing import Any

from treegen.data.atomic import write_tree_atomic
from treegen.kinds.export import Rendered
from treegen.packaging import arduino, cmake, zephyr
from treegen.packaging.library import Layout, check_layout, library_of, placed


def package_files(
    value: Any, rendered: Rendered, layout: Layout, with_cmake: bool
) -> dict[str, str]:
    """Every file of ``layout`` for ``value``'s rendered C, by its relative path."""
    lib = library_of(value, rendered)
    check_layout(layout, with_cmake, lib.prefix)
    if layout == "arduino":
        files = arduino.files(lib)
    elif layout == "zephyr":
        files = zephyr.files(lib)
    else:
        files = dict(lib.files)
        if with_cmake:
            files["CMakeLists.txt"] = cmake.cmake_lists(lib)
    assert sorted(files) == sorted(placed(layout, with_cmake, lib.source, lib.header, lib.prefix))
    return files


def write_package(
    out_dir: str, value: Any, rendered: Rendered, layout: Layout, with_cmake: bool
) -> list[str]:
    """Write the layout's files into ``out_dir``, all or none; their paths relative to
    it, sorted."""
    files = package_files(value, rendered, layout, with_cmake)
    write_tree_atomic(out_dir, files)
    return sorted(files)
