"""How a caller names the options in an error: the command line's flags (``--min-cases``,
``--prune reduced-error``) or the Python API's keywords (``min_cases``,
``prune='reduced-error'``).

A rule about the training options (:meth:`TrainOptions.validate
<treegen.model.options.TrainOptions.validate>`, the trainer's and the committees'
checks) is written once, with each option's key: a field of ``TrainOptions``, or
``boost``, ``bag``, ``bag_seed``, ``validation``.  Its caller passes the
:class:`OptionNames` that spell the keys as its user typed them, so that
``treegen.train(cf=2)`` is told about ``cf`` and ``treegen train --cf 2`` about ``--cf``.

Every other option error (export, verify, the data readers) is raised naming the flag,
as the command line prints it.  One rule, :func:`as_callers`, decides how it reaches
its caller: as it is inside :func:`on_command_line` (``treegen``'s ``main`` runs every
command so), else naming the keyword (:data:`KEYWORD_OF_FLAG`, the one table), its text
saying ``input_type='float'`` where the CLI's says ``--input-type float``
(:func:`keyword_text`).  Two places apply it: :func:`keyword_errors`, around each
public function of the Python API, and a public record built from Python with no
function around it (``treegen.ExportOptions(...)``), in its own checks.
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import ParamSpec, TypeVar

from treegen.errors import TreegenError

# The API's keyword where it is not the key: prune=True/False/'reduced-error' holds
# both TrainOptions.prune and TrainOptions.pruning.
_KEYWORDS = {"pruning": "prune"}
# The command line's flag where it is not --KEY with dashes.
_FLAGS = {"prune": "--no-prune", "pruning": "--prune"}


@dataclass(frozen=True)
class OptionNames:
    """The names of the options as one caller spells them: the command line's flags
    (``flags``), or else the API's keywords."""

    flags: bool
    renamed: Mapping[str, str] = field(default_factory=dict)

    def __call__(self, key: str) -> str:
        """The name of option ``key`` (``"min_cases"``: ``--min-cases`` or ``min_cases``)."""
        if key in self.renamed:
            return self.renamed[key]
        if self.flags:
            return _FLAGS.get(key, "--" + key.replace("_", "-"))
        return _KEYWORDS.get(key, key)

    def setting(self, key: str, value: str) -> str:
        """Option ``key`` given ``value``, as the caller writes it (``--flavor c45`` or
        ``flavor='c45'``)."""
        return f"{self(key)} {value}" if self.flags else f"{self(key)}={value!r}"


KEYWORDS = OptionNames(flags=False)
"""The Python API's names (and :class:`treegen.C45Classifier`'s parameters)."""

FLAGS = OptionNames(flags=True)
"""``treegen train``'s flags."""


def flags_renamed(**renamed: str) -> OptionNames:
    """The command line's flags with some of them named otherwise (``treegen cv``, whose
    ``--folds`` is its own: ``folds="--prune-folds"``)."""
    return OptionNames(flags=True, renamed=renamed)


# The flags whose keyword is their words joined by "_" (--input-type: input_type).
_SAME_WORDS = (
    "--style",
    "--input-type",
    "--float-compare",
    "--scale",
    "--missing-value",
    "--missing",
    "--proba",
    "--scores",
    "--inline-top",
    "--prefix",
    "--name",
    "--cc",
    "--seed",
    "--target",
    "--nominal",
    "--ignore",
    "--min-cases",
    "--cf",
    "--prune",
    "--folds",
    "--validation",
    "--max-depth",
    "--min-gain-ratio",
    "--subsets",
    "--criterion",
    "--flavor",
    "--boost",
    "--bag",
    "--bag-seed",
)

KEYWORD_OF_FLAG: Mapping[str, str] = {
    **{flag: flag[2:].replace("-", "_") for flag in _SAME_WORDS},
    "--no-proba": "proba",
    "--no-prune": "prune",
    "--random": "n_random",  # Model.verify's
    "--weights": "weight_column",  # a file's column; train's weights= are arrays'
}
"""The Python API's keyword for each flag an option error raised under it can name.
A flag not here has no keyword (``--on``, ``--layout``: the command line's alone) and
is left as it is."""

# How the text of a message spells a flag from Python: a flag that takes one of a few
# words as `KEYWORD='word'` (or the bare keyword when no word follows), an on/off flag
# as `KEYWORD=True` or False.  A flag whose value is the user's own (--scale K,
# --nominal NAME) is its keyword where the text gives it no value ("choose another with
# --missing-value", "for --target (columns: ...)"), else stays as written: its value is
# quoted for a shell, not for Python.
_CHOICE_FLAGS = frozenset(
    (
        "--style",
        "--input-type",
        "--float-compare",
        "--missing",
        "--flavor",
        "--criterion",
        "--prune",
    )
)
_SWITCHES = {
    "--proba": True,
    "--no-proba": False,
    "--scores": True,
    "--subsets": True,
    "--no-prune": False,
}
_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*(?![\w-])")
_WORD = r"([a-z0-9][a-z0-9-]*)(?![\w-])"
_VALUE = re.compile(rf" {_WORD}(?: or {_WORD})?")
_NO_VALUE = re.compile(r"\Z| \(|[),.:;]")


def keyword_text(text: str) -> str:
    """``text`` (an error's message) with its flags spelt as Python keywords:
    ``--missing none`` as ``missing='none'``, ``--no-proba`` as ``proba=False``,
    ``--input-type float or double`` as ``input_type='float' or 'double'``, ``with
    --missing-value`` as ``with missing_value``; ``--nominal 'x'`` stays."""
    out: list[str] = []
    pos = 0
    for match in _FLAG.finditer(text):
        flag, end = match.group(), match.end()
        keyword = KEYWORD_OF_FLAG.get(flag)
        if keyword is None or match.start() < pos:
            continue
        if flag in _SWITCHES:
            spelt = f"{keyword}={_SWITCHES[flag]}"
        elif flag not in _CHOICE_FLAGS:
            if not _NO_VALUE.match(text, end):
                continue
            spelt = keyword
        else:
            value = _VALUE.match(text, end)
            spelt = keyword
            if value is not None:
                words = [w for w in value.groups() if w is not None]
                spelt = f"{keyword}={' or '.join(repr(w) for w in words)}"
                end = value.end()
        out += [text[pos : match.start()], spelt]
        pos = end
    return "".join(out) + text[pos:]


_COMMAND_LINE: ContextVar[bool] = ContextVar("treegen_command_line", default=False)


@contextlib.contextmanager
def on_command_line() -> Iterator[None]:
    """Run the body as the command line: :func:`as_callers` leaves its errors' flags."""
    token = _COMMAND_LINE.set(True)
    try:
        yield
    finally:
        _COMMAND_LINE.reset(token)


def as_callers(err: TreegenError) -> TreegenError:
    """``err`` (changed in place, and returned) naming the options as its caller does:
    the flags on the command line (:func:`on_command_line`), else the Python API's
    keywords where it names the flags, in its option and its message's settings."""
    if _COMMAND_LINE.get():
        return err
    if err.option is not None:
        err.option = KEYWORD_OF_FLAG.get(err.option, err.option)
    err.message = keyword_text(err.message)
    err.args = (err.message, *err.args[1:])
    return err


def one_of(value: object, choices: Iterable[str]) -> bool:
    """Whether ``value`` is one of the words ``choices``: an option of choices as the
    API takes it, as it comes (``value in choices`` compared an array or a Series with
    each word, whose truth numpy and pandas refuse with a ValueError)."""
    return isinstance(value, str) and value in choices


P = ParamSpec("P")
R = TypeVar("R")


def keyword_errors(fn: Callable[P, R]) -> Callable[P, R]:
    """``fn``, a public function of the Python API, whose option errors name the options
    as its caller does (:func:`as_callers`): from Python the keywords it passed, and
    the flags should the command line ever call through it."""

    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except TreegenError as err:
            as_callers(err)
            raise

    return run
