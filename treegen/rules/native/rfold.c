/* The levels of a path's failures (module _crules): each tree edge's condition's
 * failures folded into its parent's counts (row i of a depth: the cases failing more
 * than i of its conditions, up to FAIL_LEVELS rows), the span of the words holding a
 * case failing none (the walk's, rwalk.c, and fold_levels for the tests). */
#include "crules.h"

#if defined(__GNUC__) || defined(__clang__)
/* Two words as one vector (SSE2 on x86-64), read and written unaligned. */
typedef word word2 __attribute__((vector_size(16)));
static inline word2 load2(const word *p)
{
    word2 v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline void store2(word *p, word2 v)
{
    memcpy(p, &v, sizeof v);
}
#endif

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* Four words as one vector, in a copy of the fold built for AVX2 (chosen at run time):
 * the same ORs and ANDs, half the instructions of the two-word loop. */
#define RULES_FOLD_AVX2 1
typedef word word4 __attribute__((vector_size(32)));

__attribute__((target("avx2"))) static void fold_avx2(const word *in, word *out, Py_ssize_t W,
                                                      const word *sat)
{
    Py_ssize_t w = 0;
    for (; w + 4 <= W; w += 4) {
        word4 f, a, b;
        memcpy(&f, sat + w, sizeof f);
        f = ~f;
        for (int i = FAIL_LEVELS - 1; i > 0; i--) {
            memcpy(&a, in + i * W + w, sizeof a);
            memcpy(&b, in + (i - 1) * W + w, sizeof b);
            a = a | (b & f);
            memcpy(out + i * W + w, &a, sizeof a);
        }
        memcpy(&a, in + w, sizeof a);
        a = a | f;
        memcpy(out + w, &a, sizeof a);
    }
    for (; w < W; w++) {
        const word f = ~sat[w];
        for (int i = FAIL_LEVELS - 1; i > 0; i--)
            out[i * W + w] = in[i * W + w] | (in[(i - 1) * W + w] & f);
        out[w] = in[w] | f;
    }
}
#endif

/* Levels' next depth (out, FAIL_LEVELS rows of W words) from in with a condition's
 * failures counted (the cases outside sat). */
void tg_fold_into(const word *in, word *out, Py_ssize_t W, const word *sat)
{
    Py_ssize_t w = 0;
#ifdef RULES_FOLD_AVX2
    if (__builtin_cpu_supports("avx2")) {
        fold_avx2(in, out, W, sat);
        return;
    }
#endif
#if defined(__GNUC__) || defined(__clang__)
    /* two words at a time (the compiler at -O2 vectorizes no loop of unknown length) */
    for (; w + 2 <= W; w += 2) {
        const word2 f = ~load2(sat + w);
        for (int i = FAIL_LEVELS - 1; i > 0; i--)
            store2(out + i * W + w, load2(in + i * W + w) | (load2(in + (i - 1) * W + w) & f));
        store2(out + w, load2(in + w) | f);
    }
#endif
    for (; w < W; w++) {
        const word f = ~sat[w];
        for (int i = FAIL_LEVELS - 1; i > 0; i--)
            out[i * W + w] = in[i * W + w] | (in[(i - 1) * W + w] & f);
        out[w] = in[w] | f;
    }
}

/* Row d of rows (W words a row) set to sat and levels' depth d + 1 to depth d with that
 * condition's failures counted (tg_fold_levels). */
void tg_fold_row(word *levels, word *rows, Py_ssize_t d, Py_ssize_t W, const word *sat)
{
    word *row = rows + d * W;
    memmove(row, sat, (size_t)W * sizeof(word));
    tg_fold_into(levels + d * FAIL_LEVELS * W, levels + (d + 1) * FAIL_LEVELS * W, W, row);
}

/* [*from, *to) narrowed to the words from the first to the last one holding a case
 * outside fail (n cases; none: an empty span). */
void tg_span(const word *fail, Py_ssize_t n, Py_ssize_t *from, Py_ssize_t *to)
{
    const Py_ssize_t W = (n + 63) / 64;
    const word last = (n % 64) ? (((word)1 << (n % 64)) - 1) : ~(word)0;
    Py_ssize_t lo = *from, hi = *to;
    while (lo < hi && (~fail[lo] & (lo == W - 1 ? last : ~(word)0)) == 0)
        lo++;
    while (hi > lo && (~fail[hi - 1] & (hi - 1 == W - 1 ? last : ~(word)0)) == 0)
        hi--;
    *from = lo;
    *to = hi;
}

/* fold_levels(levels, rows, d, n, sat): row d of rows (W = ceil(n / 64) words a row)
 * set to sat, the cases satisfying the path's condition d, and levels[d + 1] to
 * levels[d] with that condition's failures counted.  levels: depths of FAIL_LEVELS rows
 * of W words, row i the cases failing more than i of the depth's conditions.  One call
 * and one pass a tree edge: the row's copy is made while it is folded. */
PyObject *tg_fold_levels(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *o[3];
    Py_ssize_t d, n;
    if (!PyArg_ParseTuple(args, "OOnnO", &o[0], &o[1], &d, &n, &o[2]))
        return NULL;
    if (d < 0) {
        PyErr_SetString(PyExc_IndexError, "fold_levels: depth below 0");
        return NULL;
    }
    const Py_ssize_t W = (n + 63) / 64;
    Py_buffer b[3];
    const tg_spec spec[3] = {
        {1, sizeof(word), (d + 2) * FAIL_LEVELS * W, "levels"},
        {1, sizeof(word), (d + 1) * W, "rows"},
        {0, sizeof(word), W, "sat"},
    };
    int got = tg_views(o, b, spec, 3);
    if (got < 3) {
        tg_release(b, got);
        return NULL;
    }
    tg_fold_row(b[0].buf, b[1].buf, d, W, b[2].buf);
    tg_release(b, 3);
    Py_RETURN_NONE;
}
