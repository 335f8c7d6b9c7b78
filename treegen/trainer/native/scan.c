/* Continuous attributes: running sums over each node's sorted cases and the
 * candidate cuts (scan_cont), then the gains and the best cut per node and
 * attribute (best_cuts).  levelwise/score.py's eval_continuous_flat drives them. */
#include "cscan.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* One TotalInfo term as splits._xlog2x computes it: v * (log(v) / ln 2) in
 * double, with v = 1 (term 0) standing in for non-positive values. */
static inline double xlog2x(double v, double lg)
{
    return (lg / TG_LN2) * v;
}

/* TotalInfo of one side of a cut (splits.total_info, float32 flavour): the
 * terms of the parts added into a float one at a time, then the total's
 * term minus that sum, stored as float.  With SSE2 the terms are taken two at a
 * time (a packed division gives the same IEEE quotients as two scalar ones, in
 * about the time of one: the divisions were most of best_cuts' time). */
static inline float side_info(const double *x, const double *lg, Py_ssize_t C)
{
    float acc = 0.0f;
#if defined(__SSE2__)
    /* values 0..C-1 are the parts, value C the total: pairs (c, c + 1) up to C */
    const __m128d ln2 = _mm_set1_pd(TG_LN2);
    double total = 0.0;
    Py_ssize_t c = 0;
    for (; c + 1 <= C; c += 2) {
        double t[2];
        _mm_storeu_pd(t, _mm_mul_pd(_mm_div_pd(_mm_loadu_pd(lg + c), ln2), _mm_loadu_pd(x + c)));
        acc = (float)((double)acc + t[0]);
        if (c + 1 < C)
            acc = (float)((double)acc + t[1]);
        else
            total = t[1];
    }
    if (c == C)
        total = xlog2x(x[C], lg[C]);
    return (float)(total - (double)acc);
#else
    for (Py_ssize_t c = 0; c < C; c++)
        acc = (float)((double)acc + xlog2x(x[c], lg[c]));
    return (float)(xlog2x(x[C], lg[C]) - (double)acc);
#endif
}

/* side_info from the side's terms (C parts, then the total's), as side_info adds them. */
static inline float terms_info(const double *t, Py_ssize_t C)
{
    float acc = 0.0f;
    for (Py_ssize_t c = 0; c < C; c++)
        acc = (float)((double)acc + t[c]);
    return (float)(t[C] - (double)acc);
}

/* A cut's TotalInfo (below + above, float) from its 2C + 2 log inputs and logs. */
static inline float cut_info(const double *x, const double *lg, Py_ssize_t C)
{
    const float below = side_info(x, lg, C);
    const float above = side_info(x + C + 1, lg + C + 1, C);
    return below + above;
}

/* The segment whose cuts scan_best's pick_block is picking among: its numbers, and
 * its best cut so far (best < 0: none), kept out of the output arrays meanwhile. */
typedef struct {
    Py_ssize_t r, best;
    float known, frac, base, cost, pen, low;
    double *tm; /* the last cut's 2C + 2 terms v * (log(v) / ln 2), as side_info's */
} tg_pick;

/* A cut's penalised gain as best_cuts compares it: (1 - unk) * (base - info / known),
 * -EPSILON when a side has less than m, minus the segment's cost; all in float. */
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
 * cutpick.best_c45 took it), 2C + 2 doubles; a cut's row its 2C + 2 log inputs (bc < 0)
 * or, when only class bc's cases moved below since the segment's last cut, the 4
 * that changed (class bc below, the total below, class bc above, the total above):
 * the other terms are the last cut's, kept in st->tm (half the logs and divisions
 * with 3 classes).  Each cut is picked as best_cuts picks: the first largest
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

/* scan_cont: scanwalk.h with float sums and Release 8's candidate test
 * (MinSplit <= LowItems <= known - MinSplit, values more than CUT_GAP apart), as
 * splits.py's _eval_cont_chunk admits cuts. */
#define SCAN_FN tg_scan_cont
#define REAL float
#define IS_CANDIDATE(ms, bound, low, v, v_next) ((low) >= (ms) && (low) <= (bound) && (v) < (v_next)-TG_CUT_GAP)
#include "scanwalk.h"

/* scan_best: scan_cont (no windows) that takes the cuts' logs a block at a time and
 * picks each segment's best cut as it goes (see scanwalk.h). */
#define SCAN_FN tg_scan_best
#define SCAN_INFO
#define REAL float
#define IS_CANDIDATE(ms, bound, low, v, v_next) ((low) >= (ms) && (low) <= (bound) && (v) < (v_next)-TG_CUT_GAP)
#include "scanwalk.h"

/* best_cuts(x, lg, C, n, kk, low, known, base, known_frac, cost, m, out_best, out_pen)
 *
 * splits.finish_c45 for the candidates of scan_cont: x holds per cut 2C + 2
 * values (C classes below, their total, C classes above, their total) and lg
 * their natural logs computed by numpy, so the logs are the numpy path's.  Per segment r: known weight,
 * base info, 1 - unknown rate and the MDL cost (float32).  Candidate j's gain
 * is (1 - unk) * (base - info / known), -EPSILON when a side has less than m;
 * its penalised value pen = gain - cost (cut_pen).  out_best[r] gets the first
 * candidate with the largest pen (-1 if none) and out_pen[r] that pen. */
PyObject *tg_best_cuts(PyObject *self, PyObject *args)
{
    enum { NB = 10 };
    PyObject *o[NB] = {NULL};
    Py_ssize_t C = 1, n;
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
        const float *low = b[3].buf, *known = b[4].buf, *base = b[5].buf, *frac = b[6].buf;
        const float *cost = b[7].buf;
        Py_ssize_t *best = b[8].buf;
        float *bpen = b[9].buf;
        for (Py_ssize_t r = 0; r < R; r++)
            best[r] = -1;
        for (Py_ssize_t j = 0; j < n; j++) {
            const Py_ssize_t r = kk[j];
            if (r < 0 || r >= R) {
                PyErr_SetString(PyExc_IndexError, "best_cuts: segment out of range");
                goto done;
            }
            const float inf = cut_info(x + j * rows, lg + j * rows, C);
            const float pen = cut_pen(inf, low[j], known[r], base[r], frac[r], cost[r], m);
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
