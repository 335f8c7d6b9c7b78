"""The package options of ``treegen export`` (``--layout``, ``--cmake``), kept apart
from treegen.cli.export so that module only adds them and calls in."""

from __future__ import annotations

import argparse

from treegen.packaging.library import LAYOUTS, Layout, check_layout, layout_words

_LAYOUT_HELP = (
    "how the files are laid out in DIR: plain (default): predict.c and predict.h; "
    "arduino: an Arduino library that is also a PlatformIO library (library.properties, "
    "library.json, src/, an examples/ sketch); zephyr: a Zephyr module "
    "(zephyr/module.yml, CMakeLists.txt with zephyr_library(), Kconfig)"
)


def add_package_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("package options")
    g.add_argument("--layout", choices=LAYOUTS, default="plain", help=_LAYOUT_HELP)
    g.add_argument(
        "--cmake",
        action="store_true",
        help="also write DIR/CMakeLists.txt: a static library PREFIX_predict with its "
        "include folder and C99, for add_subdirectory or FetchContent (plain layout)",
    )


def package_of(args: argparse.Namespace) -> tuple[Layout, bool, tuple[str, ...]]:
    """The layout asked for, whether with CMake, and its words for the provenance; a
    usage error, before anything is read, for a combination no layout makes."""
    layout: Layout = getattr(args, "layout", "plain")
    cmake = bool(getattr(args, "cmake", False))
    check_layout(layout, cmake, args.prefix)
    return layout, cmake, layout_words(layout, cmake)
