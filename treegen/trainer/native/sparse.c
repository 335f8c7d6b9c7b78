/* Continuous attributes with many classes (c45): the candidate cuts of sorted
 * segments and their TotalInfo, in time that grows with the cases and the
 * classes whose TotalInfo term is not zero, not with cases x classes.
 * treegen/trainer/sparse.py drives the two passes; numpy takes the logs between
 * them, so they are the numpy path's (splits._eval_cont_chunk, finish_c45).
 *
 * Why this is the numpy path's arithmetic: splits.total_info adds, class by
 * class in class order, each class's term v log2 v into a float.  A term is 0
 * where v is 0 (or not positive) and where v is 1 (log 1 = 0), and adding 0 to a
 * float changes nothing (the sum starts at +0 and never becomes -0), so the sum
 * of the non-zero terms in class order is the same float.  The running total of
 * the parts (each side's weight) is a float sum in class order too; where every
 * weight of the segment is a whole number and they sum to at most 2^24, every
 * partial sum is exact, so it equals the case-order total (LowItems, and the
 * known weight less LowItems above the cut); otherwise it is summed class by
 * class as numpy does.  Classes are the segment batch's own (local codes
 * 0..C-1 in the order of the global class numbers).
 *
 * This file: the first pass (sparse_scan) and the pick of the best cut
 * (sparse_pick); the second pass, the TotalInfo sums over the classes present, is
 * in sparseinfo.c. */
#include "cscan.h"

/* The log input as splits._xlog2x and scan_best prepare it: 1 where not positive. */
static inline double log_input(float v)
{
    return v > 0 ? (double)v : 1.0;
}

/* sparse_scan(vals, w, cls, lens, ms, lim, enough, C,
 *             out_kk, out_ii, out_low, out_xb, out_xa, out_xt, out_xc, out_xs, out_exact)
 *     -> number of candidate cuts
 *
 * Segment r is the E-case stretch after the earlier segments, lens[r] long: its
 * known cases in value order, with their float32 values, weights and local
 * classes.  The walk is scan_best's (scanwalk.h, c45): LowItems and per class
 * the weight below and above each cut in case order, the same candidate test.
 * Written: per case p, the log inputs of its class's weight below (out_xb[p])
 * and above (out_xa[p]) once the walk has passed it; per segment and class the
 * log input of the class's known weight (out_xt[r * C + c]) and of their total
 * in class order (out_xs[r]); per candidate its segment, position and LowItems
 * and the log inputs of the two sides' totals (out_xc[2j], out_xc[2j + 1]);
 * out_exact[r]: whether the segment's weights are whole and sum to <= 2^24. */
PyObject *tg_sparse_scan(PyObject *self, PyObject *args)
{
    enum { NB = 16 };
    PyObject *o[NB];
    Py_ssize_t C;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOOOnOOOOOOOOO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5],
                          &o[6], &C, &o[7], &o[8], &o[9], &o[10], &o[11], &o[12], &o[13],
                          &o[14], &o[15]))
        return NULL;
    if (C < 1) {
        PyErr_SetString(PyExc_ValueError, "sparse_scan: no classes");
        return NULL;
    }
    Py_buffer b[NB];
    int got = 0;
    PyObject *result = NULL;
    float *below = NULL, *above = NULL;
    Py_ssize_t E, R, cap;
    if ((E = tg_items(o[0], sizeof(float))) < 0 || (R = tg_items(o[3], sizeof(Py_ssize_t))) < 0 ||
        (cap = tg_items(o[7], sizeof(Py_ssize_t))) < 0)
        return NULL;
    const tg_spec spec[NB] = {
        {0, sizeof(float), E, "vals"},
        {0, sizeof(float), E, "w"},
        {0, sizeof(int32_t), E, "cls"},
        {0, sizeof(Py_ssize_t), R, "lens"},
        {0, sizeof(float), R, "ms"},
        {0, sizeof(float), R, "lim"},
        {0, 1, R, "enough"},
        {1, sizeof(Py_ssize_t), cap, "out_kk"},
        {1, sizeof(Py_ssize_t), cap, "out_ii"},
        {1, sizeof(float), cap, "out_low"},
        {1, sizeof(double), E, "out_xb"},
        {1, sizeof(double), E, "out_xa"},
        {1, sizeof(double), R * C, "out_xt"},
        {1, sizeof(double), 2 * cap, "out_xc"},
        {1, sizeof(double), R, "out_xs"},
        {1, 1, R, "out_exact"},
    };
    if ((got = tg_views(o, b, spec, NB)) < NB)
        goto done;
    below = PyMem_Malloc((size_t)C * sizeof(float));
    above = PyMem_Malloc((size_t)C * sizeof(float));
    if (below == NULL || above == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    {
        const float *vals = b[0].buf, *w = b[1].buf;
        const int32_t *cls = b[2].buf;
        const Py_ssize_t *lens = b[3].buf;
        const float *ms = b[4].buf, *lim = b[5].buf;
        const unsigned char *enough = b[6].buf;
        Py_ssize_t *kk = b[7].buf, *ii = b[8].buf;
        float *olow = b[9].buf;
        double *xb = b[10].buf, *xa = b[11].buf, *xt = b[12].buf, *xc = b[13].buf;
        double *xs = b[14].buf;
        unsigned char *exact = b[15].buf;
        Py_ssize_t n = 0, s = 0;
        for (Py_ssize_t r = 0; r < R; r++) {
            const Py_ssize_t L = lens[r];
            if (L < 0 || s + L > E) {
                PyErr_SetString(PyExc_IndexError, "sparse_scan: segment out of range");
                goto done;
            }
            int whole = 1;
            double sum = 0.0;
            for (Py_ssize_t c = 0; c < C; c++)
                above[c] = 0;
            for (Py_ssize_t i = s; i < s + L; i++) {
                if (cls[i] < 0 || cls[i] >= C) {
                    PyErr_SetString(PyExc_IndexError, "sparse_scan: class out of range");
                    goto done;
                }
                above[cls[i]] += w[i];
                whole &= w[i] >= 0 && w[i] == floorf(w[i]);
                sum += (double)w[i];
            }
            exact[r] = (unsigned char)(whole && sum <= EXACT_LIMIT);
            float total = 0; /* TotalInfo's running total of the parts, class order */
            for (Py_ssize_t c = 0; c < C; c++) {
                below[c] = 0;
                total += above[c];
                xt[r * C + c] = log_input(above[c]);
            }
            xs[r] = log_input(total);
            float low = 0;
            for (Py_ssize_t i = 0; i < L; i++) {
                const Py_ssize_t p = s + i;
                const int32_t c = cls[p];
                low += w[p];
                below[c] += w[p];
                above[c] -= w[p];
                xb[p] = log_input(below[c]);
                xa[p] = log_input(above[c]);
                if (i + 1 >= L || !enough[r])
                    continue;
                const float v = vals[p], v_next = vals[p + 1];
                if (!(low >= ms[r] && low <= lim[r] && (double)v < (double)v_next - TG_CUT_GAP))
                    continue;
                if (n >= cap) {
                    PyErr_SetString(PyExc_IndexError, "sparse_scan: candidate capacity exceeded");
                    goto done;
                }
                float tb = 0, ta = 0;
                if (exact[r]) {
                    tb = low;
                    ta = total - low;
                } else {
                    for (Py_ssize_t k = 0; k < C; k++) {
                        tb += below[k];
                        ta += above[k];
                    }
                }
                kk[n] = r;
                ii[n] = i;
                olow[n] = low;
                xc[2 * n] = log_input(tb);
                xc[2 * n + 1] = log_input(ta);
                n++;
            }
            s += L;
        }
        result = PyLong_FromSsize_t(n);
    }
done:
    PyMem_Free(below);
    PyMem_Free(above);
    tg_release(b, got);
    return result;
}

/* sparse_pick(kk, low, info, known, cases, base, cost, m, out_best, out_pen)
 *
 * splits.pick_c45's gains and pick for sparse_scan's n candidates (kk ascending):
 * per candidate j of segment r = kk[j], in float as numpy computes them,
 * vf2 = known - low, UnknownRate = 1 - known / cases,
 * gain = (1 - UnknownRate) * (base - info / known), -EPSILON where a side has less
 * than m, pen = gain - cost[r].  out_best[r] gets the first candidate whose pen equals
 * the segment's largest (numpy's maximum: a NaN is the largest and equals nothing,
 * so such a segment gets none), -1 without one; out_pen[r] its pen.  The selection
 * of pen > 0 and the chosen cuts' midpoint and split info stay numpy
 * (sparse.eval_segments). */
PyObject *tg_sparse_pick(PyObject *self, PyObject *args)
{
    enum { NB = 9 };
    PyObject *o[NB];
    double m;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOOOdOO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6],
                          &m, &o[7], &o[8]))
        return NULL;
    const Py_ssize_t n = tg_items(o[0], sizeof(Py_ssize_t));
    const Py_ssize_t R = n < 0 ? -1 : tg_items(o[3], sizeof(float));
    if (n < 0 || R < 0)
        return NULL;
    const tg_spec spec[NB] = {
        {0, sizeof(Py_ssize_t), n, "kk"},   {0, sizeof(float), n, "low"},
        {0, sizeof(float), n, "info"},      {0, sizeof(float), R, "known"},
        {0, sizeof(float), R, "cases"},     {0, sizeof(float), R, "base"},
        {0, sizeof(float), R, "cost"},      {1, sizeof(Py_ssize_t), R, "out_best"},
        {1, sizeof(float), R, "out_pen"},
    };
    Py_buffer b[NB];
    int got = 0;
    PyObject *result = NULL;
    if ((got = tg_views(o, b, spec, NB)) < NB)
        goto done;
    {
        const Py_ssize_t *kk = b[0].buf;
        const float *low = b[1].buf, *info = b[2].buf, *known = b[3].buf, *cases = b[4].buf;
        const float *base = b[5].buf, *cost = b[6].buf;
        Py_ssize_t *best = b[7].buf;
        float *bpen = b[8].buf;
        const float neg_eps = (float)-TG_EPSILON;
        for (Py_ssize_t r = 0; r < R; r++)
            best[r] = -1;
        Py_ssize_t j = 0;
        while (j < n) {
            const Py_ssize_t r = kk[j];
            if (r < 0 || r >= R || (j > 0 && r <= kk[j - 1])) {
                PyErr_SetString(PyExc_IndexError, "sparse_pick: segments out of order");
                goto done;
            }
            const float unk_rate = 1.0f - known[r] / cases[r];
            const float frac = 1.0f - unk_rate;
            float top = 0;
            Py_ssize_t first = -1, e = j;
            int nan = 0;
            for (; e < n && kk[e] == r; e++) {
                const float vf1 = low[e], vf2 = known[r] - vf1;
                float gain = frac * (base[r] - info[e] / known[r]);
                if ((double)vf1 < m || (double)vf2 < m)
                    gain = neg_eps;
                const float pen = gain - cost[r];
                if (isnan(pen))
                    nan = 1;
                else if (!nan && (first < 0 || pen > top)) {
                    top = pen;
                    first = e;
                }
            }
            if (!nan && first >= 0) {
                best[r] = first;
                bpen[r] = top;
            }
            j = e;
        }
    }
    result = Py_NewRef(Py_None);
done:
    tg_release(b, got);
    return result;
}
