"""The committee's integer vote (treegen.committee.vote) and its training without Weka:
the scale of the votes, the bound on where the integer and double votes can part, the
stop rules, bagging's bootstrap, and the c45 flavour's committees."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from treegen.committee import vote, weka, weka_vote
from treegen.committee.bag import bag, bag_rows
from treegen.committee.boost import boost
from treegen.data import synthetic
from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.data.weka_rows import JavaRandom, resample_with_weights
from treegen.errors import TrainError
from treegen.model import native as model_native
from treegen.model.classify import predict as tree_predict
from treegen.trainer import TrainOptions, train

J48 = TrainOptions(flavor="j48")
C45 = TrainOptions()


def test_integer_votes_scale_and_bound() -> None:
    betas = [1.5644865245718340, 0.5091957084031976, 0.01373419900947616, 3.0]
    votes, shift = vote.integer_votes(betas)
    assert sum(votes) <= vote.VOTE_LIMIT
    # The largest scale: one more bit would overflow the 32-bit sum.
    assert sum(math.floor(math.ldexp(b, shift + 1) + 0.5) for b in betas) > vote.VOTE_LIMIT
    for b, v in zip(betas, votes, strict=True):
        assert abs(v - math.ldexp(b, shift)) <= 0.5
    # Many rounds of large weights: the scale shrinks, the sum still fits.
    votes, shift = vote.integer_votes([20.0] * 5000)
    assert sum(votes) <= vote.VOTE_LIMIT and shift < 20
    # A weight that rounds to 0 still votes (1): every member counts.
    votes, _ = vote.integer_votes([1e-12, 2.0])
    assert votes[0] == 1


@pytest.mark.parametrize("seed", [4, 15, 20])
def test_integer_vote_equals_double_vote_beyond_the_margin(seed: int) -> None:
    """Where two classes' double sums are further apart than tie_margin, the integer vote
    orders them as the double sums do; where they are not, the row is counted."""
    ds = synthetic.generate(synthetic.random_spec(seed))
    c = boost(ds, C45, 10)
    assert c.n_members > 1
    outputs = vote.member_outputs(c, ds.X)
    sums = np.zeros((ds.n_rows, len(c.schema.classes)))
    for out, beta in zip(outputs, c.betas, strict=True):
        np.add.at(sums, (np.arange(ds.n_rows), out), beta)
    ours = vote.predict(c, ds.X)
    theirs = np.argmax(sums, axis=1)
    srt = np.sort(sums, axis=1)
    clear = srt[:, -1] - srt[:, -2] > vote.tie_margin(c)
    assert np.array_equal(ours[clear], theirs[clear])
    assert vote.tie_margin(c) < 1e-7
    # weka_vote's double vote for the c45 flavour is this one.
    d = weka_vote.disagreements(c, ds)
    assert d.rows.size == np.count_nonzero(ours != theirs)


def _xor(n_rep: int) -> Dataset:
    schema = Schema(
        (Attribute("a", "continuous"), Attribute("b", "continuous")), ("no", "yes"), "xor"
    )
    x = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]] * n_rep)
    y = np.array([0, 1, 1, 0] * n_rep, dtype=np.int32)
    return Dataset(schema, x, y, "xor")


def test_first_tree_without_error_is_the_whole_model() -> None:
    ds = _separable()
    c = boost(ds, J48, 10)
    assert c.n_members == 1 and c.betas == (0.0,)
    assert c.stopped.startswith("round 1: error 0.0")
    assert np.array_equal(vote.predict(c, ds.X), tree_predict(c.members[0], ds.X))


def _separable() -> Dataset:
    schema = Schema((Attribute("a", "continuous"),), ("lo", "hi"), "sep")
    x = np.arange(40, dtype=np.float64)[:, None]
    return Dataset(schema, x, (x[:, 0] >= 20).astype(np.int32), "sep")


def test_error_of_one_half_stops_boosting() -> None:
    """XOR: J48 cannot split it (no test gains), the one-leaf tree errs on half the weight,
    so the first round stops boosting and stays the model."""
    c = boost(_xor(10), J48, 10)
    assert c.n_members == 1 and "(>= 0.5)" in c.stopped


def test_boost_reweights_and_stays_below_one_half() -> None:
    ds = synthetic.generate(synthetic.random_spec(4))
    c = boost(ds, J48, 10)
    assert c.n_members >= 2
    assert all(b > 0 for b in c.betas)
    # Round 2 trains on weights where round 1's misclassified cases weigh half the total.
    first = c.members[0]
    wrong = tree_predict(first, ds.X) != ds.y
    assert 0 < wrong.sum() < ds.n_rows / 2


def test_bag_rows_are_weka_resample_draws() -> None:
    rows = bag_rows(50, 3, 7)
    rnd = JavaRandom(7)
    for r in rows:
        assert np.array_equal(r, resample_with_weights(np.ones(50), rnd))
        assert r.size == 50 and r.min() >= 0 and r.max() < 50
    assert not np.array_equal(rows[0], rows[1])


def test_bag_trains_each_tree_on_its_bag() -> None:
    ds = synthetic.generate(synthetic.random_spec(2))
    c = bag(ds, C45, 3, seed=5)
    for m, rows in zip(c.members, bag_rows(ds.n_rows, 3, 5), strict=True):
        assert m.nodes == train(ds.subset(rows), C45).nodes
    assert c.votes == (1, 1, 1) and c.shift == 0
    p = vote.predict_proba(c, ds.X)
    assert np.all(p.sum(axis=1) <= 1.0)
    assert np.array_equal(np.argmax(p, axis=1), vote.predict(c, ds.X))


def test_bad_rounds_and_seeds_are_refused() -> None:
    ds = synthetic.generate(synthetic.random_spec(1))
    with pytest.raises(TrainError, match="^boost: "):
        boost(ds, C45, 0)
    with pytest.raises(TrainError, match="^bag: "):
        bag(ds, C45, True)  # type: ignore[arg-type]
    with pytest.raises(TrainError, match="^bag_seed: "):
        bag(ds, C45, 2, seed=2**63)
    with pytest.raises(TrainError, match="^prune: .*not prune='reduced-error'"):
        boost(ds, TrainOptions(flavor="j48", pruning="reduced-error"), 3)


@pytest.mark.parametrize("seed", [0, 3, 7, 30, 70])
def test_j48_distribution_is_weka_recursion_bit_for_bit(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """treegen.committee.weka.distribution (the C accelerator's getProbs row by row, and
    the numpy code's each node once) equals getProbs's recursion (reference_distribution)
    in every bit, on weighted trees and rows with missing values or codes no branch takes."""
    ds = synthetic.generate(synthetic.random_spec(seed))
    rng = np.random.default_rng(seed)
    w = rng.uniform(0.1, 3.0, ds.n_rows)
    odd = ds.X[: min(20, ds.n_rows)].copy()
    odd[rng.random(odd.shape) < 0.3] = 99.5  # not integral: a nominal test's missing value
    x = np.concatenate([ds.X, np.full((3, ds.X.shape[1]), np.nan), odd])
    assert np.isnan(ds.X).any() or seed == 0
    for model in (train(ds, J48), train(ds, J48, weights=w)):
        want = weka.reference_distribution(model, x)
        if model_native.cclassify is not None:
            assert np.array_equal(weka.distribution(model, x), want)
        with monkeypatch.context() as m:
            m.setattr(model_native, "cclassify", None)
            assert np.array_equal(weka.distribution(model, x), want)


def test_j48_distribution_kernel_refuses_tables_it_cannot_walk() -> None:
    """The C getProbs checks the tables first: a child before its parent (a loop) or an
    index out of range answers False (the numpy code then runs), no row is read."""
    lib = model_native.cclassify
    if lib is None:
        pytest.skip("the C accelerator is not built")
    ds = synthetic.generate(synthetic.random_spec(3))
    t = weka.table(train(ds, J48))
    assert not t.leaf[0]
    x = ds.X[:5]
    i64 = np.int64

    def run(tab: weka.Table) -> bool:
        out = np.full((x.shape[0], tab.prob.shape[1]), -1.0)
        done: bool = lib.j48_distribution(
            np.ascontiguousarray(x), x.shape[1], tab.prob.shape[1], weka.WEKA_TOL,
            tab.leaf.astype(np.uint8), tab.empty.astype(np.uint8), tab.cont.astype(np.uint8),
            tab.attr.astype(i64), tab.thr, tab.start.astype(i64), tab.count.astype(i64),
            tab.children.astype(i64), tab.share, np.ascontiguousarray(tab.prob),
            tab.moff.astype(i64), tab.mk.astype(i64), tab.vmap.astype(i64), out,
        )  # fmt: skip
        assert done or (out == -1.0).all()
        return done

    assert run(t)
    loop = t.children.copy()
    loop[t.start[0]] = 0  # the root its own child
    assert not run(dataclasses.replace(t, children=loop))
    far = t.children.copy()
    far[t.start[0]] = t.leaf.size
    assert not run(dataclasses.replace(t, children=far))
    attr = t.attr.copy()
    attr[0] = x.shape[1]
    assert not run(dataclasses.replace(t, attr=attr))


def test_boosted_proba_is_each_class_share_of_the_votes() -> None:
    """docs/committees.md: a boosted committee's predict_proba is its integer vote's
    class sums over the sum of every tree's vote (not Weka's logs2probs of the betas)."""
    ds = synthetic.generate(synthetic.random_spec(8))  # 810 rows, 10 rounds
    X = ds.X
    assert not np.isnan(X).any()  # without missing values a tree's float class is its C's
    c = boost(ds, C45, 10)
    assert c.n_members >= 2
    sums = np.zeros((X.shape[0], len(ds.schema.classes)), dtype=np.int64)
    for member, votes in zip(c.members, c.votes, strict=True):
        sums[np.arange(X.shape[0]), tree_predict(member, X)] += votes
    assert np.array_equal(vote.predict_proba(c, X), sums / float(sum(c.votes)))
