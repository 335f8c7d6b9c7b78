"""Release 8 on the generated corpus (``tests/data/corpus``): treegen's outputs against
the printed ones, per dataset and per variant.

Each corpus folder holds a dataset and Release 8's output for the default run
(``c45r8.out``), ``-s``, ``-g``, ``-m 5 -c 10``, ``-u`` with a test set, and
``c4.5rules`` with and without ``-u`` (``tests/data/corpus/README.md``).  The
variants compared, each a function of one dataset name returning the list of
differences (empty: equal):

* ``default``: the pruned tree (canonical root-to-leaf form of
  :mod:`support.reftrees`) and the training evaluation line (sizes and errors
  before and after pruning, the estimate) of ``c45r8.out``;
* ``unpruned``: the grown tree of ``c45r8.out``;
* ``g``, ``m5c10``, ``s``: both trees and the evaluation line of that run;
* in each tree every node Release 8 printed, and only those: a subtree it shows as
  ``[S??]`` (past its 99th block, never printed) is left out;
* ``u``: the "Evaluation on test data" block of ``c45r8_u.out``, as ``treegen
  eval`` prints it, character for character;
* ``rules``: everything ``c4.5rules`` prints from "Final rules" on (the ruleset and
  its training evaluation), character for character; ``rules_u`` the test block of
  ``c45rules_u.out``.  The ``rules`` rows are counted apart for the sets where
  Release 8 searched a class's subsets at random (the manifest's ``rules_random``).

A difference that Release 8's reading of -999 as unknown explains (docs/RELEASE8_BUGS.md
item 6: the set holds -999, and treegen given those values as unknown prints what
Release 8 printed) is counted apart, as Release 8's bug; no other difference is.

Run ``python -m support.r8corpus`` from ``tests/`` (or ``python tests/support/r8corpus.py``)
for the table of counts; ``--show NAME VARIANT`` prints one difference in full;
``--corpus DIR`` measures another corpus made the same way (the held-back sets).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import functools
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from treegen.analysis.evaluate import evaluate, format_evaluation
from treegen.data.dataset import Dataset, Schema
from treegen.data.readers import read_dataset
from treegen.model.core import Model
from treegen.rules.generate import generate
from treegen.rules.show import format_rules, format_rules_evaluation
from treegen.trainer import TrainOptions, train

if __package__ in (None, ""):  # run as a script: tests/ on the path
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from support import reftrees as rt
else:
    from . import reftrees as rt

CORPUS = Path(__file__).resolve().parent.parent / "data" / "corpus"

TREE_OPTIONS: dict[str, dict[str, object]] = {
    "default": {},
    "unpruned": {},
    "g": {"criterion": "gain"},
    "m5c10": {"min_cases": 5, "cf": 0.10},
    "s": {"subsets": True},
}
OUTPUT = {"default": "c45r8.out", "unpruned": "c45r8.out", "g": "c45r8_g.out"}
OUTPUT |= {"m5c10": "c45r8_m5c10.out", "s": "c45r8_s.out"}
VARIANTS = ("default", "unpruned", "g", "m5c10", "s", "u", "rules", "rules_u")


@dataclass(frozen=True)
class Entry:
    """One row of ``manifest.csv``."""

    name: str
    has_test: bool
    rules_random: bool
    kind: str

    @property
    def folder(self) -> Path:
        return CORPUS / self.name

    def applies(self, variant: str) -> bool:
        """Whether Release 8 ran ``variant`` on this set (``-u`` needs a test file)."""
        return self.has_test or variant not in ("u", "rules_u")


def entries(corpus: Path | None = None) -> list[Entry]:
    """The corpus's datasets (by default :data:`CORPUS`'s), in manifest order."""
    with ((corpus or CORPUS) / "manifest.csv").open(newline="", encoding="utf-8") as f:
        return [
            Entry(r["name"], r["has_test"] == "yes", r["rules_random"] == "yes", r["kind"])
            for r in csv.DictReader(f)
        ]


@functools.cache
def entry(name: str) -> Entry:
    return next(e for e in entries() if e.name == name)


# Release 8 stores an unknown continuous value as -999 and so reads a -999 in a data file
# (any number whose float is -999) as unknown: docs/RELEASE8_BUGS.md item 6, where
# treegen departs.  While _AS_RELEASE8_READS is set (release8_reading), the datasets
# below are read that way, to tell a difference that comes from it from any other.
RELEASE8_UNKNOWN = np.float32(-999.0)
_AS_RELEASE8_READS = False


def _read(path: Path, schema: Schema | None = None) -> Dataset:
    ds = read_dataset(str(path), schema=schema, float32=True)
    if not _AS_RELEASE8_READS:
        return ds
    cont = np.array([a.kind == "continuous" for a in ds.schema.attributes])
    X = ds.X.copy()
    X[:, cont] = np.where(X[:, cont].astype(np.float32) == RELEASE8_UNKNOWN, np.nan, X[:, cont])
    return replace(ds, X=X)


@functools.cache
def dataset(name: str) -> Dataset:
    return _read(CORPUS / name / f"{name}.data")


@functools.cache
def test_set(name: str) -> Dataset:
    return _read(CORPUS / name / f"{name}.test", dataset(name).schema)


def holds_release8_unknown(name: str) -> bool:
    """Whether a continuous column of ``name``'s data (or test) file holds -999."""
    e = entry(name)
    files = [e.folder / f"{name}.data"] + ([e.folder / f"{name}.test"] if e.has_test else [])
    for path in files:
        ds = read_dataset(str(path), schema=dataset(name).schema, float32=True)
        cont = [a.kind == "continuous" for a in ds.schema.attributes]
        if (ds.X[:, cont].astype(np.float32) == RELEASE8_UNKNOWN).any():
            return True
    return False


def _clear_caches() -> None:
    for cache in (dataset, test_set, models, rulesets):
        cache.cache_clear()


@contextlib.contextmanager
def release8_reading() -> Iterator[None]:
    """Read the datasets as Release 8 does, -999 as unknown (its bug 6)."""
    global _AS_RELEASE8_READS
    _clear_caches()
    _AS_RELEASE8_READS = True
    try:
        yield
    finally:
        _AS_RELEASE8_READS = False
        _clear_caches()


def release8_bug(name: str, variant: str) -> bool:
    """Whether ``variant``'s difference on ``name`` is Release 8's bug 6 and nothing else:
    the set holds -999 and, read as Release 8 reads it, treegen prints what Release 8
    printed.  No other difference is declared a bug."""
    if not holds_release8_unknown(name):
        return False
    with release8_reading():
        return not differences(name, variant)


@functools.cache
def models(name: str, variant: str) -> tuple[Model, Model]:
    """(pruned, unpruned) models of ``name`` trained with ``variant``'s options."""
    kw = TREE_OPTIONS[variant]
    ds = dataset(name)
    return train(ds, TrainOptions(**kw)), train(ds, TrainOptions(prune=False, **kw))  # type: ignore[arg-type]


@functools.cache
def reference(name: str, output: str) -> rt.R8Output:
    return rt.parse_c45r8((CORPUS / name / output).read_text())


def _without_e(tree: rt.Tree) -> rt.Tree:
    if isinstance(tree, rt.Leaf):
        return rt.Leaf(tree.cls, tree.n, "-")
    return rt.make_split(
        tree.attribute, [rt.Branch(b.op, b.value, _without_e(b.child)) for b in tree.branches]
    )


def possible_only(tree: rt.Tree, possible: dict[str, set[str]] | None = None) -> rt.Tree:
    """``tree`` without the subset branches no case can reach (Release 8's -s pruning
    removes them even where it reports that pruning changed nothing)."""
    possible = possible or {}
    if isinstance(tree, rt.Leaf):
        return tree
    branches = []
    for b in tree.branches:
        if b.op not in ("=", "in"):
            branches.append(rt.Branch(b.op, b.value, possible_only(b.child, possible)))
            continue
        vals = set(b.value[1:-1].split(",")) if b.op == "in" else {b.value}
        if tree.attribute in possible:
            vals &= possible[tree.attribute]
        if not vals:
            continue
        sub = {**possible, tree.attribute: vals}
        if len(vals) == 1:
            op, value = "=", next(iter(vals))
        else:
            op, value = "in", "{" + ",".join(sorted(vals)) + "}"
        branches.append(rt.Branch(op, value, possible_only(b.child, sub)))
    return rt.make_split(tree.attribute, branches)


def _errors(model: Model, ds: Dataset) -> int:
    """Training errors as ``treegen eval`` counts them (Release 8's classifier)."""
    return evaluate(model, ds).errors


def _evaluation_diff(name: str, variant: str) -> list[str]:
    pruned, unpruned = models(name, variant)
    return evaluation_diff(dataset(name), pruned, unpruned, reference(name, OUTPUT[variant]))


def evaluation_diff(ds: Dataset, pruned: Model, unpruned: Model, ref: rt.R8Output) -> list[str]:
    """The training evaluation line (sizes and errors before and after pruning, the
    estimate) of the two models on ``ds`` against Release 8's printed ``ref``."""
    ev = ref.training
    root = pruned.nodes[0]
    ours = (
        (unpruned.size, _errors(unpruned, ds)),
        (pruned.size, _errors(pruned, ds)),
        f"{100.0 * root.errors / root.items:.1f}" if root.items else "0.0",
    )
    theirs = ((ev.size_before, ev.errors_before), (ev.size_after, ev.errors_after), ev.estimate)
    return [] if ours == theirs else [f"evaluation: ours {ours} != Release 8's {theirs}"]


def _pruned_diff(name: str, variant: str) -> list[str]:
    pruned, _ = models(name, variant)
    return pruned_diff(pruned, reference(name, OUTPUT[variant]), subsets=variant == "s")


def pruned_diff(pruned: Model, ref: rt.R8Output, subsets: bool = False) -> list[str]:
    """``pruned`` against the pruned tree Release 8 printed in ``ref`` (``subsets``: a
    ``-s`` run).  Where pruning replaced nothing Release 8 prints the grown tree alone,
    with actual errors, and it is compared without the errors."""
    ours = rt.from_model(pruned, "c45")
    if ref.simplified_printed:
        return ["pruned: " + d for d in rt.diff(rt.as_printed(ours, ref.pruned), ref.pruned)]
    theirs = possible_only(ref.pruned) if subsets else ref.pruned
    ours = rt.as_printed(ours, theirs)
    return ["pruned: " + d for d in rt.diff(_without_e(ours), _without_e(theirs))]


def _unpruned_diff(name: str, variant: str) -> list[str]:
    _, unpruned = models(name, variant)
    theirs = reference(name, OUTPUT[variant]).unpruned
    ours = rt.as_printed(rt.from_model(unpruned, "c45"), theirs)
    return ["unpruned: " + d for d in rt.diff(ours, theirs)]


def tree_diff(name: str, variant: str) -> list[str]:
    """Differences of a tree variant (see the module docstring for what each covers)."""
    if variant == "unpruned":
        return _unpruned_diff(name, "default")
    out = _pruned_diff(name, variant) + _evaluation_diff(name, variant)
    if variant != "default":
        out = _unpruned_diff(name, variant) + out
    return out


def _block(text: str, head: str) -> str:
    return text[text.index("\n" + head) :].rstrip("\n") + "\n"


def _text_diff(ours: str, theirs: str, what: str) -> list[str]:
    if ours == theirs:
        return []
    a, b = ours.splitlines(), theirs.splitlines()
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return [f"{what}: line {i + 1}: ours {x!r} != Release 8's {y!r}"]
    return [f"{what}: ours {len(a)} lines, Release 8's {len(b)}"]


def u_diff(name: str) -> list[str]:
    """The test-set block of ``c45r8_u.out`` against ``treegen eval``'s."""
    pruned, unpruned = models(name, "default")
    ts = test_set(name)
    ours = format_evaluation("test", evaluate(pruned, ts), evaluate(unpruned, ts))
    theirs = _block((CORPUS / name / "c45r8_u.out").read_text(), "Evaluation on test data")
    return _text_diff(_block(ours, "Evaluation on test data"), theirs, "u")


@functools.cache
def rulesets(name: str) -> tuple[object, object]:
    ds = dataset(name)
    return generate(ds, models(name, "default")[1])


def rules_diff(name: str) -> list[str]:
    """``c4.5rules``'s output from "Final rules" on against treegen's."""
    printed, _ = rulesets(name)
    ds = dataset(name)
    ours = format_rules(printed) + format_rules_evaluation(  # type: ignore[arg-type]
        printed,  # type: ignore[arg-type]
        "training",
        ds.X,
        ds.y,
        drop=True,
    )
    ref = (CORPUS / name / "c45rules.out").read_text()
    return _text_diff(ours, ref[ref.index("\nFinal rules") :], "rules")


def rules_u_diff(name: str) -> list[str]:
    """The test block of ``c45rules_u.out`` (the ruleset left after the drops)."""
    _, final = rulesets(name)
    ts = test_set(name)
    labelled = ts.y >= 0
    ours = format_rules_evaluation(final, "test", ts.X[labelled], ts.y[labelled])  # type: ignore[arg-type]
    ref = (CORPUS / name / "c45rules_u.out").read_text()
    return _text_diff(ours, ref[ref.index("\n\nEvaluation on test data") :], "rules_u")


def differences(name: str, variant: str) -> list[str]:
    """The differences of ``variant`` on ``name`` (empty when equal)."""
    if variant in TREE_OPTIONS:
        return tree_diff(name, variant)
    fn: Callable[[str], list[str]] = {"u": u_diff, "rules": rules_diff, "rules_u": rules_u_diff}[
        variant
    ]
    return fn(name)


ROW_NAMES = {
    "default": "default pruned tree",
    "unpruned": "unpruned tree",
    "g": "-g (--criterion gain)",
    "m5c10": "-m 5 -c 10",
    "s": "-s (--subsets)",
    "u": "-u: evaluation on the test set",
    "rules": "rules, exhaustive search",
    "rules_random": "rules, random search",
    "rules_u": "rules -u (test set)",
}


Rows = dict[str, tuple[list[str], list[str], list[str]]]


def measure(names: Iterable[str], variants: Iterable[str] = VARIANTS) -> Rows:
    """Per table row: (names equal, names different, names different only by one of
    Release 8's own bugs, :func:`release8_bug`)."""
    rows: Rows = {}
    for name in names:
        e = entry(name)
        for v in variants:
            if not e.applies(v):
                continue
            bug = False
            try:
                same = not differences(name, v)
                bug = not same and release8_bug(name, v)
            except Exception as exc:  # a crash counts as a difference, named
                print(f"{name} {v}: {type(exc).__name__}: {exc}", file=sys.stderr)
                same = False
            row = "rules_random" if v == "rules" and e.rules_random else v
            eq, ne, bugs = rows.setdefault(row, ([], [], []))
            (eq if same else bugs if bug else ne).append(name)
        for cache in (models, rulesets):
            cache.cache_clear()
    return rows


# What the corpus tests recorded in this session: per table row, each dataset's outcome
# ("equal", "different" or, apart, "bug" where documented as Release 8's own), once per
# dataset however many tests compared it (the fast sample's sets are in the sweep too).
RESULTS: dict[str, dict[str, str]] = {}


def record(name: str, variant: str, equal: bool, release8_bug: bool = False) -> None:
    """Note one comparison's outcome for :func:`summary` (a difference is never
    overwritten by a later equal run of the same set)."""
    row = "rules_random" if variant == "rules" and entry(name).rules_random else variant
    outcome = "bug" if release8_bug else "equal" if equal else "different"
    seen = RESULTS.setdefault(row, {})
    if seen.get(name) != "different":
        seen[name] = outcome


def summary() -> str:
    """The table of what :func:`record` noted (empty when nothing was)."""
    if not RESULTS:
        return ""
    lines = ["Release 8 corpus (tests/data/corpus), datasets equal per variant:"]
    for key, title in ROW_NAMES.items():
        if key in RESULTS:
            outcomes = list(RESULTS[key].values())
            eq, bug = outcomes.count("equal"), outcomes.count("bug")
            extra = f", {bug} documented as Release 8's bugs" if bug else ""
            lines.append(f"  {title}: {eq}/{len(outcomes) - bug}{extra}")
    return "\n".join(lines)


def format_table(rows: Rows, failing: bool = True) -> str:
    """The counts as a Markdown table (Release 8's bugs apart), then the sets that differ."""
    lines = ["| variant | equal | Release 8's bugs |", "|---|---|---|"]
    for key, title in ROW_NAMES.items():
        if key in rows:
            eq, ne, bugs = rows[key]
            lines.append(f"| {title} | {len(eq)}/{len(eq) + len(ne)} | {len(bugs)} |")
    if failing:
        for key in ROW_NAMES:
            if key in rows and rows[key][1]:
                lines.append(f"{key}: " + " ".join(rows[key][1]))
            if key in rows and rows[key][2]:
                lines.append(f"{key} (Release 8's bug): " + " ".join(rows[key][2]))
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("names", nargs="*", help="datasets (default: all)")
    p.add_argument("--variants", default=",".join(VARIANTS))
    p.add_argument("--show", nargs=2, metavar=("NAME", "VARIANT"))
    p.add_argument(
        "--corpus",
        type=Path,
        help="another corpus made the same way (a manifest.csv and a folder per set)",
    )
    args = p.parse_args(argv)
    if args.corpus:
        global CORPUS
        CORPUS = args.corpus.resolve()
    if args.show:
        print("\n".join(differences(*args.show)) or "equal")
        return 0
    names = args.names or [e.name for e in entries()]
    rows = measure(names, args.variants.split(","))
    sys.stdout.write(format_table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
