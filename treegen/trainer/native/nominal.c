/* Nominal attributes (c45 flavour): nominal.score_outcomes in C, in two steps
 * around numpy's logarithms, as for continuous cuts (scan.c): nominal_prep
 * writes every value whose log the scores need, numpy takes the logs,
 * nominal_finish computes gain and split information.
 * nominal.score_nominal drives them. */
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
 * cases -- nominal.score_outcomes, operation for operation. */
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

/* The j48 flavour: the same two steps in double, nominal.score_outcomes with
 * dtype float64 operation for operation.  nominal_prep_j48 has nominal_prep's
 * arguments and layout with every float array double; ValFreq[v], the known
 * class weights and the total of ValFreq are sums in order from their first
 * term (np.cumsum / np.add.accumulate), and ok counts an outcome as reasonable
 * when its weight minus min_cases exceeds -J48_TOL. */
PyObject *tg_nominal_prep_j48(PyObject *self, PyObject *args)
{
    enum { NB = 6 };
    PyObject *o[NB];
    Py_ssize_t n_out, C;
    double m;
    (void)self;
    if (!PyArg_ParseTuple(args, "OnnOdOOOO", &o[0], &n_out, &C, &o[1], &m, &o[2], &o[3], &o[4],
                          &o[5]))
        return NULL;
    if (n_out < 2 || C < 1 || C > MAX_CLASSES) {
        PyErr_SetString(PyExc_ValueError, "nominal_prep_j48: bad sizes");
        return NULL;
    }
    const Py_ssize_t L = (n_out - 1) * C + n_out + C + 2;
    const Py_ssize_t K = tg_items(o[1], sizeof(double));
    if (K < 0)
        return NULL;
    Py_buffer b[NB];
    int got = 0;
    PyObject *result = NULL;
    const tg_spec spec[NB] = {
        {0, sizeof(double), K * n_out * C, "freq"},
        {0, sizeof(double), K, "cases"},
        {1, sizeof(double), K * L, "out_x"},
        {1, sizeof(double), K, "out_known"},
        {1, sizeof(double), K, "out_unk_rate"},
        {1, 1, K, "out_ok"},
    };
    if ((got = tg_views(o, b, spec, NB)) < NB)
        goto done;
    {
        const double *freq = b[0].buf, *cases = b[1].buf;
        double *x = b[2].buf;
        double *known = b[3].buf, *unk_rate = b[4].buf;
        unsigned char *ok = b[5].buf;
        double kc[MAX_CLASSES];
        for (Py_ssize_t r = 0; r < K; r++) {
            const double *f = freq + r * n_out * C;
            double *xr = x + r * L;
            double *xv = xr + (n_out - 1) * C; /* ValFreq */
            double total = 0.0;
            Py_ssize_t reasonable = 0;
            int any = 0;
            for (Py_ssize_t v = 0; v < n_out; v++) {
                double vf = f[v * C];
                for (Py_ssize_t c = 1; c < C; c++)
                    vf = vf + f[v * C + c];
                for (Py_ssize_t c = 0; v >= 1 && c < C; c++) {
                    kc[c] = v == 1 ? f[v * C + c] : kc[c] + f[v * C + c];
                    xr[(v - 1) * C + c] = f[v * C + c] > 0 ? f[v * C + c] : 1.0;
                }
                xv[v] = vf > 0 ? vf : 1.0;
                total = v == 0 ? vf : total + vf;
                if (v == 0) {
                    known[r] = cases[r] - vf;
                    unk_rate[r] = vf / cases[r];
                } else {
                    reasonable += vf - m > -TG_J48_TOL;
                    any |= vf > 0;
                }
            }
            for (Py_ssize_t c = 0; c < C; c++)
                xv[n_out + c] = kc[c] > 0 ? kc[c] : 1.0;
            xv[n_out + C] = known[r] > 0 ? known[r] : 1.0;
            xv[n_out + C + 1] = total > 0 ? total : 1.0;
            ok[r] = (unsigned char)(any && reasonable >= 2);
        }
    }
    result = PyLong_FromSsize_t(L);
done:
    tg_release(b, got);
    return result;
}

/* A part's term v log2 v from numpy's log lg of its log input: 0 where v is not
 * positive (log2_c45's masked 0). */
static inline double term_j48(double v, double lg)
{
    return v * (v > 0 ? lg / TG_LN2 : 0.0);
}

/* nominal_finish_j48(freq, lg, n_out, C, cases, known, unk_rate, out_gain, out_info)
 *
 * nominal_finish in double: base = (known log2 known - sum kc log2 kc) / known,
 * the sum from 0 (0 when nothing is known); each outcome's TotalInfo (terms
 * added in order from the first, subtracted from its total's), those added in
 * order from the first; gain = (1 - unk) * (base - info / known); split =
 * TotalInfo(ValFreq) / cases.  freq gives the parts themselves, summed again
 * as nominal_prep_j48 sums them; lg the logs of nominal_prep_j48's inputs. */
PyObject *tg_nominal_finish_j48(PyObject *self, PyObject *args)
{
    enum { NB = 7 };
    PyObject *o[NB];
    Py_ssize_t n_out, C;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOnnOOOOO", &o[0], &o[1], &n_out, &C, &o[2], &o[3], &o[4],
                          &o[5], &o[6]))
        return NULL;
    if (n_out < 2 || C < 1 || C > MAX_CLASSES) {
        PyErr_SetString(PyExc_ValueError, "nominal_finish_j48: bad sizes");
        return NULL;
    }
    const Py_ssize_t L = (n_out - 1) * C + n_out + C + 2;
    const Py_ssize_t K = tg_items(o[2], sizeof(double));
    if (K < 0)
        return NULL;
    Py_buffer b[NB];
    int got = 0;
    PyObject *result = NULL;
    const tg_spec spec[NB] = {
        {0, sizeof(double), K * n_out * C, "freq"},
        {0, sizeof(double), K * L, "lg"},
        {0, sizeof(double), K, "cases"},
        {0, sizeof(double), K, "known"},
        {0, sizeof(double), K, "unk_rate"},
        {1, sizeof(double), K, "out_gain"},
        {1, sizeof(double), K, "out_info"},
    };
    if ((got = tg_views(o, b, spec, NB)) < NB)
        goto done;
    {
        const double *freq = b[0].buf, *lg = b[1].buf;
        const double *cases = b[2].buf, *known = b[3].buf, *unk_rate = b[4].buf;
        double *gain = b[5].buf, *info = b[6].buf;
        double kc[MAX_CLASSES];
        for (Py_ssize_t r = 0; r < K; r++) {
            const double *f = freq + r * n_out * C;
            const double *lr = lg + r * L;
            const Py_ssize_t iv = (n_out - 1) * C, ik = iv + n_out;
            double total = 0.0, split_acc = 0.0, this_info = 0.0;
            for (Py_ssize_t v = 0; v < n_out; v++) {
                double vf = f[v * C];
                for (Py_ssize_t c = 1; c < C; c++)
                    vf = vf + f[v * C + c];
                total = v == 0 ? vf : total + vf;
                const double tv = term_j48(vf, lr[iv + v]);
                split_acc = v == 0 ? tv : split_acc + tv;
                if (v == 0)
                    continue;
                const double *lv = lr + (v - 1) * C;
                double acc = term_j48(f[v * C], lv[0]);
                for (Py_ssize_t c = 1; c < C; c++)
                    acc = acc + term_j48(f[v * C + c], lv[c]);
                const double info_v = term_j48(vf, lr[iv + v]) - acc;
                this_info = v == 1 ? info_v : this_info + info_v;
                for (Py_ssize_t c = 0; c < C; c++)
                    kc[c] = v == 1 ? f[v * C + c] : kc[c] + f[v * C + c];
            }
            double s = 0.0; /* base_info_many: a sum from 0 over the classes */
            for (Py_ssize_t c = 0; c < C; c++)
                s = s + term_j48(kc[c], lr[ik + c]);
            const double kd = known[r];
            const double base = kd > 0 ? (term_j48(kd, lr[ik + C]) - s) / kd : 0.0;
            gain[r] = (1.0 - unk_rate[r]) * (base - this_info / kd);
            info[r] = (term_j48(total, lr[ik + C + 1]) - split_acc) / cases[r];
        }
    }
    result = Py_NewRef(Py_None);
done:
    tg_release(b, got);
    return result;
}
