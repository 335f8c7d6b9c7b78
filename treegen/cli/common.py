"""Helpers the subcommand modules share: data options, option-value types, stderr notes.

Subcommands (:mod:`treegen.cli.train`, :mod:`treegen.cli.export`) use these so
that every command spells ``--target``/``--nominal``/``--ignore`` the same
way, reads DATA through one function, and reports bad option values as one
line naming the option (argparse turns an ``ArgumentTypeError`` raised by a
type function into a usage error, which :mod:`treegen.cli.main` prints as a
single line with exit status 2).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from treegen.cli.progress import Progress
from treegen.data.atomic import write_text_atomic
from treegen.data.colnames import split_names
from treegen.data.dataset import Dataset, Schema, printed_name
from treegen.data.readers import detect_format, locate_cell, read_dataset
from treegen.data.readers.lookalike import identifier_columns, numeric_class, numeric_lookalikes
from treegen.data.words import counted
from treegen.errors import CellError, DatasetError, TreegenError
from treegen.model.options import percent_hint
from treegen.model.optnames import FLAGS


def _checked_names(text: str, *, strip: bool, what: str) -> list[str]:
    """``text`` split at its unescaped commas (``split_names``), each name stripped of
    spaces when ``strip``; an empty name is the option's error, named as ``what``."""
    names = split_names(text)
    if strip:
        names = [n.strip() for n in names]
    if not all(names):
        raise argparse.ArgumentTypeError(f"empty {what} in '{text}'")
    return names


def _names(text: str) -> list[str]:
    """An argparse ``type=`` for ``COL,COL,...`` naming data columns (spaces around a
    name dropped)."""
    return _checked_names(text, strip=True, what="column name")


def name_list(text: str) -> list[str]:
    """An argparse ``type=`` for ``A,B,...`` naming columns or classes as given (spaces
    kept; ``\\,`` is a comma in a name, as for ``--nominal``): an empty name (``''``,
    ``'a,,b'``, ``'a,'``) is the option's error, not taken as "not given" nor passed on
    to be blamed on a file."""
    return _checked_names(text, strip=False, what="name")


def add_data_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--target NAME``, ``--nominal COL[,COL]`` and ``--ignore COL[,COL]``: the
    last two apply to C4.5 files too (their readers take them), ``--target`` does not."""
    group = parser.add_argument_group("data options")
    group.add_argument(
        "--target",
        metavar="NAME",
        default=None,
        help="class column of a CSV or ARFF file (default: the last column; C4.5 files "
        "declare their classes)",
    )
    group.add_argument(
        "--nominal",
        metavar="COL[,COL]",
        type=_names,
        action="append",
        default=[],
        help="treat these columns as nominal even if all their values are numbers "
        "(repeatable; \\, is a comma in a name)",
    )
    group.add_argument(
        "--ignore",
        metavar="COL[,COL]",
        type=_names,
        action="append",
        default=[],
        help="ignore these columns (e.g. ids, ARFF string attributes) (repeatable; "
        "\\, is a comma in a name)",
    )


def add_class_column_option(parser: argparse.ArgumentParser) -> None:
    """``--target NAME`` for a command that reads labelled DATA for a model (``eval``):
    the column holding the class when the user's file names it otherwise than the model
    does (an imported scikit-learn model calls it ``class``)."""
    parser.add_argument(
        "--target",
        dest="class_column",
        metavar="NAME",
        default=None,
        help="the column of DATA (CSV, ARFF) that holds the class, when it is not named "
        "as the model's class column ('treegen info MODEL' shows that name)",
    )


def add_weights_option(parser: argparse.ArgumentParser) -> None:
    """``--weights COLUMN``: a CSV or C4.5 file's column of instance weights (no
    attribute)."""
    parser.add_argument(
        "--weights",
        dest="weight_column",
        metavar="COLUMN",
        default=None,
        help="a CSV or C4.5 file's column of row weights (numbers at least 0), read as "
        "an ARFF row's {w} is and not an attribute",
    )


def _flatten(lists: object) -> list[str]:
    if not isinstance(lists, list):
        return []
    out: list[str] = []
    for item in lists:
        out.extend(item if isinstance(item, list) else [str(item)])
    return out


def read_data(
    args: argparse.Namespace,
    path: str,
    schema: Schema | None = None,
    *,
    float32: bool,
    progress: Progress | None = None,
) -> Dataset:
    """Read DATA with the options :func:`add_data_options` added.

    With ``schema`` (a model's) the data options other than the file itself
    do not apply: columns are matched to the model's attributes, the class is the
    column named as the model's or ``--target``'s (:func:`add_class_column_option`),
    and a command that sets ``wants_labels=False`` (predict, verify: they never look
    at the class) reads no class at all, so a class column it cannot decode is no
    error; one that sets ``reads_weights=True`` (train, cv, a tree's eval, predict)
    reads an ARFF file's instance weights, which are an error elsewhere.  ``float32``:
    the data is for a c45 model (training or using one), whose values are float32,
    so a value beyond float32's range is an error at its cell.  ``progress``
    shows the phase "reading" and then the rows read.
    """
    if progress is not None:
        progress.update(f"reading {path}")
    if schema is not None:
        ds = read_dataset(
            path,
            schema=schema,
            target=getattr(args, "class_column", None),
            float32=float32,
            labels=getattr(args, "wants_labels", True),
            weights=getattr(args, "reads_weights", False),
            weight_column=getattr(args, "weight_column", None),
        )
    else:
        nominal = _flatten(getattr(args, "nominal", []))
        ds = read_dataset(
            path,
            target=getattr(args, "target", None),
            nominal=nominal,
            ignore=_flatten(getattr(args, "ignore", [])),
            float32=float32,
            weights=getattr(args, "reads_weights", False),
            weight_column=getattr(args, "weight_column", None),
        )
        if detect_format(path) == "csv" and not getattr(args, "quiet", False):
            _warn_lookalikes(path, numeric_lookalikes(ds.schema, nominal), progress)
            measured = numeric_class(ds.schema, nominal)
            if measured is not None:
                _warn_lookalikes(path, [(ds.schema.target, measured)], progress)
            _warn_lookalikes(path, identifier_columns(ds), progress)
    if progress is not None:
        progress.update(f"read {path}", rows=ds.n_rows)
    return ds


def read_test_beside(args: argparse.Namespace, ds: Dataset, *, float32: bool) -> Dataset | None:
    """The ``STEM.test`` beside C4.5 DATA (``args.data``), read with ``ds``'s attributes,
    which ``train`` and ``rules`` evaluate after their results; None when there is none.
    The caller reads it before writing anything, so an error in it, or no row of it with
    a class value (eval's error), leaves no model or ruleset behind."""
    # Imported here: every command builds the parsers of the modules that import this one.
    from treegen.analysis.evaluate import labelled_rows, test_set_beside

    test = test_set_beside(args.data)
    if test is None:
        return None
    test_ds = read_data(args, test, schema=ds.schema, float32=float32)
    labelled_rows(test_ds)
    return test_ds


@contextmanager
def naming_cells(args: argparse.Namespace, ds: Dataset) -> Iterator[None]:
    """A value of ``ds`` that its model refuses (a :class:`CellError`, which counts rows
    and attributes from 0) named by DATA's line and column, as a reader's errors are."""
    try:
        yield
    except CellError as exc:
        weight_column = getattr(args, "weight_column", None)
        try:
            line, col = locate_cell(ds.source, ds.schema, exc.row, exc.attribute, weight_column)
        except TreegenError:  # the file changed since it was read: its name, at least
            exc.file = ds.source
            raise exc from None
        raise DatasetError(exc.detail, file=ds.source, line=line, col=col) from None


_LOOKALIKES_SHOWN = 5  # warnings in full; the other columns are named in one line


def _warn_lookalikes(path: str, notes: list[tuple[str, str]], progress: Progress | None) -> None:
    """The warnings of :func:`numeric_lookalikes` on stderr (clear of the progress line):
    a few in full, then one line naming the other columns (a wide file exported with
    'NA' in every column got one a column)."""
    lines = [text for _, text in notes[:_LOOKALIKES_SHOWN]]
    rest = [name for name, _ in notes[_LOOKALIKES_SHOWN:]]
    if rest:
        shown = ", ".join(f"'{printed_name(n)}'" for n in rest[:_LOOKALIKES_SHOWN])
        more = f", ... ({len(rest)})" if len(rest) > _LOOKALIKES_SHOWN else ""
        lines.append(f"{counted(len(rest), 'more column')} likewise: {shown}{more}")
    for text in lines:
        warning = f"treegen: warning: {path}: {text}"
        if progress is None:
            print(warning, file=sys.stderr)
        else:
            progress.say(warning)


def file_bytes(path: str) -> int:
    """The size of the file DATA names; for a C4.5 stem (no such file) or anything
    unreadable, more than any limit."""
    try:
        return os.path.getsize(path)
    except OSError:
        return sys.maxsize


def int_range(lo: int, hi: int | None = None) -> Callable[[str], int]:
    """An argparse ``type=`` accepting integers in ``lo..hi`` (``hi`` None: no upper bound)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
        if value < lo or (hi is not None and value > hi):
            bound = f"between {lo} and {hi}" if hi is not None else f"at least {lo}"
            raise argparse.ArgumentTypeError(f"{value} must be {bound}")
        return value

    return parse


positive_int = int_range(1)


def float_range(
    lo: float, hi: float, *, lo_open: bool = False, hi_open: bool = False
) -> Callable[[str], float]:
    """An argparse ``type=`` accepting finite floats in the given interval."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
        too_low = value <= lo if lo_open else value < lo
        too_high = value >= hi if hi_open else value > hi
        if math.isnan(value) or too_low or too_high:
            left, right = "(" if lo_open else "[", ")" if hi_open else "]"
            raise argparse.ArgumentTypeError(f"{text} must be in {left}{lo:g}, {hi:g}{right}")
        return value

    return parse


def note(args: argparse.Namespace, message: str) -> None:
    """A diagnostic on stderr, unless ``--quiet`` was given."""
    if not getattr(args, "quiet", False):
        print(message, file=sys.stderr)


def add_verbose(parser: argparse.ArgumentParser) -> None:
    """``-v/--verbose``: the command ends with its peak memory (:func:`note_peak_memory`)."""
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="end with the process's peak resident memory (MB) and CPU time on stderr",
    )


def peak_memory_mb() -> float | None:
    """This process's peak resident memory so far, in MB (2**20 bytes); None where the
    system does not say (no ``resource`` module: Windows)."""
    try:
        import resource
    except ImportError:
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # Linux counts kilobytes, macOS bytes.
    return float(peak) / (2**20 if sys.platform == "darwin" else 2**10)


def note_peak_memory(args: argparse.Namespace) -> None:
    """With ``--verbose`` (and not ``--quiet``): the last line on stderr, the process's
    peak resident memory and its CPU time."""
    if getattr(args, "verbose", False):
        peak = peak_memory_mb()
        times = os.times()
        memory = "unknown" if peak is None else f"{peak:.0f} MB"
        note(args, f"treegen: peak memory {memory}, cpu {times.user + times.system:.2f} s")


def evaluation_label(ds: Dataset, data_fingerprint: str | None) -> str:
    """``eval``'s heading for DATA: "training" when it is the data the model (or
    ruleset) was trained on, by fingerprint, else "test"."""
    return "training" if ds.fingerprint() == data_fingerprint else "test"


def note_unlabelled(args: argparse.Namespace, ds: Dataset) -> None:
    """``eval``'s note on the rows of DATA without a class value (not evaluated)."""
    skipped = int((ds.y < 0).sum())
    if skipped:
        note(
            args,
            f"treegen: {counted(skipped, 'row')} without a class value "
            + ("was" if skipped == 1 else "were")
            + " not evaluated",
        )


def write_predictions(args: argparse.Namespace, text: str, n_rows: int) -> None:
    """``predict``'s lines to ``--output`` (atomically, with a note) or to stdout."""
    if args.output:
        write_text_atomic(args.output, text)
        note(args, f"treegen: wrote {n_rows} predictions to {args.output}")
    else:
        sys.stdout.write(text)


def add_subsets_and_criterion(group: argparse._ActionsContainer) -> None:
    """``--subsets`` and ``--criterion``, as the commands that grow a C4.5 tree take them."""
    group.add_argument(
        "--subsets",
        action="store_true",
        default=False,
        help="group nominal values into subsets (C4.5's -s)",
    )
    group.add_argument(
        "--criterion",
        choices=("gainratio", "gain"),
        default="gainratio",
        help="split criterion: gain ratio (default) or information gain",
    )


def add_min_cases_and_cf(group: argparse._ActionsContainer, cf_help: str) -> None:
    """``-m/--min-cases`` and ``-c/--cf``, as every command that trains takes them."""
    group.add_argument(
        "-m",
        "--min-cases",
        metavar="N",
        type=int_range(1),
        default=2,
        help="a test needs at least two branches with N cases (default 2)",
    )
    group.add_argument(
        "-c",
        "--cf",
        metavar="CF",
        default=0.25,
        type=_confidence,
        help=cf_help,
    )


def _confidence(text: str) -> float:
    """``--cf``: a fraction in (0, 1), with Release 8's percentage hinted at
    (:func:`treegen.model.options.percent_hint`)."""
    try:
        return float_range(0.0, 1.0, lo_open=True, hi_open=True)(text)
    except argparse.ArgumentTypeError as err:
        try:
            hint = percent_hint(float(text), FLAGS)
        except ValueError:
            raise err from None
        raise argparse.ArgumentTypeError(f"{err}{hint}") from None
