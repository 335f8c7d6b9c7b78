"""``treegen show --format j48`` prints J48's tree text exactly.

Oracles: Weka 3.6.14's own output, ``tests/data/weka/j48/NAME.out`` for the
17 nominal-class ARFF files Weka ships and ``j48.out`` for the nine reference
datasets.  The printed section from ``J48 pruned tree`` to ``Size of the
tree`` must be equal character for character: tests, thresholds through
``Utils.doubleToString(t, 6)``, leaves, counts.

On ``segment-challenge.arff`` J48 prints ``hedge-mean <= 0.833335`` where
treegen printed ``0.833336``.  That was not a rounding difference
(``0.833336`` is printed as itself by doubleToString, checked below): J48's
threshold really is the data value 0.833335.  ``setSplitPoint`` scans every
training value in row order and replaces its running value only by one
*more than 1e-6 above it* (``Utils.gr``); 0.833336 - 0.833335 is
9.99999999918e-07 in double, so 0.833335, met first in the file, stays
(treegen.trainer.thresholds._weka_split_point).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from treegen.data.readers import read_dataset
from treegen.model.show import format_tree, weka_double_to_string
from treegen.trainer import TrainOptions, train

HERE = Path(__file__).resolve().parents[1]
WEKA = HERE / "data" / "weka"
REF = HERE / "data" / "reference"
WEKA_FILES = sorted(p.stem for p in (WEKA / "j48").glob("*.out"))
REFERENCE = sorted(p.name for p in REF.iterdir() if p.is_dir())


def _tree_section(text: str) -> str:
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln in ("J48 pruned tree", "J48 unpruned tree"))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("Size of the tree"))
    return "\n".join(lines[start : end + 1]) + "\n"


def _ours(path: Path) -> str:
    model = train(read_dataset(str(path)), TrainOptions(flavor="j48"))
    return format_tree(model, "j48")


def test_oracles_present() -> None:
    assert len(WEKA_FILES) == 17 and len(REFERENCE) == 9


@pytest.mark.parametrize("name", WEKA_FILES)
def test_show_j48_equals_weka_on_weka_examples(name: str) -> None:
    want = _tree_section((WEKA / "j48" / f"{name}.out").read_text())
    assert _ours(WEKA / f"{name}.arff") == want


@pytest.mark.parametrize("name", REFERENCE)
def test_show_j48_equals_weka_on_reference_sets(name: str) -> None:
    want = _tree_section((REF / name / "j48.out").read_text())
    assert _ours(REF / name / f"{name}.arff") == want


def test_segment_challenge_threshold_is_the_value_j48_keeps() -> None:
    text = _ours(WEKA / "segment-challenge.arff")
    assert "hedge-mean <= 0.833335\n" in text and "0.833336" not in text
    # Not a printing matter: both values print as themselves.
    assert weka_double_to_string(0.833336) == "0.833336"
    assert weka_double_to_string(0.833335) == "0.833335"
    assert 0.833336 - 0.833335 < 1e-6  # so Utils.gr(0.833336, 0.833335) is false


def _one_cut(tmp_path: Path, values: list[float], labels: list[str]) -> float:
    rows = "\n".join(f"{v!r},{c}" for v, c in zip(values, labels, strict=True))
    path = tmp_path / "cut.arff"
    path.write_text(f"@relation cut\n@attribute x numeric\n@attribute c {{a,b}}\n@data\n{rows}\n")
    model = train(read_dataset(str(path)), TrainOptions(flavor="j48", min_cases=1, prune=False))
    root = model.nodes[0]
    assert root.kind == "continuous"
    return root.threshold


A, B, C = 0.5, 0.5000007, 0.5000014  # A-B and B-C less than 1e-6 apart, A-C more


@pytest.mark.parametrize(
    ("order", "kept"),
    [
        ([A, B, C], C),  # A kept, B not 1e-6 above it, C is
        ([C, A, B], C),  # the largest first: nothing lies 1e-6 above it
        ([B, C, A], B),  # C is not 1e-6 above B, A lies below
    ],
)
def test_j48_split_point_depends_on_row_order_within_1e6(
    tmp_path: Path, order: list[float], kept: float
) -> None:
    """The cut lies between C and 0.9; which of A, B, C J48 keeps depends on row order."""
    values = order + [0.9, 0.95, 1.0]
    assert _one_cut(tmp_path, values, ["a", "a", "a", "b", "b", "b"]) == kept


def test_weka_rounding_clamps_as_javas_math_round() -> None:
    """Weka rounds with Math.round, which clamps to a long: a huge weight (a hand-made
    model file) prints as Java would, not as an overflow traceback."""
    from treegen.model.show import _weka_round2

    assert _weka_round2(2.345) == 2.35 and _weka_round2(-1.005) == -1.0
    assert _weka_round2(1e308) == _weka_round2(1e17) == 9.223372036854776e16
    assert _weka_round2(-1e308) == -9.223372036854776e16


# The files of the wide differential campaign (tests/data/weka-diff/README.md): Weka's
# output stored beside each (NAME.out, J48 with the file's "% options:" line, the class
# attribute "class"), so these run without Java too.
CAMPAIGN = HERE / "data" / "weka-diff"
CAMPAIGN_FILES = sorted(p.stem for p in CAMPAIGN.glob("*.arff"))
CAMPAIGN_OPTIONS = {
    "-C 0.25 -M 2": TrainOptions(flavor="j48"),
    "-U -M 2": TrainOptions(flavor="j48", prune=False),
    "-R -N 5 -Q 1 -M 2": TrainOptions(flavor="j48", pruning="reduced-error", folds=5),
}


def _options_line(path: Path) -> str:
    found = [ln for ln in path.read_text().splitlines() if ln.startswith("% options:")]
    return found[0].partition(":")[2].strip() if found else "-C 0.25 -M 2"


def test_campaign_outputs_present() -> None:
    assert CAMPAIGN_FILES
    assert sorted(p.stem for p in CAMPAIGN.glob("*.out")) == CAMPAIGN_FILES


@pytest.mark.parametrize("name", CAMPAIGN_FILES)
def test_show_j48_equals_weka_on_campaign_files(name: str) -> None:
    path = CAMPAIGN / f"{name}.arff"
    out = (CAMPAIGN / f"{name}.out").read_text()
    options = _options_line(path)
    assert f"Options: {options} \n" in out  # the stored output is of these options
    model = train(read_dataset(str(path), target="class", weights=True), CAMPAIGN_OPTIONS[options])
    assert format_tree(model, "j48") == _tree_section(out)
