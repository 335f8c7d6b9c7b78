/* Weighted counts: np.add.at in float32 (add_at), the nominal attributes'
 * Freq[v][c] (nominal_counts) and the bucket's case records with their
 * unknown weights (gather_values).  levelwise/grow.py drives them. */
#include "cscan.h"
#include <stdlib.h>

/* add_at(out, idx, w): out[idx[i]] += w[i] for i in order, in float32 --
 * numpy's np.add.at(out, idx, w) on float32 arrays (sequential, rounding
 * after every addition), without its per-element dispatch. */
PyObject *tg_add_at(PyObject *self, PyObject *args)
{
    PyObject *o[3];
    (void)self;
    if (!PyArg_ParseTuple(args, "OOO", &o[0], &o[1], &o[2]))
        return NULL;
    Py_buffer b[3];
    int got = 0;
    PyObject *result = NULL;
    Py_ssize_t n_out, n;
    if ((n_out = tg_items(o[0], sizeof(float))) < 0 || (n = tg_items(o[1], sizeof(Py_ssize_t))) < 0)
        return NULL;
    const tg_spec spec[3] = {
        {1, sizeof(float), n_out, "out"},
        {0, sizeof(Py_ssize_t), n, "idx"},
        {0, sizeof(float), n, "w"},
    };
    if ((got = tg_views(o, b, spec, 3)) < 3)
        goto done;
    {
        float *out = b[0].buf;
        const Py_ssize_t *idx = b[1].buf;
        const float *w = b[2].buf;
        for (Py_ssize_t i = 0; i < n; i++)
            if (idx[i] < 0 || idx[i] >= n_out) {
                PyErr_SetString(PyExc_IndexError, "add_at: index out of range");
                goto done;
            }
        for (Py_ssize_t i = 0; i < n; i++)
            out[idx[i]] += w[i];
    }
    result = Py_NewRef(Py_None);
done:
    tg_release(b, got);
    return result;
}

/* nominal_counts(codes, code_size, n_nom, rows, cols, base, w, stride, C, out):
 * for every case e in order and every listed attribute k,
 *     out[base[e] + k * stride + codes[rows[e], cols[k]] * C] += w[e]
 * -- levelwise/evaluate.py's _score_nominal Freq[v][c] sums (one np.add.at per attribute
 * in float32, one bincount per attribute in double), each cell receiving the same
 * additions in the same order.  w and out are both float32 (c45) or both double
 * (j48), as out comes.  codes is the
 * (n_rows + 1, n_nom) code table, int8, int16 or int32 (code_size bytes), read at
 * the bucket's rows. */
#define NOMINAL_LOOP(REAL)                                                             \
    do {                                                                               \
        const REAL *w = b[4].buf;                                                      \
        REAL *out = b[5].buf;                                                          \
        for (Py_ssize_t e = 0; e < E; e++) {                                           \
            if (e + AHEAD < E && rows[e + AHEAD] >= 0 && rows[e + AHEAD] < n_rows)     \
                PREFETCH(codes + rows[e + AHEAD] * n_nom * code_size);                 \
            if (rows[e] < 0 || rows[e] >= n_rows)                                      \
                goto bad;                                                              \
            const char *row = codes + rows[e] * n_nom * code_size;                     \
            for (Py_ssize_t k = 0; k < K; k++) {                                       \
                const Py_ssize_t code = code_size == 1   ? ((const int8_t *)row)[cols[k]]  \
                                        : code_size == 2 ? ((const int16_t *)row)[cols[k]] \
                                                         : ((const int32_t *)row)[cols[k]]; \
                const Py_ssize_t i = base[e] + k * stride + code * C;                  \
                if (code < 0 || i < 0 || i >= n_out)                                   \
                    goto bad;                                                          \
                out[i] += w[e];                                                        \
            }                                                                          \
        }                                                                              \
    } while (0)

PyObject *tg_nominal_counts(PyObject *self, PyObject *args)
{
    enum { NB = 6 };
    PyObject *o[NB];
    Py_ssize_t code_size, n_nom, stride, C;
    (void)self;
    if (!PyArg_ParseTuple(args, "OnnOOOOnnO", &o[0], &code_size, &n_nom, &o[1], &o[2], &o[3],
                          &o[4], &stride, &C, &o[5]))
        return NULL;
    if ((code_size != 1 && code_size != 2 && code_size != 4) || n_nom < 1 || C < 1 || stride < 1) {
        PyErr_SetString(PyExc_ValueError, "nominal_counts: bad sizes");
        return NULL;
    }
    Py_buffer b[NB];
    int got = 0;
    PyObject *result = NULL;
    Py_ssize_t rsz, NT = 0, E = 0, K = 0, n_out = 0;
    {
        Py_buffer probe; /* float32 or double, as the counts come */
        if (PyObject_GetBuffer(o[5], &probe, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
            return NULL;
        rsz = probe.itemsize;
        PyBuffer_Release(&probe);
    }
    if (rsz != sizeof(float) && rsz != sizeof(double)) {
        PyErr_SetString(PyExc_ValueError, "nominal_counts: counts must be float32 or double");
        return NULL;
    }
    /* Sizes come from these buffers; the others are checked against them. */
    if ((NT = tg_items(o[0], code_size)) < 0 || (E = tg_items(o[1], sizeof(Py_ssize_t))) < 0 ||
        (K = tg_items(o[2], sizeof(Py_ssize_t))) < 0 || (n_out = tg_items(o[5], rsz)) < 0)
        return NULL;
    const Py_ssize_t n_rows = NT / n_nom;
    const tg_spec spec[NB] = {
        {0, code_size, n_rows * n_nom, "codes"},
        {0, sizeof(Py_ssize_t), E, "rows"},
        {0, sizeof(Py_ssize_t), K, "cols"},
        {0, sizeof(Py_ssize_t), E, "base"},
        {0, rsz, E, "w"},
        {1, rsz, n_out, "out"},
    };
    if ((got = tg_views(o, b, spec, NB)) < NB)
        goto done;
    {
        const char *codes = b[0].buf;
        const Py_ssize_t *rows = b[1].buf, *cols = b[2].buf, *base = b[3].buf;
        for (Py_ssize_t k = 0; k < K; k++)
            if (cols[k] < 0 || cols[k] >= n_nom) {
                PyErr_SetString(PyExc_IndexError, "nominal_counts: column out of range");
                goto done;
            }
        if (rsz == sizeof(float))
            NOMINAL_LOOP(float);
        else
            NOMINAL_LOOP(double);
    }
    result = Py_NewRef(Py_None);
    goto done;
bad:
    PyErr_SetString(PyExc_IndexError, "nominal_counts: index out of range");
done:
    tg_release(b, got);
    return result;
}

/* gather_values(cvals, Kc, rows, w, y, tid, out_rec, out_unk, width=0, first=0):
 * the bucket's case records for the scans (scanwalk.h) -- out_rec[e * (Kc + 2) + k] =
 * cvals[k * n_rows + rows[e]] (its values: cvals is the context's
 * (Kc, n_rows) table, one attribute a row; with width > 0, cvals[rows[e] * width +
 * first + k] from the (n_rows, width) table, a case's values side by side), then w[e],
 * then y[e] as a
 * number -- and for every NaN (unknown) value out_unk[tid[e] * Kc + k] +=
 * w[e], cases in order: levelwise/grow.py's numpy path gathers, tests isnan and sums
 * the unknown weights (np.add.at, or bincount in double) to the same numbers.
 * All float arrays are float32 (c45) or all double (j48), as cvals.  The rows
 * of a task ascend, so each attribute's values are read in one forward sweep. */
/* Rows prefetched ahead in gather_values: each brings Kc cache lines, so fewer
 * than the scans' AHEAD keep the prefetches in flight. */
#ifndef GATHER_AHEAD
#define GATHER_AHEAD 4
#endif
#define GATHER_LOOP(REAL)                                                              \
    do {                                                                               \
        const REAL *cv = (const REAL *)b[0].buf + first, *w = b[2].buf;                \
        REAL *rec = b[5].buf, *unk = b[6].buf;                                         \
        for (Py_ssize_t e = 0; e < E; e++) {                                           \
            const Py_ssize_t r = rows[e], t = tid[e];                                  \
            if (r < 0 || r >= n_rows || t < 0 || (t + 1) * Kc > NU || y[e] < 0 ||      \
                y[e] > 16777216)                                                       \
                goto bad;                                                              \
            if (e + ahead < E) { /* rows far apart: a cache line per value */           \
                const Py_ssize_t ra = rows[e + ahead];                                 \
                if (ra >= 0 && ra < n_rows) {                                          \
                    for (Py_ssize_t k = 0; k < Kc; k += lines)                         \
                        PREFETCH(cv + ra * sr + k * sk);                               \
                    PREFETCH(cv + ra * sr + (Kc - 1) * sk); /* a row's last line */     \
                }                                                                      \
            }                                                                          \
            const REAL *src = cv + r * sr;                                             \
            REAL *dst = rec + e * rs;                                                  \
            for (Py_ssize_t k = 0; k < Kc; k++) {                                      \
                const REAL v = src[k * sk];                                            \
                dst[k] = v;                                                            \
                if (v != v)                                                            \
                    unk[t * Kc + k] += w[e];                                           \
            }                                                                          \
            dst[Kc] = w[e];                                                            \
            dst[Kc + 1] = (REAL)y[e];                                                  \
        }                                                                              \
    } while (0)

PyObject *tg_gather_values(PyObject *self, PyObject *args)
{
    enum { NB = 7 };
    PyObject *o[NB];
    Py_ssize_t Kc;
    Py_ssize_t width = 0, first = 0;
    (void)self;
    if (!PyArg_ParseTuple(args, "OnOOOOOO|nn", &o[0], &Kc, &o[1], &o[2], &o[3], &o[4], &o[5],
                          &o[6], &width, &first))
        return NULL;
    if (Kc < 1 || width < 0 || first < 0 || (width ? first + Kc > width : first != 0)) {
        PyErr_SetString(PyExc_ValueError, "gather_values: bad Kc, width or first");
        return NULL;
    }
    Py_buffer b[NB];
    int got = 0;
    PyObject *result = NULL;
    Py_ssize_t rsz, NV = 0, E = 0, NU = 0;
    {
        Py_buffer probe; /* float32 or double, as the values come */
        if (PyObject_GetBuffer(o[0], &probe, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
            return NULL;
        rsz = probe.itemsize;
        PyBuffer_Release(&probe);
    }
    if (rsz != sizeof(float) && rsz != sizeof(double)) {
        PyErr_SetString(PyExc_ValueError, "gather_values: values must be float32 or double");
        return NULL;
    }
    /* Sizes come from these buffers; the others are checked against them. */
    if ((NV = tg_items(o[0], rsz)) < 0 || (E = tg_items(o[1], sizeof(Py_ssize_t))) < 0 ||
        (NU = tg_items(o[6], rsz)) < 0)
        return NULL;
    const Py_ssize_t rs = Kc + 2;
    const tg_spec spec[NB] = {
        {0, rsz, NV, "cvals"},
        {0, sizeof(Py_ssize_t), E, "rows"},
        {0, rsz, E, "w"},
        {0, sizeof(Py_ssize_t), E, "y"},
        {0, sizeof(Py_ssize_t), E, "tid"},
        {1, rsz, E * rs, "out_rec"},
        {1, rsz, NU, "out_unk"},
    };
    if ((got = tg_views(o, b, spec, NB)) < NB)
        goto done;
    {
        const Py_ssize_t *rows = b[1].buf, *y = b[3].buf, *tid = b[4].buf;
        const int by_row = width > 0;
        const Py_ssize_t n_rows = NV / (by_row ? width : Kc);
        /* (k, r) at cv[k * sk + r * sr]; prefetched a cache line at a time by row */
        const Py_ssize_t sk = by_row ? 1 : n_rows, sr = by_row ? width : 1;
        const Py_ssize_t lines = by_row ? 64 / rsz : 1;
        const Py_ssize_t ahead = by_row ? AHEAD : GATHER_AHEAD; /* by row: 1-2 lines a row */
        if (rsz == sizeof(float))
            GATHER_LOOP(float);
        else
            GATHER_LOOP(double);
    }
    result = Py_NewRef(Py_None);
    goto done;
bad:
    PyErr_SetString(PyExc_IndexError, "gather_values: index out of range");
done:
    tg_release(b, got);
    return result;
}
