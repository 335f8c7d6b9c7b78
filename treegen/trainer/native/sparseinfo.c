/* Continuous attributes with many classes (c45), the second pass: each candidate
 * cut's TotalInfo below and above and each segment's, summed over the classes whose
 * term is not zero, in class order, as a float (why that is the numpy path's sum:
 * sparse.c).  numpy takes the logs of sparse_scan's log inputs between the passes. */
#include "cscan.h"
#include "classset.h"

/* sparse_info(cls, lens, C, kk, ii, n, xb, lb, xa, la, xt, lt, xc, lc, xs, ls,
 *             out_info, out_tinfo)
 *
 * The second pass: with numpy's logs (lb = log(xb) and so on) of sparse_scan's
 * log inputs, out_info[j] = TotalInfo below cut j + TotalInfo above it (each
 * stored as float, then their float sum: finish_c45's this_info) and
 * out_tinfo[r] = TotalInfo of segment r's known class weights (cut_base_info's,
 * before the division by the known weight). */
PyObject *tg_sparse_info(PyObject *self, PyObject *args)
{
    enum { NB = 17 };
    PyObject *o[NB];
    Py_ssize_t C, n;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOnOOnOOOOOOOOOOOO", &o[0], &o[1], &C, &o[2], &o[3], &n, &o[4],
                          &o[5], &o[6], &o[7], &o[8], &o[9], &o[10], &o[11], &o[12], &o[13],
                          &o[14], &o[15]))
        return NULL;
    if (C < 1 || n < 0) {
        PyErr_SetString(PyExc_ValueError, "sparse_info: bad sizes");
        return NULL;
    }
    Py_buffer b[NB - 1];
    int got = 0;
    PyObject *result = NULL;
    double *tb = NULL, *ta = NULL;
    class_set sb = {NULL, 0}, sa = {NULL, 0};
    Py_ssize_t E, R;
    if ((E = tg_items(o[0], sizeof(int32_t))) < 0 || (R = tg_items(o[1], sizeof(Py_ssize_t))) < 0)
        return NULL;
    const tg_spec spec[NB - 1] = {
        {0, sizeof(int32_t), E, "cls"},
        {0, sizeof(Py_ssize_t), R, "lens"},
        {0, sizeof(Py_ssize_t), n, "kk"},
        {0, sizeof(Py_ssize_t), n, "ii"},
        {0, sizeof(double), E, "xb"},
        {0, sizeof(double), E, "lb"},
        {0, sizeof(double), E, "xa"},
        {0, sizeof(double), E, "la"},
        {0, sizeof(double), R * C, "xt"},
        {0, sizeof(double), R * C, "lt"},
        {0, sizeof(double), 2 * n, "xc"},
        {0, sizeof(double), 2 * n, "lc"},
        {0, sizeof(double), R, "xs"},
        {0, sizeof(double), R, "ls"},
        {1, sizeof(float), n, "out_info"},
        {1, sizeof(float), R, "out_tinfo"},
    };
    if ((got = tg_views(o, b, spec, NB - 1)) < NB - 1)
        goto done;
    tb = PyMem_Malloc((size_t)C * sizeof(double));
    ta = PyMem_Malloc((size_t)C * sizeof(double));
    sb.at = PyMem_Malloc((size_t)C * sizeof(int32_t));
    sa.at = PyMem_Malloc((size_t)C * sizeof(int32_t));
    if (tb == NULL || ta == NULL || sb.at == NULL || sa.at == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    {
        const int32_t *cls = b[0].buf;
        const Py_ssize_t *lens = b[1].buf, *kk = b[2].buf, *ii = b[3].buf;
        const double *xb = b[4].buf, *lb = b[5].buf, *xa = b[6].buf, *la = b[7].buf;
        const double *xt = b[8].buf, *lt = b[9].buf, *xc = b[10].buf, *lc = b[11].buf;
        const double *xs = b[12].buf, *ls = b[13].buf;
        float *info = b[14].buf, *tinfo = b[15].buf;
        Py_ssize_t j = 0, s = 0;
        for (Py_ssize_t r = 0; r < R; r++) {
            const Py_ssize_t L = lens[r];
            if (L < 0 || s + L > E) {
                PyErr_SetString(PyExc_IndexError, "sparse_info: segment out of range");
                goto done;
            }
            sb.n = sa.n = 0;
            float acc = 0.0f;
            for (Py_ssize_t c = 0; c < C; c++) {
                tb[c] = 0.0;
                ta[c] = term(xt[r * C + c], lt[r * C + c]);
                acc = (float)((double)acc + ta[c]);
                if (ta[c] != 0.0)
                    sa.at[sa.n++] = (int32_t)c;
            }
            tinfo[r] = (float)(term(xs[r], ls[r]) - (double)acc);
            for (Py_ssize_t i = 0; i < L && j < n && kk[j] == r; i++) {
                const Py_ssize_t p = s + i;
                const int32_t c = cls[p];
                if (c < 0 || c >= C) {
                    PyErr_SetString(PyExc_IndexError, "sparse_info: class out of range");
                    goto done;
                }
                tb[c] = term(xb[p], lb[p]);
                ta[c] = term(xa[p], la[p]);
                set_mark(&sb, c, tb[c] != 0.0);
                set_mark(&sa, c, ta[c] != 0.0);
                if (ii[j] != i)
                    continue;
                const float below = (float)(term(xc[2 * j], lc[2 * j]) - (double)set_sum(&sb, tb));
                const float above =
                    (float)(term(xc[2 * j + 1], lc[2 * j + 1]) - (double)set_sum(&sa, ta));
                info[j] = below + above;
                j++;
            }
            if (j < n && kk[j] == r) {
                PyErr_SetString(PyExc_IndexError, "sparse_info: candidate out of its segment");
                goto done;
            }
            s += L;
        }
        if (j != n) {
            PyErr_SetString(PyExc_IndexError, "sparse_info: candidates out of order");
            goto done;
        }
    }
    result = Py_NewRef(Py_None);
done:
    PyMem_Free(tb);
    PyMem_Free(ta);
    PyMem_Free(sb.at);
    PyMem_Free(sa.at);
    tg_release(b, got);
    return result;
}
