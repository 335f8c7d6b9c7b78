"""``treegen export --layout zephyr``: the export folder as a Zephyr module.

    DIR/zephyr/module.yml   name: PREFIX; build: cmake: ., kconfig: Kconfig
    DIR/CMakeLists.txt      zephyr_library() of predict.c, when CONFIG_TREEGEN_PREFIX=y
    DIR/Kconfig             config TREEGEN_PREFIX (bool, off by default)
    DIR/predict.c, DIR/predict.h

Zephyr's module loader (scripts/zephyr_module.py) reads zephyr/module.yml; its
``build.cmake`` folder must hold a CMakeLists.txt and its ``build.kconfig`` must name
a file.  An application adds the module with ``-DZEPHYR_EXTRA_MODULES=DIR`` (or a west
manifest entry) and ``CONFIG_TREEGEN_PREFIX=y`` in its prj.conf; predict.h's folder is
then on every Zephyr target's include path.
"""

from __future__ import annotations

from treegen.packaging.library import Library


def kconfig_symbol(lib: Library) -> str:
    """The module's option, without Kconfig's CONFIG_ prefix."""
    return f"TREEGEN_{lib.upper}"


def module_yml(lib: Library) -> str:
    # The name is a C identifier: plain YAML, no quoting needed.
    return lib.comment_lines("# ") + f"name: {lib.prefix}\nbuild:\n  cmake: .\n  kconfig: Kconfig\n"


def cmake_lists(lib: Library) -> str:
    return (
        lib.comment_lines("# ")
        + f"#\n# {lib.prefix}'s {lib.role}, built into the application when "
        f"CONFIG_{kconfig_symbol(lib)}=y.\n"
        f"if(CONFIG_{kconfig_symbol(lib)})\n"
        "  zephyr_library()\n"
        f"  zephyr_library_sources({lib.source})\n"
        "  zephyr_include_directories(${CMAKE_CURRENT_SOURCE_DIR})\n"
        "endif()\n"
    )


def kconfig(lib: Library) -> str:
    # The prefix is a C identifier and the kind one word: no quote to escape.
    title = f"{lib.prefix}: {lib.kind} {lib.role} {lib.prefix}_predict() (treegen)"
    return (
        lib.comment_lines("# ") + f"\nconfig {kconfig_symbol(lib)}\n"
        f'\tbool "{title}"\n'
        "\thelp\n"
        f"\t  Compile {lib.source}, the {lib.kind} {lib.role} exported by treegen,\n"
        f'\t  into the application: #include "{lib.header}" and call\n'
        f"\t  {lib.prefix}_predict().  It needs no heap, no libm and no other\n"
        "\t  Zephyr option.\n"
    )


def files(lib: Library) -> dict[str, str]:
    return {
        "zephyr/module.yml": module_yml(lib),
        "CMakeLists.txt": cmake_lists(lib),
        "Kconfig": kconfig(lib),
        **lib.files,
    }
