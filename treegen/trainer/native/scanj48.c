/* Continuous attributes for the j48 flavour: the scan (scanwalk.h, as scan.c's
 * scan_best for c45) writes every candidate cut out, then best_cuts_j48 picks with
 * Weka J48's rules -- weights and sums in double, comparisons within its
 * tolerance (TG_J48_TOL), and the first cut kept unless a later one beats it
 * by more than that.  levelwise/score.py's eval_continuous_flat drives them; the numpy code they
 * stand in for is the j48 branch of splits._eval_cont_chunk. */
#include "cscan.h"

/* scan_cont_j48: scanwalk.h in double with J48's candidate test (both sides
 * reach MinSplit within TG_J48_TOL, value + CUT_GAP < next value); bound is the
 * segment's known weight. */
#define SCAN_FN tg_scan_cont_j48
#define REAL double
#define IS_CANDIDATE(ms, bound, low, v, v_next)                                         \
    ((ms) - (low) < TG_J48_TOL && (ms) - ((bound) - (low)) < TG_J48_TOL &&                  \
     (v) + TG_CUT_GAP < (v_next))
#include "scanwalk.h"

/* TotalInfo of one side in double (stats.total_info's float64 branch): the
 * parts' terms v * log2(v) added in order, subtracted from the total's. */
static inline double side_info_j48(const double *x, const double *lg, Py_ssize_t C)
{
    double acc = 0.0;
    for (Py_ssize_t c = 0; c < C; c++)
        acc += x[c] * (lg[c] / TG_LN2);
    return x[C] * (lg[C] / TG_LN2) - acc;
}

/* best_cuts_j48(x, lg, C, n, kk, low, known, base, known_frac, m, out_best, out_gain)
 *
 * Gains of scan_cont_j48's candidates (their logs by numpy, in lg) and
 * J48's pick per segment: candidates in order, a cut replaces the best so
 * far only when its gain is more than TG_J48_TOL above it (starting from 0).
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
            if (m - vf1 > TG_J48_TOL || m - vf2 > TG_J48_TOL)
                gain = -TG_EPSILON;
            if (gain - bgain[r] > TG_J48_TOL) {
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
