"""What the package layouts write about one export, and where each puts its files.

:func:`library_of` gathers, from the rendered C of any model kind, what the manifests
and build files need: the C prefix, the names of the C files the export writes
(``predict.c``/``predict.h`` today), the input type, the features and classes, and
the provenance the C's header comment holds (the fingerprint and the command that
regenerates everything).  :func:`placed` names the paths each layout writes, relative to the
output folder (the overwrite check needs them before anything is rendered), and
:func:`check_layout` refuses what a layout cannot make.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from treegen.codegen.names import comment_text
from treegen.errors import UsageError
from treegen.kinds.export import Provenance, Rendered, fingerprint

if TYPE_CHECKING:  # the IR's types only: every command builds export's parser from here
    from treegen.codegen.ir import Feature

Layout = Literal["plain", "arduino", "zephyr"]
LAYOUTS: tuple[Layout, ...] = ("plain", "arduino", "zephyr")

ARDUINO_NAME_MAX = 63
"""The longest library name the Arduino library specification allows."""


@dataclass(frozen=True)
class Library:
    """One export, as the layouts describe it."""

    prefix: str  # every C symbol's prefix: the library's name
    source: str  # the C files' names, as the export writes them
    header: str
    files: dict[str, str]  # their text
    input_ctype: str  # the element type of x[]
    input_is_float: bool
    features: tuple[Feature, ...]
    classes: tuple[str, ...]
    kind: str  # "tree", "ruleset"
    regressor: bool  # predict writes float64 outputs (y[PREFIX_N_OUTPUTS]), no class
    fingerprint: str  # the model file's hash, "sha256:..."
    provenance: Provenance

    @property
    def upper(self) -> str:
        return self.prefix.upper()

    @property
    def role(self) -> str:
        """What the model is, for the manifests' descriptions."""
        return "regressor" if self.regressor else "classifier"

    def comment_lines(self, lead: str) -> str:
        """The provenance as line comments (``# key: value``), one line each."""
        return "".join(f"{lead}{comment_text(f'{k}: {v}')}\n" for k, v in self.provenance)


def library_of(value: Any, rendered: Rendered) -> Library:
    api = rendered.kind.api(rendered.lowered)
    (source,) = [n for n in rendered.files if n.endswith(".c")]
    (header,) = [n for n in rendered.files if n.endswith(".h")]
    enc = api.encoding
    return Library(
        api.prefix,
        source,
        header,
        dict(rendered.files),
        enc.ctype.c_name,
        not enc.is_int,
        api.features,
        tuple(value.schema.classes),
        rendered.kind.name,
        # Only an ensemble can be a regressor (its predict writes the outputs).
        getattr(value, "regressor", False) is True,
        fingerprint(value),
        rendered.provenance,
    )


def sketch_name(prefix: str) -> str:
    """The example sketch's name: its folder and its .ino (they must be equal)."""
    return f"{prefix}_predict"


def placed(layout: Layout, cmake: bool, source: str, header: str, prefix: str) -> tuple[str, ...]:
    """The paths a layout writes, relative to the output folder."""
    if layout == "arduino":
        sketch = sketch_name(prefix)
        return (
            "library.properties",
            "library.json",
            f"src/{source}",
            f"src/{header}",
            f"examples/{sketch}/{sketch}.ino",
        )
    if layout == "zephyr":
        return ("zephyr/module.yml", "CMakeLists.txt", "Kconfig", source, header)
    return (source, header) + (("CMakeLists.txt",) if cmake else ())


def layout_words(layout: Layout, cmake: bool) -> tuple[str, ...]:
    """The command-line options that ask for this layout (for the provenance)."""
    return (("--layout", layout) if layout != "plain" else ()) + (("--cmake",) if cmake else ())


def check_layout(layout: Layout, cmake: bool, prefix: str | None = None) -> None:
    """A usage error for a layout the options cannot make (``prefix``: once known)."""
    if cmake and layout != "plain":
        raise UsageError(
            f"--layout {layout} writes its own build files; --cmake is for the plain layout",
            option="--cmake",
        )
    if layout != "arduino" or prefix is None:
        return
    # The library and the example sketch are named after the prefix.
    if prefix.lower().startswith("arduino"):
        raise UsageError(
            f"the Arduino library would be named {prefix!r}: names starting with "
            "'Arduino' are reserved for Arduino's own libraries; choose another --prefix",
            option="--layout",
        )
    if len(sketch_name(prefix)) > ARDUINO_NAME_MAX:
        raise UsageError(
            f"the example sketch would be named {sketch_name(prefix)!r}, longer than the "
            f"{ARDUINO_NAME_MAX} characters Arduino allows; choose a shorter --prefix",
            option="--layout",
        )
