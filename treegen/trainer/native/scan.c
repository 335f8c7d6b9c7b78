/* Continuous attributes, c45: scan_best, the running sums over each node's sorted
 * cases and its candidate cuts (scanwalk.h), with the cuts' gains and the best
 * cut per node and attribute picked as the scan goes (pick_block).
 * levelwise/score.py's eval_continuous_flat drives it. */
#include "cscan.h"

/* One TotalInfo term as splits._xlog2x computes it: v * (log(v) / ln 2) in
 * double, with v = 1 (term 0) standing in for non-positive values. */
static inline double xlog2x(double v, double lg)
{
    return (lg / TG_LN2) * v;
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

/* side_info from the side's terms (C parts, then the total's), as side_info adds them. */
static inline float terms_info(const double *t, Py_ssize_t C)
{
    float acc = 0.0f;
    for (Py_ssize_t c = 0; c < C; c++)
        acc = (float)((double)acc + t[c]);
    return (float)(t[C] - (double)acc);
}

/* The segment whose cuts scan_best's pick_block is picking among: its numbers, and
 * its best cut so far (best < 0: none), kept out of the output arrays meanwhile. */
typedef struct {
    Py_ssize_t r, best;
    float known, frac, base, cost, pen, low;
    double *tm; /* the last cut's 2C + 2 terms v * (log(v) / ln 2), as side_info's */
} tg_pick;

/* A cut's penalised gain: (1 - unk) * (base - info / known), -EPSILON when a side has
 * less than m, minus the segment's cost (splits.finish_c45's); all in float. */
static inline float cut_pen(float inf, float vf1, float known, float base, float frac,
                            float cost, double m)
{
    const float vf2 = known - vf1;
    float gain = frac * (base - inf / known);
    if ((double)vf1 < m || (double)vf2 < m)
        gain = (float)-TG_EPSILON;
    return gain - cost;
}

/* scan_best's block of m rows: logf(xo, lgo) (numpy's log of the whole block, x's
 * memory, into lg's), then each row in order.  A segment's header row (bi < 0)
 * holds its known class weights and their total (the base info's TotalInfo, as
 * stats.cut_base_info takes it) and its number of cuts (the cost's log, as
 * splits.pick_c45 takes it), 2C + 2 doubles; a cut's row its 2C + 2 log inputs (bc < 0)
 * or, when only class bc's cases moved below since the segment's last cut, the 4
 * that changed (class bc below, the total below, class bc above, the total above):
 * the other terms are the last cut's, kept in st->tm (half the logs and divisions
 * with 3 classes).  Each cut is picked as splits.pick_c45 picks: the first largest
 * penalised gain.  0, or -1 with the exception set. */
static int pick_block(PyObject *logf, PyObject *xo, PyObject *lgo, const double *x,
                      const double *lg, Py_ssize_t C, Py_ssize_t m, const Py_ssize_t *bk,
                      const Py_ssize_t *bi, const float *bl, const int32_t *bc,
                      const float *segf, double mc, tg_pick *st, Py_ssize_t *out_best,
                      float *out_pen, float *out_low)
{
    PyObject *res = PyObject_CallFunctionObjArgs(logf, xo, lgo, NULL);
    if (res == NULL)
        return -1;
    Py_DECREF(res);
    const Py_ssize_t rows = 2 * C + 2;
    tg_pick p = *st;
    double *tm = p.tm;
    Py_ssize_t pos = 0; /* where row j starts */
    for (Py_ssize_t j = 0; j < m; j++) {
        const double *xj = x + pos, *lj = lg + pos;
        const Py_ssize_t c = bc[j];
        pos += c < 0 ? rows : 4;
        if (bi[j] < 0) { /* segment bk[j] starts: (known, frac, cases) in segf */
            if (p.r >= 0 && p.best >= 0) {
                out_best[p.r] = p.best;
                out_pen[p.r] = p.pen;
                out_low[p.r] = p.low;
            }
            const Py_ssize_t r = bk[j];
            p.r = r;
            p.best = -1;
            p.known = segf[3 * r];
            p.frac = segf[3 * r + 1];
            p.base = side_info(xj, lj, C) / p.known;
            p.cost = (float)((lj[C + 1] / TG_LN2) / (double)segf[3 * r + 2]);
            continue;
        }
        if (c < 0) {
            for (Py_ssize_t k = 0; k < rows; k++)
                tm[k] = xlog2x(xj[k], lj[k]);
        } else { /* class c's terms and the totals' changed */
            tm[c] = xlog2x(xj[0], lj[0]);
            tm[C] = xlog2x(xj[1], lj[1]);
            tm[C + 1 + c] = xlog2x(xj[2], lj[2]);
            tm[2 * C + 1] = xlog2x(xj[3], lj[3]);
        }
        const float pen =
            cut_pen(terms_info(tm, C) + terms_info(tm + C + 1, C), bl[j], p.known, p.base, p.frac,
                    p.cost, mc);
        if (p.best < 0 || pen > p.pen) {
            p.best = bi[j];
            p.pen = pen;
            p.low = bl[j];
        }
    }
    if (p.r >= 0 && p.best >= 0) { /* (again at the next header: a segment can go on) */
        out_best[p.r] = p.best;
        out_pen[p.r] = p.pen;
        out_low[p.r] = p.low;
    }
    *st = p;
    return 0;
}
#define PICK_BLOCK pick_block

/* scan_best: scanwalk.h with float sums and Release 8's candidate test
 * (MinSplit <= LowItems <= known - MinSplit, values more than CUT_GAP apart), as
 * splits.py's _eval_cont_chunk admits cuts; it takes the cuts' logs a block at a
 * time and picks each segment's best cut as it goes (pick_block). */
#define SCAN_FN tg_scan_best
#define SCAN_INFO
#define REAL float
#define IS_CANDIDATE(ms, bound, low, v, v_next) ((low) >= (ms) && (low) <= (bound) && (v) < (v_next)-TG_CUT_GAP)
#include "scanwalk.h"
