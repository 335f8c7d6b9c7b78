/* The body of prune_path's search (rpaths.c), included once per popcount: PRUNE_FN is
 * the function's name, PRUNE_ATTR its attributes and POP the popcount it uses (a
 * processor with a popcount instruction gets a copy built for it).
 *
 * Release 8's PruneRule over packed bitsets (sat: the path's k rows, one a condition),
 * with each step's counts kept from the last: tot[d] and err[d] are the cases whose one failed alive condition is d (and
 * those of another class among them), total0 and errors0 the cases failing none.
 * Dropping condition b moves b's cases to those failing none, and adds the cases that
 * failed b and exactly one other alive condition (and any of the dropped ones) to that
 * other's: these fail at most one more condition of the path than were dropped, so
 * only words holding such a case (levels) and failing b are read.  The counts are the
 * ones a recount of every case would give, so the rates and choices are the same.
 * Returns the rule's pessimistic error rate, or -1: no rule.  Given a memo, each state
 * after a drop (rpaths.c's memo_seen: the class, the alive conditions and where the
 * dropped ones lie among them) is looked up there, and added: where an earlier leaf
 * was, this one goes the same way to the same rule, in the same order, and rate: a
 * repeat (or no rule again), so it stops, sets *met and returns -1. */
/* The words holding a case that fails the set fail (its complement's bits: NULL, every
 * case) and is outside more (NULL: none), their indices into list; how many.  No
 * branch per word: most are read and passed over. */
PRUNE_ATTR static Py_ssize_t PRUNE_WORDS(const word *fail, const word *more, Py_ssize_t W,
                                         word last, int32_t *list)
{
    Py_ssize_t nw = 0, w = 0;
    if (W == 0)
        return 0;
#define PRUNE_CAND(w) ((fail != NULL ? ~fail[w] : ~(word)0) & (more != NULL ? ~more[w] : ~(word)0))
    /* four words at a time, passed over together when none holds such a case (the
     * leaves' case order gathers them) */
    for (; w + 4 <= W - 1; w += 4) {
        const word c0 = PRUNE_CAND(w), c1 = PRUNE_CAND(w + 1), c2 = PRUNE_CAND(w + 2),
                   c3 = PRUNE_CAND(w + 3);
        if ((c0 | c1 | c2 | c3) == 0)
            continue;
        list[nw] = (int32_t)w;
        nw += c0 != 0;
        list[nw] = (int32_t)(w + 1);
        nw += c1 != 0;
        list[nw] = (int32_t)(w + 2);
        nw += c2 != 0;
        list[nw] = (int32_t)(w + 3);
        nw += c3 != 0;
    }
    for (; w < W - 1; w++) {
        list[nw] = (int32_t)w;
        nw += PRUNE_CAND(w) != 0;
    }
#undef PRUNE_CAND
    const word cand = last & (fail != NULL ? ~fail[W - 1] : ~(word)0) &
                      (more != NULL ? ~more[W - 1] : ~(word)0);
    list[nw] = (int32_t)(W - 1);
    nw += cand != 0;
    return nw;
}

PRUNE_ATTR static double PRUNE_FN(const Bound *bd, const word *const *sat, const word *wrong,
                                  const word *levels, Py_ssize_t k, Py_ssize_t n,
                                  double default_error, char *alive, long long *tot,
                                  long long *err, Py_ssize_t *al, const word **arow,
                                  int32_t *list, const Memo *memo, int *met)
{
    const Py_ssize_t W = (n + 63) / 64;
    const word last = (n % 64) ? (((word)1 << (n % 64)) - 1) : ~(word)0;
    long long total0 = 0, errors0 = 0;
    double pess0 = 0.0;
    Py_ssize_t na = k, removed = 0, first_drop = -1, second_drop = -1;
    for (Py_ssize_t d = 0; d < k; d++) {
        alive[d] = 1;
        al[d] = d;
        arow[d] = sat[d];
        tot[d] = err[d] = 0;
    }
    /* the cases failing at most one condition: those outside levels' row 1 */
    const word *more = FAIL_LEVELS > 1 ? levels + W : NULL;
    Py_ssize_t nw = PRUNE_WORDS(NULL, more, W, last, list);
    for (Py_ssize_t i = 0; i < nw; i++) {
        const Py_ssize_t w = list[i];
        const word valid = w == W - 1 ? last : ~(word)0;
        const word cand = valid & (more != NULL ? ~more[w] : ~(word)0);
        word ge1, ge2;
        if (more != NULL) {
            /* the levels say it: cand fails at most one, levels' row 0 at least one */
            ge1 = cand & levels[w];
            ge2 = 0;
        } else {
            ge1 = ge2 = 0;
            for (Py_ssize_t d = 0; d < k; d++) {
                const word f = ~sat[d][w] & cand;
                ge2 |= ge1 & f;
                ge1 |= f;
            }
        }
        const word live = cand & ~ge2, wr = wrong[w];
        const word none = live & ~ge1, one = live & ge1;
        total0 += POP(none);
        errors0 += POP(none & wr);
        word left = one; /* each of these fails one condition: done once all are found */
        for (Py_ssize_t d = 0; d < k && left; d++) {
            const word x = left & ~sat[d][w];
            if (x) {
                tot[d] += POP(x);
                err[d] += POP(x & wr);
                left &= ~x;
            }
        }
    }
    for (;;) {
        double actual0;
        rates(bd, (double)total0, (double)errors0, default_error, &pess0, &actual0);
        Py_ssize_t best = -1;
        double best_pess = 0.0;
        int alter = 0;
        for (Py_ssize_t j = 0; j < na; j++) {
            const Py_ssize_t d = al[j];
            double pess, actual;
            rates(bd, (double)(tot[d] + total0), (double)(err[d] + errors0), default_error, &pess,
                  &actual);
            if (best < 0 || pess <= best_pess) {
                best = d;
                best_pess = pess;
            }
            if (pess <= pess0 || actual <= actual0)
                alter = 1;
        }
        if (!alter)
            break;
        alive[best] = 0;
        if (na == 1)
            return -1.0; /* nothing left: no rule */
        {
            Py_ssize_t j = 0;
            for (Py_ssize_t i = 0; i < na; i++)
                if (al[i] != best) {
                    arow[j] = arow[i];
                    al[j++] = al[i];
                }
            na = j;
        }
        if (memo != NULL && memo_seen(memo, alive, k)) {
            *met = 1;
            return -1.0; /* an earlier leaf's state: its rule again, or no rule again */
        }
        removed++;
        if (removed == 1)
            first_drop = best;
        else if (removed == 2)
            second_drop = best;
        total0 += tot[best];
        errors0 += err[best];
        /* the cases failing best and exactly one other alive condition: they fail at
         * most removed + 1 of the path's */
        more = removed + 1 < FAIL_LEVELS ? levels + (removed + 1) * W : NULL;
        const word *fb = sat[best];
        nw = PRUNE_WORDS(fb, more, W, last, list);
        for (Py_ssize_t i = 0; i < nw; i++) {
            const Py_ssize_t w = list[i];
            const word valid = w == W - 1 ? last : ~(word)0;
            const word cand = valid & ~fb[w] & (more != NULL ? ~more[w] : ~(word)0);
            word left;
            if (removed == 1 && more != NULL) {
                /* best the one dropped: a case of cand fails it and at most one more
                 * condition, an alive one exactly when it fails two (levels' row 1) */
                left = cand & levels[W + w];
            } else if (removed == 2 && more != NULL) {
                /* first_drop and best dropped: a case of cand fails best and at most two
                 * more of the path's conditions (levels' rows 1 and 2 say whether one or
                 * two), one alive exactly when it fails first_drop too or is the second
                 * (three rows a word, not the alive conditions') */
                const word f1 = ~sat[first_drop][w], two = levels[2 * W + w];
                left = cand & ((two & f1) | (levels[W + w] & ~two & ~f1));
            } else if (removed == 3 && more != NULL) {
                /* the same with second_drop: one alive failed exactly when the levels'
                 * count (rows 1-3) is one more than the dropped conditions failed (five
                 * rows; from four drops on, the alive conditions' are fewer) */
                const word f1 = ~sat[first_drop][w], f2 = ~sat[second_drop][w];
                const word r1 = levels[W + w], r2 = levels[2 * W + w], r3 = levels[3 * W + w];
                left = cand & ((r3 & f1 & f2) | (r2 & ~r3 & (f1 ^ f2)) | (r1 & ~r2 & ~(f1 | f2)));
            } else {
                word ge1 = 0, ge2 = 0;
                for (Py_ssize_t j = 0; j < na; j++) {
                    const word f = ~arow[j][w] & cand;
                    ge2 |= ge1 & f;
                    ge1 |= f;
                    if (ge2 == cand)
                        break;
                }
                left = cand & ge1 & ~ge2;
            }
            if (!left)
                continue;
            const word wr = wrong[w];
            for (Py_ssize_t j = 0; j < na && left; j++) {
                const word x = left & ~arow[j][w];
                if (x) {
                    tot[al[j]] += POP(x);
                    err[al[j]] += POP(x & wr);
                    left &= ~x;
                }
            }
        }
    }
    if (total0 <= 0 || pess0 >= default_error)
        return -1.0;
    return pess0;
}
