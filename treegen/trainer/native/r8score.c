/* Release 8's continuous attributes at one node (c45), step two of two:
 * treegen/trainer/release8/segments.py drives them.
 *
 * r8_cont_score scores every segment r8prep.c's r8_cont_prep copied out as
 * sparse.eval_segments does (sparse_scan, sparse_info, sparse_pick, the chosen
 * cut's split info and splits.cut_midpoint's bar), the same float operations in
 * the same order.  numpy takes the logs, as it does on that path: r8_cont_score
 * runs twice over the same segments, first writing every log input in the order
 * the walk meets it (mode 0), then reading numpy's logs of them back in that
 * order (mode 1). */
#include "classset.h"
#include <stdlib.h>

/* The log input as splits._xlog2x and scan_best prepare it: 1 where not positive. */
static double log_input(double v)
{
    return v > 0 ? v : 1.0;
}

/* The log inputs in the order the walk meets them: written (mode 0), or numpy's
 * logs of them read back (mode 1, which checks that the input is the same). */
typedef struct {
    double *x;
    const double *lx;
    Py_ssize_t k, cap;
    int mode, bad;
} log_stream;

static double log_of(log_stream *s, double x)
{
    if (s->k >= s->cap) {
        s->bad = 1;
        return 0.0;
    }
    if (s->mode == 0) {
        s->x[s->k++] = x;
        return 0.0;
    }
    if (memcmp(&s->x[s->k], &x, sizeof(double)) != 0)
        s->bad = 1;
    return s->lx[s->k++];
}

/* A segment's scratch, sized for the longest segment (L cases, at most L classes). */
typedef struct {
    int32_t *cls, *present, *sb, *sa;
    float *below, *above, *low, *info;
    double *tb, *ta, *lg3;
    Py_ssize_t *ii;
} seg_scratch;

/* splits.cut_midpoint in float: (lo + hi) / 2, lo / 2 + hi / 2 where the sum
 * overflows, lo where the midpoint is not below hi. */
static float midpoint(float lo, float hi)
{
    const float total = lo + hi;
    float bar = total / 2.0f;
    if (!isfinite(total))
        bar = lo / 2.0f + hi / 2.0f;
    return bar < hi ? bar : lo;
}

/* One segment: sparse_scan, then (mode 1) sparse_info, sparse_pick and the chosen
 * cut's gain, split info and bar into out[0..3] (out[0] = 1 where a cut is chosen). */
static void score_segment(log_stream *ls, seg_scratch *sc, const float *vals, const float *w,
                          Py_ssize_t L, Py_ssize_t C, Py_ssize_t n_classes, float cs, float unk,
                          double m, double *out)
{
    const int full = ls->mode == 1;
    const float known = cs - unk;
    const double ms64 = (double)(float)(0.10 * (double)known / (double)n_classes);
    const float ms = (float)(ms64 <= m ? m : (ms64 > 25 ? 25.0 : ms64));
    const float lim = known - ms;
    const int enough = known >= (float)(2.0 * m);
    const int32_t *cls = sc->cls;
    float *below = sc->below, *above = sc->above;
    double *tb = sc->tb, *ta = sc->ta;
    class_set sb = {sc->sb, 0}, sa = {sc->sa, 0};
    int whole = 1;
    double sum = 0.0;
    for (Py_ssize_t c = 0; c < C; c++) {
        above[c] = 0;
        below[c] = 0;
        tb[c] = 0.0;
    }
    for (Py_ssize_t i = 0; i < L; i++) {
        above[cls[i]] += w[i];
        whole &= w[i] >= 0 && w[i] == floorf(w[i]);
        sum += (double)w[i];
    }
    const int exact = whole && sum <= EXACT_LIMIT;
    float total = 0, acc = 0;
    for (Py_ssize_t c = 0; c < C; c++) {
        total += above[c];
        const double x = log_input(above[c]);
        ta[c] = term(x, log_of(ls, x));
        if (full) {
            acc = (float)((double)acc + ta[c]);
            if (ta[c] != 0.0)
                sa.at[sa.n++] = (int32_t)c;
        }
    }
    const double xs = log_input(total);
    const float tinfo = (float)(term(xs, log_of(ls, xs)) - (double)acc);
    float low = 0;
    Py_ssize_t n = 0;
    for (Py_ssize_t i = 0; i < L; i++) {
        const int32_t c = cls[i];
        low += w[i];
        below[c] += w[i];
        above[c] -= w[i];
        const double xb = log_input(below[c]), xa = log_input(above[c]);
        const double lb = log_of(ls, xb), la = log_of(ls, xa);
        if (full) {
            tb[c] = term(xb, lb);
            ta[c] = term(xa, la);
            set_mark(&sb, c, tb[c] != 0.0);
            set_mark(&sa, c, ta[c] != 0.0);
        }
        if (i + 1 >= L || !enough)
            continue;
        if (!(low >= ms && low <= lim && (double)vals[i] < (double)vals[i + 1] - TG_CUT_GAP))
            continue;
        float tbs = 0, tas = 0;
        if (exact) {
            tbs = low;
            tas = total - low;
        } else {
            for (Py_ssize_t k = 0; k < C; k++) {
                tbs += below[k];
                tas += above[k];
            }
        }
        const double xc0 = log_input(tbs), xc1 = log_input(tas);
        const double l0 = log_of(ls, xc0), l1 = log_of(ls, xc1);
        /* The split info's parts, should this cut be chosen (total_info of
         * [unknown, low, known - low]): their logs now, in the walk's order. */
        const float vf2 = known - low;
        const float tot = (float)((double)(float)((double)unk + (double)low) + (double)vf2);
        sc->lg3[3 * n] = log_of(ls, log_input(low));
        sc->lg3[3 * n + 1] = log_of(ls, log_input(vf2));
        sc->lg3[3 * n + 2] = log_of(ls, log_input(tot));
        if (full) {
            const float bi = (float)(term(xc0, l0) - (double)set_sum(&sb, tb));
            const float ai = (float)(term(xc1, l1) - (double)set_sum(&sa, ta));
            sc->info[n] = bi + ai;
        }
        sc->low[n] = low;
        sc->ii[n] = i;
        n++;
    }
    const double lu = log_of(ls, log_input(unk));
    const double lt = log_of(ls, log_input((double)n));
    out[0] = 0.0;
    if (!full || n == 0)
        return;
    /* sparse_pick's gains and the first largest pen. */
    const float base = tinfo / known;
    const float cost = (float)((lt / TG_LN2) / (double)cs);
    const float unk_rate = 1.0f - known / cs;
    const float frac = 1.0f - unk_rate;
    float top = 0;
    Py_ssize_t first = -1;
    for (Py_ssize_t e = 0; e < n; e++) {
        const float vf1 = sc->low[e], vf2 = known - vf1;
        float gain = frac * (base - sc->info[e] / known);
        if ((double)vf1 < m || (double)vf2 < m)
            gain = (float)-TG_EPSILON;
        const float pen = gain - cost;
        if (isnan(pen))
            return;
        if (first < 0 || pen > top) {
            top = pen;
            first = e;
        }
    }
    if (!(top > 0))
        return;
    /* total_info([unk, vf1, vf2]) / cases, in float as stats.total_info sums. */
    const float vf1 = sc->low[first], vf2 = known - vf1;
    const double *lg = sc->lg3 + 3 * first;
    float sacc = (float)(0.0 + (lu / TG_LN2) * (double)unk);
    sacc = (float)((double)sacc + (lg[0] / TG_LN2) * (double)vf1);
    sacc = (float)((double)sacc + (lg[1] / TG_LN2) * (double)vf2);
    const float tot = (float)((double)(float)((double)unk + (double)vf1) + (double)vf2);
    const float split = (float)((lg[2] / TG_LN2) * (double)tot - (double)sacc);
    out[0] = 1.0;
    out[1] = (double)top;
    out[2] = (double)(split / cs);
    out[3] = (double)midpoint(vals[sc->ii[first]], vals[sc->ii[first] + 1]);
}

/* r8_cont_score(mode, rows, w, segs, cvals, ncol, y, cmap, x, lx, out) -> log inputs
 *
 * Segment r is the next segs[5r + 1] entries of rows and w (r8_cont_prep's copies);
 * it scores continuous attribute row segs[5r] of cvals (ncol values a row) at a node
 * of segs[5r + 2] cases, segs[5r + 3] of them unknown, MINOBJS segs[5r + 4].
 * Mode 0 writes the log inputs to x and returns how many; mode 1 reads numpy's
 * logs of them from lx and writes out[4r .. 4r + 3]: chosen (1 or 0), gain, split
 * info and bar.  cmap: one int32 per class, -1, left -1 (the classes present, as
 * local codes in class order, as np.unique gives them). */
PyObject *tg_r8_cont_score(PyObject *self, PyObject *args)
{
    enum { NB = 9 };
    PyObject *o[NB];
    int mode;
    Py_ssize_t ncol;
    (void)self;
    if (!PyArg_ParseTuple(args, "iOOOOnOOOOO", &mode, &o[0], &o[1], &o[2], &o[3], &ncol, &o[4],
                          &o[5], &o[6], &o[7], &o[8]))
        return NULL;
    const Py_ssize_t E = tg_items(o[0], sizeof(Py_ssize_t));
    const Py_ssize_t R5 = E < 0 ? -1 : tg_items(o[2], sizeof(double));
    const Py_ssize_t nv = R5 < 0 ? -1 : tg_items(o[3], sizeof(float));
    const Py_ssize_t n_y = nv < 0 ? -1 : tg_items(o[4], sizeof(Py_ssize_t));
    const Py_ssize_t C = n_y < 0 ? -1 : tg_items(o[5], sizeof(int32_t));
    const Py_ssize_t nx = C < 0 ? -1 : tg_items(o[6], sizeof(double));
    const Py_ssize_t nlx = nx < 0 ? -1 : tg_items(o[7], sizeof(double));
    if (nlx < 0)
        return NULL;
    /* Mode 1 reads as many logs as lx holds (mode 0's count). */
    const Py_ssize_t cap = mode == 0 || nlx > nx ? nx : nlx;
    const Py_ssize_t R = R5 / 5;
    const tg_spec spec[NB] = {
        {0, sizeof(Py_ssize_t), E, "rows"},
        {0, sizeof(float), E, "w"},
        {0, sizeof(double), 5 * R, "segs"},
        {0, sizeof(float), nv, "cvals"},
        {0, sizeof(Py_ssize_t), n_y, "y"},
        {1, sizeof(int32_t), C, "cmap"},
        {mode == 0, sizeof(double), cap, "x"},
        {0, sizeof(double), mode == 0 ? 0 : cap, "lx"},
        {1, sizeof(double), mode == 0 ? 0 : 4 * R, "out"},
    };
    Py_buffer b[NB];
    int got = 0;
    PyObject *result = NULL;
    seg_scratch sc;
    memset(&sc, 0, sizeof sc);
    if ((got = tg_views(o, b, spec, NB)) < NB)
        goto done;
    {
        const Py_ssize_t *rows = b[0].buf, *y = b[4].buf;
        const float *w = b[1].buf, *cvals = b[3].buf;
        const double *segs = b[2].buf;
        int32_t *cmap = b[5].buf;
        Py_ssize_t Lmax = 1, s = 0;
        for (Py_ssize_t r = 0; r < R; r++) {
            const double kd = segs[5 * r], Ld = segs[5 * r + 1];
            if (!(Ld >= 0 && s + Ld <= E && kd >= 0 && (kd + 1) * ncol <= nv)) {
                PyErr_SetString(PyExc_IndexError, "r8_cont_score: segment out of range");
                goto done;
            }
            const Py_ssize_t L = (Py_ssize_t)Ld;
            if (L > Lmax)
                Lmax = L;
            s += L;
        }
        for (Py_ssize_t i = 0; i < s; i++)
            if (rows[i] < 0 || rows[i] >= ncol || rows[i] >= n_y || y[rows[i]] < 0 ||
                y[rows[i]] >= C) {
                PyErr_SetString(PyExc_IndexError, "r8_cont_score: row or class out of range");
                goto done;
            }
        const size_t Ls = (size_t)Lmax;
        sc.cls = PyMem_Malloc(Ls * sizeof(int32_t));
        sc.present = PyMem_Malloc(Ls * sizeof(int32_t));
        sc.sb = PyMem_Malloc(Ls * sizeof(int32_t));
        sc.sa = PyMem_Malloc(Ls * sizeof(int32_t));
        sc.below = PyMem_Malloc(Ls * sizeof(float));
        sc.above = PyMem_Malloc(Ls * sizeof(float));
        sc.low = PyMem_Malloc(Ls * sizeof(float));
        sc.info = PyMem_Malloc(Ls * sizeof(float));
        sc.tb = PyMem_Malloc(Ls * sizeof(double));
        sc.ta = PyMem_Malloc(Ls * sizeof(double));
        sc.lg3 = PyMem_Malloc(3 * Ls * sizeof(double));
        sc.ii = PyMem_Malloc(Ls * sizeof(Py_ssize_t));
        float *vals = PyMem_Malloc(Ls * sizeof(float));
        if (!sc.cls || !sc.present || !sc.sb || !sc.sa || !sc.below || !sc.above || !sc.low ||
            !sc.info || !sc.tb || !sc.ta || !sc.lg3 || !sc.ii || !vals) {
            PyMem_Free(vals);
            PyErr_NoMemory();
            goto done;
        }
        log_stream ls = {b[6].buf, b[7].buf, 0, cap, mode != 0, 0};
        double none[4];
        s = 0;
        for (Py_ssize_t r = 0; r < R; r++) {
            const Py_ssize_t kp = (Py_ssize_t)segs[5 * r], L = (Py_ssize_t)segs[5 * r + 1];
            const Py_ssize_t *sr = rows + s;
            /* The classes present, ascending, as local codes 0..Cr-1. */
            Py_ssize_t Cr = 0;
            for (Py_ssize_t i = 0; i < L; i++) {
                const Py_ssize_t c = y[sr[i]];
                if (cmap[c] < 0) {
                    cmap[c] = 0;
                    sc.present[Cr++] = (int32_t)c;
                }
            }
            qsort(sc.present, (size_t)Cr, sizeof(int32_t), class_cmp);
            for (Py_ssize_t j = 0; j < Cr; j++)
                cmap[sc.present[j]] = (int32_t)j;
            for (Py_ssize_t i = 0; i < L; i++) {
                sc.cls[i] = cmap[y[sr[i]]];
                vals[i] = cvals[kp * ncol + sr[i]];
            }
            for (Py_ssize_t j = 0; j < Cr; j++)
                cmap[sc.present[j]] = -1;
            double *out = mode == 0 ? none : (double *)b[8].buf + 4 * r;
            score_segment(&ls, &sc, vals, w + s, L, Cr, C, (float)segs[5 * r + 2],
                          (float)segs[5 * r + 3], segs[5 * r + 4], out);
            s += L;
        }
        PyMem_Free(vals);
        if (ls.bad || (mode != 0 && ls.k != nlx)) {
            PyErr_SetString(PyExc_ValueError, "r8_cont_score: log inputs out of step");
            goto done;
        }
        result = PyLong_FromSsize_t(ls.k);
    }
done:
    PyMem_Free(sc.cls);
    PyMem_Free(sc.present);
    PyMem_Free(sc.sb);
    PyMem_Free(sc.sa);
    PyMem_Free(sc.below);
    PyMem_Free(sc.above);
    PyMem_Free(sc.low);
    PyMem_Free(sc.info);
    PyMem_Free(sc.tb);
    PyMem_Free(sc.ta);
    PyMem_Free(sc.lg3);
    PyMem_Free(sc.ii);
    tg_release(b, got);
    return result;
}
