"""An EnsembleIR -> predict.c / predict.h, in the table style (smallest) or ifs (fastest).

predict.h is a tree's (the frame's header view: types, feature and class macros).
predict.c sums, for every tree in estimator order, what the leaf a row reaches adds,
in IEEE binary64, then divides and decides as the estimator does
(treegen.ensemble.core); where ``double`` has fewer than 53 bits (AVR) the same
operations run in the generated binary64 routines (treegen.codegen.f64).  A classifier
of one tree exporting no doubles has sums that depend on the leaf alone: each leaf's
class is decided at export time (EnsembleIR.decided) and predict.c returns it, with no
sums, value tables or binary64 routines.  How a row reaches its leaf is the style:

* ``table`` (templates/predict_ensemble_table.c.j2): every tree's splits in one compact
  table walked by one loop, leaves as payloads (count rows where a forest's values
  are class fractions), laid out by treegen.ensemble.layout; a decided tree's lean
  table has an inline top, its first tests as nested ifs (treegen.ensemble.view_top);
* ``ifs`` (templates/predict_ensemble_ifs.c.j2): a function of nested ifs per tree,
  returning the leaf's row of float64 values.

With ``sum="float32"`` (XGBoost) the sums are C ``float`` additions instead, the values,
init and cut float constants: binary32 on every target (avr-libc's addition is correctly
rounded, measured in docs/softfloat.md), so no routine of its own.  A decision ``gt``
compares the sum with the cut; LightGBM's zero-band tests (``Split.zero``) are marked in
a bitset of rows (table) or tested in line (ifs).

The views are built in view_common.py (what both styles share), view_api.py (the
doubles, outputs and pow exported besides the class), view_table.py and view_ifs.py;
every literal and identifier is formatted there, and the templates loop and substitute.
"""

from __future__ import annotations

import textwrap
from dataclasses import replace
from typing import TYPE_CHECKING

from treegen.codegen.avr import ensemble_avr_message, too_large
from treegen.codegen.costs import ensemble_safety_lines
from treegen.codegen.emit import make_env
from treegen.codegen.header import header_view
from treegen.codegen.literals import c_string
from treegen.codegen.names import comment_text
from treegen.codegen.options import ExportOptions
from treegen.codegen.parts import file_names
from treegen.codegen.views import Header, context
from treegen.ensemble.early import EarlyView, early_view
from treegen.ensemble.ir import CatSplit, EnsembleIR, ETree, LeafRow
from treegen.ensemble.layout import node_table, payloads
from treegen.ensemble.splice import spliced
from treegen.ensemble.view_api import DoublesView, Outputs, RegressView, doubles_api, pow2_view
from treegen.ensemble.view_common import bitsets, common_view
from treegen.ensemble.view_ifs import host_floats, ifs_view
from treegen.ensemble.view_table import table_bytes, table_view
from treegen.ensemble.view_top import top_view

if TYPE_CHECKING:
    from _typeshed import DataclassInstance


def lean_note(ir: EnsembleIR) -> tuple[str, ...]:
    """predict.h's paragraph on the none rule (treegen.ensemble.lower) of a lean ensemble."""
    cat = any(isinstance(n, CatSplit) for t in ir.trees for n in t.nodes)
    kept = " and ".join(
        part
        for part, has in (("a categorical test", cat), ("a LightGBM zero-band test", ir.has_zero))
        if has
    )
    text = (
        "Exported with --missing none: no value may be missing.  One that is anyway takes "
        "a fixed path: a numeric test x <= t goes left when true and right when false, so "
        "NaN goes right and an integer sentinel is compared like any value; a test that "
        "every value of the input type passes one way sends it that way."
    )
    if kept:
        missing = f"{ir.prefix.upper()}_MISSING" if ir.encoding.is_int else "NaN"
        text += f"  {kept[0].upper()}{kept[1:]} still sends {missing} the way the model learnt."
    lines = textwrap.wrap(text, 84, subsequent_indent="   ", break_on_hyphens=False)
    return tuple(comment_text(line) for line in lines)


def _header(ir: EnsembleIR) -> Header:
    """predict.h's view: the frame's (a tree's), with the lean paragraph under
    --missing none (PREFIX_MISSING stays where a categorical or zero-band test reads it)."""
    if not ir.lean:
        return header_view(ir.frame, _safety(ir))
    header = header_view(replace(ir.frame, missing="none"), _safety(ir))
    keeps = ir.has_zero or any(isinstance(n, CatSplit) for t in ir.trees for n in t.nodes)
    missing = header_view(ir.frame).missing_literal if keeps else ""
    return replace(header, lean_note=lean_note(ir), missing_literal=missing)


def _longest_path(tree: ETree) -> int:
    """The most tests a walk of ``tree`` makes (pre-order: a test's left child follows it)."""
    depth = [0] * len(tree.nodes)
    longest = 0
    for i, node in enumerate(tree.nodes):
        if isinstance(node, LeafRow):
            longest = max(longest, depth[i])
        else:
            depth[i + 1] = depth[node.right] = depth[i] + 1
    return longest


def _safety(ir: EnsembleIR) -> tuple[str, ...]:
    tests = sum(_longest_path(t) for t in ir.trees)
    return ensemble_safety_lines(ir.prefix, len(ir.trees), tests, 0 if ir.decided else ir.n_outputs)


def emit_ensemble(ir: EnsembleIR, opts: ExportOptions | None = None) -> dict[str, str]:
    """Render predict.c and predict.h for ``ir`` in ``opts.style`` (table by default)."""
    style = (opts.style if opts is not None else None) or "table"
    ir = spliced(ir)  # no test every value passes one way (treegen.ensemble.splice)
    env = make_env()
    header = _header(ir)
    doubles = DoublesView(doubles_api(ir))
    regress = RegressView(ir.doubles == "values")
    cat_bytes, cat_at = bitsets(ir)
    views: tuple[DataclassInstance, ...]
    if style == "table":
        pay = payloads(ir, fractions=True)
        table = node_table(ir, pay, cat_at)
        tview = table_view(ir, table, pay)
        common = common_view(ir, pay, cat_bytes, tview.stream is not None)
        views = (header, common, tview, top_view(ir, pay, cat_at), EarlyView())
        template = "predict_ensemble_table.c.j2"
    else:
        # A forest whose every leaf is one class's (grown to purity) adds 1.0 to one
        # class a tree, with no rows; any other ensemble adds its leaf's row of doubles.
        pay = payloads(ir, fractions=True)
        if not pay.fractions or pay.counts:
            pay = payloads(ir, fractions=False)
        # Each call names its tree's output: no output table.
        common = replace(common_view(ir, pay, cat_bytes), output=None, host_floats=host_floats(ir))
        views = (header, common, ifs_view(ir, pay, cat_at), early_view(ir))
        template = "predict_ensemble_ifs.c.j2"
    source_name, header_file = file_names(ir.frame.stem)
    extra = (doubles, regress, pow2_view(ir))
    source = env.get_template(template).render(context(*views, *extra))
    big = too_large(source)
    if big is not None:
        # For a build without treegen: the compiler stops with treegen's one line (what
        # shrinks an ensemble's table), not avr-gcc's "size of array is too large".
        msg = ensemble_avr_message(big, ir.frame.encoding.input_type)
        common = replace(common, avr_error=c_string(f"treegen: {msg}"))
        views = (views[0], common, *views[2:])
        source = env.get_template(template).render(context(*views, *extra))
    return {
        header_file: env.get_template("predict.h.j2").render(
            context(header, doubles, regress, Outputs(ir.n_outputs))
        ),
        source_name: source,
    }


__all__ = ["emit_ensemble", "lean_note", "table_bytes"]
