"""``treegen export --cmake``: a CMakeLists.txt beside predict.c and predict.h.

It defines one static library, ``PREFIX_predict``, with the export folder as its public
include directory and C99 as its standard (``-std=c99`` on gcc and clang, without GNU
extensions) and no other compile flag or definition: the firmware's own flags (its
``-mcpu``, ``-march``, optimisation) come from its toolchain file and build type.  So a
firmware adds it with ``add_subdirectory(model)`` or ``FetchContent`` and links it with
``target_link_libraries(app PRIVATE PREFIX_predict)``.
"""

from __future__ import annotations

from treegen.packaging.library import Library

CMAKE_MINIMUM = "3.10"
"""The oldest CMake the file is written for (no deprecation warning up to CMake 4)."""


def cmake_lists(lib: Library) -> str:
    target = f"{lib.prefix}_predict"
    return (
        lib.comment_lines("# ")
        + f"#\n# {target}: {lib.prefix}'s {lib.role} as a static library.  In the firmware's\n"
        "# CMakeLists.txt: add_subdirectory(THIS_FOLDER) (or FetchContent), then\n"
        f'# target_link_libraries(app PRIVATE {target}) and #include "{lib.header}".\n'
        f"cmake_minimum_required(VERSION {CMAKE_MINIMUM})\n"
        f"project({target} LANGUAGES C)\n\n"
        f"add_library({target} STATIC {lib.source})\n"
        f"target_include_directories({target} PUBLIC ${{CMAKE_CURRENT_SOURCE_DIR}})\n"
        f"set_target_properties({target} PROPERTIES\n"
        "  C_STANDARD 99\n"
        "  C_STANDARD_REQUIRED ON\n"
        "  C_EXTENSIONS OFF)\n"
    )
