/* c4.5rules' hot loops in C (module _crules): the generalisation of one leaf's path
 * over packed bitsets (treegen/rules/paths.py, _prune) and the class-subset search's
 * steps (treegen/rules/subsets.py, ClassSearch).  Each computes the same numbers as
 * the Python it stands in for, bit for bit: counts are exact integers, the error
 * bound is bound.h's (the same libm calls as stats.ErrorBound), and every logarithm
 * the subset search needs is numpy's (subsets_prep writes the inputs, numpy takes
 * their logs, subsets_finish uses them), as the trainer's kernels do. */
#include "bound.h"

/* A case's bit: word i / 64, bit i % 64 (np.packbits(..., bitorder="little") read as
 * little-endian 64-bit words). */
typedef uint64_t word;

static inline int popcount(word x)
{
    /* SWAR: without -mpopcnt, __builtin_popcountll is a library call */
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}

#ifndef TG_FAIL_LEVELS
#error "TG_FAIL_LEVELS missing: build through setup.py (treegen/rules/constants.py)"
#endif
/* How many of a path's conditions a case fails is counted up to this (saturating):
 * the cases that matter after r conditions are dropped fail at most r + 1 of them, so
 * each step visits only the words holding such a case. */
#define FAIL_LEVELS TG_FAIL_LEVELS

/* (pessimistic, actual) error rate of a rule covering n cases, e wrong (paths._rates). */
static inline void rates(const Bound *bd, double n, double e, double default_error, double *pess,
                         double *actual)
{
    if (n == 0) {
        *pess = default_error;
        *actual = 0.0;
        return;
    }
    const double extra = add_errs(bd, n, e);
    *pess = f32(f32(e + extra) / n);
    *actual = f32(e / n);
}

/* fold_levels(levels, sat, out, n): out = levels with one more condition (its
 * satisfied cases sat) counted.  levels: FAIL_LEVELS rows of W words, row i the cases
 * failing more than i conditions. */
static PyObject *fold_levels(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *o[3];
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "OOOn", &o[0], &o[1], &o[2], &n))
        return NULL;
    const Py_ssize_t W = (n + 63) / 64;
    Py_buffer b[3];
    const tg_spec spec[3] = {
        {0, sizeof(word), FAIL_LEVELS * W, "levels"},
        {0, sizeof(word), W, "sat"},
        {1, sizeof(word), FAIL_LEVELS * W, "out"},
    };
    int got = tg_views(o, b, spec, 3);
    if (got < 3) {
        tg_release(b, got);
        return NULL;
    }
    const word *in = b[0].buf, *sat = b[1].buf;
    word *out = b[2].buf;
    for (Py_ssize_t w = 0; w < W; w++) {
        const word f = ~sat[w];
        for (int i = FAIL_LEVELS - 1; i > 0; i--)
            out[i * W + w] = in[i * W + w] | (in[(i - 1) * W + w] & f);
        out[w] = in[w] | f;
    }
    tg_release(b, 3);
    Py_RETURN_NONE;
}

/* prune_path(sat, wrong, k, n, log_cf, coeff, default_error, alive, levels)
 *   -> pess or None.
 *
 * Release 8's PruneRule on one path of k conditions over n cases: sat (k rows of
 * W = ceil(n / 64) words) the cases satisfying each condition, wrong (W words) the
 * cases of other classes.  alive (k bytes, written) says which conditions are kept;
 * the result is the rule's pessimistic error rate, or None when there is no rule.
 * levels: fold_levels' counts of the k conditions' failures. */
static PyObject *prune_path(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *o[4];
    Py_ssize_t k, n;
    Bound bd;
    double default_error;
    if (!PyArg_ParseTuple(args, "OOnndddOO", &o[0], &o[1], &k, &n, &bd.log_cf, &bd.coeff,
                          &default_error, &o[2], &o[3]))
        return NULL;
    bd.cf = 0.0;
    const Py_ssize_t W = (n + 63) / 64;
    Py_buffer b[4];
    const tg_spec spec[4] = {
        {0, sizeof(word), k * W, "sat"},
        {0, sizeof(word), W, "wrong"},
        {1, 1, k, "alive"},
        {0, sizeof(word), FAIL_LEVELS * W, "levels"},
    };
    int got;
    PyObject *result = NULL;
    long long *tot = NULL, *err = NULL;
    Py_ssize_t *al = NULL;
    if ((got = tg_views(o, b, spec, 4)) < 4)
        goto done;
    tot = PyMem_Malloc((size_t)(k + 1) * sizeof(long long));
    err = PyMem_Malloc((size_t)(k + 1) * sizeof(long long));
    al = PyMem_Malloc((size_t)(k + 1) * sizeof(Py_ssize_t));
    if (tot == NULL || err == NULL || al == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    {
        const word *sat = b[0].buf, *wrong = b[1].buf, *levels = b[3].buf;
        char *alive = b[2].buf;
        const word last = (n % 64) ? (((word)1 << (n % 64)) - 1) : ~(word)0;
        double pess0 = 0.0;
        long long total0 = 0;
        for (Py_ssize_t d = 0; d < k; d++)
            alive[d] = 1;
        Py_BEGIN_ALLOW_THREADS;
        for (;;) {
            Py_ssize_t na = 0;
            for (Py_ssize_t d = 0; d < k; d++)
                if (alive[d])
                    al[na++] = d;
            long long errors0 = 0;
            total0 = 0;
            for (Py_ssize_t j = 0; j < na; j++)
                tot[j] = err[j] = 0;
            /* a case failing at most one alive condition fails at most k - na + 1 of
             * the path's: only words holding such a case are visited */
            const Py_ssize_t removed = k - na;
            const word *more = removed + 1 < FAIL_LEVELS ? levels + (removed + 1) * W : NULL;
            for (Py_ssize_t w = 0; w < W; w++) {
                if (more != NULL && !(~more[w] & (w == W - 1 ? last : ~(word)0)))
                    continue;
                /* ge1: cases failing at least one alive condition, ge2: at least two. */
                word ge1 = 0, ge2 = 0;
                for (Py_ssize_t j = 0; j < na; j++) {
                    const word f = ~sat[al[j] * W + w];
                    ge2 |= ge1 & f;
                    ge1 |= f;
                    if (ge2 == ~(word)0)
                        break;
                }
                const word live = (w == W - 1 ? last : ~(word)0) & ~ge2;
                if (!live)
                    continue;
                const word wr = wrong[w];
                const word none = live & ~ge1, one = live & ge1;
                total0 += popcount(none);
                errors0 += popcount(none & wr);
                if (one)
                    for (Py_ssize_t j = 0; j < na; j++) {
                        const word x = one & ~sat[al[j] * W + w];
                        if (x) {
                            tot[j] += popcount(x);
                            err[j] += popcount(x & wr);
                        }
                    }
            }
            double actual0;
            rates(&bd, (double)total0, (double)errors0, default_error, &pess0, &actual0);
            Py_ssize_t best = -1;
            double best_pess = 0.0;
            int alter = 0;
            for (Py_ssize_t j = 0; j < na; j++) {
                double pess, actual;
                rates(&bd, (double)(tot[j] + total0), (double)(err[j] + errors0), default_error,
                      &pess, &actual);
                if (best < 0 || pess <= best_pess) {
                    best = al[j];
                    best_pess = pess;
                }
                if (pess <= pess0 || actual <= actual0)
                    alter = 1;
            }
            if (!alter)
                break;
            alive[best] = 0;
            if (na == 1) {
                total0 = -1; /* nothing left: no rule */
                break;
            }
        }
        Py_END_ALLOW_THREADS;
        if (total0 <= 0 || pess0 >= default_error) {
            Py_INCREF(Py_None);
            result = Py_None;
        } else
            result = PyFloat_FromDouble(pess0);
    }
done:
    PyMem_Free(tot);
    PyMem_Free(err);
    PyMem_Free(al);
    tg_release(b, got > 0 ? got : 0);
    return result;
}


/* The subset search's state (subsets.ClassSearch), as buffers: per rule its cases
 * (rule_ptr, rule_cases), per case its rules (case_ptr, case_rules), the cases of
 * the class (positive), how many chosen rules fire on each case (covered), the
 * chosen rules, each rule's right and wrong cases that only it would decide, and
 * counts = (cases covered, false positives, false negatives) of the subset. */
enum { S_RULE_PTR, S_RULE_CASES, S_CASE_PTR, S_CASE_RULES, S_POSITIVE, S_COVERED, S_CHOSEN,
       S_RIGHT, S_WRONG, S_COUNTS, S_N };

typedef struct {
    const int64_t *rule_ptr, *case_ptr;
    const int32_t *rule_cases, *case_rules;
    const char *positive;
    int64_t *covered, *right, *wrong, *counts;
    char *chosen;
} Search;

static int search_views(PyObject *state, Py_buffer *b, Py_ssize_t *m, Py_ssize_t *n, Search *s)
{
    if (!PyTuple_Check(state) || PyTuple_GET_SIZE(state) != S_N) {
        PyErr_SetString(PyExc_TypeError, "state: a tuple of 10 arrays");
        return 0;
    }
    PyObject *o[S_N];
    for (int i = 0; i < S_N; i++)
        o[i] = PyTuple_GET_ITEM(state, i);
    *m = tg_items(o[S_CHOSEN], 1);
    *n = tg_items(o[S_POSITIVE], 1);
    if (*m < 0 || *n < 0)
        return 0;
    const tg_spec spec[S_N] = {
        {0, 8, *m + 1, "rule_ptr"}, {0, 4, 0, "rule_cases"}, {0, 8, *n + 1, "case_ptr"},
        {0, 4, 0, "case_rules"},    {0, 1, *n, "positive"},  {1, 8, *n, "covered"},
        {1, 1, *m, "chosen"},       {1, 8, *m, "right"},     {1, 8, *m, "wrong"},
        {1, 8, 3, "counts"},
    };
    int got = tg_views(o, b, spec, S_N);
    if (got < S_N) {
        tg_release(b, got);
        return 0;
    }
    s->rule_ptr = b[S_RULE_PTR].buf;
    s->rule_cases = b[S_RULE_CASES].buf;
    s->case_ptr = b[S_CASE_PTR].buf;
    s->case_rules = b[S_CASE_RULES].buf;
    s->positive = b[S_POSITIVE].buf;
    s->covered = b[S_COVERED].buf;
    s->chosen = b[S_CHOSEN].buf;
    s->right = b[S_RIGHT].buf;
    s->wrong = b[S_WRONG].buf;
    s->counts = b[S_COUNTS].buf;
    return 1;
}

/* Add (sign 1) or take away (-1) case c's pairs where the rule alone decides it. */
static inline void count_case(Search *s, int64_t c, int sign)
{
    const int64_t cov = s->covered[c];
    if (cov > 1)
        return;
    int64_t *side = s->positive[c] ? s->right : s->wrong;
    for (int64_t p = s->case_ptr[c]; p < s->case_ptr[c + 1]; p++) {
        const int64_t q = s->case_rules[p];
        if (cov == 0 || s->chosen[q])
            side[q] += sign;
    }
}

/* subsets_toggle(state, r): ClassSearch.toggle, and the subset's counts kept. */
static PyObject *subsets_toggle(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *state;
    Py_ssize_t r, m, n;
    Py_buffer b[S_N];
    Search s;
    if (!PyArg_ParseTuple(args, "On", &state, &r) || !search_views(state, b, &m, &n, &s))
        return NULL;
    if (r < 0 || r >= m) {
        tg_release(b, S_N);
        PyErr_SetString(PyExc_IndexError, "rule out of range");
        return NULL;
    }
    const int64_t lo = s.rule_ptr[r], hi = s.rule_ptr[r + 1];
    for (int64_t p = lo; p < hi; p++)
        count_case(&s, s.rule_cases[p], -1);
    s.chosen[r] = !s.chosen[r];
    const int64_t step = s.chosen[r] ? 1 : -1;
    for (int64_t p = lo; p < hi; p++) {
        const int64_t c = s.rule_cases[p];
        const int64_t before = s.covered[c];
        s.covered[c] = before + step;
        if ((before == 0) != (s.covered[c] == 0)) { /* fired <-> not fired */
            s.counts[0] += step;
            if (s.positive[c])
                s.counts[2] -= step;
            else
                s.counts[1] += step;
        }
        count_case(&s, c, 1);
    }
    tg_release(b, S_N);
    Py_RETURN_NONE;
}

/* One side of mdl.biased_many for a rule: n items, e errors, expected as a double.
 * Its kind: 0 computed from logs (rate, other written), else the constant in *bits. */
static inline int biased_side(int64_t n, int64_t e, double expected, double *rate, double *other,
                              float *bits)
{
    const float exp_e = (float)expected;
    if (exp_e <= (float)TG_CERTAIN) { /* numpy: a float32 array against a Python float */
        *bits = e == 0 ? 0.0f : (float)TG_IMPOSSIBLE_BITS;
        return 1;
    }
    if ((double)exp_e >= (double)n - TG_CERTAIN) {
        *bits = e == n ? 0.0f : (float)TG_IMPOSSIBLE_BITS;
        return 1;
    }
    const float rt = (float)((double)exp_e / (double)n);
    *rate = rt;
    *other = (float)(1.0f - rt);
    return 0;
}

/* A rule's exception-bit arguments when it is toggled: the two sides of
 * mdl.exception_bits_many as (n, e, expected). */
static inline void sides(const Search *s, Py_ssize_t r, int64_t n_items, int64_t *n0, int64_t *e0,
                         double *x0, int64_t *n1, int64_t *e1, double *x1)
{
    const int64_t sign = s->chosen[r] ? -1 : 1;
    const int64_t fires = s->counts[0] + sign * (s->right[r] + s->wrong[r]);
    const int64_t fp = s->counts[1] + sign * s->wrong[r];
    const int64_t fn = s->counts[2] - sign * s->right[r];
    const double half = 0.5 * (double)(fp + fn);
    const int big = (double)fires > 0.5 * (double)n_items;
    *n0 = fires;
    *e0 = fp;
    *x0 = big ? half : (double)fp;
    *n1 = n_items - fires;
    *e1 = fn;
    *x1 = big ? (double)fn : half;
}

/* subsets_prep(state, logs_in): for every rule, the four values whose log2 its
 * exception bits need (covered side rate and 1 - rate, uncovered side the same; 1.0
 * where a side is a constant), into logs_in (4 m float64). */
static PyObject *subsets_prep(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *state, *ol;
    Py_ssize_t m, n;
    Py_buffer b[S_N], bl;
    Search s;
    if (!PyArg_ParseTuple(args, "OO", &state, &ol) || !search_views(state, b, &m, &n, &s))
        return NULL;
    const tg_spec spec = {1, sizeof(double), 4 * m, "logs_in"};
    if (tg_views(&ol, &bl, &spec, 1) < 1) {
        tg_release(b, S_N);
        return NULL;
    }
    double *out = bl.buf;
    for (Py_ssize_t r = 0; r < m; r++) {
        int64_t n0, e0, n1, e1;
        double x0, x1;
        float unused;
        sides(&s, r, n, &n0, &e0, &x0, &n1, &e1, &x1);
        double *o = out + 4 * r;
        o[0] = o[1] = o[2] = o[3] = 1.0;
        biased_side(n0, e0, x0, &o[0], &o[1], &unused);
        biased_side(n1, e1, x1, &o[2], &o[3], &unused);
    }
    tg_release(&bl, 1);
    tg_release(b, S_N);
    Py_RETURN_NONE;
}

/* One side of a cost as the climb keeps it between taking its logs and using them:
 * its items and errors, and whether its bits are a constant (and which). */
typedef struct {
    int64_t n, e;
    int fixed;
    float bits;
} Side;

/* A kept side's bits from the natural logs of its rate and 1 - rate (divided by ln 2
 * here, as log2_c45 divides; an input that was not positive was replaced by 1, whose
 * log is log2_c45's 0). */
static inline float side_kept(const Side *sd, const double *ln)
{
    if (sd->fixed)
        return sd->bits;
    const double l0 = ln[0] / TG_LN2, l1 = ln[1] / TG_LN2;
    return (float)((double)(-sd->e) * l0 - (double)(sd->n - sd->e) * l1);
}

static inline float side_bits(int64_t n, int64_t e, double expected, const double *lg)
{
    double rate, other;
    float bits;
    if (biased_side(n, e, expected, &rate, &other, &bits))
        return bits;
    /* log2_c45: 0 where the input is not positive */
    const double l0 = rate > 0 ? lg[0] : 0.0, l1 = other > 0 ? lg[1] : 0.0;
    return (float)((double)(-e) * l0 - (double)(n - e) * l1);
}

/* subsets_finish(state, log2s, log2_items, theory, base, item_in, item_out, bits32, gain)
 *   -> index of the first largest change of cost (ClassSearch.climb's argmax)
 * log2s: log2 of subsets_prep's values; theory: the subset's theory bits, base its
 * cost, item_in/out: Logs.item[selected] and [selected + 1]; writes gain (m float32),
 * ClassSearch.values(). */
static PyObject *subsets_finish(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *state, *o[3];
    double log2_items, theory_d, base_d, item_in_d, item_out_d;
    Py_ssize_t m, n;
    Py_buffer b[S_N], bb[3];
    Search s;
    if (!PyArg_ParseTuple(args, "OOdddddOO", &state, &o[0], &log2_items, &theory_d, &base_d,
                          &item_in_d, &item_out_d, &o[1], &o[2]) ||
        !search_views(state, b, &m, &n, &s))
        return NULL;
    const tg_spec spec[3] = {
        {0, sizeof(double), 4 * m, "log2s"},
        {0, sizeof(float), m, "bits32"},
        {1, sizeof(float), m, "gain"},
    };
    int got = tg_views(o, bb, spec, 3);
    if (got < 3) {
        tg_release(bb, got);
        tg_release(b, S_N);
        return NULL;
    }
    const double *lg = bb[0].buf;
    const float *bits32 = bb[1].buf;
    float *gain = bb[2].buf;
    const float theory = (float)theory_d, base = (float)base_d;
    const float item_in = (float)item_in_d, item_out = (float)item_out_d;
    Py_ssize_t best = -1;
    float best_delta = 0.0f;
    for (Py_ssize_t r = 0; r < m; r++) {
        int64_t n0, e0, n1, e1;
        double x0, x1;
        sides(&s, r, n, &n0, &e0, &x0, &n1, &e1, &x1);
        const float cov = side_bits(n0, e0, x0, lg + 4 * r);
        const float unc = side_bits(n1, e1, x1, lg + 4 * r + 2);
        const float ex = (float)((log2_items + (double)cov) + (double)unc);
        const int in = s.chosen[r] != 0;
        float t;
        if (in) {
            const float a = theory - bits32[r];
            t = a + item_in;
        } else {
            const float a = theory + bits32[r];
            t = a - item_out;
        }
        const float half = (float)TG_THEORY_WEIGHT * t;
        const float nw = ex + half;
        const float g = in ? nw - base : base - nw;
        gain[r] = g;
        const float delta = in ? -g : g;
        /* numpy's argmax: the first NaN, else the first of the largest */
        if (best < 0 || (!isnan(best_delta) && (isnan(delta) || delta > best_delta))) {
            best = r;
            best_delta = delta;
        }
    }
    tg_release(bb, 3);
    tg_release(b, S_N);
    return PyLong_FromSsize_t(best);
}

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
 * rules that share its cases only, which move between groups. */

typedef struct {
    uint64_t key;
    int32_t head, count, live_at, dirty;
    float extreme; /* the largest bits of a chosen key, the smallest of another */
    float ex;
} Group;

typedef struct {
    Search *s;
    Py_ssize_t m;
    const float *bits;
    Group *g;
    Py_ssize_t n_groups, cap_groups;
    int32_t *table; /* open addressing: group index + 1, 0 empty */
    Py_ssize_t table_size;
    int32_t *group_of, *next, *prev, *live, *stamp, *touched;
    int32_t *chosen_list; /* the chosen rules, ascending (the theory bits' order) */
    Py_ssize_t n_live, n_touched, n_chosen;
    int32_t clock;
} Groups;

static inline uint64_t key_of(const Search *s, Py_ssize_t r)
{
    return ((uint64_t)(s->chosen[r] != 0) << 62) | ((uint64_t)s->right[r] << 31) |
           (uint64_t)s->wrong[r];
}

static inline size_t hash64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return (size_t)k;
}

static int groups_rebuild(Groups *G);

/* The group of key k, made (empty) if new; -1 out of memory. */
static int32_t group_find(Groups *G, uint64_t k)
{
    size_t mask = (size_t)G->table_size - 1, i = hash64(k) & mask;
    while (G->table[i]) {
        const int32_t gi = G->table[i] - 1;
        if (G->g[gi].key == k)
            return gi;
        i = (i + 1) & mask;
    }
    if (G->n_groups >= G->cap_groups)
        return -1;
    const int32_t gi = (int32_t)G->n_groups++;
    G->table[i] = gi + 1;
    Group *g = &G->g[gi];
    g->key = k;
    g->head = -1;
    g->count = 0;
    g->live_at = -1;
    g->dirty = 0;
    return gi;
}

static inline int chosen_key(uint64_t k)
{
    return (int)(k >> 62);
}

static void group_add(Groups *G, int32_t gi, int32_t r)
{
    Group *g = &G->g[gi];
    G->group_of[r] = gi;
    G->prev[r] = -1;
    G->next[r] = g->head;
    if (g->head >= 0)
        G->prev[g->head] = r;
    g->head = r;
    const float b = G->bits[r];
    if (g->count++ == 0) {
        g->extreme = b;
        g->dirty = 0;
        g->live_at = (int32_t)G->n_live;
        G->live[G->n_live++] = gi;
    } else if (!g->dirty && (chosen_key(g->key) ? b > g->extreme : b < g->extreme))
        g->extreme = b;
}

static void group_remove(Groups *G, int32_t r)
{
    const int32_t gi = G->group_of[r];
    Group *g = &G->g[gi];
    if (G->prev[r] >= 0)
        G->next[G->prev[r]] = G->next[r];
    else
        g->head = G->next[r];
    if (G->next[r] >= 0)
        G->prev[G->next[r]] = G->prev[r];
    if (--g->count == 0) {
        const int32_t last = G->live[--G->n_live];
        G->live[g->live_at] = last;
        G->g[last].live_at = g->live_at;
        g->live_at = -1;
    } else if (G->bits[r] == g->extreme)
        g->dirty = 1;
}

/* Every rule into the group of its key, from an empty table.  0, or -1. */
static int groups_rebuild(Groups *G)
{
    memset(G->table, 0, (size_t)G->table_size * sizeof(int32_t));
    G->n_groups = 0;
    G->n_live = 0;
    for (Py_ssize_t r = G->m - 1; r >= 0; r--) {
        const int32_t gi = group_find(G, key_of(G->s, r));
        if (gi < 0)
            return -1;
        group_add(G, gi, (int32_t)r);
    }
    return 0;
}

static inline void touch(Groups *G, int64_t q)
{
    if (G->stamp[q] != G->clock) {
        G->stamp[q] = G->clock;
        G->touched[G->n_touched++] = (int32_t)q;
    }
}

/* count_case, noting the rules whose counts change. */
static inline void count_case_noted(Groups *G, int64_t c, int sign)
{
    Search *s = G->s;
    const int64_t cov = s->covered[c];
    if (cov > 1)
        return;
    int64_t *side = s->positive[c] ? s->right : s->wrong;
    for (int64_t p = s->case_ptr[c]; p < s->case_ptr[c + 1]; p++) {
        const int64_t q = s->case_rules[p];
        if (cov == 0 || s->chosen[q]) {
            side[q] += sign;
            touch(G, q);
        }
    }
}

/* subsets_toggle's work, then the changed rules moved to their keys' groups. */
static int toggle_grouped(Groups *G, Py_ssize_t r)
{
    Search *s = G->s;
    G->clock++;
    G->n_touched = 0;
    touch(G, r);
    const int64_t lo = s->rule_ptr[r], hi = s->rule_ptr[r + 1];
    for (int64_t p = lo; p < hi; p++)
        count_case_noted(G, s->rule_cases[p], -1);
    s->chosen[r] = !s->chosen[r];
    {
        /* r into or out of the sorted list of chosen rules */
        Py_ssize_t a = 0, z = G->n_chosen;
        while (a < z) {
            const Py_ssize_t mid = (a + z) / 2;
            if (G->chosen_list[mid] < r)
                a = mid + 1;
            else
                z = mid;
        }
        if (s->chosen[r]) {
            memmove(G->chosen_list + a + 1, G->chosen_list + a,
                    (size_t)(G->n_chosen - a) * sizeof(int32_t));
            G->chosen_list[a] = (int32_t)r;
            G->n_chosen++;
        } else {
            memmove(G->chosen_list + a, G->chosen_list + a + 1,
                    (size_t)(G->n_chosen - a - 1) * sizeof(int32_t));
            G->n_chosen--;
        }
    }
    const int64_t step = s->chosen[r] ? 1 : -1;
    for (int64_t p = lo; p < hi; p++) {
        const int64_t c = s->rule_cases[p];
        const int64_t before = s->covered[c];
        s->covered[c] = before + step;
        if ((before == 0) != (s->covered[c] == 0)) {
            s->counts[0] += step;
            if (s->positive[c])
                s->counts[2] -= step;
            else
                s->counts[1] += step;
        }
        count_case_noted(G, c, 1);
    }
    for (Py_ssize_t t = 0; t < G->n_touched; t++) {
        const int32_t q = G->touched[t];
        const uint64_t k = key_of(s, q);
        if (G->g[G->group_of[q]].key == k)
            continue;
        group_remove(G, q);
        if (2 * G->n_groups >= G->table_size || G->n_groups >= G->cap_groups) {
            /* the table is half full of keys, many of them empty: start again */
            if (groups_rebuild(G) < 0)
                return -1;
            continue; /* every rule is in its group now, the rest included */
        }
        const int32_t gi = group_find(G, k);
        if (gi < 0)
            return -1;
        group_add(G, gi, q);
    }
    return 0;
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
static PyObject *subsets_climb(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *state, *o[6], *take_logs;
    double log2_items, best_cost;
    Py_ssize_t m, n;
    Py_buffer b[S_N], bb[6];
    Search s;
    if (!PyArg_ParseTuple(args, "OOOOdOOOdO", &state, &o[0], &o[1], &o[2], &log2_items, &o[3],
                          &o[4], &take_logs, &best_cost, &o[5]) ||
        !search_views(state, b, &m, &n, &s))
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
    Side *sides_kept = NULL; /* each live group's two sides, then the subset's */
    memset(&G, 0, sizeof G);
    if (got < 6)
        goto done;
    G.s = &s;
    G.m = m;
    G.bits = bb[0].buf;
    G.cap_groups = 2 * m + 64;
    G.table_size = 1;
    while (G.table_size < 2 * G.cap_groups)
        G.table_size <<= 1;
    G.g = PyMem_Malloc((size_t)G.cap_groups * sizeof(Group));
    G.table = PyMem_Malloc((size_t)G.table_size * sizeof(int32_t));
    G.group_of = PyMem_Malloc((size_t)m * sizeof(int32_t));
    G.next = PyMem_Malloc((size_t)m * sizeof(int32_t));
    G.prev = PyMem_Malloc((size_t)m * sizeof(int32_t));
    G.live = PyMem_Malloc((size_t)G.cap_groups * sizeof(int32_t));
    G.stamp = PyMem_Calloc((size_t)m, sizeof(int32_t));
    G.touched = PyMem_Malloc((size_t)m * sizeof(int32_t));
    G.chosen_list = PyMem_Malloc((size_t)m * sizeof(int32_t));
    sides_kept = PyMem_Malloc((size_t)(2 * (m + 1)) * sizeof(Side));
    if (!G.g || !G.table || !G.group_of || !G.next || !G.prev || !G.live || !G.stamp ||
        !G.touched || !G.chosen_list || !sides_kept || groups_rebuild(&G) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t r = 0; r < m; r++)
        if (s.chosen[r])
            G.chosen_list[G.n_chosen++] = (int32_t)r;
    {
        const double *fact = bb[1].buf, *item = bb[2].buf;
        double *lin = bb[3].buf;
        const double *lout = bb[4].buf;
        char *best = bb[5].buf;
        for (;;) {
            /* the subset's theory bits and cost (ClassSearch.values) */
            const Py_ssize_t selected = G.n_chosen;
            float sum = 0.0f;
            for (Py_ssize_t i = 0; i < selected; i++)
                sum += G.bits[G.chosen_list[i]];
            const float theory = (float)((double)(selected ? sum : 0.0f) - fact[selected]);
            /* log inputs: each live group's two sides, then the subset's own */
            const Py_ssize_t L = G.n_live;
            int64_t n0, e0, n1, e1;
            double x0, x1;
            for (Py_ssize_t i = 0; i <= L; i++) {
                if (i < L) {
                    const Group *g = &G.g[G.live[i]];
                    sides(&s, g->head, n, &n0, &e0, &x0, &n1, &e1, &x1);
                } else {
                    const int64_t fp = s.counts[1], fn = s.counts[2], fires = s.counts[0];
                    const double half = 0.5 * (double)(fp + fn);
                    const int big = (double)fires > 0.5 * (double)n;
                    n0 = fires;
                    e0 = fp;
                    x0 = big ? half : (double)fp;
                    n1 = n - fires;
                    e1 = fn;
                    x1 = big ? (double)fn : half;
                }
                double *in = lin + 4 * i;
                in[0] = in[1] = in[2] = in[3] = 1.0;
                Side *sd = sides_kept + 2 * i;
                sd[0].n = n0;
                sd[0].e = e0;
                sd[0].fixed = biased_side(n0, e0, x0, &in[0], &in[1], &sd[0].bits);
                sd[1].n = n1;
                sd[1].e = e1;
                sd[1].fixed = biased_side(n1, e1, x1, &in[2], &in[3], &sd[1].bits);
                for (int j = 0; j < 4; j++)
                    if (!(in[j] > 0))
                        in[j] = 1.0; /* log 0: log2_c45's 0 where not positive */
            }
            PyObject *ok = PyObject_CallFunction(take_logs, "n", 4 * (L + 1));
            if (ok == NULL)
                goto done;
            Py_DECREF(ok);
            /* the subset's cost: remembered when cheaper than every one before */
            {
                const float cov = side_kept(sides_kept + 2 * L, lout + 4 * L);
                const float unc = side_kept(sides_kept + 2 * L + 1, lout + 4 * L + 2);
                const float ex = (float)((log2_items + (double)cov) + (double)unc);
                const float tw = (float)(TG_THEORY_WEIGHT * (double)theory);
                const float base = (float)((double)tw + (double)ex);
                if ((double)base < best_cost) {
                    best_cost = base;
                    for (Py_ssize_t r = 0; r < m; r++)
                        best[r] = s.chosen[r] != 0;
                }
                const float item_in = (float)item[selected], item_out = (float)item[selected + 1];
                /* each group at its extreme bits: the largest change M */
                float M = 0.0f;
                int any = 0;
                for (Py_ssize_t i = 0; i < L; i++) {
                    Group *g = &G.g[G.live[i]];
                    const int in = chosen_key(g->key);
                    const float c0 = side_kept(sides_kept + 2 * i, lout + 4 * i);
                    const float c1 = side_kept(sides_kept + 2 * i + 1, lout + 4 * i + 2);
                    g->ex = (float)((log2_items + (double)c0) + (double)c1);
                    if (g->dirty) {
                        float e = G.bits[g->head];
                        for (int32_t r = g->head; r >= 0; r = G.next[r])
                            if (in ? G.bits[r] > e : G.bits[r] < e)
                                e = G.bits[r];
                        g->extreme = e;
                        g->dirty = 0;
                    }
                    const float d = delta_of(in, g->ex, g->extreme, theory, base, item_in, item_out);
                    if (!any || d > M) {
                        M = d;
                        any = 1;
                    }
                }
                if (!(M > 0.0f))
                    break;
                /* the first rule reaching M */
                Py_ssize_t pick = m;
                for (Py_ssize_t i = 0; i < L; i++) {
                    const Group *g = &G.g[G.live[i]];
                    const int in = chosen_key(g->key);
                    if (delta_of(in, g->ex, g->extreme, theory, base, item_in, item_out) != M)
                        continue;
                    for (int32_t r = g->head; r >= 0; r = G.next[r])
                        if (r < pick &&
                            delta_of(in, g->ex, G.bits[r], theory, base, item_in, item_out) == M)
                            pick = r;
                }
                if (toggle_grouped(&G, pick) < 0) {
                    PyErr_NoMemory();
                    goto done;
                }
            }
        }
        result = PyFloat_FromDouble(best_cost);
    }
done:
    PyMem_Free(G.g);
    PyMem_Free(G.table);
    PyMem_Free(G.group_of);
    PyMem_Free(G.next);
    PyMem_Free(G.prev);
    PyMem_Free(G.live);
    PyMem_Free(G.stamp);
    PyMem_Free(G.touched);
    PyMem_Free(G.chosen_list);
    PyMem_Free(sides_kept);
    tg_release(bb, got > 0 ? got : 0);
    tg_release(b, S_N);
    return result;
}

/* and_rows(sat, kept, n, out) -> count: the cases satisfying every condition kept
 * (indices into sat's rows), ascending, into out (int32, at least n); how many. */
static PyObject *and_rows(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *o[3];
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "OOnO", &o[0], &o[1], &n, &o[2]))
        return NULL;
    const Py_ssize_t W = (n + 63) / 64;
    Py_ssize_t k = tg_items(o[1], sizeof(int64_t));
    if (k < 0)
        return NULL;
    Py_buffer b[3];
    const tg_spec spec[3] = {
        {0, sizeof(word), 0, "sat"},
        {0, sizeof(int64_t), k, "kept"},
        {1, sizeof(int32_t), n, "out"},
    };
    int got = tg_views(o, b, spec, 3);
    if (got < 3) {
        tg_release(b, got);
        return NULL;
    }
    const word *sat = b[0].buf;
    const int64_t *kept = b[1].buf;
    int32_t *out = b[2].buf;
    const Py_ssize_t rows = b[0].len / (Py_ssize_t)sizeof(word) / (W ? W : 1);
    for (Py_ssize_t j = 0; j < k; j++)
        if (kept[j] < 0 || kept[j] >= rows) {
            tg_release(b, 3);
            PyErr_SetString(PyExc_IndexError, "kept: condition out of range");
            return NULL;
        }
    Py_ssize_t count = 0;
    const word last = (n % 64) ? (((word)1 << (n % 64)) - 1) : ~(word)0;
    for (Py_ssize_t w = 0; w < W; w++) {
        word x = w == W - 1 ? last : ~(word)0;
        for (Py_ssize_t j = 0; j < k && x; j++)
            x &= sat[kept[j] * W + w];
        while (x) {
            out[count++] = (int32_t)(w * 64 + __builtin_ctzll(x));
            x &= x - 1;
        }
    }
    tg_release(b, 3);
    return PyLong_FromSsize_t(count);
}

/* case_lists(rule_ptr, rule_cases, positive, case_ptr, case_rules, right): the subset
 * search's per-case lists, by a counting sort: case_ptr (n + 1 int64) and case_rules
 * (int32, as many as rule_cases) list each case's rules in rule order; right (m
 * int64) counts each rule's cases of the class. */
static PyObject *case_lists(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *o[6];
    if (!PyArg_ParseTuple(args, "OOOOOO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5]))
        return NULL;
    const Py_ssize_t m1 = tg_items(o[0], sizeof(int64_t)), total = tg_items(o[1], sizeof(int32_t));
    const Py_ssize_t n = tg_items(o[2], 1);
    if (m1 < 1 || total < 0 || n < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "case_lists: empty rule_ptr");
        return NULL;
    }
    const Py_ssize_t m = m1 - 1;
    Py_buffer b[6];
    const tg_spec spec[6] = {
        {0, sizeof(int64_t), m1, "rule_ptr"},     {0, sizeof(int32_t), total, "rule_cases"},
        {0, 1, n, "positive"},                    {1, sizeof(int64_t), n + 1, "case_ptr"},
        {1, sizeof(int32_t), total, "case_rules"}, {1, sizeof(int64_t), m, "right"},
    };
    int got = tg_views(o, b, spec, 6);
    if (got < 6) {
        tg_release(b, got);
        return NULL;
    }
    const int64_t *rule_ptr = b[0].buf;
    const int32_t *rule_cases = b[1].buf;
    const char *positive = b[2].buf;
    int64_t *case_ptr = b[3].buf, *right = b[5].buf;
    int32_t *case_rules = b[4].buf;
    if (rule_ptr[0] != 0 || rule_ptr[m] != total) {
        tg_release(b, 6);
        PyErr_SetString(PyExc_ValueError, "case_lists: rule_ptr does not span rule_cases");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < total; i++)
        if (rule_cases[i] < 0 || rule_cases[i] >= n) {
            tg_release(b, 6);
            PyErr_SetString(PyExc_IndexError, "case_lists: case out of range");
            return NULL;
        }
    memset(case_ptr, 0, (size_t)(n + 1) * sizeof(int64_t));
    for (Py_ssize_t i = 0; i < total; i++)
        case_ptr[rule_cases[i] + 1]++;
    for (Py_ssize_t c = 0; c < n; c++)
        case_ptr[c + 1] += case_ptr[c];
    /* fill in rule order: each case's rules come out ascending */
    for (Py_ssize_t r = 0; r < m; r++) {
        int64_t hits = 0;
        for (int64_t p = rule_ptr[r]; p < rule_ptr[r + 1]; p++) {
            const int32_t c = rule_cases[p];
            hits += positive[c] != 0;
            case_rules[case_ptr[c]++] = (int32_t)r;
        }
        right[r] = hits;
    }
    for (Py_ssize_t c = n; c > 0; c--) /* case_ptr[c] was advanced to case c + 1's start */
        case_ptr[c] = case_ptr[c - 1];
    case_ptr[0] = 0;
    tg_release(b, 6);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"prune_path", prune_path, METH_VARARGS,
     "prune_path(sat, wrong, k, n, log_cf, coeff, default_error, alive, levels): "
     "paths._prune over packed bitsets."},
    {"fold_levels", fold_levels, METH_VARARGS,
     "fold_levels(levels, sat, out, n): the failure counts with one more condition."},
    {"subsets_toggle", subsets_toggle, METH_VARARGS,
     "subsets_toggle(state, r): ClassSearch.toggle, keeping the subset's counts."},
    {"subsets_prep", subsets_prep, METH_VARARGS,
     "subsets_prep(state, logs_in): the values whose logs every rule's change of cost needs."},
    {"subsets_finish", subsets_finish, METH_VARARGS,
     "subsets_finish(state, log2s, log2_items, theory, base, item_in, item_out, bits32, "
     "gain): ClassSearch.values into gain; the index of the first largest change."},
    {"subsets_climb", subsets_climb, METH_VARARGS,
     "subsets_climb(state, bits32, fact, item, log2_items, logs_in, logs_out, take_logs, "
     "best_cost, best) -> best_cost: ClassSearch.climb from the current subset."},
    {"and_rows", and_rows, METH_VARARGS,
     "and_rows(sat, kept, n, out) -> count: the cases satisfying every kept condition."},
    {"case_lists", case_lists, METH_VARARGS,
     "case_lists(rule_ptr, rule_cases, positive, case_ptr, case_rules, right): each "
     "case's rules (a counting sort) and each rule's cases of the class."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_crules", "treegen's C accelerator for c4.5rules.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__crules(void)
{
    PyObject *m = PyModule_Create(&module);
    if (m != NULL && tg_add_constants(m) < 0)
        Py_CLEAR(m);
    return m;
}
