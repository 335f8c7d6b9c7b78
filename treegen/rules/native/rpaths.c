/* c4.5rules' path generalisation (paths._prune, Release 8's PruneRule) over packed
 * bitsets, and each kept rule's cases from those bitsets (module _crules). */
#include "crules.h"

#include <stdlib.h>

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

/* The cases behind prune's counts (rprune.h, with rows): those failing no alive
 * condition go to covered (room for n), those failing condition d alone among the alive
 * to list[d]; dropping d moves its list to covered.  A case is in one place at most
 * (it is noted when it first fails at most one alive condition, and only a drop changes
 * that), so covered never holds more than n.  Called without the GIL: plain malloc. */
typedef struct {
    int32_t *covered;
    Py_ssize_t n_cov;
    int32_t **list;
    Py_ssize_t *len, *cap;
    int failed; /* out of memory: the caller raises */
} Rows;

static void rows_note(Rows *r, Py_ssize_t d, Py_ssize_t w, word x)
{
    int32_t *to;
    if (d < 0) {
        to = r->covered + r->n_cov;
        r->n_cov += popcount(x);
    } else {
        const Py_ssize_t need = r->len[d] + popcount(x);
        if (need > r->cap[d]) {
            const Py_ssize_t cap = need > 2 * r->cap[d] ? need + 16 : 2 * r->cap[d];
            int32_t *grown = realloc(r->list[d], (size_t)cap * sizeof(int32_t));
            if (grown == NULL) {
                r->failed = 1;
                return;
            }
            r->list[d] = grown;
            r->cap[d] = cap;
        }
        to = r->list[d] + r->len[d];
        r->len[d] = need;
    }
    while (x) {
        *to++ = (int32_t)(w * 64 + __builtin_ctzll(x));
        x &= x - 1;
    }
}

static void rows_drop(Rows *r, Py_ssize_t d)
{
    if (r->len[d] > 0)
        memcpy(r->covered + r->n_cov, r->list[d], (size_t)r->len[d] * sizeof(int32_t));
    r->n_cov += r->len[d];
    r->len[d] = 0;
}

/* prune_sw, and prune_hw where the compiler can build a copy for a popcount
 * instruction (chosen at run time). */
#define PRUNE_FN prune_sw
#define PRUNE_WORDS prune_words_sw
#define PRUNE_ATTR
#define POP popcount
#include "rprune.h"
#undef PRUNE_FN
#undef PRUNE_WORDS
#undef PRUNE_ATTR
#undef POP
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define RULES_HW_POPCOUNT 1
#define PRUNE_FN prune_hw
#define PRUNE_WORDS prune_words_hw
#define PRUNE_ATTR __attribute__((target("popcnt")))
#define POP __builtin_popcountll
#include "rprune.h"
#undef PRUNE_FN
#undef PRUNE_WORDS
#undef PRUNE_ATTR
#undef POP
#endif

static void fold_rows(const word *restrict in, const word *restrict sat, word *restrict out,
                      Py_ssize_t W)
{
    for (Py_ssize_t w = 0; w < W; w++)
        out[w] = in[w] | ~sat[w];
    for (int i = 1; i < FAIL_LEVELS; i++) {
        const word *restrict prev = in + (i - 1) * W, *restrict cur = in + i * W;
        word *restrict o = out + i * W;
        for (Py_ssize_t w = 0; w < W; w++)
            o[w] = cur[w] | (prev[w] & ~sat[w]);
    }
}

/* fold_levels(levels, sat, out, n): out = levels with one more condition (its
 * satisfied cases sat) counted.  levels: FAIL_LEVELS rows of W words, row i the cases
 * failing more than i conditions. */
PyObject *tg_fold_levels(PyObject *self, PyObject *args)
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
    /* a level at a time over the words: each loop the compiler vectorises (in and out
     * are rows of one array, but never the same rows: restrict) */
    const char *o0 = b[2].buf, *o1 = o0 + FAIL_LEVELS * W * (Py_ssize_t)sizeof(word);
    const char *l0 = b[0].buf, *l1 = l0 + FAIL_LEVELS * W * (Py_ssize_t)sizeof(word);
    const char *s0 = b[1].buf, *s1 = s0 + W * (Py_ssize_t)sizeof(word);
    if ((o0 < l1 && l0 < o1) || (o0 < s1 && s0 < o1)) {
        tg_release(b, 3);
        PyErr_SetString(PyExc_ValueError, "fold_levels: out overlaps levels or sat");
        return NULL;
    }
    fold_rows(b[0].buf, b[1].buf, b[2].buf, W);
    tg_release(b, 3);
    Py_RETURN_NONE;
}

/* prune_path(sat, wrong, k, n, log_cf, coeff, default_error, alive, levels[, rows, count])
 *   -> pess or None.
 *
 * Release 8's PruneRule on one path of k conditions over n cases: sat (k rows of
 * W = ceil(n / 64) words) the cases satisfying each condition, wrong (W words) the
 * cases of other classes.  alive (k bytes, written) says which conditions are kept;
 * the result is the rule's pessimistic error rate, or None when there is no rule.
 * levels: fold_levels' counts of the k conditions' failures.  rows (int32, n) and count
 * (int64, 1), given: the cases satisfying every kept condition and how many, when there
 * is a rule (in runs as they were counted, not sorted: the caller sorts the few it
 * keeps). */
PyObject *tg_prune_path(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *o[6] = {NULL, NULL, NULL, NULL, Py_None, Py_None};
    Py_ssize_t k, n;
    Bound bd;
    double default_error;
    if (!PyArg_ParseTuple(args, "OOnndddOO|OO", &o[0], &o[1], &k, &n, &bd.log_cf, &bd.coeff,
                          &default_error, &o[2], &o[3], &o[4], &o[5]))
        return NULL;
    bd.cf = 0.0;
    if ((o[4] == Py_None) != (o[5] == Py_None)) {
        PyErr_SetString(PyExc_TypeError, "prune_path: rows and count go together");
        return NULL;
    }
    const int nb = o[4] == Py_None ? 4 : 6;
    const Py_ssize_t W = (n + 63) / 64;
    Py_buffer b[6];
    const tg_spec spec[6] = {
        {0, sizeof(word), k * W, "sat"},
        {0, sizeof(word), W, "wrong"},
        {1, 1, k, "alive"},
        {0, sizeof(word), FAIL_LEVELS * W, "levels"},
        {1, sizeof(int32_t), n, "rows"},
        {1, sizeof(int64_t), 1, "count"},
    };
    int got;
    PyObject *result = NULL;
    long long *tot = NULL, *err = NULL;
    Py_ssize_t *al = NULL;
    int32_t *list = NULL;
    Rows rows;
    memset(&rows, 0, sizeof rows);
    if ((got = tg_views(o, b, spec, nb)) < nb)
        goto done;
    list = PyMem_Malloc((size_t)(W + 1) * sizeof(int32_t));
    tot = PyMem_Malloc((size_t)(k + 1) * sizeof(long long));
    err = PyMem_Malloc((size_t)(k + 1) * sizeof(long long));
    al = PyMem_Malloc((size_t)(k + 1) * sizeof(Py_ssize_t));
    if (tot == NULL || err == NULL || al == NULL || list == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (nb == 6) {
        rows.covered = b[4].buf;
        rows.list = calloc((size_t)(k + 1), sizeof(int32_t *));
        rows.len = calloc((size_t)(k + 1), sizeof(Py_ssize_t));
        rows.cap = calloc((size_t)(k + 1), sizeof(Py_ssize_t));
        if (rows.list == NULL || rows.len == NULL || rows.cap == NULL) {
            PyErr_NoMemory();
            goto done;
        }
    }
    {
        const word *sat = b[0].buf, *wrong = b[1].buf, *levels = b[3].buf;
        char *alive = b[2].buf;
        Rows *keep = nb == 6 ? &rows : NULL;
        double pess;
        Py_BEGIN_ALLOW_THREADS;
#ifdef RULES_HW_POPCOUNT
        if (__builtin_cpu_supports("popcnt"))
            pess = prune_hw(&bd, sat, wrong, levels, k, n, default_error, alive, tot, err, al, list,
                            keep);
        else
#endif
            pess = prune_sw(&bd, sat, wrong, levels, k, n, default_error, alive, tot, err, al, list,
                            keep);
        Py_END_ALLOW_THREADS;
        if (rows.failed) {
            PyErr_NoMemory();
            goto done;
        }
        if (keep != NULL)
            *(int64_t *)b[5].buf = pess >= 0 ? (int64_t)rows.n_cov : 0;
        if (pess < 0) {
            Py_INCREF(Py_None);
            result = Py_None;
        } else
            result = PyFloat_FromDouble(pess);
    }
done:
    if (rows.list != NULL)
        for (Py_ssize_t d = 0; d <= k; d++)
            free(rows.list[d]);
    free(rows.list);
    free(rows.len);
    free(rows.cap);
    PyMem_Free(tot);
    PyMem_Free(err);
    PyMem_Free(al);
    PyMem_Free(list);
    tg_release(b, got > 0 ? got : 0);
    return result;
}

/* sort_kept(orders, alive, k, out) -> count: the kept conditions of a path (alive, k
 * bytes) in Release 8's order (paths._sorted): for each place in turn, a scan from it
 * takes the first kept condition before which no later one comes (Before on orders,
 * k rows of attribute, kind's rank, cut) and swaps it in.  Their indices into the path
 * go to out (int64, k); returns how many. */
PyObject *tg_sort_kept(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *o[3];
    Py_ssize_t k;
    if (!PyArg_ParseTuple(args, "OOnO", &o[0], &o[1], &k, &o[2]))
        return NULL;
    Py_buffer b[3];
    const tg_spec spec[3] = {
        {0, sizeof(double), 3 * k, "orders"},
        {0, 1, k, "alive"},
        {1, sizeof(int64_t), k, "out"},
    };
    int got = tg_views(o, b, spec, 3);
    if (got < 3) {
        tg_release(b, got);
        return NULL;
    }
    const double *ord = b[0].buf;
    const char *alive = b[1].buf;
    int64_t *idx = b[2].buf;
    char *done = PyMem_Malloc((size_t)(k + 1));
    if (done == NULL) {
        tg_release(b, 3);
        return PyErr_NoMemory();
    }
    Py_ssize_t kept = 0;
    for (Py_ssize_t d = 0; d < k; d++) {
        idx[d] = d;
        done[d] = !alive[d];
        kept += alive[d] != 0;
    }
    for (Py_ssize_t place = 0; place < kept; place++) {
        Py_ssize_t best = -1;
        for (Py_ssize_t d = place; d < k; d++) {
            if (done[d])
                continue;
            if (best >= 0) {
                const double *x = ord + 3 * idx[d], *y = ord + 3 * idx[best];
                if (!(x[0] < y[0] || x[1] < y[1] || (x[0] == y[0] && x[2] < y[2])))
                    continue;
            }
            best = d;
        }
        if (best != place) {
            const int64_t t = idx[place];
            idx[place] = idx[best];
            idx[best] = t;
            done[best] = done[place];
        }
        done[place] = 1;
    }
    PyMem_Free(done);
    tg_release(b, 3);
    return PyLong_FromSsize_t(kept);
}

/* cut_bits(col, t, le, gt, n): the cases of a float32 column (n values) with x <= t and
 * with x > t, t rounded to float32 (CaseColumns.satisfied's comparisons), packed into
 * le and gt (W words each, the bits past n clear).  An unknown value (NaN) is in
 * neither.  One pass over the column, no array of flags. */
PyObject *tg_cut_bits(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *o[3];
    double t;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "OdOOn", &o[0], &t, &o[1], &o[2], &n))
        return NULL;
    const Py_ssize_t W = (n + 63) / 64;
    Py_buffer b[3];
    const tg_spec spec[3] = {
        {0, sizeof(float), n, "col"},
        {1, sizeof(word), W, "le"},
        {1, sizeof(word), W, "gt"},
    };
    int got = tg_views(o, b, spec, 3);
    if (got < 3) {
        tg_release(b, got);
        return NULL;
    }
    const float *x = b[0].buf, cut = (float)t;
    word *le = b[1].buf, *gt = b[2].buf;
    for (Py_ssize_t w = 0; w < W; w++) {
        const Py_ssize_t lo = w * 64, hi = lo + 64 < n ? lo + 64 : n;
        word a = 0, c = 0;
        for (Py_ssize_t i = lo; i < hi; i++) {
            a |= (word)(x[i] <= cut) << (i - lo);
            c |= (word)(x[i] > cut) << (i - lo);
        }
        le[w] = a;
        gt[w] = c;
    }
    tg_release(b, 3);
    Py_RETURN_NONE;
}
