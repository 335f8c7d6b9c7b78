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
    return __builtin_popcountll(x);
}

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

/* prune_path(sat, wrong, k, n, log_cf, coeff, default_error, alive) -> pess or None.
 *
 * Release 8's PruneRule on one path of k conditions over n cases: sat (k rows of
 * W = ceil(n / 64) words) the cases satisfying each condition, wrong (W words) the
 * cases of other classes.  alive (k bytes, written) says which conditions are kept;
 * the result is the rule's pessimistic error rate, or None when there is no rule. */
static PyObject *prune_path(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *o[3];
    Py_ssize_t k, n;
    Bound bd;
    double default_error;
    if (!PyArg_ParseTuple(args, "OOnndddO", &o[0], &o[1], &k, &n, &bd.log_cf, &bd.coeff,
                          &default_error, &o[2]))
        return NULL;
    bd.cf = 0.0;
    const Py_ssize_t W = (n + 63) / 64;
    Py_buffer b[3];
    const tg_spec spec[3] = {
        {0, sizeof(word), k * W, "sat"},
        {0, sizeof(word), W, "wrong"},
        {1, 1, k, "alive"},
    };
    int got;
    PyObject *result = NULL;
    long long *tot = NULL, *err = NULL;
    Py_ssize_t *al = NULL;
    if ((got = tg_views(o, b, spec, 3)) < 3)
        goto done;
    tot = PyMem_Malloc((size_t)(k + 1) * sizeof(long long));
    err = PyMem_Malloc((size_t)(k + 1) * sizeof(long long));
    al = PyMem_Malloc((size_t)(k + 1) * sizeof(Py_ssize_t));
    if (tot == NULL || err == NULL || al == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    {
        const word *sat = b[0].buf, *wrong = b[1].buf;
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
            for (Py_ssize_t w = 0; w < W; w++) {
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

static PyMethodDef methods[] = {
    {"prune_path", prune_path, METH_VARARGS,
     "prune_path(sat, wrong, k, n, log_cf, coeff, default_error, alive): paths._prune "
     "over packed bitsets."},
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
