"""Subcommand ``synth``: a seeded synthetic dataset (:mod:`treegen.data.synthetic`) to a file.

The options are the fields of :class:`~treegen.data.synthetic.Spec`; the format
follows ``-o``'s extension (or ``--format``).  C4.5 output is two files, STEM.names
and STEM.data, written together or not at all and both named in the note; every output
is atomic, and none replaces a file of another kind than data (a model, a pickle, C
source), as no model replaces data.
``python -m treegen.data.synthetic`` runs this command too.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from treegen.cli.common import float_range, int_range, note
from treegen.cli.outputs import refuse_to_replace
from treegen.data.atomic import check_folder, write_files_atomic, write_text_atomic
from treegen.data.synthetic import Spec, arff_text, c45_texts, csv_text, generate
from treegen.data.words import counted
from treegen.errors import UsageError

FORMATS = ("arff", "csv", "c45")
_BY_SUFFIX = {".arff": "arff", ".csv": "csv", ".names": "c45", ".data": "c45"}
# Bounds that keep a typo (an extra digit or two) from filling the memory for minutes.
MAX_ROWS = 100_000_000
MAX_ATTRIBUTES = 10_000
MAX_CLASSES = 1_000
MAX_VALUES = 1_000
MAX_DEPTH = 64


def output_format(path: str, given: str | None) -> str:
    """``--format``, else the format ``path``'s extension names."""
    if given is not None:
        return given
    fmt = _BY_SUFFIX.get(Path(path).suffix.lower())
    if fmt is None:
        raise UsageError(
            f"cannot tell the format from '{path}' (use .arff, .csv, .names or .data, or --format)",
            option="-o/--output",
        )
    return fmt


def spec_of(args: argparse.Namespace) -> Spec:
    """The :class:`Spec` the options ask for; inconsistent options are usage errors."""
    if args.n_continuous + args.n_nominal == 0:
        raise UsageError("a dataset needs at least one attribute", option="--n-continuous")
    if args.max_values < args.min_values:
        raise UsageError(
            f"{args.max_values} is below --min-values {args.min_values}", option="--max-values"
        )
    return Spec(
        rows=args.rows,
        n_continuous=args.n_continuous,
        n_nominal=args.n_nominal,
        n_classes=args.n_classes,
        missing=args.missing,
        noise=args.noise,
        depth=args.depth,
        seed=args.seed,
        min_values=args.min_values,
        max_values=args.max_values,
    )


def run_synth(args: argparse.Namespace) -> int:
    """Generate the dataset and write it; a one-line note on stderr."""
    fmt = output_format(args.output, args.format)
    spec = spec_of(args)
    ds = generate(spec)
    out = Path(args.output)
    if fmt == "c45":
        stem = out.stem if out.suffix.lower() in (".names", ".data") else out.name
        folder = out.parent
        if stem in ("", ".", ".."):
            raise UsageError(f"'{args.output}' names no file stem", option="-o/--output")
        # As for the one-file formats: the folder must exist (export creates its own).
        check_folder(folder, f"{folder / stem}.names")
        # Both files are named, each checked: -o golf.names replaces golf.data too.
        paths = [f"{folder / stem}.names", f"{folder / stem}.data"]
        for path in paths:
            refuse_to_replace(path, "data", "a dataset")
        names, data = c45_texts(ds)
        write_files_atomic(folder, {f"{stem}.names": names, f"{stem}.data": data})
        written = " and ".join(paths)
    else:
        refuse_to_replace(str(out), "data", "a dataset")
        write_text_atomic(out, arff_text(ds, out.stem) if fmt == "arff" else csv_text(ds))
        written = str(out)
    note(
        args,
        f"treegen: wrote {written}: {counted(spec.rows, 'row')}, {spec.n_continuous} continuous "
        f"and {spec.n_nominal} nominal attributes, {counted(spec.n_classes, 'class')} "
        f"(seed {spec.seed})",
    )
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the synth subcommand to ``sub``."""
    p = sub.add_parser(
        "synth",
        help="write a seeded synthetic dataset (ARFF, CSV or C4.5)",
        description="Generate a dataset whose class follows a random concept tree over its "
        "attributes (so a learner finds structure), with label noise and missing values "
        "added after labelling, and write it to FILE. The same options and seed give the "
        "same bytes. Attributes are named c0, n1, ... (continuous, nominal with values v0, "
        "v1, ...), classes k0, k1, ..., the class column 'class'.",
        epilog="The format follows FILE's extension: .arff, .csv, or .names/.data for C4.5 "
        "(both STEM.names and STEM.data are written, either given as FILE); --format "
        "overrides it (c45: FILE is the stem). FILE (each of the two) may replace a data "
        "file, not a model, pickle or C source. 'python -m treegen.data.synthetic' takes "
        "the same options.",
    )
    p.add_argument(
        "-o", "--output", metavar="FILE", required=True, help="file to write (atomically)"
    )
    p.add_argument(
        "--format", choices=FORMATS, default=None, help="arff, csv or c45 (default: from FILE)"
    )
    g = p.add_argument_group("dataset")
    g.add_argument(
        "--rows",
        metavar="N",
        type=int_range(1, MAX_ROWS),
        default=1000,
        help="number of rows (default 1000)",
    )
    g.add_argument(
        "--n-continuous",
        metavar="N",
        type=int_range(0, MAX_ATTRIBUTES),
        default=3,
        help="continuous attributes (default 3)",
    )
    g.add_argument(
        "--n-nominal",
        metavar="N",
        type=int_range(0, MAX_ATTRIBUTES),
        default=2,
        help="nominal attributes (default 2)",
    )
    g.add_argument(
        "--n-classes",
        metavar="K",
        type=int_range(2, MAX_CLASSES),
        default=2,
        help="number of classes (default 2)",
    )
    g.add_argument(
        "--min-values",
        metavar="N",
        type=int_range(2, MAX_VALUES),
        default=2,
        help="fewest values of a nominal attribute (default 2)",
    )
    g.add_argument(
        "--max-values",
        metavar="N",
        type=int_range(2, MAX_VALUES),
        default=8,
        help="most values of a nominal attribute (default 8)",
    )
    g.add_argument(
        "--depth",
        metavar="D",
        type=int_range(0, MAX_DEPTH),
        default=4,
        help="depth of the concept tree that labels the rows (default 4)",
    )
    g.add_argument(
        "--noise",
        metavar="P",
        type=float_range(0.0, 1.0),
        default=0.0,
        help="fraction of labels replaced by a random class (default 0)",
    )
    g.add_argument(
        "--missing",
        metavar="P",
        type=float_range(0.0, 1.0, hi_open=True),
        default=0.0,
        help="fraction of values blanked as missing, after labelling (default 0)",
    )
    g.add_argument(
        "--seed",
        metavar="S",
        type=int_range(0),
        default=0,
        help="seed of every random choice (default 0)",
    )
    p.set_defaults(func=run_synth)
