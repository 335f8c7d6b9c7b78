"""The single error hierarchy of treegen.

Every error a user can cause derives from :class:`TreegenError`; the CLI turns
one into a single line ``treegen: error: FILE:LINE:COL: message`` (or naming the
option) and exit status 2.  ``assert`` is reserved for internal invariants.  A
warning (not an error) names the user's line: :func:`users_stacklevel`.
"""

from __future__ import annotations

import os
import sys

# treegen's own folder: the frames a warning's stacklevel climbs past.
_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def users_stacklevel() -> int:
    """The ``stacklevel`` of a warning said by this function's caller that names the
    first frame outside treegen: the user's line, however many of treegen's methods and
    decorators lie between (a fixed count broke whenever one was added)."""
    level, frame = 1, sys._getframe(1)
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        level, frame = level + 1, frame.f_back
    return level


def a_name(noun: str) -> str:
    """``noun`` with its article, as messages say it ("a tree", "an AdaBoostClassifier",
    and "an XGBClassifier": an initialism is read by its letters, "ex", "el", "em")."""
    spelled = noun[:2].isupper() and noun[:1] in "FHLMNRSX"
    return f"{'an' if noun[:1].lower() in 'aeiou' or spelled else 'a'} {noun}"


class TreegenError(Exception):
    """Base class: a problem with the user's input, options or files."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        col: int | None = None,
        option: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.col = col
        self.option = option

    def location(self) -> str:
        """``FILE:LINE:COL`` (as much as is known), or ``option --x`` or ''."""
        if self.file is not None:
            parts = [self.file or "''"]  # an empty name ('' on the command line) as typed
            if self.line is not None:
                parts.append(str(self.line))
                if self.col is not None:
                    parts.append(str(self.col))
            return ":".join(parts)
        if self.option is not None:
            return self.option
        return ""

    def __str__(self) -> str:
        loc = self.location()
        return f"{loc}: {self.message}" if loc else self.message


class UsageError(TreegenError):
    """A bad command-line option or option value."""


class DatasetError(TreegenError):
    """Malformed or inconsistent training / evaluation data."""


class CellError(DatasetError):
    """A value a model refuses, found after the data was read: ``row`` and ``attribute``
    (from 0) are its place in the Dataset's matrix, ``detail`` the message without it.
    A command that read the rows from a file names the cell's line and column instead
    (:func:`treegen.cli.common.naming_cells`)."""

    def __init__(self, detail: str, *, row: int, attribute: int, option: str | None = None) -> None:
        super().__init__(f"row {row} (from 0), {detail}", option=option)
        self.detail = detail
        self.row = row
        self.attribute = attribute


class ModelFileError(TreegenError):
    """A model file that is truncated, tampered with, or from a newer treegen."""


class TrainError(TreegenError):
    """Training cannot proceed with the given data and options."""


class EncodingError(TreegenError):
    """A model cannot be lowered to the requested C input encoding."""


class EmitError(TreegenError):
    """C code generation failed (names, output folder, templates)."""


class ToolError(TreegenError):
    """A compiler or simulator a command needs is missing, or could not do its job."""


class EstimatorError(UsageError, ValueError):
    """Bad ``X``, ``y`` or parameters given to :class:`treegen.C45Classifier`.

    Also a ``ValueError``, because scikit-learn's conventions (and its
    ``check_estimator``) expect one for invalid input.
    """


class NotFittedError(EstimatorError, AttributeError):
    """A :class:`treegen.C45Classifier` used before ``fit`` (scikit-learn's convention)."""


class EstimatorTypeError(EstimatorError, TypeError):
    """``X`` holding objects that are no numbers (a dict, a list): scikit-learn's
    ``check_estimator`` expects a ``TypeError`` there, as ``float()`` raises."""
