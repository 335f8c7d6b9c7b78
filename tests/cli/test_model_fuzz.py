"""Mutated model files of every kind, and mutated importer inputs, through every command.

A single tree of each flavour, a boosted and a bagged committee, a ruleset, a
scikit-learn forest and regression tree, XGBoost's JSON and UBJSON, LightGBM's text
and a skops file are damaged (:mod:`support.mutate`: bytes, or the JSON's structure)
and given to ``show``, ``info``, ``export``, ``predict``, ``eval`` (and, for an
accepted mutant, ``verify``) or to their importer, and an accepted one to the Python
API (``treegen.load``, ``classes_``, ``predict``, ``predict_proba``).  Every run must
end with status 0, or 2 with one ``treegen: error:`` line naming the file and no output
file touched (the API: an answer or a TreegenError); never a traceback, a hang, or a
model accepted whose export does not compile or whose C disagrees with it (``verify``
status 1).

A case is ``(kind, index)``: its generator is ``default_rng([SEED, kind's number,
index])``.  ``TREEGEN_FUZZ_CASE=KIND:INDEX`` runs that one case; ``TREEGEN_FUZZ=long``
runs many more (and ``verify`` on every accepted mutant); ``TREEGEN_FUZZ_SECONDS``
sets the time per kind.  The quick loop runs the first kind (tests/conftest.py), whose
seed is trained; the imported kinds' seeds take seconds to fit.
"""

from __future__ import annotations

import io
import os
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

from support.fuzz import LONG, case_indices, named_case
from support.fuzzrun import Guard, call, call_api, check_run
from support.mutate import MORE_SPECIALS, mutate_bytes, mutate_json, mutate_tokens

SEED = 36
REF = Path(__file__).resolve().parents[1] / "data" / "reference"
GOLF = REF / "golf" / "golf.data"
LABOR = REF / "labor-neg" / "labor-neg.data"

# kind: (file name, data the model reads, the command that reads the file)
KINDS: dict[str, tuple[str, Path | None, str]] = {
    "c45": ("m.tree", GOLF, "model"),
    "j48": ("m.tree", LABOR, "model"),
    "boost": ("m.tree", GOLF, "model"),
    "bag": ("m.tree", LABOR, "model"),
    "rules": ("m.rules", LABOR, "model"),
    "forest": ("m.trees", None, "model"),
    "regress": ("m.trees", None, "model"),
    "gbm": ("m.trees", None, "model"),
    "xgb-json": ("m.json", None, "import-xgboost"),
    "xgb-ubj": ("m.ubj", None, "import-xgboost"),
    "lgb-text": ("m.txt", None, "import-lightgbm"),
    "skops": ("m.skops", None, "import-sklearn"),
}
NAMES = sorted(KINDS)
# Export options an accepted mutant is verified with too (long runs).
EXPORTS = [
    ["--style", "table"],
    ["--missing", "none"],
    ["--style", "table", "--missing", "none"],
    ["--input-type", "int16", "--scale", "100"],
    ["--input-type", "double"],
    ["--float-compare", "int"],
    ["--proba"],
]
TRAINED = ("c45", "j48", "boost", "bag", "rules")


def _csv(path: Path, X: np.ndarray, y: np.ndarray) -> Path:
    rows = ["x0,x1,x2,x3,class"]
    for r, c in zip(X.tolist(), y.tolist(), strict=True):
        rows.append(",".join("?" if v != v else repr(v) for v in r) + f",{c}")
    path.write_text("\n".join(rows) + "\n")
    return path


Seeds = dict[str, tuple[bytes, Path]]


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Seeds:
    """The trained kinds' valid files and the data each reads."""
    from treegen.cli.main import main

    d = tmp_path_factory.mktemp("seeds")
    out: Seeds = {}
    trains = {
        "c45": ["train", str(GOLF)],
        "j48": ["train", str(LABOR), "--flavor", "j48"],
        "boost": ["train", str(GOLF), "--boost", "3", "-m", "1"],
        "bag": ["train", str(LABOR), "--bag", "3", "--flavor", "j48"],
        "rules": ["rules", str(LABOR)],
    }
    for kind, argv in trains.items():
        path = d / f"{kind}.model"
        assert main([*argv, "-q", "-o", str(path)]) == 0
        out[kind] = (path.read_bytes(), Path(argv[1]))
    return out


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Seeds:
    """The imported kinds' valid files (and importer inputs) and the data each reads."""
    from treegen.cli.main import main

    pytest.importorskip("sklearn")
    skops_io = pytest.importorskip("skops.io")
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.tree import DecisionTreeRegressor

    from treegen.ensemble.file import ensemble_to_json
    from treegen.ensemble.regress import regressor_from_sklearn
    from treegen.ensemble.sklearn import ensemble_from_sklearn

    from support.gbm_models import fit_lightgbm, fit_xgboost, gbm_data

    d = tmp_path_factory.mktemp("imports")
    out: Seeds = {}
    X, y = gbm_data(n=200)
    Xf = np.nan_to_num(X)
    data = _csv(d / "gbm.csv", X, y)
    forest = RandomForestClassifier(3, max_depth=3, random_state=0).fit(X, y)
    out["forest"] = (ensemble_to_json(ensemble_from_sklearn(forest)).encode(), data)
    reg = DecisionTreeRegressor(max_depth=3, random_state=0).fit(Xf, Xf[:, 0] * 2.5)
    reg_data = _csv(d / "reg.csv", X, np.round(Xf[:, 0] * 2.5, 3))
    out["regress"] = (ensemble_to_json(regressor_from_sklearn(reg)).encode(), reg_data)
    booster = fit_xgboost("xgb_cat", n_estimators=3, max_depth=2).get_booster()
    booster.save_model(str(d / "m.json"))
    booster.save_model(str(d / "m.ubj"))
    binary = _csv(d / "binary.csv", X, (y > 0).astype(int))  # xgb_cat's classes
    out["xgb-json"] = ((d / "m.json").read_bytes(), binary)
    out["xgb-ubj"] = ((d / "m.ubj").read_bytes(), binary)
    assert main(["import-xgboost", str(d / "m.json"), "-q", "-o", str(d / "g.trees")]) == 0
    out["gbm"] = ((d / "g.trees").read_bytes(), binary)
    fit_lightgbm("lgb_cat", n_estimators=3, num_leaves=4).booster_.save_model(str(d / "m.txt"))
    out["lgb-text"] = ((d / "m.txt").read_bytes(), data)
    skops_io.dump(forest, d / "m.skops")
    out["skops"] = ((d / "m.skops").read_bytes(), data)
    return out


def _seeds(kind: str, request: pytest.FixtureRequest) -> Seeds:
    seeds: Seeds = request.getfixturevalue("trained" if kind in TRAINED else "imported")
    return seeds


def _mutant(kind: str, valid: bytes, rng: np.random.Generator) -> bytes:
    """Structural edits for JSON files (three cases in four), words replaced in
    LightGBM's text (three in five), else byte edits; a skops file (a zip) has its
    schema.json edited, or one of its arrays' bytes."""
    if kind == "skops":
        return _zip_mutant(valid, rng)
    is_json = KINDS[kind][0] in ("m.tree", "m.rules", "m.trees", "m.json")
    if kind == "lgb-text" and rng.random() < 0.6:
        return mutate_tokens(valid, rng)
    if is_json and rng.random() < 0.75:
        text = mutate_json(valid.decode("utf-8"), rng)
        raw = text.encode("utf-8", "surrogatepass")
        return mutate_bytes(raw, rng, MORE_SPECIALS) if rng.random() < 0.15 else raw
    return mutate_bytes(valid, rng, MORE_SPECIALS)


def _zip_mutant(valid: bytes, rng: np.random.Generator) -> bytes:
    if rng.random() < 0.1:
        return mutate_bytes(valid, rng, MORE_SPECIALS)
    with zipfile.ZipFile(io.BytesIO(valid)) as z:
        members = {n: z.read(n) for n in z.namelist()}
    names = sorted(members)
    if rng.random() < 0.7 and "schema.json" in members:
        victim = "schema.json"
        members[victim] = mutate_json(members[victim].decode("utf-8"), rng).encode(
            "utf-8", "surrogatepass"
        )
    else:
        victim = names[int(rng.integers(len(names)))]
        members[victim] = mutate_bytes(members[victim], rng, MORE_SPECIALS)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for n in names:
            z.writestr(n, members[n])
    return out.getvalue()


def run_case(kind: str, index: int, seeds: Seeds, work: Path, verify: bool) -> None:
    """One fuzz case: a mutant of ``kind``'s file through the commands that read it."""
    name, fixed_data, reader = KINDS[kind]
    valid, data_path = seeds[kind]
    data = str(fixed_data or data_path)
    rng = np.random.default_rng([SEED, NAMES.index(kind), index])
    case = f"{kind}:{index}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    path = work / name
    path.write_bytes(_mutant(kind, valid, rng))
    model = str(path)
    if reader != "model":
        guard = Guard(work / "out")
        target = str(guard.folder / "i.trees")
        status, err = call(case, [reader, model, "-o", target])
        check_run(case, status, err, guard, (model,), wrote=(target,))
        if status != 0:
            return
        model = target
    guard = Guard(work / "out2")
    status, err = call(case, ["show", model])
    check_run(case, status, err, guard, (model,))
    if status != 0:
        return
    # Accepted: every command must take it, or refuse it in one line.
    inputs = (model, data, str(Path(data).with_suffix(".names")))
    for argv in (["info", model], ["predict", model, data], ["eval", model, data]):
        check_run(case, *call(case, argv), guard, inputs)
    call_api(case, model, data)
    status, err = call(case, ["export", model, "-o", str(guard.folder)])
    check_run(case, status, err, guard, (model,), wrote=guard.exported)
    if status == 0 and verify:
        # The C compiles and equals the model on its own rows (thresholds, missing
        # values, random rows); on DATA too, unless DATA does not fit the model.
        status, err = call(case, ["verify", model], limit=120)
        assert status == 0, f"case {case}: verify of an accepted model: {status} {err}"
        # and in another encoding: equal, or the option refused in one line
        options = EXPORTS[int(rng.integers(len(EXPORTS)))]
        status, err = call(case, ["verify", model, *options], limit=120)
        assert status != 1, f"case {case}: verify {options}: {err}"
        check_run(case, status, err, Guard(work / "out4"), [model, *options])
        status, err = call(case, ["verify", model, data], limit=120)
        check_run(case, status, err, Guard(work / "out3"), inputs[1:])


def _budget() -> tuple[float, int]:
    if LONG:
        return 120.0, 50
    return float(os.environ.get("TREEGEN_FUZZ_SECONDS", "0.1")), 2


@pytest.mark.parametrize("kind", NAMES)
def test_mutated_model_files(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    seeds = _seeds(kind, request)
    verify = LONG or named_case() is not None  # one case named: verified as well
    for index in case_indices(kind, *_budget()):
        run_case(kind, index, seeds, tmp_path / "w", verify=verify)


@pytest.mark.parametrize("kind", NAMES)
def test_truncated_model_files(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    """The file cut at every length (long), or at 12 lengths: one line, exit 2."""
    valid = _seeds(kind, request)[kind][0]
    name, _, reader = KINDS[kind]
    cuts = range(len(valid)) if LONG else np.linspace(0, len(valid) - 1, 12).astype(int)
    path = tmp_path / name
    for cut in sorted(set(int(c) for c in cuts)):
        path.write_bytes(valid[:cut])
        guard = Guard(tmp_path / "out")
        target = str(guard.folder / "i.trees")
        argv = ["show", str(path)] if reader == "model" else [reader, str(path), "-o", target]
        status, err = call(f"{kind} cut {cut}", argv)
        check_run(f"{kind} cut {cut}", status, err, guard, (str(path),), (target,))
        # A cut file may still be whole: a JSON file cut in its last newline, LightGBM's
        # text after its trees (the parameters that follow are LightGBM's record of
        # training; LightGBM reads the model without them too).
        whole = len(valid.rstrip())
        if kind == "lgb-text":
            whole = valid.index(b"end of trees") + len("end of trees")
        assert status == 2 or cut >= whole, (kind, cut, err)
