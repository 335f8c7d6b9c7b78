"""The one in-memory value every data reader produces: :class:`Dataset`.

Readers for C4.5 (``.names``/``.data``), ARFF and CSV all return a
``Dataset``; the trainer, evaluator and verifier consume nothing else.

Encoding of ``X`` (shape ``(n_rows, n_attributes)``, float64):

* continuous attribute: the parsed value (``strtod``-like, full double
  precision); the c45 flavour's trainer narrows it to float32 as it prepares the
  data, as Release 8 stores values as C ``float``;
* nominal attribute: the value's index in ``Attribute.values`` (0..k-1),
  stored as a float;
* ignored attribute: all NaN;
* missing (``?``, empty CSV cell, a value unseen in a schema): NaN.

``y`` holds class indices into ``classes`` (int32).  ``weights`` is None (every
case starts at weight 1, as in C4.5) unless the file gave instance weights (an ARFF
row's ``{w}``, read by the commands that count them): then one float64 per row.
"""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

AttrKind = Literal["continuous", "nominal", "ignore"]


@dataclass(frozen=True, slots=True)
class Attribute:
    """One input attribute: its name, kind and (nominal) declared values."""

    name: str
    kind: AttrKind
    values: tuple[str, ...] = ()

    @property
    def is_continuous(self) -> bool:
        return self.kind == "continuous"

    @property
    def is_nominal(self) -> bool:
        return self.kind == "nominal"


@dataclass(frozen=True, slots=True)
class Schema:
    """Attributes, classes and the target name: what a model was trained on.

    A reader given a schema maps the file's columns onto it (by name for
    CSV/ARFF, by position for C4.5 files) instead of inferring one.
    """

    attributes: tuple[Attribute, ...]
    classes: tuple[str, ...]
    target: str = "class"

    def attribute_index(self, name: str) -> int:
        for i, a in enumerate(self.attributes):
            if a.name == name:
                return i
        raise KeyError(name)

    def printed(self) -> Schema:
        """The schema with every name as a printout shows it (:func:`printed_name`):
        ``self`` when every name prints as it is."""
        attributes = tuple(
            Attribute(printed_name(a.name), a.kind, tuple(printed_name(v) for v in a.values))
            for a in self.attributes
        )
        shown = Schema(
            attributes, tuple(printed_name(c) for c in self.classes), printed_name(self.target)
        )
        return self if shown == self else shown


def printed_name(text: str) -> str:
    """An attribute, value or class name as the text printouts show it, on one line
    and unambiguous: a character that does not print (a newline, a tab, any control
    or separator character: ``str.isprintable``) as ``<U+XXXX>``, the notation the
    generated C's comments use, and so a ``<`` that starts ``<U+`` as ``<U+003C>``.
    Every other name prints as it is, so Release 8's and Weka's layouts hold."""
    if text.isprintable() and "<U+" not in text:
        return text
    out = [
        f"<U+{ord(ch):04X}>" if not ch.isprintable() or text.startswith("<U+", i) else ch
        for i, ch in enumerate(text)
    ]
    return "".join(out)


@dataclass(frozen=True, eq=False)
class Dataset:
    """Rows of attribute values plus class labels, read from one file."""

    schema: Schema
    X: npt.NDArray[np.float64]
    y: npt.NDArray[np.int32]
    source: str = "<memory>"
    # How the class labels were typed where they came from (arrays' dtype, a CSV column
    # of integers): "str", "int", "float" or "bool".  A model records it so that its
    # predictions come back as that type.
    labels: str = "str"
    # An ARFF file's instance weights, one per row (None: every row weighs 1).
    weights: npt.NDArray[np.float64] | None = None

    def __post_init__(self) -> None:
        assert self.X.ndim == 2 and self.X.shape[1] == len(self.schema.attributes)
        assert self.y.shape == (self.X.shape[0],)
        assert self.weights is None or self.weights.shape == self.y.shape

    @property
    def attributes(self) -> tuple[Attribute, ...]:
        return self.schema.attributes

    @property
    def classes(self) -> tuple[str, ...]:
        return self.schema.classes

    @property
    def n_rows(self) -> int:
        return int(self.X.shape[0])

    def fingerprint(self) -> str:
        """A stable hash of schema and contents, recorded in model files."""
        h = hashlib.sha256()
        for a in self.schema.attributes:
            h.update(repr((a.name, a.kind, a.values)).encode())
        h.update(repr((self.schema.classes, self.schema.target)).encode())
        # The arrays' own buffers (the bytes tobytes() would copy): no second copy
        # of the table, which at 1M rows is 160 MB and 0.1 s.
        h.update(np.ascontiguousarray(self.X).data)
        h.update(np.ascontiguousarray(self.y, dtype=np.int32).data)
        if self.weights is not None:  # (so an unweighted file's hash is as it was)
            h.update(np.ascontiguousarray(self.weights, dtype=np.float64).data)
        return "sha256:" + h.hexdigest()[:32]

    def subset(self, rows: npt.NDArray[np.intp]) -> Dataset:
        """The rows selected by ``rows`` (for cross-validation folds)."""
        weights = None if self.weights is None else self.weights[rows]
        return Dataset(self.schema, self.X[rows], self.y[rows], self.source, self.labels, weights)


_FLOAT32_MAX = float(np.finfo(np.float32).max)


# The least magnitude that rounds to infinity as a float32: half an ulp past its largest
# value (2**128 - 2**104), a tie that goes to the even neighbour, 2**128.
FLOAT32_OVERFLOW = 2.0**128 - 2.0**103


def beyond_range(col: npt.NDArray[np.float64], float32: bool) -> npt.NDArray[np.bool_]:
    """Where ``col`` holds a value the model cannot hold: inf as a double, or
    (``float32``: a c45 model, which stores values as float32 like Release 8) inf once
    rounded to float32.  The one rule of the readers, of arrays given to train and of a
    model file's weights (which compare with :data:`FLOAT32_OVERFLOW` themselves)."""
    return np.abs(col) >= FLOAT32_OVERFLOW if float32 else np.isinf(col)


def range_message(value: str, name: str, float32: bool, hint: str = "") -> str:
    """The error on ``value`` (as the user wrote it) of attribute ``name`` that
    :func:`beyond_range` refuses; ``hint`` ends the parenthesis."""
    if float32:
        kind = "float32"
        detail = (
            "a c45 tree, or a model that compares float32, reads continuous values as "
            f"float32, largest {_FLOAT32_MAX:.8g}"
        )
    else:
        kind, detail = "a double", f"largest {sys.float_info.max!r}"
    return f"{value} is out of range for {kind} (attribute '{name}'; {detail}{hint})"
