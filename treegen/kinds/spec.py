"""What a model kind is: the one record the registry (:mod:`treegen.kinds`) holds for it.

A kind (a tree, a ruleset, an ensemble, ...) is a value type plus the functions every
command and the Python API need: its file form, its classifier, its printing, its
lowering to C and emitter, and the rows and Python oracles ``verify`` compares the C
with.  The command line, the API and the generic export and verify
(:mod:`treegen.kinds.export`, :mod:`treegen.kinds.check`) call these and never ask
which kind they hold.  The recipe for a new kind is in docs/ARCHITECTURE.md.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from treegen.data.dataset import Dataset, Schema

if TYPE_CHECKING:
    # Types only: the registry imports this module, and ``treegen train`` should not
    # import the C interface (codegen's IR and views) to name them.
    from treegen.codegen.options import ExportOptions, Style
    from treegen.verify.build import CApi
    from treegen.verify.report import Report

M = TypeVar("M")
L = TypeVar("L")

Rows = npt.NDArray[np.generic]
"""Rows of C input values (the encoding's numpy type), one per row verify runs."""

MAX_RANDOM_ROWS = 10_000_000
"""The most random rows verify makes (:attr:`Kind.rows`' ``n_random``): every kind makes
them one by one in Python, so more would run for hours.  Here, where the command line
(``verify --random``) and the API (``Model.verify(n_random=...)``) both may read it."""


def random_rows_error(n: int) -> str | None:
    """Why verify refuses ``n`` random rows (more than :data:`MAX_RANDOM_ROWS`), or None:
    the one wording of the limit, which the caller names with its option."""
    return f"{n} is more than {MAX_RANDOM_ROWS} rows" if n > MAX_RANDOM_ROWS else None


class Value(Protocol):
    """What every kind's value has: the data it reads and where it came from."""

    @property
    def schema(self) -> Schema: ...

    @property
    def data_fingerprint(self) -> str: ...

    @property
    def compares_float32(self) -> bool: ...


def flash_input_type(given: str | None) -> str:
    """The C input type ``info``'s flash estimate assumes: ``given``, else the export's
    default (float)."""
    return given or "float"


Compare = Callable[
    [M, L, "ExportOptions", Rows, npt.NDArray[np.int32], npt.NDArray[np.uint16], "Report"], None
]
"""Hold the C's classes (and probabilities) on the rows against every Python side of the
kind, adding report lines and counting the rows that differ."""


@dataclass(frozen=True)
class Kind(Generic[M, L]):
    """One model kind: its value type ``M``, its lowered form ``L``, and what the tools do.

    Printing: ``show`` maps each ``treegen show --format`` the kind prints to its
    printer (the first is the default); ``dot(value, max_depth, graph)`` draws it as
    Graphviz DOT, the top ``max_depth`` levels with the ``graph`` attributes (None: no
    picture).
    ``evaluate(value, data, label, unpruned)`` is ``treegen eval``'s text (``unpruned``:
    the ``--unpruned`` file, which only a pruned tree takes).
    """

    name: str  # "tree", "ruleset": the kind's name in messages and --help
    noun: str  # "model", "ruleset": the provenance line's key ("model: sha256:...")
    format: str  # the file's "format" field
    suffix: str  # the file name's suffix (".tree")
    default_name: str  # an unsaved value's name: its default C prefix and file stem
    value_type: type
    from_data: Callable[[Any, str, str], M]  # decoded JSON, its text, the file name
    to_json: Callable[[M], str]
    predict: Callable[[M, npt.NDArray[np.float64]], npt.NDArray[np.intp]]
    predict_proba: Callable[[M, npt.NDArray[np.float64]], npt.NDArray[np.float64]] | None
    evaluate: Callable[[M, Dataset, str, str | None], str]
    show: Mapping[str, Callable[[M], str]]
    # treegen info, its flash estimate for --input-type (None: not given, the export's
    # default, flash_input_type); a kind with no estimate refuses one given.
    info: Callable[[M, str | None], str]
    dot: Callable[[M, int | None, Sequence[str]], str] | None  # max depth, graph attributes
    styles: tuple[Style, ...]  # the export styles it has (one: not in the options words)
    lower: Callable[[M, ExportOptions, tuple[tuple[str, str], ...]], L]  # opts.prefix is set
    emit: Callable[[L, ExportOptions], dict[str, str]]
    api: Callable[[L], CApi]
    rows: Callable[[M, L, ExportOptions, Sequence[Dataset], int, int, Report], Rows]
    compare: Compare[M, L]
    summary: Callable[[L, ExportOptions], str]  # the exported C in one line (export --report)
    # What the export changed that the user should know (a threshold folded to a constant
    # branch at the input type's range): each a sentence, warned on stderr and reported.
    notes: Callable[[L], tuple[str, ...]] = lambda lowered: ()
    # Refuse the options the kind has no C for, beyond the shared checks (ExportOptions);
    # by default none (an ensemble's inline top needs the model too: ensemble.ir.has_top).
    check_options: Callable[[ExportOptions], None] = lambda opts: None
    # A value that predicts numbers (a regressor): its float64 outputs per row (n x
    # outputs); None for a value that predicts classes, or a kind that never does.
    values: Callable[[M, npt.NDArray[np.float64]], npt.NDArray[np.float64] | None] | None = None
    # Whether its evaluation (eval) counts an ARFF file's instance weights (a tree, as
    # Weka's Evaluation does); the others' counts are of rows, and refuse weights.
    reads_weights: bool = False
    # Whether it has a lean C (--missing none: inputs promised never missing, no tests
    # for a missing value); a ruleset's one missing-value rule costs a comparison only.
    lean: bool = True
    # What the value is made of, in a few words ("12 nodes, 7 leaves, depth 3"): the
    # public Model's repr, which never prints the nodes themselves.
    size: Callable[[M], str] | None = None
    # treegen train's summary of a value it trained, whose trees it calls ``trees``
    # ("pruned c45"): "pruned c45 tree of 8 nodes (5 leaves, depth 2)"; None for a kind
    # that train never makes.
    trained: Callable[[M, str], str] | None = None
    # The classes eval counts as errors where they are not predict's (a tree's: Release
    # 8's own float sums, model/classify_r8.py); train's summary counts them so too.
    error_predict: Callable[[M, npt.NDArray[np.float64]], npt.NDArray[np.intp]] | None = None
    # treegen train's evaluation of a value it trained on the test set beside its data
    # (STEM.test), as ``(value, data, label, unpruned)``: ``unpruned()`` trains the value
    # again with --no-prune (a pruned tree's Release 8 Before Pruning columns are that
    # tree's).  None: ``evaluate``'s text with no --unpruned file, as eval prints it.
    evaluate_trained: Callable[[M, Dataset, str, Callable[[], M]], str] | None = None
