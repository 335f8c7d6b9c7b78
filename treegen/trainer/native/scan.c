/* Continuous attributes, c45: scan_best, the running sums over each node's sorted
 * cases and its candidate cuts (scanwalk.h), with the cuts' gains and the best
 * cut per node and attribute picked as the scan goes (pick_block).
 * levelwise/score.py's eval_continuous_flat drives it. */
#include "cscan.h"
#include "logbound.h"

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

/* scan_best's pick (pick_block, pick_flush): the segment being picked from, its best
 * cut so far (best < 0: none), kept out of the output arrays meanwhile; the bounds of
 * the segment being scanned (it may be ahead of the picked one); and the rows waiting
 * to be picked from. */
typedef struct {
    Py_ssize_t r, best;
    float known, frac, base, cost, pen, low;
    double *tm; /* the terms v * (log(v) / ln 2) of one row's 2C + 2 inputs, as side_info's */
    /* the bounds (pick_header): whether they hold for the segment, whether its next cut
     * is its first, its known weight, and pick_header's numbers */
    int ok, first;
    float b_known;
    double b_frac, b_inv, b_base, b_cost, b_eta;
    double *xc, *tw;  /* the last cut's 2C + 2 log inputs and their approx_terms2 */
    double *lo, *hi, *floors; /* a block's cuts' bounds (NaN: none), its segments' floors */
    /* the waiting rows: their inputs (2C + 2 each); segment (headers) or -1 (cuts);
     * position (cuts, -1 for headers); a cut's LowItems */
    double *ex, *eb; /* (eb: a cut's bounds, 2 each, under check_bounds) */
    Py_ssize_t *ek, *ei;
    float *el;
    Py_ssize_t n_ex, cap_ex;
} tg_pick;

/* check_bounds(True): every cut waits, and pick_flush checks that its penalised gain is
 * within its bounds (RuntimeError if not), for tests/trainer/test_scan_info.py. */
static int check_mode = 0;

/* Room for the pick's state with C classes and a log block of cap_d doubles. */
static int pick_init(tg_pick *st, Py_ssize_t C, Py_ssize_t cap_d)
{
    const Py_ssize_t rows = 2 * C + 2, rows_max = cap_d / 4 + 1;
    memset(st, 0, sizeof *st);
    st->r = st->best = -1;
    st->cap_ex = cap_d / rows;
    st->tm = PyMem_Malloc(((size_t)(3 + st->cap_ex) * (size_t)rows + 3 * (size_t)rows_max +
                           2 * (size_t)st->cap_ex) *
                          sizeof(double));
    st->ek = PyMem_Malloc(2 * (size_t)st->cap_ex * sizeof(Py_ssize_t));
    st->el = PyMem_Malloc((size_t)st->cap_ex * sizeof(float));
    if (st->tm == NULL || st->ek == NULL || st->el == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    st->xc = st->tm + rows;
    st->tw = st->xc + rows;
    st->ex = st->tw + rows;
    st->lo = st->ex + st->cap_ex * rows;
    st->hi = st->lo + rows_max;
    st->floors = st->hi + rows_max;
    st->floors[0] = -INFINITY;
    st->eb = st->floors + rows_max;
    st->ei = st->ek + st->cap_ex;
    if (!log_ready)
        log_table();
    return 0;
}

static void pick_free(tg_pick *st)
{
    PyMem_Free(st->tm);
    PyMem_Free(st->ek);
    PyMem_Free(st->el);
}

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

/* The best cut of the waiting rows, in order, with numpy's logs: logf(view, view) on
 * the inputs copied into lg's first doubles (lgo's memory), then each row as
 * splits.pick_c45 picks: a segment's header row (ek >= 0) holds its known class
 * weights and their total (the base info's TotalInfo, as stats.cut_base_info takes
 * it) and its number of cuts (the cost's log, as splits.pick_c45 takes it); a cut's row
 * its 2C + 2 log inputs, and the first largest penalised gain wins.  0, or -1 with the
 * exception set. */
static int pick_flush(PyObject *logf, PyObject *lgo, double *lg, Py_ssize_t C,
                      const float *segf, double mc, tg_pick *st, Py_ssize_t *out_best,
                      float *out_pen, float *out_low)
{
    const Py_ssize_t rows = 2 * C + 2, n = st->n_ex;
    if (n == 0)
        return 0;
    memcpy(lg, st->ex, (size_t)(n * rows) * sizeof(double));
    PyObject *view = PySequence_GetSlice(lgo, 0, n * rows);
    if (view == NULL)
        return -1;
    PyObject *res = PyObject_CallFunctionObjArgs(logf, view, view, NULL);
    Py_DECREF(view);
    if (res == NULL)
        return -1;
    Py_DECREF(res);
    st->n_ex = 0;
    tg_pick p = *st;
    double *tm = p.tm;
    for (Py_ssize_t j = 0; j < n; j++) {
        const double *xj = p.ex + j * rows, *lj = lg + j * rows;
        const Py_ssize_t k = p.ek[j];
        if (k >= 0) { /* segment k starts: (known, frac, cases) in segf */
            if (p.r >= 0 && p.best >= 0) {
                out_best[p.r] = p.best;
                out_pen[p.r] = p.pen;
                out_low[p.r] = p.low;
            }
            p.r = k;
            p.best = -1;
            p.known = segf[3 * k];
            p.frac = segf[3 * k + 1];
            p.base = side_info(xj, lj, C) / p.known;
            p.cost = (float)((lj[C + 1] / TG_LN2) / (double)segf[3 * k + 2]);
            continue;
        }
        for (Py_ssize_t q = 0; q < rows; q++)
            tm[q] = xlog2x(xj[q], lj[q]);
        const float pen = cut_pen(terms_info(tm, C) + terms_info(tm + C + 1, C), p.el[j],
                                  p.known, p.base, p.frac, p.cost, mc);
        if (check_mode && !((double)pen >= p.eb[2 * j] && (double)pen <= p.eb[2 * j + 1])) {
            PyErr_Format(PyExc_RuntimeError, "scan_best: a gain %.9g outside its bounds [%.9g, %.9g]",
                         (double)pen, p.eb[2 * j], p.eb[2 * j + 1]);
            return -1;
        }
        if (p.best < 0 || pen > p.pen) {
            p.best = p.ei[j];
            p.pen = pen;
            p.low = p.el[j];
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

/* One row waiting to be picked from: its 2C + 2 inputs xr, its segment k (a header)
 * or -1, its position i and LowItems; the waiting rows are picked from first when
 * there is no room. */
static inline int pick_wait(PyObject *logf, PyObject *lgo, double *lg, Py_ssize_t C,
                            const float *segf, double mc, tg_pick *st, Py_ssize_t *out_best,
                            float *out_pen, float *out_low, const double *xr, Py_ssize_t k,
                            Py_ssize_t i, float low, double lo, double hi)
{
    if (st->n_ex == st->cap_ex &&
        pick_flush(logf, lgo, lg, C, segf, mc, st, out_best, out_pen, out_low) < 0)
        return -1;
    const Py_ssize_t j = st->n_ex++;
    memcpy(st->ex + j * (2 * C + 2), xr, (size_t)(2 * C + 2) * sizeof(double));
    st->ek[j] = k;
    st->ei[j] = i;
    st->el[j] = low;
    st->eb[2 * j] = lo;
    st->eb[2 * j + 1] = hi;
    return 0;
}

/* Whether the bounds hold for a segment of numbers sf (known, frac, cases): finite,
 * known and cases above 0, frac at least 0. */
static inline int bounds_hold(const float *sf)
{
    return sf[0] > 0 && sf[0] < 1e30f && sf[1] >= 0 && sf[1] < 1e30f && sf[2] > 0;
}

/* A segment's numbers for its cuts' bounds, from its header row xj: the approximate
 * base info and cost (logbound.h's log2), and b_eta, a bound on how far a cut's
 * penalised gain (cut_pen's float operations on numpy's logs) can be from the same
 * formula in double on the approximate terms.  tests/trainer/test_scan_info.py checks
 * every cut against it (check_bounds); on the bench's data at 100k and 1M rows no
 * gain came within a fifth of it. */
static void pick_header(tg_pick *st, const double *xj, const float *sf, Py_ssize_t C)
{
    const double known = sf[0], frac = sf[1], cases = sf[2];
    double *tw = st->tw;
    st->b_known = sf[0];
    st->b_frac = frac;
    st->b_inv = 1.0 / known;
    st->first = 1;
    st->ok = bounds_hold(sf);
    for (Py_ssize_t k = 0; k <= C; k++)
        tw[k] = approx_log2(xj[k]) * xj[k];
    double acc = 0;
    for (Py_ssize_t k = 0; k < C; k++)
        acc += tw[k];
    st->b_base = (tw[C] - acc) / known;
    st->b_cost = approx_log2(xj[C + 1]) / cases;
    /* Bounds on the float chain's magnitudes.  A side of t of the known weight K
     * (with room for the float sums' roundings) has terms v log2 v of at most
     * t log2 K for v >= 1 and 1 / (e ln 2) < 0.54 for v < 1, so each partial sum of a
     * side's terms is within A = K log2 K + 1.08 C over both sides; info and
     * base are at most K log2 C (TotalInfo) and log2 C (its K-th part). */
    const double K = 1.001 * known + 1.0, lc = 1.0001 * log2((double)C);
    const double A = K * log2(K > 2.0 ? K : 2.0) + 1.08 * (double)C;
    /* info's error: C + 1 float roundings of a partial sum and two of a total (2^-24
     * each, 1.01 for the double sums in between), and the terms' (LOG_ERR a unit of
     * the 2K weight of a row's inputs); base's the same over known, and its division;
     * the cost's, its log's over the cases, and its rounding */
    const double e_info = 0x1p-24 * 1.01 * ((double)(C + 1) * A + 2.0 * K * lc) + 2.1 * LOG_ERR * K;
    const double e_base = e_info / known + 0x1p-23 * fabs(st->b_base);
    const double e_cost = 1.01 * LOG_ERR / cases + 0x1p-23 * fabs(st->b_cost);
    /* the rest: the division by known, the difference, the product and the cost's
     * subtraction, each rounded to float: 2^-24 of at most U, 4 U in all (and 4 times
     * that here); then the whole bound doubled */
    const double U = fabs(st->b_base) + e_base + lc + e_info / known + fabs(st->b_cost) + e_cost;
    st->b_eta = 2.0 * (frac * (e_info / known + e_base) + e_cost + 0x1p-22 * 4.0 * U);
    if (!(st->b_eta < 1e30)) /* (NaN) */
        st->ok = 0;
}

/* scan_best's block of m rows (a segment's header, or a cut's 2C + 2 log inputs (bc < 0)
 * or, when only class bc's cases moved below since the segment's last cut, the 4 that
 * changed: class bc below, the total below, class bc above, the total above), picked
 * as pick_flush picks from all of them, but with numpy's logs taken only for the
 * headers and the cuts that can win.  A first pass bounds each cut's penalised gain
 * (the approximation of logbound.h, plus or minus the segment's b_eta) and finds each
 * segment's floor.  A cut whose upper bound is below its segment's floor (the largest
 * lower bound of its cuts in this block and the blocks before) has a smaller gain than
 * another cut's, so it is
 * neither the first largest nor tied with it, and is left out.  The second pass hands
 * the others to pick_flush, with every segment's first cut (the pick's first best) and
 * every cut whose bound is NaN or that cut_pen gives -EPSILON, and every cut of a
 * segment whose bounds do not hold (bounds_hold).  0, or -1 with the exception set. */
static int pick_block(PyObject *logf, PyObject *lgo, const double *x, double *lg, Py_ssize_t C,
                      Py_ssize_t m, const Py_ssize_t *bk, const Py_ssize_t *bi, const float *bl,
                      const int32_t *bc, const float *segf, double mc, tg_pick *st,
                      Py_ssize_t *out_best, float *out_pen, float *out_low)
{
    const Py_ssize_t rows = 2 * C + 2;
    double *xc = st->xc, *tw = st->tw;
    double *lo = st->lo, *hi = st->hi, *floors = st->floors; /* (floors[0]: the segment the block goes on with) */
    const int first0 = st->first;
    Py_ssize_t pos = 0, h = 0; /* where row j starts; the block's segments so far */
    for (Py_ssize_t j = 0; j < m; j++) {
        const double *xj = x + pos;
        const Py_ssize_t c = bc[j];
        pos += c < 0 ? rows : 4;
        if (bi[j] < 0) {
            pick_header(st, xj, segf + 3 * bk[j], C);
            floors[++h] = -INFINITY;
            continue;
        }
        if (c < 0) {
            for (Py_ssize_t k = 0; k < rows; k += 2)
                approx_terms2(xj + k, tw, k, k + 1);
        } else { /* class c's inputs and the totals' changed */
            approx_terms2(xj, tw, c, C);
            approx_terms2(xj + 2, tw, C + 1 + c, 2 * C + 1);
        }
        hi[j] = lo[j] = NAN; /* (it waits) */
        if (!st->ok)
            continue;
        const float vf2 = st->b_known - bl[j];
        if ((double)bl[j] < mc || (double)vf2 < mc) /* (-EPSILON) */
            continue;
        double sb = 0, sa = 0;
        for (Py_ssize_t k = 0; k < C; k++) {
            sb += tw[k];
            sa += tw[C + 1 + k];
        }
        const double info = (tw[C] - sb) + (tw[2 * C + 1] - sa);
        const double pen = st->b_frac * (st->b_base - info * st->b_inv) - st->b_cost;
        hi[j] = pen + st->b_eta;
        lo[j] = pen - st->b_eta;
        if (lo[j] > floors[h])
            floors[h] = lo[j];
    }
    /* The second pass: the inputs of each cut made whole again, and the rows that can
     * win handed on. */
    int first = first0;
    pos = h = 0;
#define WAIT(xr, k, i, low, l, u)                                                          \
    if (pick_wait(logf, lgo, lg, C, segf, mc, st, out_best, out_pen, out_low, xr, k, i, low, l, \
                  u) < 0)                                                                  \
        return -1;
    for (Py_ssize_t j = 0; j < m; j++) {
        const double *xj = x + pos;
        const Py_ssize_t c = bc[j];
        pos += c < 0 ? rows : 4;
        if (bi[j] < 0) {
            WAIT(xj, bk[j], -1, 0.0f, 0.0, 0.0)
            first = 1;
            h++;
            continue;
        }
        if (c < 0)
            memcpy(xc, xj, (size_t)rows * sizeof(double));
        else {
            xc[c] = xj[0];
            xc[C] = xj[1];
            xc[C + 1 + c] = xj[2];
            xc[2 * C + 1] = xj[3];
        }
        if (check_mode || first || !(hi[j] < floors[h])) {
            const int nan = !(hi[j] == hi[j]); /* (no bounds to check) */
            WAIT(xc, -1, bi[j], bl[j], nan ? -INFINITY : lo[j], nan ? INFINITY : hi[j])
        }
        first = 0;
    }
#undef WAIT
    floors[0] = floors[h]; /* (the last segment's, for the next block) */
    st->first = first;
    return pick_flush(logf, lgo, lg, C, segf, mc, st, out_best, out_pen, out_low);
}
PyObject *tg_check_bounds(PyObject *self, PyObject *args)
{
    int on;
    (void)self;
    if (!PyArg_ParseTuple(args, "p", &on))
        return NULL;
    check_mode = on;
    Py_RETURN_NONE;
}

/* approx_terms(x, paired, single) -> LOG_ERR: for tests/trainer/test_scan_info.py, each
 * x (float64, an even number of them) times its approx_log2, into paired by
 * approx_terms2 (two at a time) and into single one at a time. */
PyObject *tg_approx_terms(PyObject *self, PyObject *args)
{
    PyObject *o[3];
    Py_buffer b[3];
    int got = 0;
    PyObject *result = NULL;
    Py_ssize_t n;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOO", &o[0], &o[1], &o[2]))
        return NULL;
    if ((n = tg_items(o[0], sizeof(double))) < 0)
        return NULL;
    const tg_spec spec[3] = {
        {0, sizeof(double), n, "x"},
        {1, sizeof(double), n, "paired"},
        {1, sizeof(double), n, "single"},
    };
    if ((got = tg_views(o, b, spec, 3)) < 3)
        goto done;
    if (n % 2) {
        PyErr_SetString(PyExc_ValueError, "approx_terms: an odd number of values");
        goto done;
    }
    {
        const double *x = b[0].buf;
        double *paired = b[1].buf, *single = b[2].buf;
        if (!log_ready)
            log_table();
        for (Py_ssize_t i = 0; i < n; i += 2)
            approx_terms2(x + i, paired, i, i + 1);
        for (Py_ssize_t i = 0; i < n; i++)
            single[i] = approx_log2(x[i]) * x[i];
    }
    result = PyFloat_FromDouble(LOG_ERR);
done:
    tg_release(b, got);
    return result;
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
