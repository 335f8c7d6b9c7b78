"""How a caller names the training options in an error: the command line's flags
(``--min-cases``, ``--prune reduced-error``) or the Python API's keywords
(``min_cases``, ``prune='reduced-error'``).

A rule about the options (:meth:`TrainOptions.validate
<treegen.model.options.TrainOptions.validate>`, the trainer's and the committees'
checks) is written once, with each option's key: a field of ``TrainOptions``, or
``boost``, ``bag``, ``bag_seed``, ``validation``.  Its caller passes the
:class:`OptionNames` that spell the keys as its user typed them, so that
``treegen.train(cf=2)`` is told about ``cf`` and ``treegen train --cf 2`` about ``--cf``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

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
