"""Subcommands ``export`` (write predict.c / predict.h) and ``verify`` (compile and
compare the C with the Python model).

Both share the export options; every bad value is a one-line error naming the option
(exit 2) and nothing is written unless the whole export succeeded (atomic writes).
"""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

from treegen.cli.common import note, read_data
from treegen.cli.progress import progress_line
from treegen.codegen.ctype import INPUT_TYPES
from treegen.codegen.options import (
    FLOAT_COMPARES,
    MISSING_RULES,
    STYLES,
    ExportOptions,
    check_scale,
    scale_options,
    scale_what,
)
from treegen.errors import UsageError
from treegen.firmware import cli as firmware_cli
from treegen.kinds import load
from treegen.kinds.spec import MAX_RANDOM_ROWS, random_rows_error
from treegen.packaging import cli as package_cli

if TYPE_CHECKING:
    from treegen.kinds.export import Rendered

# Rendering, writing and verifying C are imported in the commands that do them: every
# command builds this module's parser, and `treegen train` should not load jinja2.


def _scale(text: str) -> tuple[str | None, Fraction]:
    name, _, value = text.rpartition("=") if "=" in text else (None, "", text)
    try:
        k = Fraction(value.strip())
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"'{text}' is not K or NAME=K with a number K") from None
    try:
        check_scale(k, value.strip(), scale_what(name or None))
    except UsageError as err:
        raise argparse.ArgumentTypeError(err.message) from None
    return (name or None), k


def _int(text: str) -> int:
    try:
        return int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None


def _count(text: str) -> int:
    n = _int(text)
    if n < 0:
        raise argparse.ArgumentTypeError(f"'{text}' is negative")
    return n


def _random_rows(text: str) -> int:
    n = _count(text)
    why = random_rows_error(n)
    if why is not None:
        raise argparse.ArgumentTypeError(why)
    return n


def add_export_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("export options")
    g.add_argument("--target", choices=["c"], default="c", help="output language (only c)")
    g.add_argument(
        "--style",
        choices=STYLES,
        default=None,
        help="ifs: nested if/else and switch (a tree's default); table: static node table "
        "walked by a loop (an ensemble's default: the smallest)",
    )
    g.add_argument(
        "--input-type",
        choices=INPUT_TYPES,
        default="float",
        help="element type of the feature array (default float)",
    )
    g.add_argument(
        "--float-compare",
        choices=FLOAT_COMPARES,
        default="float",
        help="int: compare float inputs as integer keys of their bits, for cores without an FPU",
    )
    g.add_argument(
        "--scale",
        type=_scale,
        action="append",
        default=[],
        metavar="K|NAME=K",
        help="integer input types: x stands for the decimal x/K, tested as "
        "treegen predict reads it (the double nearest x/K), for every "
        "continuous feature or NAME only; repeatable.  A threshold outside the "
        "type's values folds to a constant branch (a warning names it)",
    )
    g.add_argument(
        "--missing-value",
        type=_int,
        default=None,
        metavar="V",
        help="integer input types: the value meaning missing, never a nominal "
        "code (default: the type's maximum if unsigned, its minimum if "
        "signed)",
    )
    g.add_argument(
        "--missing",
        choices=MISSING_RULES,
        default="c45",
        help="c45: missing values handled as C4.5 does (default; an imported "
        "model's C sends them where its estimator does); none: the "
        "caller promises no value is missing, and the C has no "
        "missing-value code or tables (a NaN or sentinel takes the fixed "
        "path predict.h describes)",
    )
    g.add_argument(
        "--proba",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="export predict_proba and the leaf distributions (a C4.5 tree's "
        "default: yes with --missing c45, which needs them; no with --missing "
        "none, where predict returns the leaf's class directly). An imported "
        "model's default is no; --proba exports a forest's or a single tree's "
        "predict_proba as double, bit for bit (boosted models: --scores)",
    )
    g.add_argument(
        "--scores",
        action="store_true",
        help="an ensemble's decision_function: void PREFIX_decision_function(const "
        "PREFIX_input_t *x, double *scores), the raw scores its class is decided on, "
        "exactly (boosted models and AdaBoost; a forest's --proba is its predict_proba); "
        "an IsolationForest's score_samples and decision_function: void PREFIX_scores("
        "const PREFIX_input_t *x, double *scores), with glibc's pow (docs/regression.md)",
    )
    g.add_argument(
        "--inline-top",
        type=_count,
        default=None,
        metavar="N",
        help="--style table --missing none: the N tests training cases reach most "
        "often (an imported single tree without --proba/--scores too, by its node "
        "weights; a file without them: the N nearest the root) run as nested ifs "
        "before the table, faster on cores with branch "
        "prediction, for flash (default: a quarter of the tests beyond the first "
        "32; 0: the table alone; left out on AVR unless PREFIX_INLINE_TOP is "
        "defined to 1)",
    )
    g.add_argument(
        "--prefix",
        default=None,
        help="C identifier that starts every symbol (default: from the model file name); "
        "an explicit prefix also names the files PREFIX_predict.c and PREFIX_predict.h",
    )
    g.add_argument(
        "--name",
        default=None,
        metavar="NAME",
        help="name the files NAME.c and NAME.h (default: PREFIX_predict with --prefix, "
        "else predict), so that two models can share one source folder",
    )


def export_options(args: argparse.Namespace) -> ExportOptions:
    """The :class:`ExportOptions` the command line asks for."""
    return ExportOptions(
        prefix=args.prefix,
        style=args.style,
        input_type=args.input_type,
        float_compare=args.float_compare,
        missing_value=args.missing_value,
        missing=args.missing,
        proba=args.proba,
        scores=args.scores,
        inline_top=args.inline_top,
        name=args.name,
        **scale_options(args.scale),  # type: ignore[arg-type]
    )


def _refuse_on(args: argparse.Namespace, rendered: Rendered) -> None:
    """``--on`` a chip whose tools are missing or whose firmware cannot read the input
    type, or ``--on avr`` with a table no AVR object can hold: one line, before any
    file is written or tool runs."""
    from treegen.firmware import targets

    for name in args.on:
        targets.require_runnable(targets.target(name), rendered.opts.input_type)
    if "avr" in args.on:
        from treegen.codegen.avr import check_files

        why = check_files(rendered.files, rendered.opts)
        if why is not None:
            raise UsageError(why, option="--on avr")


def _refuse_a_c_file_name(out: str) -> None:
    """-o names the output folder: ``-o golf.c`` made a folder ``golf.c`` holding
    predict.c and predict.h. A name ending in .c or .h that is no folder yet is refused,
    saying that --name names the files."""
    folder = Path(out)
    if folder.suffix.lower() in (".c", ".h") and not folder.is_dir():
        parent, stem = folder.parent, folder.stem
        raise UsageError(
            f"{out} names a C file, but -o names the output folder "
            f"(-o {parent} --name {stem} writes {stem}.c and {stem}.h)",
            option="-o",
        )


def run_export(args: argparse.Namespace) -> int:
    from treegen.kinds.export import render
    from treegen.packaging.files import write_package

    _refuse_a_c_file_name(args.output)
    layout, cmake, words = package_cli.package_of(args)
    _, value = load(args.model)
    rendered = render(value, export_options(args), path=args.model, out=args.output, extra=words)
    _refuse_on(args, rendered)
    for text in rendered.notes:
        note(args, f"treegen: warning: {text}")  # a diagnostic: --quiet leaves it out
    written = write_package(args.output, value, rendered, layout, cmake)
    if not getattr(args, "quiet", False):
        for name in written:
            print(f"{args.output.rstrip('/')}/{name}")
    if args.report or args.on:
        firmware_cli.export_report(args, value, rendered)
    return 0


def run_verify(args: argparse.Namespace) -> int:
    from treegen.kinds.check import verify
    from treegen.kinds.export import render

    _, value = load(args.model)
    opts = export_options(args)
    with progress_line(args) as progress:
        data = [
            read_data(
                args, path, schema=value.schema, float32=value.compares_float32, progress=progress
            )
            for path in args.data
        ]
        if not args.on:
            progress.update("verifying")
            report = verify(
                value, opts, data, path=args.model, cc=args.cc, n_random=args.random, seed=args.seed
            )
    if args.on:
        _refuse_on(args, render(value, opts, path=args.model))
        return firmware_cli.verify_on(args, value, opts, data, path=args.model)
    sys.stdout.write(report.text(args.show))
    return 0 if report.ok else 1


EXPORT_EPILOG = """\
The C API (predict.h): int PREFIX_predict(const PREFIX_input_t *x) returns the class
index; void PREFIX_predict_proba(const PREFIX_input_t *x, uint16_t *proba) writes
probabilities in units of 1/32768 (PREFIX_PROBA_ONE).  Missing values are NaN for
float/double and PREFIX_MISSING for integer types (--missing-value; default: the type's
maximum if unsigned, its minimum if signed); a nominal value outside its codes 0..k-1
counts as missing.  They are handled as C4.5 does (all branches, weighted)
in fixed point; with no missing value the class is exactly the Python model's for the
same values (a c45 model rounds values to float32 before comparing: so does the C).
--missing none drops all of that (and, unless --proba, predict_proba and the
distributions): each test is one comparison, the smallest C; verify checks it on
NaN and sentinel rows too, by the rule predict.h states.  Only
<stdint.h> (and <avr/pgmspace.h> on AVR) is used: no libc, libm, malloc or recursion
(but gcc may turn a loop over the classes into a memset or memcpy call, as it may
in any C, even -ffreestanding: a build with no C library at all provides the two, as
firmware_examples/cortex-m/startup.c does, or compiles with
-fno-tree-loop-distribute-patterns).
MODEL may be an imported model (treegen import-sklearn, import-xgboost,
import-lightgbm): PREFIX_predict returns the index into classes_ that the estimator's
predict gives for the same inputs, a missing value (NaN) going where the estimator's
trees send it; a regressor's void PREFIX_predict(const PREFIX_input_t *x, double *y)
writes its predicted values (docs/ensembles.md and docs/regression.md describe the API
and the arithmetic the C reproduces).
MODEL may be a ruleset (treegen rules -o): one if per rule in order, the first whose
conditions all hold returns its class, else the default class; a condition on a
missing value does not hold.  Only PREFIX_predict is exported (no --style table,
--missing none or --proba); the input types, --float-compare int and --scale are as
for trees.
"""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "export",
        help="write predict.c / predict.h for a model",
        # The raw formatter keeps the epilog's layout and prints the description as
        # written too: its lines are broken here, as argparse would not.
        description="Compile MODEL to dependency-free C: predict.c and predict.h in DIR\n"
        "(PREFIX_predict.c/.h with --prefix, NAME.c/.h with --name; with --cmake or\n"
        "--layout, packaged for CMake, Arduino and PlatformIO, or Zephyr).",
        epilog=EXPORT_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("model", metavar="MODEL")
    p.add_argument(
        "-o",
        "--output",
        metavar="DIR",
        default=".",
        help="output folder (created if missing; default: .)",
    )
    add_export_options(p)
    package_cli.add_package_options(p)
    firmware_cli.add_export_report_options(p)
    p.set_defaults(func=run_export)

    p = sub.add_parser(
        "verify",
        help="compile the exported C and check parity with the Python model",
        description="Export MODEL to a temporary folder, compile it with the "
        "C compiler into a shared library (loaded with cffi; no "
        "Python headers needed) and compare the C with the "
        "Python model on DATA rows, every threshold and its "
        "neighbours, missing and special values, and random rows. "
        "Exit 1 if any row differs.",
    )
    p.add_argument("model", metavar="MODEL")
    p.add_argument("data", metavar="DATA", nargs="*", help="data files (columns as the model's)")
    add_export_options(p)
    g = p.add_argument_group("verify options")
    g.add_argument(
        "--cc", default=None, help="C compiler (default: $CC, else the first of cc, gcc, clang)"
    )
    g.add_argument(
        "--random",
        type=_random_rows,
        default=1000,
        metavar="N",
        help=f"number of random rows (default 1000, at most {MAX_RANDOM_ROWS})",
    )
    g.add_argument("--seed", type=_count, default=0, help="random seed (default 0)")
    g.add_argument(
        "--show", type=_count, default=5, metavar="N", help="mismatches to show (default 5)"
    )
    firmware_cli.add_verify_on_option(g)
    p.set_defaults(func=run_verify, wants_labels=False)
