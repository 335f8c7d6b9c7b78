/* c4.5rules' path generalisation (paths._prune, Release 8's PruneRule) over packed
 * bitsets, and each kept rule's cases from those bitsets (module _crules). */
#include "crules.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

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

/* Whether the state of the path's k conditions (alive: which are left) is in the memo
 * already; else it is added.  A state is the class and the path's conditions up to its
 * last alive one, an alive one as its edge's xkey (rwalknew.c), a dropped one as -1:
 * from it the search goes the same way whatever the dropped ones were, and the places
 * of those up to the last alive condition are what the kept conditions' order
 * (tg_sort_places, Release 8's selection) depends on besides the conditions. */
static int memo_seen(const Memo *memo, const char *alive, Py_ssize_t k)
{
    int32_t *key = memo->key;
    Py_ssize_t last = k;
    while (last > 0 && !alive[last - 1])
        last--;
    key[0] = memo->cls;
    for (Py_ssize_t d = 0; d < last; d++)
        key[1 + d] = alive[d] ? memo->ids[d] : -1;
    return tg_keys_seen(memo->set, key, 1 + last);
}

/* prune_sw, and where the compiler can build them, prune_hw for a popcount instruction
 * and prune_avx2 for AVX2 and BMI2 as well (its word scans in wider registers: about 5%
 * of the walk at 100k rows); chosen at run time. */
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
#define PRUNE_FN prune_avx2
#define PRUNE_WORDS prune_words_avx2
#define PRUNE_ATTR __attribute__((target("popcnt,avx2,bmi,bmi2")))
#include "rprune.h"
#undef PRUNE_FN
#undef PRUNE_WORDS
#undef PRUNE_ATTR
#undef POP
#endif

/* out (ceil(n / 64) words) the cases whose float32 value col[i] is at most cut (NaN,
 * unknown, is not), case i at bit i (tg_pack_le). */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define RULES_PACK_AVX2 1
#include <immintrin.h>
/* tg_pack_le_row's full words eight values at a time, in a copy built for AVX2 (chosen
 * at run time): _CMP_LE_OQ is cmpleps' predicate (false on NaN); the words done. */
__attribute__((target("avx2"))) static Py_ssize_t pack_le_avx2(const float *col, float cut,
                                                               word *out, Py_ssize_t n)
{
    const __m256 c8 = _mm256_set1_ps(cut);
    Py_ssize_t w = 0;
    for (; (w + 1) * 64 <= n; w++) {
        word x = 0;
        for (int j = 0; j < 8; j++) {
            const __m256 v = _mm256_loadu_ps(col + w * 64 + 8 * j);
            x |= (word)(unsigned)_mm256_movemask_ps(_mm256_cmp_ps(v, c8, _CMP_LE_OQ)) << (8 * j);
        }
        out[w] = x;
    }
    return w;
}
#endif

void tg_pack_le_row(const float *col, float cut, word *out, Py_ssize_t n)
{
    const Py_ssize_t W = (n + 63) / 64;
    Py_ssize_t w = 0;
#ifdef RULES_PACK_AVX2
    if (__builtin_cpu_supports("avx2"))
        w = pack_le_avx2(col, cut, out, n);
#endif
#ifdef __SSE2__
    /* the full words four values at a time (cmpleps is false on NaN, as numpy's <=) */
    const __m128 c4 = _mm_set1_ps(cut);
    for (; (w + 1) * 64 <= n; w++) {
        word x = 0;
        for (int j = 0; j < 16; j++) {
            const __m128 v = _mm_loadu_ps(col + w * 64 + 4 * j);
            x |= (word)(unsigned)_mm_movemask_ps(_mm_cmple_ps(v, c4)) << (4 * j);
        }
        out[w] = x;
    }
#endif
    for (; w < W; w++) {
        const Py_ssize_t start = w * 64, end = start + 64 < n ? start + 64 : n;
        word x = 0;
        for (Py_ssize_t i = start; i < end; i++)
            x |= (word)(col[i] <= cut) << (i - start);
        out[w] = x;
    }
}

/* pack_le(col, t, out, n): out (W = ceil(n / 64) words) the cases whose float32 value
 * col[i] is at most t (a float32 value; NaN, unknown, is not), case i at bit i: numpy's
 * less_equal of the column and np.float32(t), packed, without the array of flags. */
PyObject *tg_pack_le(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *o[2];
    double t;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "OdOn", &o[0], &t, &o[1], &n))
        return NULL;
    const Py_ssize_t W = (n + 63) / 64;
    Py_buffer b[2];
    const tg_spec spec[2] = {
        {0, sizeof(float), n, "col"},
        {1, sizeof(word), W, "out"},
    };
    int got = tg_views(o, b, spec, 2);
    if (got < 2) {
        tg_release(b, got);
        return NULL;
    }
    tg_pack_le_row(b[0].buf, (float)t, b[1].buf, n);
    tg_release(b, 2);
    Py_RETURN_NONE;
}

/* PruneRule on a path (rprune.h), by the copy for the processor's instructions: sat the
 * path's k rows; scratch tot, err, al, arow (k + 1 each) and list (W + 1). */
double tg_prune_run(const Bound *bd, const word *const *sat, const word *wrong,
                    const word *levels, Py_ssize_t k, Py_ssize_t n, double default_error,
                    char *alive, long long *tot, long long *err, Py_ssize_t *al,
                    const word **arow, int32_t *list, const Memo *memo, int *met)
{
#ifdef RULES_HW_POPCOUNT
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2") &&
        __builtin_cpu_supports("popcnt"))
        return prune_avx2(bd, sat, wrong, levels, k, n, default_error, alive, tot, err, al,
                          arow, list, memo, met);
    if (__builtin_cpu_supports("popcnt"))
        return prune_hw(bd, sat, wrong, levels, k, n, default_error, alive, tot, err, al, arow,
                        list, memo, met);
#endif
    return prune_sw(bd, sat, wrong, levels, k, n, default_error, alive, tot, err, al, arow, list,
                    memo, met);
}

/* prune_path(sat, wrong, k, n, log_cf, coeff, default_error, alive, levels)
 *   -> pess or None.
 *
 * Release 8's PruneRule on one path of k conditions over n cases: sat (k rows of
 * W = ceil(n / 64) words) the cases satisfying each condition, wrong (W words) the
 * cases of other classes.  alive (k bytes, written) says which conditions are kept;
 * the result is the rule's pessimistic error rate, or None when there is no rule.
 * levels: fold_levels' counts of the k conditions' failures. */
PyObject *tg_prune_path(PyObject *self, PyObject *args)
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
    int32_t *list = NULL;
    const word **rows = NULL;
    if ((got = tg_views(o, b, spec, 4)) < 4)
        goto done;
    list = PyMem_Malloc((size_t)(W + 1) * sizeof(int32_t));
    tot = PyMem_Malloc((size_t)(k + 1) * sizeof(long long));
    err = PyMem_Malloc((size_t)(k + 1) * sizeof(long long));
    al = PyMem_Malloc((size_t)(k + 1) * sizeof(Py_ssize_t));
    rows = PyMem_Malloc(2 * (size_t)(k + 1) * sizeof(const word *)); /* and arow's */
    if (tot == NULL || err == NULL || al == NULL || list == NULL || rows == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    {
        const word *sat = b[0].buf, *wrong = b[1].buf, *levels = b[3].buf;
        char *alive = b[2].buf;
        double pess;
        for (Py_ssize_t d = 0; d < k; d++)
            rows[d] = sat + d * W;
        Py_BEGIN_ALLOW_THREADS;
        pess = tg_prune_run(&bd, rows, wrong, levels, k, n, default_error, alive, tot, err, al,
                            rows + k + 1, list, NULL, NULL);
        Py_END_ALLOW_THREADS;
        if (pess < 0) {
            Py_INCREF(Py_None);
            result = Py_None;
        } else
            result = PyFloat_FromDouble(pess);
    }
done:
    PyMem_Free(rows);
    PyMem_Free(tot);
    PyMem_Free(err);
    PyMem_Free(al);
    PyMem_Free(list);
    tg_release(b, got > 0 ? got : 0);
    return result;
}

/* The cases satisfying every row of rows (k of them) and outside more (NULL: none),
 * into out: their places, or with order their rows (tg_and_rows).  Only the words
 * from .. to - 1 may hold one.  Returns how many. */
Py_ssize_t tg_rows_of(const word *const *rows, Py_ssize_t k, Py_ssize_t n, const word *more,
                      Py_ssize_t from, Py_ssize_t to, const int32_t *order, int32_t *out)
{
    const Py_ssize_t W = (n + 63) / 64;
    Py_ssize_t count = 0;
    const word last = (n % 64) ? (((word)1 << (n % 64)) - 1) : ~(word)0;
    for (Py_ssize_t w = from; w < to; w++) {
        word x = w == W - 1 ? last : ~(word)0;
        if (more != NULL)
            x &= ~more[w];
        for (Py_ssize_t j = 0; j < k && x; j++)
            x &= rows[j][w];
        while (x) {
            const int32_t c = (int32_t)(w * 64 + __builtin_ctzll(x));
            out[count++] = order != NULL ? order[c] : c;
            x &= x - 1;
        }
    }
    return count;
}

/* and_rows(sat, kept, n, out[, levels, removed[, order]]) -> count: the cases
 * satisfying every condition kept (indices into sat's rows), ascending, into out (int32,
 * at least n); how many.  levels (fold_levels' counts of the path's failures), given
 * with the number of the path's conditions not kept: such a case fails at most that
 * many of the path's, so a word whose cases all fail more is passed over.  order (int32,
 * n): case i is row order[i], and out holds the rows instead, in the cases' order (the
 * caller sorts them: numpy's sort is faster than a merge of the order's runs). */
PyObject *tg_and_rows(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *o[5] = {NULL, NULL, NULL, Py_None, Py_None};
    Py_ssize_t n, removed = FAIL_LEVELS;
    if (!PyArg_ParseTuple(args, "OOnO|OnO", &o[0], &o[1], &n, &o[2], &o[3], &removed, &o[4]))
        return NULL;
    const Py_ssize_t W = (n + 63) / 64;
    Py_ssize_t k = tg_items(o[1], sizeof(int64_t));
    if (k < 0)
        return NULL;
    const int skip = o[3] != Py_None && removed >= 0 && removed < FAIL_LEVELS;
    /* the views: sat, kept, out, then levels (o[3]) and order (o[4]) as given */
    PyObject *ob[5] = {o[0], o[1], o[2], o[3], o[4]};
    tg_spec spec[5] = {
        {0, sizeof(word), 0, "sat"},
        {0, sizeof(int64_t), k, "kept"},
        {1, sizeof(int32_t), n, "out"},
        {0, sizeof(word), FAIL_LEVELS * W, "levels"},
        {0, sizeof(int32_t), n, "order"},
    };
    int nb = 3;
    const int at_levels = skip ? nb++ : -1;
    int at_order = -1;
    if (o[4] != Py_None) {
        at_order = nb;
        ob[nb] = o[4];
        spec[nb] = spec[4];
        nb++;
    }
    Py_buffer b[5];
    int got = tg_views(ob, b, spec, nb);
    if (got < nb) {
        tg_release(b, got);
        return NULL;
    }
    const word *sat = b[0].buf;
    const int64_t *kept = b[1].buf;
    int32_t *out = b[2].buf;
    const word *more = at_levels >= 0 ? (const word *)b[at_levels].buf + removed * W : NULL;
    const int32_t *order = at_order >= 0 ? b[at_order].buf : NULL;
    const Py_ssize_t rows = b[0].len / (Py_ssize_t)sizeof(word) / (W ? W : 1);
    for (Py_ssize_t j = 0; j < k; j++)
        if (kept[j] < 0 || kept[j] >= rows) {
            tg_release(b, nb);
            PyErr_SetString(PyExc_IndexError, "kept: condition out of range");
            return NULL;
        }
    const word **krows = PyMem_Malloc((size_t)(k + 1) * sizeof(const word *));
    if (krows == NULL) {
        tg_release(b, nb);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t j = 0; j < k; j++)
        krows[j] = sat + kept[j] * W;
    const Py_ssize_t count = tg_rows_of(krows, k, n, more, 0, W, order, out);
    PyMem_Free(krows);
    tg_release(b, nb);
    return PyLong_FromSsize_t(count);
}

/* The kept conditions (alive, k bytes) of a path in Release 8's order (tg_sort_kept),
 * their places into idx (k); done: k bytes of scratch.  Returns how many. */
Py_ssize_t tg_sort_places(const double *ord, const char *alive, Py_ssize_t k, int64_t *idx,
                          char *done)
{
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
    return kept;
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
    const Py_ssize_t kept = tg_sort_places(ord, alive, k, idx, done);
    PyMem_Free(done);
    tg_release(b, 3);
    return PyLong_FromSsize_t(kept);
}
