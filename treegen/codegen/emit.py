"""IR -> {"predict.c": ..., "predict.h": ...} through one strict Jinja2 environment.

Each style has one view builder that walks the IR once and returns a finished view
(:mod:`~.view_ifs`, :mod:`~.view_table`, :mod:`~.view_lean`; predict.h's is
:mod:`~.header`); its template only loops over the view and substitutes it.  Below the
builders, plain functions format what they hold: :mod:`~.literals`, :mod:`~.names`,
:mod:`~.comments`, and :mod:`~.conditions` for the form of each test.
"""

from __future__ import annotations

import functools
import importlib.resources
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import jinja2

from treegen.codegen.avr import avr_message, too_large
from treegen.codegen.costs import costs, safety_lines
from treegen.codegen.header import TEMPLATE_MACROS, header_view
from treegen.codegen.ir import IR, validate
from treegen.codegen.literals import c_string
from treegen.codegen.parts import file_names
from treegen.codegen.view_ifs import ifs_view
from treegen.codegen.view_lean import lean_ifs_view, lean_table_view
from treegen.codegen.view_table import table_view
from treegen.codegen.views import Function, context
from treegen.errors import EmitError

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = ["TEMPLATE_MACROS", "emit", "make_env", "render", "with_avr_error"]

STYLES = ("ifs", "table")


def _template_loader() -> jinja2.BaseLoader:
    # importlib.resources, not a path next to __file__: it also finds the
    # templates inside a zipped or otherwise non-filesystem install.
    root = importlib.resources.files("treegen.codegen").joinpath("templates")
    return jinja2.FunctionLoader(lambda name: root.joinpath(name).read_text("utf-8"))


@functools.cache
def make_env() -> jinja2.Environment:
    """The templates' environment, one a process: it caches each template compiled, and
    an ensemble's export reads twenty-odd (their compiles took ten times the rendering
    when each export made its own).  Nothing changes it after it is made."""
    return jinja2.Environment(
        loader=_template_loader(),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )


def render(env: jinja2.Environment, template: str, context: dict[str, object]) -> str:
    return env.get_template(template).render(context)


def emit(ir: IR, style: str = "ifs", env: jinja2.Environment | None = None) -> dict[str, str]:
    """Render predict.c and predict.h for ``ir`` in ``style`` (ifs or table)."""
    if style not in STYLES:
        raise EmitError(f"unknown style {style!r} (choose ifs or table)", option="--style")
    validate(ir)
    if len(ir.nodes) > 65535 or len(ir.outcomes) > 65535:
        raise EmitError(f"model has {len(ir.nodes)} nodes; at most 65535 can be exported")
    env = env or make_env()
    view: tuple[DataclassInstance, ...]
    functions: tuple[Function, ...]
    if ir.missing == "none":
        lean = lean_ifs_view(ir) if style == "ifs" else lean_table_view(ir)
        view, functions = lean, lean.walk.functions
        template = f"predict_lean_{style}.c.j2"
    elif style == "ifs":
        ifs = ifs_view(ir)
        view, functions, template = ifs, ifs.walk.functions, "predict_ifs.c.j2"
    else:
        view, functions, template = table_view(ir), (), "predict_table.c.j2"
    work = costs(ir, functions, table=style == "table")
    header = header_view(ir, safety_lines(ir.prefix, work, ir.proba, ir.missing))
    source = render(env, template, context(header, *view))
    big = too_large(source)
    if big is not None:
        # For a build without treegen: the compiler stops with treegen's one line,
        # not avr-gcc's "size of array is too large".
        msg = avr_message(big, ir.missing, ir.proba, ir.encoding.input_type)
        source = render(env, template, context(header, *with_avr_error(view, msg)))
    source_name, header_name = file_names(ir.stem)
    return {header_name: render(env, "predict.h.j2", context(header)), source_name: source}


def with_avr_error(view: tuple[Any, ...], message: str) -> tuple[Any, ...]:
    """``view`` whose prelude (in its first part) stops an AVR build with ``message``."""
    first = view[0]
    prelude = replace(first.prelude, avr_error=c_string(f"treegen: {message}"))
    return (replace(first, prelude=prelude), *view[1:])
