/* Routing a bucket's cases through their tasks' chosen tests, in one pass each:
 * every entry's branch (route_branches), the known and unknown weight per
 * (task, branch) (branch_sums) and the entries' destinations in the children
 * that part_sorted reads (part_dest).  levelwise/partition.py drives them; its
 * numpy code computes the same arrays (one gather per kind of test, np.add.at or
 * bincount, a 1-D gather of the children). */
#include "cscan.h"
#include <math.h>

/* route_branches(tid, rows, cvals, stride, cpos, cut, codes, code_size, n_nom, npos, out_br,
 *                width=0)
 *
 * Entry e (case rows[e] of task t = tid[e]) goes down branch out_br[e]:
 *   cpos[t] >= 0 (a continuous test on the cvals row cpos[t], cvals being a
 *     (Kc, stride) table of float32 or double, as itemsize says; with width > 0,
 *     column cpos[t] of a (rows, width) table, a case's values side by side): -1 when
 *     its value is NaN, else 0 when value <= cut[t] (compared in double), 1 otherwise;
 *   npos[t] >= 0 (a multiway nominal test on column npos[t] of the (rows, n_nom)
 *     code table, code_size bytes signed): its code - 1 (-1: unknown);
 *   neither: -2 (no test, or a test the caller routes itself). */
#define ROUTE_LOOP(REAL)                                                                    \
    do {                                                                                    \
        const REAL *cv = b[2].buf;                                                          \
        for (Py_ssize_t e = 0; e < E; e++) {                                                \
            const Py_ssize_t t = tid[e], r = rows[e];                                       \
            if (t < 0 || t >= T || r < 0)                                                   \
                goto bad;                                                                   \
            if (cpos[t] >= 0) {                                                             \
                const Py_ssize_t i = width ? r * width + cpos[t] : cpos[t] * stride + r;    \
                if ((width ? cpos[t] >= width : r >= stride) || i >= NV)                    \
                    goto bad;                                                               \
                const REAL v = cv[i];                                                       \
                br[e] = v != v ? -1 : ((double)v <= cut[t] ? 0 : 1);                        \
            } else if (npos[t] >= 0) {                                                      \
                const Py_ssize_t i = r * n_nom + npos[t];                                   \
                if (npos[t] >= n_nom || i >= NK)                                            \
                    goto bad;                                                               \
                br[e] = (Py_ssize_t)tg_code_at(codes, code_size, i) - 1;                    \
            } else {                                                                        \
                br[e] = -2;                                                                 \
            }                                                                               \
        }                                                                                   \
    } while (0)

PyObject *tg_route_branches(PyObject *self, PyObject *args)
{
    enum { NB = 8 };
    PyObject *o[NB];
    Py_ssize_t stride, code_size, n_nom, width = 0;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOnOOOnnOO|n", &o[0], &o[1], &o[2], &stride, &o[3], &o[4],
                          &o[5], &code_size, &n_nom, &o[6], &o[7], &width))
        return NULL;
    if (stride < 1 || width < 0 || n_nom < 0 ||
        (code_size != 1 && code_size != 2 && code_size != 4)) {
        PyErr_SetString(PyExc_ValueError, "route_branches: bad sizes");
        return NULL;
    }
    Py_ssize_t vsz;
    {
        Py_buffer probe; /* float32 or double, as the values come */
        if (PyObject_GetBuffer(o[2], &probe, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
            return NULL;
        vsz = probe.itemsize;
        PyBuffer_Release(&probe);
    }
    if (vsz != sizeof(float) && vsz != sizeof(double)) {
        PyErr_SetString(PyExc_ValueError, "route_branches: values must be float32 or double");
        return NULL;
    }
    Py_buffer b[NB];
    int got = 0;
    PyObject *result = NULL;
    Py_ssize_t E, T, NV, NK;
    /* Sizes come from these buffers; the others are checked against them. */
    if ((E = tg_items(o[0], sizeof(Py_ssize_t))) < 0 || (T = tg_items(o[3], sizeof(Py_ssize_t))) < 0 ||
        (NV = tg_items(o[2], vsz)) < 0 || (NK = tg_items(o[5], code_size)) < 0)
        return NULL;
    const tg_spec spec[NB] = {
        {0, sizeof(Py_ssize_t), E, "tid"},
        {0, sizeof(Py_ssize_t), E, "rows"},
        {0, vsz, NV, "cvals"},
        {0, sizeof(Py_ssize_t), T, "cpos"},
        {0, sizeof(double), T, "cut"},
        {0, code_size, NK, "codes"},
        {0, sizeof(Py_ssize_t), T, "npos"},
        {1, sizeof(Py_ssize_t), E, "out_br"},
    };
    if ((got = tg_views(o, b, spec, NB)) < NB)
        goto done;
    {
        const Py_ssize_t *tid = b[0].buf, *rows = b[1].buf, *cpos = b[3].buf, *npos = b[6].buf;
        const double *cut = b[4].buf;
        const char *codes = b[5].buf;
        Py_ssize_t *br = b[7].buf;
        if (vsz == sizeof(float))
            ROUTE_LOOP(float);
        else
            ROUTE_LOOP(double);
    }
    result = Py_NewRef(Py_None);
    goto done;
bad:
    PyErr_SetString(PyExc_IndexError, "route_branches: index out of range");
done:
    tg_release(b, got);
    return result;
}

/* branch_sums(tid, br, w, F, out_known, out_count, out_unknown)
 *
 * Per (task t, branch v) cell t * F + v: the weights of the entries with
 * br[e] == v summed in entry order (out_known) and how many (out_count); per
 * task the weights of the entries with br[e] == -1 (out_unknown).  Entries with
 * br[e] == -2 count nowhere.  Sums in float32 (np.add.at's) or double
 * (bincount's), as w comes (all float arrays of one type). */
#define SUMS_LOOP(REAL)                                                                     \
    do {                                                                                    \
        const REAL *w = b[2].buf;                                                           \
        REAL *kv = b[3].buf, *uk = b[5].buf;                                                \
        for (Py_ssize_t i = 0; i < NC; i++)                                                 \
            kv[i] = 0;                                                                      \
        for (Py_ssize_t i = 0; i < T; i++)                                                  \
            uk[i] = 0;                                                                      \
        for (Py_ssize_t e = 0; e < E; e++) {                                                \
            const Py_ssize_t v = br[e], t = tid[e];                                         \
            if (v == -2)                                                                    \
                continue;                                                                   \
            if (v < -2 || v >= F || t < 0 || t >= T)                                        \
                goto bad;                                                                   \
            if (v >= 0) {                                                                   \
                kv[t * F + v] += w[e];                                                      \
                count[t * F + v]++;                                                         \
            } else {                                                                        \
                uk[t] += w[e];                                                              \
            }                                                                               \
        }                                                                                   \
    } while (0)

PyObject *tg_branch_sums(PyObject *self, PyObject *args)
{
    enum { NB = 6 };
    PyObject *o[NB];
    Py_ssize_t F;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOnOOO", &o[0], &o[1], &o[2], &F, &o[3], &o[4], &o[5]))
        return NULL;
    Py_ssize_t wsz;
    {
        Py_buffer probe;
        if (PyObject_GetBuffer(o[2], &probe, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
            return NULL;
        wsz = probe.itemsize;
        PyBuffer_Release(&probe);
    }
    if (F < 1 || (wsz != sizeof(float) && wsz != sizeof(double))) {
        PyErr_SetString(PyExc_ValueError, "branch_sums: bad sizes");
        return NULL;
    }
    Py_buffer b[NB];
    int got = 0;
    PyObject *result = NULL;
    Py_ssize_t E, T;
    if ((E = tg_items(o[0], sizeof(Py_ssize_t))) < 0 || (T = tg_items(o[5], wsz)) < 0)
        return NULL;
    const Py_ssize_t NC = T * F;
    const tg_spec spec[NB] = {
        {0, sizeof(Py_ssize_t), E, "tid"},
        {0, sizeof(Py_ssize_t), E, "br"},
        {0, wsz, E, "w"},
        {1, wsz, NC, "out_known"},
        {1, sizeof(Py_ssize_t), NC, "out_count"},
        {1, wsz, T, "out_unknown"},
    };
    if ((got = tg_views(o, b, spec, NB)) < NB)
        goto done;
    {
        const Py_ssize_t *tid = b[0].buf, *br = b[1].buf;
        Py_ssize_t *count = b[4].buf;
        memset(count, 0, (size_t)NC * sizeof(Py_ssize_t));
        if (wsz == sizeof(float))
            SUMS_LOOP(float);
        else
            SUMS_LOOP(double);
    }
    result = Py_NewRef(Py_None);
    goto done;
bad:
    PyErr_SetString(PyExc_IndexError, "branch_sums: index out of range");
done:
    tg_release(b, got);
    return result;
}

/* part_dest(tid, br, child_of, F, pos_known, out_dest)
 *
 * part_sorted's destination of every entry: (child_of[tid * F + br] << 32) |
 * pos_known[e] for an entry with a known branch, -1 for one with an unknown
 * value, -2 for an entry of a task that does not split. */
PyObject *tg_part_dest(PyObject *self, PyObject *args)
{
    enum { NB = 5 };
    PyObject *o[NB];
    Py_ssize_t F;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOnOO", &o[0], &o[1], &o[2], &F, &o[3], &o[4]))
        return NULL;
    if (F < 1) {
        PyErr_SetString(PyExc_ValueError, "part_dest: bad sizes");
        return NULL;
    }
    Py_buffer b[NB];
    int got = 0;
    PyObject *result = NULL;
    Py_ssize_t E, NR;
    if ((E = tg_items(o[0], sizeof(Py_ssize_t))) < 0 ||
        (NR = tg_items(o[2], sizeof(Py_ssize_t))) < 0)
        return NULL;
    const tg_spec spec[NB] = {
        {0, sizeof(Py_ssize_t), E, "tid"},
        {0, sizeof(Py_ssize_t), E, "br"},
        {0, sizeof(Py_ssize_t), NR, "child_of"},
        {0, sizeof(Py_ssize_t), E, "pos_known"},
        {1, sizeof(int64_t), E, "out_dest"},
    };
    if ((got = tg_views(o, b, spec, NB)) < NB)
        goto done;
    {
        const Py_ssize_t *tid = b[0].buf, *br = b[1].buf, *child_of = b[2].buf;
        const Py_ssize_t *pos_known = b[3].buf;
        int64_t *dest = b[4].buf;
        for (Py_ssize_t e = 0; e < E; e++) {
            const Py_ssize_t v = br[e];
            if (v < 0) {
                if (v < -2)
                    goto bad;
                dest[e] = v == -1 ? -1 : -2;
                continue;
            }
            const Py_ssize_t t = tid[e];
            if (v >= F || t < 0 || (t + 1) * F > NR)
                goto bad;
            /* As numpy's int64 shift and or, without a signed shift's undefined cases. */
            const uint64_t c = (uint64_t)(int64_t)child_of[t * F + v];
            dest[e] = (int64_t)((c << 32) | (uint64_t)(int64_t)pos_known[e]);
        }
    }
    result = Py_NewRef(Py_None);
    goto done;
bad:
    PyErr_SetString(PyExc_IndexError, "part_dest: index out of range");
done:
    tg_release(b, got);
    return result;
}
