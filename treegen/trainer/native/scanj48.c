/* Continuous attributes for the j48 flavour: scan.c's two kernels with
 * Weka J48's rules -- weights and sums in double, comparisons within its 1e-6
 * tolerance, and the first cut kept unless a later one beats it by more than
 * that.  flatscore.py's eval_continuous_flat drives them; the numpy code they
 * stand in for is the j48 branch of splits._eval_cont_chunk. */
#include "cscan.h"

#define J48_TOL 1e-6
#define LN2 0.69314718055994530942

/* scan_cont_j48(rec, n1, rs, Kc, flat, seg_start, seg_len, seg_att, ms, known,
 *               enough, n_classes, out_kk, out_ii, out_low, out_x, out_tot)
 *     -> number of candidate cuts
 *
 * As scan_cont, in double: rec holds double records (values, weight, class),
 * ms[r] is the segment's MinSplit (raised and capped with J48's tolerance),
 * known[r] its known weight.  Cut i is a candidate when both sides reach
 * MinSplit within 1e-6 and value i + 1e-5 < value i+1. */
PyObject *tg_scan_cont_j48(PyObject *self, PyObject *args)
{
    enum { NB = 13 };
    PyObject *o[NB];
    Py_ssize_t n1, rs, Kc, C;
    (void)self;
    if (!PyArg_ParseTuple(args, "OnnnOOOOOOOnOOOOO", &o[0], &n1, &rs, &Kc, &o[1], &o[2], &o[3],
                          &o[4], &o[5], &o[6], &o[7], &C, &o[8], &o[9], &o[10], &o[11], &o[12]))
        return NULL;
    if (C < 1 || C > MAX_CLASSES || n1 < 0 || Kc < 1 || rs < Kc + 2) {
        PyErr_SetString(PyExc_ValueError, "scan_cont_j48: sizes out of range");
        return NULL;
    }
    Py_buffer b[NB];
    int got = 0;
    Py_ssize_t R = 0, E = 0, cap = 0;
    PyObject *result = NULL;
    double *lw = NULL, *lv = NULL;
    Py_ssize_t *lc = NULL;
    /* Sizes come from these buffers; the others are checked against them. */
    if ((R = tg_items(o[3], sizeof(Py_ssize_t))) < 0 ||
        (E = tg_items(o[1], sizeof(int32_t))) < 0 ||
        (cap = tg_items(o[8], sizeof(Py_ssize_t))) < 0)
        return NULL;
    const tg_spec spec[NB] = {
        {0, sizeof(double), n1 * rs, "rec"},
        {0, sizeof(int32_t), E, "flat"},
        {0, sizeof(Py_ssize_t), R, "seg_start"},
        {0, sizeof(Py_ssize_t), R, "seg_len"},
        {0, sizeof(Py_ssize_t), R, "seg_att"},
        {0, sizeof(double), R, "ms"},
        {0, sizeof(double), R, "known"},
        {0, 1, R, "enough"},
        {1, sizeof(Py_ssize_t), cap, "out_kk"},
        {1, sizeof(Py_ssize_t), cap, "out_ii"},
        {1, sizeof(double), cap, "out_low"},
        {1, sizeof(double), cap * (2 * C + 2), "out_x"},
        {1, sizeof(double), R * C, "out_tot"},
    };
    if ((got = tg_views(o, b, spec, NB)) < NB)
        goto done;
    {
        const double *rec = b[0].buf;
        const int32_t *flat = b[1].buf;
        const Py_ssize_t *s0 = b[2].buf, *len = b[3].buf, *att = b[4].buf;
        const double *ms = b[5].buf, *known = b[6].buf;
        const unsigned char *enough = b[7].buf;
        Py_ssize_t *kk = b[8].buf, *ii = b[9].buf;
        double *olow = b[10].buf, *x = b[11].buf, *tot = b[12].buf;
        double below[MAX_CLASSES], above[MAX_CLASSES];
        Py_ssize_t n = 0, longest = 1;
        for (Py_ssize_t r = 0; r < R; r++)
            if (len[r] > longest)
                longest = len[r];
        lw = PyMem_Malloc((size_t)longest * sizeof(double));
        lv = PyMem_Malloc((size_t)longest * sizeof(double));
        lc = PyMem_Malloc((size_t)longest * sizeof(Py_ssize_t));
        if (lw == NULL || lv == NULL || lc == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        for (Py_ssize_t r = 0; r < R; r++) {
            const Py_ssize_t L = len[r], start = s0[r], a = att[r];
            double *t = tot + r * C;
            if (start < 0 || L < 0 || start + L > E || a < 0 || a >= Kc) {
                PyErr_SetString(PyExc_IndexError, "segment out of range");
                goto done;
            }
            for (Py_ssize_t c = 0; c < C; c++) t[c] = 0.0;
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
                const double *rp = rec + p * rs;
                const double cf = rp[Kc + 1];
                const Py_ssize_t c = (Py_ssize_t)cf;
                if (!(cf >= 0.0) || c >= C) {
                    PyErr_SetString(PyExc_IndexError, "class out of range");
                    goto done;
                }
                lw[i] = rp[Kc];
                lc[i] = c;
                lv[i] = rp[a];
                t[c] += lw[i];
            }
            if (L < 2 || !enough[r])
                continue;
            for (Py_ssize_t c = 0; c < C; c++) {
                below[c] = 0.0;
                above[c] = t[c];
            }
            double low = 0.0;
            for (Py_ssize_t i = 0; i + 1 < L; i++) {
                const Py_ssize_t c = lc[i];
                low += lw[i];
                below[c] += lw[i];
                above[c] -= lw[i];
                if (ms[r] - low < J48_TOL && ms[r] - (known[r] - low) < J48_TOL &&
                    lv[i] + 1e-5 < lv[i + 1]) {
                    if (n >= cap) {
                        PyErr_SetString(PyExc_IndexError, "candidate capacity exceeded");
                        goto done;
                    }
                    kk[n] = r;
                    ii[n] = i;
                    olow[n] = low;
                    /* TotalInfo's log inputs, 1 where not positive (term 0). */
                    double tb = 0.0, ta = 0.0;
                    double *xn = x + n * (2 * C + 2);
                    for (Py_ssize_t k = 0; k < C; k++) {
                        xn[k] = below[k] > 0 ? below[k] : 1.0;
                        xn[C + 1 + k] = above[k] > 0 ? above[k] : 1.0;
                        tb += below[k];
                        ta += above[k];
                    }
                    xn[C] = tb > 0 ? tb : 1.0;
                    xn[2 * C + 1] = ta > 0 ? ta : 1.0;
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

/* TotalInfo of one side in double (stats.total_info's float64 branch): the
 * parts' terms v * log2(v) added in order, subtracted from the total's. */
static inline double side_info_j48(const double *x, const double *lg, Py_ssize_t C)
{
    double acc = 0.0;
    for (Py_ssize_t c = 0; c < C; c++)
        acc += x[c] * (lg[c] / LN2);
    return x[C] * (lg[C] / LN2) - acc;
}

/* best_cuts_j48(x, lg, C, n, kk, low, known, base, known_frac, m, out_best, out_gain)
 *
 * Gains of scan_cont_j48's candidates (logs by numpy, as in best_cuts) and
 * J48's pick per segment: candidates in order, a cut replaces the best so
 * far only when its gain is more than 1e-6 above it (starting from 0).
 * out_best[r] is the chosen candidate (-1 if none), out_gain[r] its gain. */
PyObject *tg_best_cuts_j48(PyObject *self, PyObject *args)
{
    enum { NB = 10 };
    PyObject *o[NB];
    Py_ssize_t C, n;
    double m;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOnnOOOOOdOO", &o[0], &o[1], &C, &n, &o[2], &o[3], &o[4],
                          &o[5], &o[6], &m, &o[7], &o[8]))
        return NULL;
    if (C < 1 || n < 0) {
        PyErr_SetString(PyExc_ValueError, "best_cuts_j48: bad sizes");
        return NULL;
    }
    Py_buffer b[NB];
    int got = 0;
    PyObject *result = NULL;
    const Py_ssize_t R = tg_items(o[4], sizeof(double));
    if (R < 0)
        return NULL;
    const Py_ssize_t rows = 2 * C + 2;
    const tg_spec spec[NB - 1] = {
        {0, sizeof(double), rows * n, "x"},
        {0, sizeof(double), rows * n, "lg"},
        {0, sizeof(Py_ssize_t), n, "kk"},
        {0, sizeof(double), n, "low"},
        {0, sizeof(double), R, "known"},
        {0, sizeof(double), R, "base"},
        {0, sizeof(double), R, "known_frac"},
        {1, sizeof(Py_ssize_t), R, "out_best"},
        {1, sizeof(double), R, "out_gain"},
    };
    if ((got = tg_views(o, b, spec, NB - 1)) < NB - 1)
        goto done;
    {
        const double *x = b[0].buf, *lg = b[1].buf;
        const Py_ssize_t *kk = b[2].buf;
        const double *low = b[3].buf, *known = b[4].buf, *base = b[5].buf, *frac = b[6].buf;
        Py_ssize_t *best = b[7].buf;
        double *bgain = b[8].buf;
        for (Py_ssize_t r = 0; r < R; r++) {
            best[r] = -1;
            bgain[r] = 0.0;
        }
        for (Py_ssize_t j = 0; j < n; j++) {
            const Py_ssize_t r = kk[j];
            if (r < 0 || r >= R) {
                PyErr_SetString(PyExc_IndexError, "best_cuts_j48: segment out of range");
                goto done;
            }
            const double *xj = x + j * rows, *lj = lg + j * rows;
            const double info = side_info_j48(xj, lj, C) + side_info_j48(xj + C + 1, lj + C + 1, C);
            const double vf1 = low[j], vf2 = known[r] - vf1;
            double gain = frac[r] * (base[r] - info / known[r]);
            if (m - vf1 > J48_TOL || m - vf2 > J48_TOL)
                gain = -1e-3;
            if (gain - bgain[r] > J48_TOL) {
                best[r] = j;
                bgain[r] = gain;
            }
        }
    }
    result = Py_NewRef(Py_None);
done:
    tg_release(b, got);
    return result;
}
