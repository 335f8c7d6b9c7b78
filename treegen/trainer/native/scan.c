/* Continuous attributes: running sums over each node's sorted cases and the
 * candidate cuts (scan_cont), then the gains and the best cut per node and
 * attribute (best_cuts).  flatscore.py's eval_continuous_flat drives them. */
#include "cscan.h"

/* scan_cont(rec, n1, rs, Kc, flat, seg_start, seg_len, seg_att, ms, lim, enough,
 *           n_classes, out_kk, out_ii, out_low, out_x, out_tot)
 *     -> number of candidate cuts
 *
 * The bucket's cases are numbered 0..n1-1; case p's record (gather_values)
 * is rec[p * rs ...]: its float32 values of the Kc continuous attributes,
 * then its weight, then its class (as a float), so one cache line holds all a
 * scan needs of a case.  Segment r lists one node's cases with a known value
 * of attribute seg_att[r] in value order: flat[seg_start[r] + i] (int32).
 * For every cut i (between entries i and i+1) that splits.py's
 * _eval_cont_chunk admits (MinSplit <= LowItems <= known - MinSplit, distinct
 * values 1e-5 apart, enough known cases), it writes the segment, i,
 * LowItems, and the 2C + 2 inputs of the cut's TotalInfo logs (best_cuts);
 * all sums float32 and sequential as Release 8's.  out_tot[r * C + c] gets
 * the segment's known class weights. */
PyObject *tg_scan_cont(PyObject *self, PyObject *args)
{
    enum { NB = 13 };
    PyObject *o[NB];
    Py_ssize_t n1, rs, Kc, C;
    (void)self;
    if (!PyArg_ParseTuple(args, "OnnnOOOOOOOnOOOOO", &o[0], &n1, &rs, &Kc, &o[1], &o[2], &o[3],
                          &o[4], &o[5], &o[6], &o[7], &C, &o[8], &o[9], &o[10], &o[11], &o[12]))
        return NULL;
    if (C < 1 || C > MAX_CLASSES || n1 < 0 || Kc < 1 || rs < Kc + 2) {
        PyErr_SetString(PyExc_ValueError, "scan_cont: sizes out of range");
        return NULL;
    }
    Py_buffer b[NB];
    int got = 0;
    Py_ssize_t R = 0, E = 0, cap = 0;
    PyObject *result = NULL;
    float *lw = NULL;
    double *lv = NULL;
    Py_ssize_t *lc = NULL;
    /* Sizes come from these buffers; the others are checked against them. */
    if ((R = tg_items(o[3], sizeof(Py_ssize_t))) < 0 ||
        (E = tg_items(o[1], sizeof(int32_t))) < 0 ||
        (cap = tg_items(o[8], sizeof(Py_ssize_t))) < 0)
        return NULL;
    const tg_spec spec[NB] = {
        {0, sizeof(float), n1 * rs, "rec"},
        {0, sizeof(int32_t), E, "flat"},
        {0, sizeof(Py_ssize_t), R, "seg_start"},
        {0, sizeof(Py_ssize_t), R, "seg_len"},
        {0, sizeof(Py_ssize_t), R, "seg_att"},
        {0, sizeof(float), R, "ms"},
        {0, sizeof(float), R, "lim"},
        {0, 1, R, "enough"},
        {1, sizeof(Py_ssize_t), cap, "out_kk"},
        {1, sizeof(Py_ssize_t), cap, "out_ii"},
        {1, sizeof(float), cap, "out_low"},
        {1, sizeof(double), cap * (2 * C + 2), "out_x"},
        {1, sizeof(float), R * C, "out_tot"},
    };
    if ((got = tg_views(o, b, spec, NB)) < NB)
        goto done;
    {
        const float *rec = b[0].buf;
        const int32_t *flat = b[1].buf;
        const Py_ssize_t *s0 = b[2].buf, *len = b[3].buf, *att = b[4].buf;
        const float *ms = b[5].buf, *lim = b[6].buf;
        const unsigned char *enough = b[7].buf;
        Py_ssize_t *kk = b[8].buf, *ii = b[9].buf;
        float *olow = b[10].buf, *tot = b[12].buf;
        double *x = b[11].buf;
        float below[MAX_CLASSES], above[MAX_CLASSES];
        Py_ssize_t n = 0, longest = 1;
        for (Py_ssize_t r = 0; r < R; r++)
            if (len[r] > longest)
                longest = len[r];
        /* A segment's cases copied out in order: one pass of scattered reads. */
        lw = PyMem_Malloc((size_t)longest * sizeof(float));
        lv = PyMem_Malloc((size_t)longest * sizeof(double));
        lc = PyMem_Malloc((size_t)longest * sizeof(Py_ssize_t));
        if (lw == NULL || lv == NULL || lc == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        for (Py_ssize_t r = 0; r < R; r++) {
            const Py_ssize_t L = len[r], start = s0[r], a = att[r];
            float *t = tot + r * C;
            if (start < 0 || L < 0 || start + L > E || a < 0 || a >= Kc) {
                PyErr_SetString(PyExc_IndexError, "segment out of range");
                goto done;
            }
            for (Py_ssize_t c = 0; c < C; c++) t[c] = 0.0f;
            for (Py_ssize_t i = 0; i < L; i++) {
                const Py_ssize_t p = flat[start + i];
                if (i + AHEAD < L) {
                    const Py_ssize_t pa = flat[start + i + AHEAD];
                    if (pa >= 0 && pa < n1)
                        PREFETCH(rec + pa * rs);
                }
                if (p < 0 || p >= n1) {
                    PyErr_SetString(PyExc_IndexError, "case index out of range");
                    goto done;
                }
                const float *rp = rec + p * rs;
                const float cf = rp[Kc + 1];
                const Py_ssize_t c = (Py_ssize_t)cf;
                if (!(cf >= 0.0f) || c >= C) {
                    PyErr_SetString(PyExc_IndexError, "class out of range");
                    goto done;
                }
                lw[i] = rp[Kc];
                lc[i] = c;
                lv[i] = (double)rp[a];
                t[c] += lw[i];
            }
            if (L < 2 || !enough[r])
                continue;
            for (Py_ssize_t c = 0; c < C; c++) {
                below[c] = 0.0f;
                above[c] = t[c];
            }
            float low = 0.0f;
            for (Py_ssize_t i = 0; i + 1 < L; i++) {
                const Py_ssize_t c = lc[i];
                const float wi = lw[i];
                low += wi;
                below[c] += wi;
                above[c] -= wi;
                if (low >= ms[r] && low <= lim[r] && lv[i] < lv[i + 1] - 1e-5) {
                    if (n >= cap) {
                        PyErr_SetString(PyExc_IndexError, "candidate capacity exceeded");
                        goto done;
                    }
                    kk[n] = r;
                    ii[n] = i;
                    olow[n] = low;
                    /* The inputs of TotalInfo's logs (see best_cuts), as
                     * splits._xlog2x prepares them: the value in double, 1
                     * where it is not positive (log 0, and a 0 term). */
                    float tb = 0.0f, ta = 0.0f;
                    double *xn = x + n * (2 * C + 2); /* one cut's values together */
                    for (Py_ssize_t k = 0; k < C; k++) {
                        xn[k] = below[k] > 0 ? (double)below[k] : 1.0;
                        xn[C + 1 + k] = above[k] > 0 ? (double)above[k] : 1.0;
                        tb += below[k];
                        ta += above[k];
                    }
                    xn[C] = tb > 0 ? (double)tb : 1.0;
                    xn[2 * C + 1] = ta > 0 ? (double)ta : 1.0;
                    n++;
                }
            }
        }
        result = PyLong_FromSsize_t(n);
    }
done:
    PyMem_Free(lw);
    PyMem_Free(lv);
    PyMem_Free(lc);
    tg_release(b, got);
    return result;
}

#define LN2 0.69314718055994530942

/* One TotalInfo term as splits._xlog2x computes it: v * (log(v) / ln 2) in
 * double, with v = 1 (term 0) standing in for non-positive values. */
static inline double xlog2x(double v, double lg)
{
    return (lg / LN2) * v;
}

/* TotalInfo of one side of a cut (splits.total_info, float32 flavour): the
 * terms of the parts added into a float one at a time, then the total's
 * term minus that sum, stored as float. */
static inline float side_info(const double *x, const double *lg, Py_ssize_t C)
{
    float acc = 0.0f;
    for (Py_ssize_t c = 0; c < C; c++)
        acc = (float)((double)acc + xlog2x(x[c], lg[c]));
    return (float)(xlog2x(x[C], lg[C]) - (double)acc);
}

/* best_cuts(x, lg, C, n, kk, low, known, base, known_frac, cost, m, out_best, out_pen)
 *
 * splits.finish_c45 for the candidates of scan_cont: x holds per cut 2C + 2
 * values (C classes below, their total, C classes above, their total) and lg
 * their natural logs computed by numpy, so the logs are the numpy path's.  Per segment r: known weight,
 * base info, 1 - unknown rate and the MDL cost (float32).  Candidate j's gain
 * is (1 - unk) * (base - info / known), -EPSILON when a side has less than m;
 * its penalised value pen = gain - cost.  out_best[r] gets the first
 * candidate with the largest pen (-1 if none) and out_pen[r] that pen. */
PyObject *tg_best_cuts(PyObject *self, PyObject *args)
{
    enum { NB = 10 };
    PyObject *o[NB];
    Py_ssize_t C, n;
    double m;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOnnOOOOOOdOO", &o[0], &o[1], &C, &n, &o[2], &o[3], &o[4],
                          &o[5], &o[6], &o[7], &m, &o[8], &o[9]))
        return NULL;
    if (C < 1 || n < 0) {
        PyErr_SetString(PyExc_ValueError, "best_cuts: bad sizes");
        return NULL;
    }
    Py_buffer b[NB];
    int got = 0;
    PyObject *result = NULL;
    const Py_ssize_t R = tg_items(o[4], sizeof(float));
    if (R < 0)
        return NULL;
    const Py_ssize_t rows = 2 * C + 2;
    const tg_spec spec[NB] = {
        {0, sizeof(double), rows * n, "x"},
        {0, sizeof(double), rows * n, "lg"},
        {0, sizeof(Py_ssize_t), n, "kk"},
        {0, sizeof(float), n, "low"},
        {0, sizeof(float), R, "known"},
        {0, sizeof(float), R, "base"},
        {0, sizeof(float), R, "known_frac"},
        {0, sizeof(float), R, "cost"},
        {1, sizeof(Py_ssize_t), R, "out_best"},
        {1, sizeof(float), R, "out_pen"},
    };
    if ((got = tg_views(o, b, spec, NB)) < NB)
        goto done;
    {
        const double *x = b[0].buf, *lg = b[1].buf;
        const Py_ssize_t *kk = b[2].buf;
        const float *low = b[3].buf, *known = b[4].buf, *base = b[5].buf;
        const float *frac = b[6].buf, *cost = b[7].buf;
        Py_ssize_t *best = b[8].buf;
        float *bpen = b[9].buf;
        const float neg_eps = (float)-1e-3;
        for (Py_ssize_t r = 0; r < R; r++)
            best[r] = -1;
        for (Py_ssize_t j = 0; j < n; j++) {
            const Py_ssize_t r = kk[j];
            if (r < 0 || r >= R) {
                PyErr_SetString(PyExc_IndexError, "best_cuts: segment out of range");
                goto done;
            }
            const double *xj = x + j * rows, *lj = lg + j * rows;
            const float below = side_info(xj, lj, C);
            const float above = side_info(xj + C + 1, lj + C + 1, C);
            const float info = below + above;
            const float vf1 = low[j], vf2 = known[r] - vf1;
            float gain = frac[r] * (base[r] - info / known[r]);
            if ((double)vf1 < m || (double)vf2 < m)
                gain = neg_eps;
            const float pen = gain - cost[r];
            if (best[r] < 0 || pen > bpen[r]) {
                best[r] = j;
                bpen[r] = pen;
            }
        }
    }
    result = Py_NewRef(Py_None);
done:
    tg_release(b, got);
    return result;
}
