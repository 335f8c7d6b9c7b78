/* Nominal attributes (c45 flavour): splits.score_outcomes in C, in two steps
 * around numpy's logarithms, as for continuous cuts (scan.c): nominal_prep
 * writes every value whose log the scores need, numpy takes the logs,
 * nominal_finish computes gain and split information.
 * splits.score_nominal drives them. */
#include "cscan.h"

/* The log inputs of one row (a node x attribute): freq is (n_out, C) with
 * outcome 0 the unknown cases.  Layout (L = (n_out - 1) * C + n_out + C + 2):
 * freq[v][c] for v >= 1, ValFreq[v] for every v, the known class weights,
 * the known weight, the total of ValFreq -- each as a double, 1 where not
 * positive (log 0, and a 0 term, as stats._xlog2x). */
static inline double log_input(float v)
{
    return v > 0 ? (double)v : 1.0;
}

/* nominal_prep(freq, n_out, C, cases, min_cases, out_x, out_known, out_unk_rate, out_ok)
 *     -> L, the number of log inputs per row
 *
 * ValFreq[v] and the known class weights are float sums in order (np.cumsum
 * in float32), known = cases - ValFreq[0], the unknown rate ValFreq[0] /
 * cases; ok: some outcome has weight and at least two reach min_cases. */
PyObject *tg_nominal_prep(PyObject *self, PyObject *args)
{
    enum { NB = 6 };
    PyObject *o[NB];
    Py_ssize_t n_out, C;
    double m;
    (void)self;
    if (!PyArg_ParseTuple(args, "OnnOdOOOO", &o[0], &n_out, &C, &o[1], &m, &o[2], &o[3], &o[4],
                          &o[5]))
        return NULL;
    if (n_out < 1 || C < 1 || C > MAX_CLASSES) {
        PyErr_SetString(PyExc_ValueError, "nominal_prep: bad sizes");
        return NULL;
    }
    const Py_ssize_t L = (n_out - 1) * C + n_out + C + 2;
    const Py_ssize_t K = tg_items(o[1], sizeof(float));
    if (K < 0)
        return NULL;
    Py_buffer b[NB];
    int got = 0;
    PyObject *result = NULL;
    const tg_spec spec[NB] = {
        {0, sizeof(float), K * n_out * C, "freq"},
        {0, sizeof(float), K, "cases"},
        {1, sizeof(double), K * L, "out_x"},
        {1, sizeof(float), K, "out_known"},
        {1, sizeof(float), K, "out_unk_rate"},
        {1, 1, K, "out_ok"},
    };
    if ((got = tg_views(o, b, spec, NB)) < NB)
        goto done;
    {
        const float *freq = b[0].buf, *cases = b[1].buf;
        double *x = b[2].buf;
        float *known = b[3].buf, *unk_rate = b[4].buf;
        unsigned char *ok = b[5].buf;
        float kc[MAX_CLASSES];
        for (Py_ssize_t r = 0; r < K; r++) {
            const float *f = freq + r * n_out * C;
            double *xr = x + r * L;
            double *xv = xr + (n_out - 1) * C; /* ValFreq */
            float total = 0.0f;
            Py_ssize_t reasonable = 0;
            int any = 0;
            for (Py_ssize_t c = 0; c < C; c++)
                kc[c] = 0.0f;
            for (Py_ssize_t v = 0; v < n_out; v++) {
                float vf = 0.0f;
                for (Py_ssize_t c = 0; c < C; c++) {
                    vf += f[v * C + c];
                    if (v >= 1) {
                        kc[c] += f[v * C + c];
                        xr[(v - 1) * C + c] = log_input(f[v * C + c]);
                    }
                }
                xv[v] = log_input(vf);
                total += vf;
                if (v == 0) {
                    known[r] = cases[r] - vf;
                    unk_rate[r] = vf / cases[r];
                } else {
                    reasonable += (double)vf >= m;
                    any |= vf > 0;
                }
            }
            for (Py_ssize_t c = 0; c < C; c++)
                xv[n_out + c] = log_input(kc[c]);
            xv[n_out + C] = log_input(known[r]);
            xv[n_out + C + 1] = log_input(total);
            ok[r] = (unsigned char)(any && reasonable >= 2);
        }
    }
    result = PyLong_FromSsize_t(L);
done:
    tg_release(b, got);
    return result;
}

static inline double term(double v, double lg)
{
    return (lg / TG_LN2) * v;
}

/* TotalInfo (float32 flavour) of n parts at x (logs at lg) with their float
 * total t: the parts' terms added into a float, subtracted from t's. */
static inline float total_info(const double *x, const double *lg, Py_ssize_t n, double xt,
                               double lgt)
{
    float acc = 0.0f;
    for (Py_ssize_t i = 0; i < n; i++)
        acc = (float)((double)acc + term(x[i], lg[i]));
    return (float)(term(xt, lgt) - (double)acc);
}

/* nominal_finish(x, lg, n_out, C, cases, known, unk_rate, out_gain, out_info)
 *
 * Gain and split information per row from nominal_prep's log inputs and
 * numpy's logs of them: base = (known log known - sum kc log kc) / known in
 * double (0 when nothing is known), the outcomes' TotalInfos added in float,
 * gain = (1 - unk) * (base - info / known), split = TotalInfo(ValFreq) /
 * cases -- splits.score_outcomes, operation for operation. */
PyObject *tg_nominal_finish(PyObject *self, PyObject *args)
{
    enum { NB = 7 };
    PyObject *o[NB];
    Py_ssize_t n_out, C;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOnnOOOOO", &o[0], &o[1], &n_out, &C, &o[2], &o[3], &o[4],
                          &o[5], &o[6]))
        return NULL;
    if (n_out < 1 || C < 1) {
        PyErr_SetString(PyExc_ValueError, "nominal_finish: bad sizes");
        return NULL;
    }
    const Py_ssize_t L = (n_out - 1) * C + n_out + C + 2;
    const Py_ssize_t K = tg_items(o[2], sizeof(float));
    if (K < 0)
        return NULL;
    Py_buffer b[NB];
    int got = 0;
    PyObject *result = NULL;
    const tg_spec spec[NB] = {
        {0, sizeof(double), K * L, "x"},
        {0, sizeof(double), K * L, "lg"},
        {0, sizeof(float), K, "cases"},
        {0, sizeof(float), K, "known"},
        {0, sizeof(float), K, "unk_rate"},
        {1, sizeof(float), K, "out_gain"},
        {1, sizeof(float), K, "out_info"},
    };
    if ((got = tg_views(o, b, spec, NB)) < NB)
        goto done;
    {
        const double *x = b[0].buf, *lg = b[1].buf;
        const float *cases = b[2].buf, *known = b[3].buf, *unk_rate = b[4].buf;
        float *gain = b[5].buf, *info = b[6].buf;
        for (Py_ssize_t r = 0; r < K; r++) {
            const double *xr = x + r * L, *lr = lg + r * L;
            const Py_ssize_t iv = (n_out - 1) * C, ik = iv + n_out;
            /* base_info_many: a double sum over classes, stored as float */
            double s = 0.0;
            for (Py_ssize_t c = 0; c < C; c++)
                s = s + term(xr[ik + c], lr[ik + c]);
            const double kd = (double)known[r];
            const float base =
                known[r] > 0 ? (float)((term(xr[ik + C], lr[ik + C]) - s) / kd) : 0.0f;
            float this_info = 0.0f;
            for (Py_ssize_t v = 1; v < n_out; v++)
                this_info += total_info(xr + (v - 1) * C, lr + (v - 1) * C, C, xr[iv + v],
                                        lr[iv + v]);
            gain[r] = (1.0f - unk_rate[r]) * (base - this_info / known[r]);
            const float split = total_info(xr + iv, lr + iv, n_out, xr[ik + C + 1], lr[ik + C + 1]);
            info[r] = split / cases[r];
        }
    }
    result = Py_NewRef(Py_None);
done:
    tg_release(b, got);
    return result;
}
