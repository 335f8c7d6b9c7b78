/* The class-subset search's climb (ClassSearch.climb) in one call (module _crules). */
#include "rgroups.h"

/* ---- The climb (ClassSearch.climb) in one call, over groups of rules ----
 *
 * A rule's change of cost depends on the subset and on the rule's key (chosen or
 * not, its right and wrong cases) and theory bits only.  The rules of one key share
 * their exception bits, and within a key the change of cost is monotone in the bits
 * (float rounding is monotone): a chosen rule's gain of dropping grows with its bits,
 * an unchosen rule's gain of adding shrinks.  So each step costs the exception bits
 * of each key once and the best of each key at its extreme bits; only the keys that
 * reach the largest change are scanned rule by rule for the first rule reaching it,
 * which is numpy's argmax over every rule.  Toggling a rule changes the keys of the
 * rules that share its cases only, which move between groups.
 *
 * A key's exception bits depend on the subset only through its counts (cases covered,
 * false positives, false negatives), which most steps leave as they are (a rule that
 * decides no case alone comes or goes): each group keeps its bits with the epoch of
 * the counts they were worked out for, and only the groups of another epoch are
 * costed again (the same inputs to the same logarithms: the same bits).  The theory
 * bits, a float sum over the chosen rules in rule order, are kept in blocks of rules
 * (rtheory.h).  What a step's scan reads of each live group sits in arrays by live
 * slot, beside each other (the groups, their table and the toggles: rgroups.c). */

/* The exception bits remembered by the counts they are for: a group's bits are those of
 * the counts the toggle of one of its rules would leave (cases covered, false positives,
 * false negatives), whatever its key, so a climb that comes back to counts it costed
 * (the groups' counts after one toggle recur from step to step) reads them instead of
 * four logarithms: the same inputs, the same floats.  The false negatives are the
 * class's cases less the covered ones that are not false positives (counts[2] =
 * positives - counts[0] + counts[1], kept so by every toggle), so the two counts
 * covered and false positives (21 bits each) fix the third.  Their 42 bits are mixed by
 * a bijection (a product by an odd number, modulo 2^42): the top MEMO_BITS are the
 * slot, the other 29 the tag held in the entry beside the bits, so one 8-byte entry is
 * read a look-up (two arrays of keys and bits read two cache lines).  Direct-mapped,
 * 2^MEMO_BITS entries (64 KB), a later entry replacing an earlier one; only for fewer
 * than 2^21 cases. */
#define MEMO_BITS 13
#define MEMO_FIELD 21
#define MEMO_MIX 0x9E3779B97F4BULL /* odd: a bijection of the 42-bit keys */
#define MEMO_TAG_BITS (2 * MEMO_FIELD - MEMO_BITS)
#define MEMO_VALID 0x80000000u /* an entry's tag of a slot written (0: empty) */

typedef struct {
    uint32_t tag; /* MEMO_VALID | the key's low MEMO_TAG_BITS after the mix */
    float ex;
} MemoEntry;

/* check_memo(True) (tests): a group the memo holds is costed as well, and its costing's
 * bits must be the memo's, else the climb ends in RuntimeError. */
static int memo_check = 0;

/* The mixed key of counts covered and false positives (each below 2^MEMO_FIELD). */
static inline uint64_t memo_key_of(int64_t fires, int64_t fp)
{
    const uint64_t key = (uint64_t)fires | ((uint64_t)fp << MEMO_FIELD);
    return (key * MEMO_MIX) & (((uint64_t)1 << (2 * MEMO_FIELD)) - 1);
}

static inline size_t memo_slot(uint64_t mixed)
{
    return (size_t)(mixed >> MEMO_TAG_BITS);
}

static inline uint32_t memo_tag(uint64_t mixed)
{
    return MEMO_VALID | (uint32_t)(mixed & (((uint64_t)1 << MEMO_TAG_BITS) - 1));
}

/* The change of cost of toggling a rule of bits b and exception bits ex, as the
 * climb compares them (ClassSearch.values, then the sign of climb's delta). */
static inline float delta_of(int in, float ex, float b, float theory, float base, float item_in,
                             float item_out)
{
    float t;
    if (in) {
        const float a = theory - b;
        t = a + item_in;
    } else {
        const float a = theory + b;
        t = a - item_out;
    }
    const float half = (float)TG_THEORY_WEIGHT * t;
    const float nw = ex + half;
    const float g = in ? nw - base : base - nw;
    return in ? -g : g;
}

/* subsets_climb(state, bits32, fact, item, log2_items, logs_in, logs_out, take_logs,
 *               best_cost, best) -> best_cost
 * ClassSearch.climb from the current subset: every subset costed on the way that is
 * cheaper than best_cost (and every one before) is copied into best (m bytes).
 * fact, item: Logs.fact and Logs.item (at least m + 2 entries); take_logs(k) sets
 * logs_out[:k] to numpy's natural logarithms of logs_in[:k] (all positive). */
PyObject *tg_subsets_climb(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *state, *o[6], *take_logs;
    double log2_items, best_cost;
    Py_ssize_t m, n;
    Py_buffer b[S_N], bb[6];
    Search s;
    if (!PyArg_ParseTuple(args, "OOOOdOOOdO", &state, &o[0], &o[1], &o[2], &log2_items, &o[3],
                          &o[4], &take_logs, &best_cost, &o[5]) ||
        !tg_search_views(state, b, &m, &n, &s))
        return NULL;
    const tg_spec spec[6] = {
        {0, sizeof(float), m, "bits32"},
        {0, sizeof(double), m + 2, "fact"},
        {0, sizeof(double), m + 2, "item"},
        {1, sizeof(double), 4 * (m + 1), "logs_in"},
        {0, sizeof(double), 4 * (m + 1), "logs_out"},
        {1, 1, m, "best"},
    };
    int got = tg_views(o, bb, spec, 6);
    PyObject *result = NULL;
    Groups G;
    Side *sides_kept = NULL; /* each costed group's two sides, then the subset's */
    int32_t *slot_group = NULL; /* each costed group's live slot; then the groups reaching M */
    MemoEntry *memo = NULL;
    uint64_t *batch_key = NULL; /* each costed group's mixed key */
    float *batch_memo = NULL;   /* check_memo's, NaN if none */
    const int memo_on = n < ((Py_ssize_t)1 << MEMO_FIELD);
    memset(&G, 0, sizeof G);
    if (got < 6)
        goto done;
    slot_group = PyMem_Malloc((size_t)(m + 1) * sizeof(int32_t));
    sides_kept = PyMem_Malloc((size_t)(2 * (m + 1)) * sizeof(Side));
    batch_key = PyMem_Malloc((size_t)(m + 1) * sizeof(uint64_t));
    batch_memo = PyMem_Malloc((size_t)(m + 1) * sizeof(float));
    if (memo_on) {
        memo = PyMem_Calloc((size_t)1 << MEMO_BITS, sizeof(MemoEntry)); /* tag 0: empty */
    }
    if (tg_groups_init(&G, &s, bb[0].buf, m, n) < 0 || !slot_group || !sides_kept ||
        !batch_key || !batch_memo || (memo_on && !memo)) {
        PyErr_NoMemory();
        goto done;
    }
    {
        const double *fact = bb[1].buf, *item = bb[2].buf;
        double *lin = bb[3].buf;
        const double *lout = bb[4].buf;
        char *best = bb[5].buf;
        int64_t epoch = 0, last_counts[3] = {-1, -1, -1};
        float cov = 0.0f, unc = 0.0f; /* the subset's sides' bits, for epoch */
        for (;;) {
            /* the subset's theory bits and cost (ClassSearch.values) */
            const Py_ssize_t selected = G.n_chosen;
            const float sum = ts_sum(&G.theory);
            const float theory = (float)((double)(selected ? sum : 0.0f) - fact[selected]);
            const int fresh = s.counts[0] != last_counts[0] || s.counts[1] != last_counts[1] ||
                              s.counts[2] != last_counts[2];
            if (fresh) {
                epoch++;
                for (int j = 0; j < 3; j++)
                    last_counts[j] = s.counts[j];
            }
            /* log inputs: the two sides of each live group not costed for these counts,
             * then (new counts) the subset's own */
            const Py_ssize_t L = G.n_live;
            Py_ssize_t J = 0;
            int64_t n0, e0, n1, e1;
            double x0, x1;
            for (Py_ssize_t i = 0; i <= L; i++) {
                if (i < L && G.live_epoch[i] == epoch)
                    continue;
                if (i == L && !fresh)
                    break;
                /* from the key (neither the group nor its rules are read); the subset's
                 * own sides are those of a key of no right or wrong cases */
                const uint64_t k = i < L ? G.live_key[i] : 0;
                sides_of(&s, chosen_key(k), key_right(k), key_wrong(k), n, &n0, &e0, &x0, &n1,
                         &e1, &x1);
                batch_memo[J] = NAN;
                if (i < L && memo_on) {
                    const uint64_t ck = memo_key_of(n0, e0);
                    const MemoEntry hit = memo[memo_slot(ck)];
                    if (hit.tag == memo_tag(ck)) { /* these counts' bits, costed before */
                        if (memo_check) {
                            batch_memo[J] = hit.ex; /* costed below, then compared */
                        } else {
                            G.live_ex[i] = hit.ex;
                            G.live_epoch[i] = epoch;
                            continue;
                        }
                    }
                    batch_key[J] = ck;
                }
                slot_group[J] = i < L ? (int32_t)i : -1; /* the live slot */
                double *in = lin + 4 * J;
                in[0] = in[1] = in[2] = in[3] = 1.0;
                Side *sd = sides_kept + 2 * J;
                sd[0].n = n0;
                sd[0].e = e0;
                sd[1].n = n1;
                sd[1].e = e1;
                /* the two sides' rates in one division of two lanes (each lane the same
                 * IEEE division): a side of no items is a constant, its lane unread */
                const float xe0 = (float)x0, xe1 = (float)x1;
                const tg_v2d num = {(double)xe0, (double)xe1}, den = {(double)n0, (double)n1};
                const tg_v2d q = num / den;
                sd[0].fixed = biased_rated(n0, e0, xe0, q[0], &in[0], &in[1], &sd[0].bits);
                sd[1].fixed = biased_rated(n1, e1, xe1, q[1], &in[2], &in[3], &sd[1].bits);
                for (int j = 0; j < 4; j++)
                    if (!(in[j] > 0))
                        in[j] = 1.0; /* log 0: log2_c45's 0 where not positive */
                J++;
            }
            if (J > 0) {
                PyObject *ok = PyObject_CallFunction(take_logs, "n", 4 * J);
                if (ok == NULL)
                    goto done;
                Py_DECREF(ok);
            }
            for (Py_ssize_t j = 0; j < J; j++) {
                const float c0 = side_kept(sides_kept + 2 * j, lout + 4 * j);
                const float c1 = side_kept(sides_kept + 2 * j + 1, lout + 4 * j + 2);
                if (slot_group[j] < 0) {
                    cov = c0;
                    unc = c1;
                } else {
                    const float ex = (float)((log2_items + (double)c0) + (double)c1);
                    if (batch_memo[j] == batch_memo[j] &&
                        memcmp(&batch_memo[j], &ex, sizeof ex) != 0) {
                        PyErr_Format(PyExc_RuntimeError,
                                     "subsets_climb: the memo's bits %.9g for the counts' key %lld, "
                                     "costed %.9g",
                                     (double)batch_memo[j], (long long)batch_key[j], (double)ex);
                        goto done;
                    }
                    G.live_ex[slot_group[j]] = ex;
                    G.live_epoch[slot_group[j]] = epoch;
                    if (memo_on) {
                        MemoEntry *e = &memo[memo_slot(batch_key[j])];
                        e->tag = memo_tag(batch_key[j]);
                        e->ex = ex;
                    }
                }
            }
            /* the subset's cost: remembered when cheaper than every one before */
            {
                const float ex = (float)((log2_items + (double)cov) + (double)unc);
                const float tw = (float)(TG_THEORY_WEIGHT * (double)theory);
                const float base = (float)((double)tw + (double)ex);
                if ((double)base < best_cost) {
                    best_cost = base;
                    /* the flags are 0 or 1 (numpy's bools, and the toggles' !) */
                    memcpy(best, s.chosen, (size_t)m);
                }
                const float item_in = (float)item[selected], item_out = (float)item[selected + 1];
                /* each group at its extreme bits: the largest change M, and the groups
                 * reaching it (a larger one starts the list again) */
                float M = 0.0f;
                int any = 0;
                Py_ssize_t n_top = 0;
                for (Py_ssize_t i = 0; i < L; i++) {
                    const float d = delta_of(G.live_in[i], G.live_ex[i], G.live_top[i], theory,
                                             base, item_in, item_out);
                    if (!any || d > M) {
                        M = d;
                        any = 1;
                        n_top = 0;
                    }
                    if (d == M)
                        slot_group[n_top++] = G.live[i];
                }
                if (!(M > 0.0f))
                    break;
                /* the first rule reaching M */
                Py_ssize_t pick = m;
                for (Py_ssize_t i = 0; i < n_top; i++) {
                    const Group *g = &G.g[slot_group[i]];
                    const int in = chosen_key(g->key);
                    const float ex_g = G.live_ex[g->live_at];
                    /* the rules reaching M: the top, and below each one that does */
                    Py_ssize_t top = 0;
                    G.stack[top++] = 0;
                    while (top > 0) {
                        const int32_t at = G.stack[--top], r = g->heap[at];
                        if (delta_of(in, ex_g, G.bits[r], theory, base, item_in, item_out) != M)
                            continue;
                        if (r < pick)
                            pick = r;
                        for (int32_t c = 2 * at + 1; c <= 2 * at + 2 && c < g->count; c++)
                            G.stack[top++] = c;
                    }
                }
                if (tg_toggle_grouped(&G, pick) < 0) {
                    PyErr_NoMemory();
                    goto done;
                }
            }
        }
        result = PyFloat_FromDouble(best_cost);
    }
done:
    tg_groups_free(&G, n);
    PyMem_Free(slot_group);
    PyMem_Free(sides_kept);
    PyMem_Free(batch_key);
    PyMem_Free(batch_memo);
    PyMem_Free(memo);
    tg_release(bb, got > 0 ? got : 0);
    tg_release(b, S_N);
    return result;
}

PyObject *tg_check_memo(PyObject *self, PyObject *args)
{
    int on;
    (void)self;
    if (!PyArg_ParseTuple(args, "p", &on))
        return NULL;
    memo_check = on;
    Py_RETURN_NONE;
}
