/* c4.5rules' generalisation of one rule (treegen/rules/paths.py, _generalise_current):
 * drop the condition whose removal ranks best while that does not rank worse, from
 * each case's count of failed conditions.  The numbers are the Python path's: counts
 * are integers, and a rank's rate is (e + AddErrs(n, e)) / n with bound.h's AddErrs,
 * the c45 flavour's (tested equal in tests/rules/test_rules_paths.py). */
#include "bound.h"

/* A rule's rank (paths.rank_of), compared as Python compares (rate, covers) tuples. */
typedef struct {
    double rate;
    int covers;
} rank;

static rank rank_of(const Bound *b, Py_ssize_t n, Py_ssize_t e)
{
    rank r;
    if (n == 0) {
        r.rate = 1.0;
        r.covers = 0;
        return r;
    }
    r.rate = ((double)e + add_errs(b, (double)n, (double)e)) / (double)n;
    r.covers = 1;
    return r;
}

static int rank_le(rank a, rank b)
{
    return a.rate < b.rate || (a.rate == b.rate && a.covers <= b.covers);
}

/* One C-contiguous buffer of exactly `len` bytes (writable if asked). */
static int bytes_view(PyObject *o, Py_buffer *v, int writable, Py_ssize_t len, const char *name)
{
    if (PyObject_GetBuffer(o, v, PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0)) < 0)
        return -1;
    if (v->itemsize != 1 || v->len != len) {
        PyErr_Format(PyExc_ValueError, "rule_generalise: %s must be %zd bytes, got %zd", name,
                     len, v->len);
        PyBuffer_Release(v);
        return -1;
    }
    return 0;
}

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* The cases failing at most `level` of the k conditions (fails), and how many of the
 * conditions still alive each fails.  Few cases pass on a deep path (a tenth or
 * less), so the scan over every case builds a bit mask of the passing ones 16 cases
 * at a time (SSE2, where the compiler has it) and visits only its set bits; without
 * SSE2 it is branch-free, one case at a time. */
static Py_ssize_t hold(const uint8_t *fails, const uint8_t *missed, const uint8_t *alive,
                       Py_ssize_t n, Py_ssize_t k, int level, int32_t *rows, int32_t *f)
{
    Py_ssize_t h = 0, c = 0;
#if defined(__SSE2__)
    /* fails <= level as unsigned bytes: max(fails, level) == level. */
    const __m128i lv = _mm_set1_epi8((char)(unsigned char)level);
    for (; c + 16 <= n; c += 16) {
        const __m128i v = _mm_loadu_si128((const __m128i *)(fails + c));
        unsigned bits = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(v, lv), lv));
        while (bits) {
            rows[h++] = (int32_t)(c + __builtin_ctz(bits));
            bits &= bits - 1;
        }
    }
#endif
    for (; c < n; c++) {
        rows[h] = (int32_t)c;
        h += fails[c] <= level;
    }
    for (Py_ssize_t q = 0; q < h; q++)
        f[q] = fails[rows[q]];
    for (Py_ssize_t j = 0; j < k; j++) {
        if (alive[j])
            continue;
        const uint8_t *m = missed + j * n;
        for (Py_ssize_t q = 0; q < h; q++)
            f[q] -= m[rows[q]];
    }
    return h;
}

/* rule_generalise(fails, missed, wrong, alive, log_cf, coeff[, cover]) -> rate
 *                                                            or (rate, covered)
 *
 * n cases, k conditions (k < 256): fails (n bytes) how many of the conditions each
 * case fails, missed (k * n bytes, row j: the cases failing condition j), wrong (n
 * bytes: the case is not of the rule's class), alive (k bytes, all 1 on entry;
 * written: 1 for the conditions the rule keeps).  log_cf = math.log(cf) and coeff =
 * coeff_c45(cf) as ErrorBound(cf, "c45") holds them.  Returns the kept rule's rate;
 * given cover (n int32, written), also the rows the kept rule covers, ascending, in
 * cover[0..covered): they fail only removed conditions, so they are among the rows
 * held, and the count of failures left is 0 for them alone. */
PyObject *tg_rule_generalise(PyObject *self, PyObject *args)
{
    PyObject *of, *om, *ow, *oa, *oc = NULL;
    Bound bd;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOdd|O", &of, &om, &ow, &oa, &bd.log_cf, &bd.coeff, &oc))
        return NULL;
    bd.cf = 0.0;
    Py_buffer vf, vm, vw, va, vc;
    vc.obj = NULL;
    if (PyObject_GetBuffer(of, &vf, PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    const Py_ssize_t n = vf.len;
    if (PyObject_GetBuffer(oa, &va, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&vf);
        return NULL;
    }
    const Py_ssize_t k = va.len;
    PyObject *result = NULL;
    int32_t *rows = NULL, *f = NULL;
    Py_ssize_t *add_n = NULL, *add_e = NULL;
    if (vf.itemsize != 1 || va.itemsize != 1 || k > 255) {
        PyErr_SetString(PyExc_ValueError, "rule_generalise: fails and alive are bytes, k < 256");
        goto release_fa;
    }
    if (bytes_view(om, &vm, 0, k * n, "missed") < 0)
        goto release_fa;
    if (bytes_view(ow, &vw, 0, n, "wrong") < 0)
        goto release_m;
    if (oc != NULL) {
        if (PyObject_GetBuffer(oc, &vc, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0)
            goto release_w;
        if (vc.itemsize != (Py_ssize_t)sizeof(int32_t) || vc.len != n * (Py_ssize_t)sizeof(int32_t)) {
            PyErr_Format(PyExc_ValueError, "rule_generalise: cover must be %zd int32", n);
            goto release_all;
        }
    }
    const uint8_t *fails = vf.buf, *missed = vm.buf, *wrong = vw.buf;
    uint8_t *alive = va.buf;
    for (Py_ssize_t j = 0; j < k; j++)
        alive[j] = 1;
    rows = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(int32_t));
    f = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(int32_t));
    add_n = PyMem_Calloc((size_t)(k ? k : 1), sizeof(Py_ssize_t));
    add_e = PyMem_Calloc((size_t)(k ? k : 1), sizeof(Py_ssize_t));
    if (rows == NULL || f == NULL || add_n == NULL || add_e == NULL) {
        PyErr_NoMemory();
        goto release_all;
    }
    {
        /* As in Python: hold the cases failing at most 2 conditions, and after r
         * removals those failing at most r + 2 once r + 1 are needed. */
        Py_ssize_t removed = 0, left = k;
        int level = k < 2 ? (int)k : 2;
        Py_ssize_t h = hold(fails, missed, alive, n, k, level, rows, f);
        Py_ssize_t n0 = 0, e0 = 0;
        for (Py_ssize_t q = 0; q < h; q++)
            if (f[q] == 0) {
                n0++;
                e0 += wrong[rows[q]];
            }
        rank current = rank_of(&bd, n0, e0);
        while (left > 0) {
            if (level < removed + 1) {
                level = (int)(k < removed + 2 ? k : removed + 2);
                h = hold(fails, missed, alive, n, k, level, rows, f);
            }
            n0 = e0 = 0;
            for (Py_ssize_t j = 0; j < k; j++)
                add_n[j] = add_e[j] = 0;
            for (Py_ssize_t q = 0; q < h; q++) {
                const int32_t c = rows[q];
                const int none = f[q] == 0;
                n0 += none;
                e0 += none & wrong[c];
                if (f[q] == 1) /* few cases: which one condition left does it fail */
                    for (Py_ssize_t j = 0; j < k; j++)
                        if (alive[j] && missed[j * n + c]) {
                            add_n[j]++;
                            add_e[j] += wrong[c];
                            break;
                        }
            }
            Py_ssize_t best_j = -1;
            rank best = {HUGE_VAL, 0};
            for (Py_ssize_t j = 0; j < k; j++) {
                if (!alive[j])
                    continue;
                const rank r = rank_of(&bd, n0 + add_n[j], e0 + add_e[j]);
                if (rank_le(r, best)) { /* of equal ranks the later condition goes */
                    best_j = j;
                    best = r;
                }
            }
            if (!rank_le(best, current))
                break;
            alive[best_j] = 0;
            removed++;
            left--;
            for (Py_ssize_t q = 0; q < h; q++)
                f[q] -= missed[best_j * n + rows[q]];
            current = best;
        }
        if (oc == NULL) {
            result = PyFloat_FromDouble(current.rate);
        } else {
            int32_t *cover = vc.buf;
            Py_ssize_t covered = 0;
            for (Py_ssize_t q = 0; q < h; q++) {
                cover[covered] = rows[q];
                covered += f[q] == 0;
            }
            result = Py_BuildValue("dn", current.rate, covered);
        }
    }
release_all:
    if (vc.obj != NULL)
        PyBuffer_Release(&vc);
    PyMem_Free(rows);
    PyMem_Free(f);
    PyMem_Free(add_n);
    PyMem_Free(add_e);
release_w:
    PyBuffer_Release(&vw);
release_m:
    PyBuffer_Release(&vm);
release_fa:
    PyBuffer_Release(&vf);
    PyBuffer_Release(&va);
    return result;
}
