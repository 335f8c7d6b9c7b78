/* The scan over sorted segments, written once for both flavours and included by
 * scan.c (scan_best, c45: float sums, Release 8's candidate test) and scanj48.c
 * (scan_cont_j48: double sums, J48's tolerances).  The includer defines
 *   SCAN_FN       the function's name,
 *   REAL          the float type of records, weights and sums,
 *   IS_CANDIDATE(ms, bound, low, v, v_next)
 *                 whether the cut after a case is a candidate, given the
 *                 segment's MinSplit, its second bound (c45: known - MinSplit;
 *                 j48: the known weight), LowItems and the two values (double),
 *   SCAN_INFO     (scan_best) to pick each segment's best cut in the scan.
 *
 * scan_cont_j48(rec, n1, rs, Kc, flat, seg_start, seg_len, seg_att, ms, bound, enough,
 *               n_classes, out_kk, out_ii, out_low, out_x, out_tot, seg_off)
 * scan_best(rec, n1, rs, Kc, flat, seg_start, seg_len, seg_att, ms, bound, enough,
 *           n_classes, out_best, segf, out_pen, out_low, out_tot, seg_off, m, x, lg,
 *           log, scratch=None)
 *         -> number of cuts
 *
 * The bucket's cases are numbered 0..n1-1; case p's record (gather_values)
 * is rec[p * rs ...]: its values of the Kc continuous attributes, then its
 * weight, then its class (as a number), so one cache line holds all a scan
 * needs of a case.  Segment r lists one node's cases with a known value of
 * attribute seg_att[r] in value order: flat[seg_start[r] + i] (int32) +
 * seg_off[r] (a bucket's tasks' own arrays, concatenated, need no offsetting
 * pass); each segment is copied out once (one pass of scattered reads), then
 * walked.  For every candidate cut i (between entries i and i+1; only in
 * segments with enough[r]) the inputs of the cut's TotalInfo logs are made:
 * per side the class weights and their total, each as a double, 1 where not
 * positive (log 0, and a 0 term, as stats._xlog2x).  scan_cont_j48 writes them
 * out (2C + 2 a cut, for best_cuts_j48) with the segment, i and LowItems; every
 * candidate must fit (IndexError otherwise).  scan_best puts them in its log
 * block and picks as it goes (scan.c's pick_block): no cut is written out.  All
 * sums run in case order, in REAL.  out_tot[r * C + c] gets the segment's known
 * class weights.  scratch (bytes, at least SCAN_SCRATCH(REAL) per case of the
 * longest segment): where the copied-out cases go, instead of memory allocated
 * for the call; the attributes of one large node then reuse the same pages
 * (each fresh allocation of a 1M-row segment's 20 MB was faulted in again, page
 * by page). */

PyObject *SCAN_FN(PyObject *self, PyObject *args)
{
    enum { NB = 14 };
    PyObject *o[NB] = {NULL}, *scratch = NULL;
    Py_ssize_t n1, rs, Kc, C;
    (void)self;
#ifdef SCAN_INFO
    /* (the pick variant: out_best, segf, out_pen, out_low, out_tot, seg_off, m, then the
     * log block's x and lg arrays, the log and the optional scratch) */
    PyObject *xo, *lgo, *logf;
    double mc;
    if (!PyArg_ParseTuple(args, "OnnnOOOOOOOnOOOOOOdOOO|O", &o[0], &n1, &rs, &Kc, &o[1], &o[2],
                          &o[3], &o[4], &o[5], &o[6], &o[7], &C, &o[8], &o[9], &o[10], &o[11],
                          &o[12], &o[13], &mc, &xo, &lgo, &logf, &scratch))
        return NULL;
    Py_buffer xb = {0}, lb = {0};
    int got_blk = 0;
    /* the block's doubles, those written, and its rows (headers and cuts) written */
    Py_ssize_t cap_d = 0, xo_n = 0, e_n = 0;
    Py_ssize_t *bk = NULL, *bi = NULL;
    float *bl = NULL;
    int32_t *bc = NULL;
    tg_pick pst;
    memset(&pst, 0, sizeof pst); /* (its arrays NULL until pick_init) */
#else
    if (!PyArg_ParseTuple(args, "OnnnOOOOOOOnOOOOOO", &o[0], &n1, &rs, &Kc, &o[1], &o[2], &o[3],
                          &o[4], &o[5], &o[6], &o[7], &C, &o[8], &o[9], &o[10], &o[11], &o[12],
                          &o[13]))
        return NULL;
#endif
    if (C < 1 || C > MAX_CLASSES || n1 < 0 || Kc < 1 || rs < Kc + 2) {
        PyErr_SetString(PyExc_ValueError, "scan: sizes out of range");
        return NULL;
    }
    Py_buffer b[NB], sb = {0};
    int got = 0, got_scratch = 0;
    Py_ssize_t R = 0, E = 0, cap = 0;
    PyObject *result = NULL;
    REAL *lw = NULL;
    double *lv = NULL;
    Py_ssize_t *lc = NULL;
    /* Sizes come from these buffers; the others are checked against them. */
    if ((R = tg_items(o[3], sizeof(Py_ssize_t))) < 0 ||
        (E = tg_items(o[1], sizeof(int32_t))) < 0 ||
        (cap = tg_items(o[8], sizeof(Py_ssize_t))) < 0)
        return NULL;
    const tg_spec spec[NB] = {
        {0, sizeof(REAL), n1 * rs, "rec"},
        {0, sizeof(int32_t), E, "flat"},
        {0, sizeof(Py_ssize_t), R, "seg_start"},
        {0, sizeof(Py_ssize_t), R, "seg_len"},
        {0, sizeof(Py_ssize_t), R, "seg_att"},
        {0, sizeof(REAL), R, "ms"},
        {0, sizeof(REAL), R, "bound"},
        {0, 1, R, "enough"},
#ifdef SCAN_INFO
        {1, sizeof(Py_ssize_t), R, "out_best"},
        {0, sizeof(float), 3 * R, "segf"},
        {1, sizeof(float), R, "out_pen"},
        {1, sizeof(float), R, "out_low"},
#else
        {1, sizeof(Py_ssize_t), cap, "out_kk"},
        {1, sizeof(Py_ssize_t), cap, "out_ii"},
        {1, sizeof(REAL), cap, "out_low"},
        {1, sizeof(double), cap * (2 * C + 2), "out_x"},
#endif
        {1, sizeof(REAL), R * C, "out_tot"},
        {0, sizeof(Py_ssize_t), R, "seg_off"},
    };
    if ((got = tg_views(o, b, spec, NB)) < NB)
        goto done;
    {
        const REAL *rec = b[0].buf;
        const int32_t *flat = b[1].buf;
        const Py_ssize_t *s0 = b[2].buf, *len = b[3].buf, *att = b[4].buf;
        const REAL *ms = b[5].buf, *bound = b[6].buf;
        const unsigned char *enough = b[7].buf;
        REAL *tot = b[12].buf;
#ifdef SCAN_INFO
        Py_ssize_t *out_best = b[8].buf;
        const float *segf = b[9].buf;
        float *out_pen = b[10].buf, *out_low = b[11].buf;
        for (Py_ssize_t r = 0; r < R; r++)
            out_best[r] = -1;
        /* The log inputs of up to blk rows at a time, their logs taken (numpy's log,
         * called on the whole block) and each segment's best cut picked from them
         * while the block is in cache: no cut is written out. */
        if (PyObject_GetBuffer(xo, &xb, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
            goto done;
        got_blk = 1;
        if (PyObject_GetBuffer(lgo, &lb, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
            goto done;
        got_blk = 2;
        cap_d = xb.len / (Py_ssize_t)sizeof(double);
        if (cap_d < 2 * C + 2 || lb.len != xb.len) {
            PyErr_SetString(PyExc_ValueError, "scan: bad log block");
            goto done;
        }
        /* each row's segment and position (one allocation), LowItems and class (a row
         * is 4 doubles or more), and pick_block's state */
        const Py_ssize_t rows_max = cap_d / 4;
        bk = PyMem_Malloc(2 * (size_t)rows_max * sizeof(Py_ssize_t));
        bl = PyMem_Malloc((size_t)rows_max * (sizeof(float) + sizeof(int32_t)));
        if (bk == NULL || bl == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        if (pick_init(&pst, C, cap_d) < 0)
            goto done;
        bi = bk + rows_max;
        bc = (int32_t *)(void *)(bl + rows_max);
        double *x = xb.buf;
        double *lgv = lb.buf;
/* Room for one more full row: the block's rows picked from first when it is full. */
#define ROOM                                                                               \
    if (xo_n + 2 * C + 2 > cap_d) {                                                        \
        if (PICK_BLOCK(logf, lgo, x, lgv, C, e_n, bk, bi, bl, bc, segf, mc, &pst, out_best,  \
                       out_pen, out_low) < 0)                                              \
            goto done;                                                                     \
        xo_n = e_n = 0;                                                                    \
    }
#else
        Py_ssize_t *kk = b[8].buf, *ii = b[9].buf;
        REAL *olow = b[10].buf;
        double *x = b[11].buf;
#endif
        const Py_ssize_t *off = b[13].buf;
        REAL below[MAX_CLASSES], above[MAX_CLASSES];
        Py_ssize_t n = 0, longest = 1;
        for (Py_ssize_t r = 0; r < R; r++)
            if (len[r] > longest)
                longest = len[r];
        /* A segment's cases copied out in order: one pass of scattered reads. */
        if (scratch != NULL && scratch != Py_None) {
            if (PyObject_GetBuffer(scratch, &sb, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
                goto done;
            got_scratch = 1;
            if (sb.len / (Py_ssize_t)SCAN_SCRATCH(REAL) < longest) {
                PyErr_SetString(PyExc_ValueError, "scan: scratch too small");
                goto done;
            }
            /* The doubles first, then the indices, then the weights: each aligned
             * where the buffer is (numpy's are). */
            char *base = sb.buf;
            lv = (double *)(void *)base;
            lc = (Py_ssize_t *)(void *)(base + (size_t)longest * sizeof(double));
            lw = (REAL *)(void *)(base + (size_t)longest * (sizeof(double) + sizeof(Py_ssize_t)));
        } else {
            lw = PyMem_Malloc((size_t)longest * sizeof(REAL));
            lv = PyMem_Malloc((size_t)longest * sizeof(double));
            lc = PyMem_Malloc((size_t)longest * sizeof(Py_ssize_t));
            if (lw == NULL || lv == NULL || lc == NULL) {
                PyErr_NoMemory();
                goto done;
            }
        }
        for (Py_ssize_t r = 0; r < R; r++) {
            const Py_ssize_t L = len[r], start = s0[r], a = att[r];
            const Py_ssize_t o_r = off[r];
            REAL *t = tot + r * C;
            if (start < 0 || L < 0 || start + L > E || a < 0 || a >= Kc) {
                PyErr_SetString(PyExc_IndexError, "segment out of range");
                goto done;
            }
            REAL low = 0;
#ifdef SCAN_INFO
            /* The segment's cuts counted as its cases are copied out (the cut after
             * case q - 1 is tested once case q is there), for its header row. */
            Py_ssize_t tries = 0, mv = -2; /* mv: see the walk */
            REAL lo_w = 0;
#define COUNT_CUT(q)                                                                       \
    if ((q) > 0) {                                                                         \
        lo_w += lw[(q)-1];                                                                 \
        tries += IS_CANDIDATE(ms[r], bound[r], lo_w, lv[(q)-1], lv[q]);                    \
    }
#else
#define COUNT_CUT(q)
#endif
            for (Py_ssize_t c = 0; c < C; c++) t[c] = 0;
            /* The segment's cases copied out, their weights added to t. */
            for (Py_ssize_t q = 0; q < L; q++) {
                const Py_ssize_t p = flat[start + q] + o_r;
                if (q + AHEAD < L) {
                    const Py_ssize_t pa = flat[start + q + AHEAD] + o_r;
                    if (pa >= 0 && pa < n1)
                        PREFETCH(rec + pa * rs);
                }
                if (p < 0 || p >= n1) {
                    PyErr_SetString(PyExc_IndexError, "case index out of range");
                    goto done;
                }
                const REAL *rp = rec + p * rs;
                const REAL cf = rp[Kc + 1];
                const Py_ssize_t c = (Py_ssize_t)cf;
                if (!(cf >= 0) || c >= C) {
                    PyErr_SetString(PyExc_IndexError, "class out of range");
                    goto done;
                }
                lw[q] = rp[Kc];
                lc[q] = c;
                lv[q] = (double)rp[a];
                t[c] += lw[q];
                COUNT_CUT(q)
            }
            if (L < 2 || !enough[r])
                continue;
            for (Py_ssize_t c = 0; c < C; c++) {
                below[c] = 0;
                above[c] = t[c];
            }
#ifdef SCAN_INFO
            /* The segment's header row (pick_block): its class weights, and its
             * number of cuts for the cost its cuts' gains bear. */
            if (tries == 0)
                continue;
            {
                ROOM
                double *xh = x + xo_n;
                REAL th = 0;
                for (Py_ssize_t k = 0; k < C; k++) {
                    xh[k] = t[k] > 0 ? (double)t[k] : 1.0;
                    xh[C + 1 + k] = 1.0;
                    th += t[k];
                }
                xh[C] = th > 0 ? (double)th : 1.0;
                xh[C + 1] = (double)tries;
                bk[e_n] = r;
                bi[e_n] = -1;
                bc[e_n++] = -1;
                xo_n += 2 * C + 2;
            }
#endif
            for (Py_ssize_t i = 0; i + 1 < L; i++) {
                const Py_ssize_t c = lc[i];
                const REAL wi = lw[i];
#ifdef SCAN_INFO
                /* The class of the cases moved below since the last cut (-1: none yet,
                 * -2: more than one class, or the segment's first cut): with one class,
                 * only its weights and the totals change, and the cut's row holds
                 * just those 4 inputs (pick_block keeps the other terms). */
                mv = mv == -1 || mv == c ? c : -2;
#endif
                low += wi;
                below[c] += wi;
                above[c] -= wi;
                if (IS_CANDIDATE(ms[r], bound[r], low, lv[i], lv[i + 1])) {
#ifdef SCAN_INFO
                    ROOM
                    n++;
                    bk[e_n] = r;
                    bi[e_n] = i;
                    bl[e_n] = low;
                    double *xn = x + xo_n;
                    if (mv >= 0) {
                        REAL s_b = 0, s_a = 0; /* the totals, summed as below */
                        for (Py_ssize_t k = 0; k < C; k++) {
                            s_b += below[k];
                            s_a += above[k];
                        }
                        xn[0] = below[mv] > 0 ? (double)below[mv] : 1.0;
                        xn[1] = s_b > 0 ? (double)s_b : 1.0;
                        xn[2] = above[mv] > 0 ? (double)above[mv] : 1.0;
                        xn[3] = s_a > 0 ? (double)s_a : 1.0;
                        bc[e_n++] = (int32_t)mv;
                        xo_n += 4;
                        mv = -1;
                        continue;
                    }
                    bc[e_n++] = -1;
                    xo_n += 2 * C + 2;
                    mv = -1;
#else
                    if (n >= cap) {
                        PyErr_SetString(PyExc_IndexError, "candidate capacity exceeded");
                        goto done;
                    }
                    kk[n] = r;
                    ii[n] = i;
                    olow[n] = low;
                    double *xn = x + n++ * (2 * C + 2); /* one cut's values together */
#endif
                    /* The inputs of TotalInfo's logs (see the header), as
                     * splits._xlog2x prepares them: the value in double, 1
                     * where it is not positive (log 0, and a 0 term). */
                    REAL tb = 0, ta = 0;
                    for (Py_ssize_t k = 0; k < C; k++) {
                        xn[k] = below[k] > 0 ? (double)below[k] : 1.0;
                        xn[C + 1 + k] = above[k] > 0 ? (double)above[k] : 1.0;
                        tb += below[k];
                        ta += above[k];
                    }
                    xn[C] = tb > 0 ? (double)tb : 1.0;
                    xn[2 * C + 1] = ta > 0 ? (double)ta : 1.0;
                }
            }
#undef COUNT_CUT
        }
#ifdef SCAN_INFO
        if (e_n && PICK_BLOCK(logf, lgo, x, lgv, C, e_n, bk, bi, bl, bc, segf, mc, &pst,
                              out_best, out_pen, out_low) < 0)
            goto done;
#undef ROOM
#endif
        result = PyLong_FromSsize_t(n);
    }
done:
#ifdef SCAN_INFO
    PyMem_Free(bk); /* (bi with it) */
    PyMem_Free(bl); /* (bc with it) */
    pick_free(&pst);
    if (got_blk > 1)
        PyBuffer_Release(&lb);
    if (got_blk > 0)
        PyBuffer_Release(&xb);
#endif
    if (got_scratch)
        PyBuffer_Release(&sb);
    else {
        PyMem_Free(lw);
        PyMem_Free(lv);
        PyMem_Free(lc);
    }
    tg_release(b, got);
    return result;
}

#undef SCAN_FN
#undef SCAN_INFO
#undef REAL
#undef IS_CANDIDATE
