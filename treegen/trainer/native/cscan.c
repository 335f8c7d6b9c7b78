/* treegen's C accelerator for growth: the loops that numpy can only do with
 * large temporaries.  Every function computes exactly what the numpy code it
 * replaces computes (the same float32 operations in the same order); the
 * Python wrappers are in treegen/trainer/native.py and the equality tests in
 * tests/test_trainer_native.py.
 *
 * Built with -ffp-contract=off (setup.py): a fused multiply-add would round
 * once where numpy rounds twice.  FLT_EVAL_METHOD must be 0 (float
 * arithmetic in float, as SSE does): with x87 extended precision the running
 * sums would not round like Release 8's, so such targets get no accelerator. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <float.h>
#include <stdint.h>
#include <string.h>

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "float arithmetic must be evaluated in float (FLT_EVAL_METHOD == 0)"
#endif

#define MAX_CLASSES 4096

/* The kernels read records of cases scattered over the bucket, whose
 * positions are known a few iterations ahead: prefetching hides most of the
 * memory latency. */
#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(addr) __builtin_prefetch(addr)
#else
#define PREFETCH(addr) ((void)0)
#endif
#define AHEAD 16

/* A read-only or writable view of a C-contiguous buffer of at least n items. */
static int view(PyObject *o, Py_buffer *b, int writable, Py_ssize_t itemsize, Py_ssize_t n,
                const char *name)
{
    int flags = PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(o, b, flags) < 0)
        return -1;
    if (b->itemsize != itemsize || b->len < n * itemsize) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd items of %zd bytes, got %zd bytes",
                     name, n, itemsize, b->len);
        PyBuffer_Release(b);
        return -1;
    }
    return 0;
}

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
static PyObject *scan_cont(PyObject *self, PyObject *args)
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
    /* Sizes come from these buffers; every other buffer is checked against them. */
    {
        Py_buffer probe;
        PyObject *src[3] = {o[3], o[1], o[8]};
        Py_ssize_t *dst[3] = {&R, &E, &cap};
        Py_ssize_t size[3] = {sizeof(Py_ssize_t), sizeof(int32_t), sizeof(Py_ssize_t)};
        for (int i = 0; i < 3; i++) {
            if (PyObject_GetBuffer(src[i], &probe, PyBUF_C_CONTIGUOUS) < 0)
                return NULL;
            *dst[i] = probe.len / size[i];
            PyBuffer_Release(&probe);
        }
    }
    const struct { int wr; Py_ssize_t size, n; const char *name; } spec[NB] = {
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
    for (got = 0; got < NB; got++)
        if (view(o[got], &b[got], spec[got].wr, spec[got].size, spec[got].n, spec[got].name) < 0)
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
    for (int i = 0; i < got; i++)
        PyBuffer_Release(&b[i]);
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
static PyObject *best_cuts(PyObject *self, PyObject *args)
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
    Py_ssize_t R = 0;
    {
        Py_buffer probe;
        if (PyObject_GetBuffer(o[4], &probe, PyBUF_C_CONTIGUOUS) < 0)
            return NULL;
        R = probe.len / (Py_ssize_t)sizeof(float);
        PyBuffer_Release(&probe);
    }
    const Py_ssize_t rows = 2 * C + 2;
    const struct { int wr; Py_ssize_t size, n; const char *name; } spec[NB] = {
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
    for (got = 0; got < NB; got++)
        if (view(o[got], &b[got], spec[got].wr, spec[got].size, spec[got].n, spec[got].name) < 0)
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
    for (int i = 0; i < got; i++)
        PyBuffer_Release(&b[i]);
    return result;
}

/* part_sorted(srt, task_srt_start, task_lens, task_off, task_row, br, child_of, F,
 *             grows, pos_known, u_slot, pos_unk, Kc, out_start, out_lens) -> bytearray
 *
 * The children's sorted arrays after a batch of splits (partition.py's
 * _children_sorted_numpy computes the same).  Split task s keeps, per
 * continuous attribute k, its cases with a known value in value order:
 * task_lens[s * Kc + k] positions (into the task's cases) stored one
 * attribute after another from srt[task_srt_start[s]]; its cases are entries
 * task_off[s]... of the bucket and its branches row task_row[s] of child_of
 * (F columns: child id, or -1 for an empty branch).  Entry e goes to branch
 * br[e], or to every non-empty branch when br[e] < 0 (unknown value); in
 * child c (only where grows[c]) it is case pos_known[e], or pos_unk[u_slot[e]
 * * F + v] for the copy in branch v.  Walking each sorted array in order
 * keeps every child's arrays in value order.  Returns the children's arrays
 * as int32 in one buffer, child after child and attribute after attribute;
 * out_lens[c * Kc + k] gets the lengths and out_start[c] the offsets (in
 * items; out_start has n_child + 1 entries). */
static PyObject *part_sorted(PyObject *self, PyObject *args)
{
    enum { NB = 13 };
    PyObject *o[NB];
    Py_ssize_t F, Kc;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOOOnOOOOnOO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5],
                          &o[6], &F, &o[7], &o[8], &o[9], &o[10], &Kc, &o[11], &o[12]))
        return NULL;
    if (F < 1 || Kc < 1) {
        PyErr_SetString(PyExc_ValueError, "F and Kc must be positive");
        return NULL;
    }
    Py_buffer b[NB];
    int got = 0;
    Py_ssize_t S = 0, E = 0, NS = 0, NC = 0, NU = 0, NR = 0;
    PyObject *result = NULL;
    Py_ssize_t *ptr = NULL;
    {
        Py_buffer probe;
        PyObject *src[6] = {o[1], o[5], o[0], o[7], o[10], o[6]};
        Py_ssize_t *dst[6] = {&S, &E, &NS, &NC, &NU, &NR};
        Py_ssize_t size[6] = {sizeof(Py_ssize_t), sizeof(Py_ssize_t), sizeof(int32_t), 1,
                              sizeof(Py_ssize_t), sizeof(Py_ssize_t)};
        for (int i = 0; i < 6; i++) {
            if (PyObject_GetBuffer(src[i], &probe, PyBUF_C_CONTIGUOUS) < 0)
                return NULL;
            *dst[i] = probe.len / size[i];
            PyBuffer_Release(&probe);
        }
        NR /= F;
    }
    const struct { int wr; Py_ssize_t size, n; const char *name; } spec[NB] = {
        {0, sizeof(int32_t), NS, "srt"},
        {0, sizeof(Py_ssize_t), S, "task_srt_start"},
        {0, sizeof(Py_ssize_t), S * Kc, "task_lens"},
        {0, sizeof(Py_ssize_t), S, "task_off"},
        {0, sizeof(Py_ssize_t), S, "task_row"},
        {0, sizeof(Py_ssize_t), E, "br"},
        {0, sizeof(Py_ssize_t), NR * F, "child_of"},
        {0, 1, NC, "grows"},
        {0, sizeof(Py_ssize_t), E, "pos_known"},
        {0, sizeof(Py_ssize_t), E, "u_slot"},
        {0, sizeof(Py_ssize_t), NU, "pos_unk"},
        {1, sizeof(Py_ssize_t), NC + 1, "out_start"},
        {1, sizeof(Py_ssize_t), NC * Kc, "out_lens"},
    };
    for (got = 0; got < NB; got++)
        if (view(o[got], &b[got], spec[got].wr, spec[got].size, spec[got].n, spec[got].name) < 0)
            goto done;
    {
        const int32_t *srt = b[0].buf;
        const Py_ssize_t *s_start = b[1].buf, *t_lens = b[2].buf, *t_off = b[3].buf;
        const Py_ssize_t *t_row = b[4].buf, *br = b[5].buf, *child_of = b[6].buf;
        const unsigned char *grows = b[7].buf;
        const Py_ssize_t *pos_known = b[8].buf, *u_slot = b[9].buf, *pos_unk = b[10].buf;
        Py_ssize_t *o_start = b[11].buf, *o_lens = b[12].buf;
        memset(o_lens, 0, (size_t)(NC * Kc) * sizeof(Py_ssize_t));
        /* Pass 1: count (and check every index once). */
        for (Py_ssize_t s = 0; s < S; s++) {
            const Py_ssize_t row = t_row[s];
            if (row < 0 || row >= NR) goto bad;
            const Py_ssize_t *cof = child_of + row * F;
            Py_ssize_t at = s_start[s];
            for (Py_ssize_t k = 0; k < Kc; k++) {
                const Py_ssize_t L = t_lens[s * Kc + k];
                if (at < 0 || L < 0 || at + L > NS) goto bad;
                for (Py_ssize_t i = 0; i < L; i++) {
                    const Py_ssize_t e = t_off[s] + srt[at + i];
                    if (i + AHEAD < L) {
                        const Py_ssize_t ea = t_off[s] + srt[at + i + AHEAD];
                        if (ea >= 0 && ea < E)
                            PREFETCH(br + ea);
                    }
                    if (e < 0 || e >= E || br[e] >= F || br[e] < -1) goto bad;
                    if (br[e] >= 0) {
                        const Py_ssize_t c = cof[br[e]];
                        if (c < 0 || c >= NC) goto bad;
                        if (grows[c]) o_lens[c * Kc + k]++;
                    } else {
                        if (u_slot[e] < 0 || (u_slot[e] + 1) * F > NU) goto bad;
                        for (Py_ssize_t v = 0; v < F; v++) {
                            const Py_ssize_t c = cof[v];
                            if (c >= NC) goto bad;
                            if (c >= 0 && grows[c]) o_lens[c * Kc + k]++;
                        }
                    }
                }
                at += L;
            }
        }
        /* Offsets: child-major, then attribute-major within a child. */
        ptr = PyMem_Malloc((size_t)(NC * Kc + 1) * sizeof(Py_ssize_t));
        if (ptr == NULL) { PyErr_NoMemory(); goto done; }
        Py_ssize_t total = 0;
        for (Py_ssize_t c = 0; c < NC; c++) {
            o_start[c] = total;
            for (Py_ssize_t k = 0; k < Kc; k++) {
                ptr[c * Kc + k] = total;
                total += o_lens[c * Kc + k];
            }
        }
        o_start[NC] = total;
        result = PyByteArray_FromStringAndSize(NULL, total * (Py_ssize_t)sizeof(int32_t));
        if (result == NULL) goto done;
        int32_t *out = (int32_t *)PyByteArray_AS_STRING(result);
        /* Pass 2: place. */
        for (Py_ssize_t s = 0; s < S; s++) {
            const Py_ssize_t *cof = child_of + t_row[s] * F;
            Py_ssize_t at = s_start[s];
            for (Py_ssize_t k = 0; k < Kc; k++) {
                const Py_ssize_t L = t_lens[s * Kc + k];
                for (Py_ssize_t i = 0; i < L; i++) {
                    const Py_ssize_t e = t_off[s] + srt[at + i];
                    if (i + AHEAD < L) {
                        const Py_ssize_t ea = t_off[s] + srt[at + i + AHEAD];
                        PREFETCH(br + ea); /* checked in pass 1 */
                        PREFETCH(pos_known + ea);
                    }
                    if (br[e] >= 0) {
                        const Py_ssize_t c = cof[br[e]];
                        if (grows[c]) out[ptr[c * Kc + k]++] = (int32_t)pos_known[e];
                    } else {
                        const Py_ssize_t *pu = pos_unk + u_slot[e] * F;
                        for (Py_ssize_t v = 0; v < F; v++) {
                            const Py_ssize_t c = cof[v];
                            if (c >= 0 && grows[c]) out[ptr[c * Kc + k]++] = (int32_t)pu[v];
                        }
                    }
                }
                at += L;
            }
        }
    }
    goto done;
bad:
    PyErr_SetString(PyExc_IndexError, "part_sorted: index out of range");
    Py_CLEAR(result);
done:
    PyMem_Free(ptr);
    for (int i = 0; i < got; i++)
        PyBuffer_Release(&b[i]);
    return result;
}

/* emit_children(tid, br, w, child_of, F, u_slot, cw, wsize, out_start, out_ent,
 *               out_w, pos_known, pos_unk)
 *
 * The children's case lists after a batch of splits (partition.py's numpy
 * code: a stable sort of (child, entry) pairs computes the same).  Entry e
 * of the bucket belongs to task tid[e]; br[e] is its branch (-1 unknown,
 * -2 for a task that does not split).  A known entry goes to child
 * child_of[tid * F + br] with its weight w[e]; an unknown one to the child of
 * every non-empty branch v (child_of >= 0) with weight cw[u_slot[e] * F + v].
 * Within a child, entries keep their order.  Weights are copied as they are
 * (wsize bytes: float32 or double).  Writes each child's start (n_child + 1
 * entries), the entries and weights, and the position of each case inside its
 * child: pos_known[e] for a known entry, pos_unk[u_slot[e] * F + v] for the
 * copy of an unknown one in branch v. */
static PyObject *emit_children(PyObject *self, PyObject *args)
{
    enum { NB = 11 };
    PyObject *o[NB];
    Py_ssize_t F, wsize;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOnOOnOOOOO", &o[0], &o[1], &o[2], &o[3], &F, &o[4], &o[5],
                          &wsize, &o[6], &o[7], &o[8], &o[9], &o[10]))
        return NULL;
    if (F < 1 || (wsize != 4 && wsize != 8)) {
        PyErr_SetString(PyExc_ValueError, "emit_children: bad sizes");
        return NULL;
    }
    Py_buffer b[NB];
    int got = 0;
    PyObject *result = NULL;
    Py_ssize_t *fill = NULL;
    Py_ssize_t E = 0, NR = 0, NU = 0, NC = 0, T = 0;
    {
        Py_buffer probe;
        PyObject *src[5] = {o[0], o[3], o[5], o[6], o[7]};
        Py_ssize_t *dst[5] = {&E, &NR, &NU, &NC, &T};
        Py_ssize_t size[5] = {sizeof(Py_ssize_t), sizeof(Py_ssize_t), wsize,
                              sizeof(Py_ssize_t), sizeof(Py_ssize_t)};
        for (int i = 0; i < 5; i++) {
            if (PyObject_GetBuffer(src[i], &probe, PyBUF_C_CONTIGUOUS) < 0)
                return NULL;
            *dst[i] = probe.len / size[i];
            PyBuffer_Release(&probe);
        }
        NC -= 1; /* out_start has n_child + 1 entries */
    }
    if (NC < 0) {
        PyErr_SetString(PyExc_ValueError, "emit_children: out_start is empty");
        return NULL;
    }
    const struct { int wr; Py_ssize_t size, n; const char *name; } spec[NB] = {
        {0, sizeof(Py_ssize_t), E, "tid"},
        {0, sizeof(Py_ssize_t), E, "br"},
        {0, wsize, E, "w"},
        {0, sizeof(Py_ssize_t), NR, "child_of"},
        {0, sizeof(Py_ssize_t), E, "u_slot"},
        {0, wsize, NU, "cw"},
        {1, sizeof(Py_ssize_t), NC + 1, "out_start"},
        {1, sizeof(Py_ssize_t), T, "out_ent"},
        {1, wsize, T, "out_w"},
        {1, sizeof(Py_ssize_t), E, "pos_known"},
        {1, sizeof(Py_ssize_t), NU, "pos_unk"},
    };
    for (got = 0; got < NB; got++)
        if (view(o[got], &b[got], spec[got].wr, spec[got].size, spec[got].n, spec[got].name) < 0)
            goto done;
    {
        const Py_ssize_t *tid = b[0].buf, *br = b[1].buf, *child_of = b[3].buf;
        const Py_ssize_t *u_slot = b[4].buf;
        const char *w = b[2].buf, *cw = b[5].buf;
        Py_ssize_t *start = b[6].buf, *ent = b[7].buf, *pos_known = b[9].buf;
        Py_ssize_t *pos_unk = b[10].buf;
        char *ow = b[8].buf;
        fill = PyMem_Calloc((size_t)NC + 1, sizeof(Py_ssize_t));
        if (fill == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        /* Pass 1: count per child (and check every index once). */
        for (Py_ssize_t e = 0; e < E; e++) {
            const Py_ssize_t v = br[e];
            if (v == -2)
                continue;
            const Py_ssize_t t = tid[e];
            if (v < -2 || v >= F || t < 0 || (t + 1) * F > NR)
                goto bad;
            if (v >= 0) {
                const Py_ssize_t c = child_of[t * F + v];
                if (c < 0 || c >= NC)
                    goto bad;
                fill[c]++;
            } else {
                if (u_slot[e] < 0 || (u_slot[e] + 1) * F > NU)
                    goto bad;
                for (Py_ssize_t k = 0; k < F; k++) {
                    const Py_ssize_t c = child_of[t * F + k];
                    if (c >= NC)
                        goto bad;
                    if (c >= 0)
                        fill[c]++;
                }
            }
        }
        Py_ssize_t total = 0;
        for (Py_ssize_t c = 0; c < NC; c++) {
            start[c] = total;
            total += fill[c];
            fill[c] = start[c];
        }
        start[NC] = total;
        if (total > T)
            goto bad;
        /* Pass 2: place, entries in order. */
        for (Py_ssize_t e = 0; e < E; e++) {
            const Py_ssize_t v = br[e], t = tid[e];
            pos_known[e] = -1;
            if (v == -2)
                continue;
            if (v >= 0) {
                const Py_ssize_t c = child_of[t * F + v];
                const Py_ssize_t at = fill[c]++;
                ent[at] = e;
                memcpy(ow + at * wsize, w + e * wsize, (size_t)wsize);
                pos_known[e] = at - start[c];
            } else {
                const Py_ssize_t u = u_slot[e] * F;
                for (Py_ssize_t k = 0; k < F; k++) {
                    const Py_ssize_t c = child_of[t * F + k];
                    if (c < 0)
                        continue;
                    const Py_ssize_t at = fill[c]++;
                    ent[at] = e;
                    memcpy(ow + at * wsize, cw + (u + k) * wsize, (size_t)wsize);
                    pos_unk[u + k] = at - start[c];
                }
            }
        }
    }
    result = Py_NewRef(Py_None);
    goto done;
bad:
    PyErr_SetString(PyExc_IndexError, "emit_children: index out of range");
done:
    PyMem_Free(fill);
    for (int i = 0; i < got; i++)
        PyBuffer_Release(&b[i]);
    return result;
}

/* add_at(out, idx, w): out[idx[i]] += w[i] for i in order, in float32 --
 * numpy's np.add.at(out, idx, w) on float32 arrays (sequential, rounding
 * after every addition), without its per-element dispatch. */
static PyObject *add_at(PyObject *self, PyObject *args)
{
    PyObject *o[3];
    (void)self;
    if (!PyArg_ParseTuple(args, "OOO", &o[0], &o[1], &o[2]))
        return NULL;
    Py_buffer b[3];
    int got = 0;
    PyObject *result = NULL;
    if (PyObject_GetBuffer(o[0], &b[0], PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0)
        return NULL;
    got = 1;
    const Py_ssize_t n_out = b[0].len / (Py_ssize_t)sizeof(float);
    if (b[0].itemsize != (Py_ssize_t)sizeof(float)) {
        PyErr_SetString(PyExc_ValueError, "add_at: out must be float32");
        goto done;
    }
    if (PyObject_GetBuffer(o[1], &b[1], PyBUF_C_CONTIGUOUS) < 0)
        goto done;
    got = 2;
    const Py_ssize_t n = b[1].len / (Py_ssize_t)sizeof(Py_ssize_t);
    if (b[1].itemsize != (Py_ssize_t)sizeof(Py_ssize_t)) {
        PyErr_SetString(PyExc_ValueError, "add_at: idx must be intp");
        goto done;
    }
    if (view(o[2], &b[2], 0, sizeof(float), n, "w") < 0)
        goto done;
    got = 3;
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
    for (int i = 0; i < got; i++)
        PyBuffer_Release(&b[i]);
    return result;
}

/* nominal_counts(codes, code_size, n_nom, cols, base, w, stride, C, out):
 * for every case e in order and every listed attribute k,
 *     out[base[e] + k * stride + codes[e, cols[k]] * C] += w[e]   (float32)
 * -- level.py's _score_nominal Freq[v][c] sums (one np.add.at per attribute),
 * each cell receiving the same additions in the same order.  codes is the
 * bucket's (E, n_nom) code block, int16 or int32 (code_size bytes). */
static PyObject *nominal_counts(PyObject *self, PyObject *args)
{
    enum { NB = 5 };
    PyObject *o[NB];
    Py_ssize_t code_size, n_nom, stride, C;
    (void)self;
    if (!PyArg_ParseTuple(args, "OnnOOOnnO", &o[0], &code_size, &n_nom, &o[1], &o[2], &o[3],
                          &stride, &C, &o[4]))
        return NULL;
    if ((code_size != 2 && code_size != 4) || n_nom < 1 || C < 1 || stride < 1) {
        PyErr_SetString(PyExc_ValueError, "nominal_counts: bad sizes");
        return NULL;
    }
    Py_buffer b[NB];
    int got = 0;
    PyObject *result = NULL;
    Py_ssize_t E = 0, K = 0, n_out = 0;
    {
        Py_buffer probe;
        PyObject *src[3] = {o[2], o[1], o[4]};
        Py_ssize_t *dst[3] = {&E, &K, &n_out};
        Py_ssize_t size[3] = {sizeof(Py_ssize_t), sizeof(Py_ssize_t), sizeof(float)};
        for (int i = 0; i < 3; i++) {
            if (PyObject_GetBuffer(src[i], &probe, PyBUF_C_CONTIGUOUS) < 0)
                return NULL;
            *dst[i] = probe.len / size[i];
            PyBuffer_Release(&probe);
        }
    }
    const struct { int wr; Py_ssize_t size, n; const char *name; } spec[NB] = {
        {0, code_size, E * n_nom, "codes"},
        {0, sizeof(Py_ssize_t), K, "cols"},
        {0, sizeof(Py_ssize_t), E, "base"},
        {0, sizeof(float), E, "w"},
        {1, sizeof(float), n_out, "out"},
    };
    for (got = 0; got < NB; got++)
        if (view(o[got], &b[got], spec[got].wr, spec[got].size, spec[got].n, spec[got].name) < 0)
            goto done;
    {
        const Py_ssize_t *cols = b[1].buf, *base = b[2].buf;
        const float *w = b[3].buf;
        float *out = b[4].buf;
        for (Py_ssize_t k = 0; k < K; k++)
            if (cols[k] < 0 || cols[k] >= n_nom) {
                PyErr_SetString(PyExc_IndexError, "nominal_counts: column out of range");
                goto done;
            }
        for (Py_ssize_t e = 0; e < E; e++) {
            for (Py_ssize_t k = 0; k < K; k++) {
                const Py_ssize_t at = e * n_nom + cols[k];
                const Py_ssize_t code = code_size == 2 ? ((const int16_t *)b[0].buf)[at]
                                                       : ((const int32_t *)b[0].buf)[at];
                const Py_ssize_t i = base[e] + k * stride + code * C;
                if (code < 0 || i < 0 || i >= n_out) {
                    PyErr_SetString(PyExc_IndexError, "nominal_counts: index out of range");
                    goto done;
                }
                out[i] += w[e];
            }
        }
    }
    result = Py_NewRef(Py_None);
done:
    for (int i = 0; i < got; i++)
        PyBuffer_Release(&b[i]);
    return result;
}

/* gather_values(cvals_rows, Kc, rows, w, y, tid, out_rec, out_unk):
 * the bucket's case records for scan_cont -- out_rec[e * (Kc + 2) + k] =
 * cvals_rows[rows[e] * Kc + k] (its values), then w[e], then y[e] as a
 * float -- and for every NaN (unknown) value out_unk[tid[e] * Kc + k] += w[e]
 * in float32, cases in order: level.py's numpy path gathers, tests isnan
 * and sums the unknown weights (np.add.at) to the same numbers. */
static PyObject *gather_values(PyObject *self, PyObject *args)
{
    enum { NB = 7 };
    PyObject *o[NB];
    Py_ssize_t Kc;
    (void)self;
    if (!PyArg_ParseTuple(args, "OnOOOOOO", &o[0], &Kc, &o[1], &o[2], &o[3], &o[4], &o[5],
                          &o[6]))
        return NULL;
    if (Kc < 1) {
        PyErr_SetString(PyExc_ValueError, "gather_values: Kc must be positive");
        return NULL;
    }
    Py_buffer b[NB];
    int got = 0;
    PyObject *result = NULL;
    Py_ssize_t NV = 0, E = 0, NU = 0;
    {
        Py_buffer probe;
        PyObject *src[3] = {o[0], o[1], o[6]};
        Py_ssize_t *dst[3] = {&NV, &E, &NU};
        Py_ssize_t size[3] = {sizeof(float), sizeof(Py_ssize_t), sizeof(float)};
        for (int i = 0; i < 3; i++) {
            if (PyObject_GetBuffer(src[i], &probe, PyBUF_C_CONTIGUOUS) < 0)
                return NULL;
            *dst[i] = probe.len / size[i];
            PyBuffer_Release(&probe);
        }
    }
    const Py_ssize_t rs = Kc + 2;
    const struct { int wr; Py_ssize_t size, n; const char *name; } spec[NB] = {
        {0, sizeof(float), NV, "cvals_rows"},
        {0, sizeof(Py_ssize_t), E, "rows"},
        {0, sizeof(float), E, "w"},
        {0, sizeof(Py_ssize_t), E, "y"},
        {0, sizeof(Py_ssize_t), E, "tid"},
        {1, sizeof(float), E * rs, "out_rec"},
        {1, sizeof(float), NU, "out_unk"},
    };
    for (got = 0; got < NB; got++)
        if (view(o[got], &b[got], spec[got].wr, spec[got].size, spec[got].n, spec[got].name) < 0)
            goto done;
    {
        const float *cv = b[0].buf, *w = b[2].buf;
        const Py_ssize_t *rows = b[1].buf, *y = b[3].buf, *tid = b[4].buf;
        float *rec = b[5].buf, *unk = b[6].buf;
        const Py_ssize_t n_rows = NV / Kc;
        for (Py_ssize_t e = 0; e < E; e++) {
            const Py_ssize_t r = rows[e], t = tid[e];
            if (r < 0 || r >= n_rows || t < 0 || (t + 1) * Kc > NU || y[e] < 0
                || y[e] > 16777216) {
                PyErr_SetString(PyExc_IndexError, "gather_values: index out of range");
                goto done;
            }
            const float *src = cv + r * Kc;
            float *dst = rec + e * rs;
            for (Py_ssize_t k = 0; k < Kc; k++) {
                const float v = src[k];
                dst[k] = v;
                if (v != v)
                    unk[t * Kc + k] += w[e];
            }
            dst[Kc] = w[e];
            dst[Kc + 1] = (float)y[e];
        }
    }
    result = Py_NewRef(Py_None);
done:
    for (int i = 0; i < got; i++)
        PyBuffer_Release(&b[i]);
    return result;
}

static PyMethodDef methods[] = {
    {"scan_cont", scan_cont, METH_VARARGS, "Candidate cuts of sorted continuous segments."},
    {"part_sorted", part_sorted, METH_VARARGS, "Children's sorted arrays after a batch of splits."},
    {"add_at", add_at, METH_VARARGS, "np.add.at for float32, sequential."},
    {"emit_children", emit_children, METH_VARARGS, "Children's case lists after splits."},
    {"best_cuts", best_cuts, METH_VARARGS, "Gains of candidate cuts and the best per segment."},
    {"gather_values", gather_values, METH_VARARGS, "Bucket values and unknown weights."},
    {"nominal_counts", nominal_counts, METH_VARARGS, "Freq[v][c] of nominal attributes."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_cscan", "treegen's C accelerator for tree growth.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__cscan(void)
{
    return PyModule_Create(&module);
}
