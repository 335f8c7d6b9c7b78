/* The thresholds of a bucket's continuous tests (thresholds.cuts_below, c45 above
 * DISTINCT_MAX_ROWS rows): for each float32 midpoint, the largest training value
 * not above it, found through the attribute's presorted rows by binary search
 * (the numpy path gathers a whole block of SAMPLE values per midpoint, ~60 us a
 * call at 1M rows, most of it per-call cost). */
#include "cscan.h"

/* Entries of v[0..n-1] (ascending, no NaN) that are <= key (strict: < key):
 * numpy's searchsorted(v, key, side="right") (strict: side="left"). */
static Py_ssize_t count_sorted(const float *v, Py_ssize_t n, float key, int strict)
{
    Py_ssize_t lo = 0, hi = n;
    while (lo < hi) {
        const Py_ssize_t mid = lo + (hi - lo) / 2;
        if (strict ? v[mid] < key : v[mid] <= key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The same count over the block of presorted rows srt[b * S .. b * S + S - 1]
 * (fewer at the end), each value read as col[srt[.]]: the block is in value
 * order, so a binary search counts what thresholds._block's comparison counts. */
/* col[srt[i]], or NaN (and *bad set) for a row outside col: only the rows read
 * are checked (srt is the whole presorted column, read a few times a call). */
static inline float value_at(const float *col, Py_ssize_t n_col, const int32_t *srt,
                             Py_ssize_t i, int *bad)
{
    const int32_t r = srt[i];
    if (r < 0 || r >= n_col) {
        *bad = 1;
        return NAN;
    }
    return col[r];
}

static Py_ssize_t count_block(const float *col, Py_ssize_t n_col, const int32_t *srt,
                              Py_ssize_t n_srt, Py_ssize_t b, Py_ssize_t S, float key,
                              int strict, int *bad)
{
    const Py_ssize_t first = b * S;
    Py_ssize_t lo = 0, hi = n_srt - first < S ? n_srt - first : S;
    while (lo < hi) {
        const Py_ssize_t mid = lo + (hi - lo) / 2;
        const float v = value_at(col, n_col, srt, first + mid, bad);
        if (strict ? v < key : v <= key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return first + lo;
}

/* cuts_below(col, n_col, srt, sample, S, keys, out)
 *
 * col: the attribute's values (float32, n_col of them), srt: its known rows in
 * value order (int32), sample: every S-th of their values (srt's 0th, S-th, ...).
 * For each key (a finite midpoint) out gets the largest value not above it, the
 * first of its equal values in value order: for a zero (0.0 and -0.0 are equal)
 * the one met first, as thresholds.cuts_below's numpy path gives it. */
PyObject *tg_cuts_below(PyObject *self, PyObject *args)
{
    enum { NB = 5 };
    PyObject *o[NB];
    Py_ssize_t n_col, S;
    (void)self;
    if (!PyArg_ParseTuple(args, "OnOOnOO", &o[0], &n_col, &o[1], &o[2], &S, &o[3], &o[4]))
        return NULL;
    if (S < 1 || n_col < 0) {
        PyErr_SetString(PyExc_ValueError, "cuts_below: bad sizes");
        return NULL;
    }
    Py_buffer b[NB];
    int got = 0;
    PyObject *result = NULL;
    Py_ssize_t n_srt, n_sample, n_keys;
    if ((n_srt = tg_items(o[1], sizeof(int32_t))) < 0 ||
        (n_sample = tg_items(o[2], sizeof(float))) < 0 ||
        (n_keys = tg_items(o[3], sizeof(float))) < 0)
        return NULL;
    if (n_sample != (n_srt + S - 1) / S) {
        PyErr_SetString(PyExc_ValueError, "cuts_below: sample is not every S-th value");
        return NULL;
    }
    const tg_spec spec[NB] = {
        {0, sizeof(float), n_col, "col"},
        {0, sizeof(int32_t), n_srt, "srt"},
        {0, sizeof(float), n_sample, "sample"},
        {0, sizeof(float), n_keys, "keys"},
        {1, sizeof(float), n_keys, "out"},
    };
    if ((got = tg_views(o, b, spec, NB)) < NB)
        goto done;
    {
        const float *col = b[0].buf, *sample = b[2].buf, *keys = b[3].buf;
        const int32_t *srt = b[1].buf;
        float *out = b[4].buf;
        for (Py_ssize_t k = 0; k < n_keys; k++) {
            const float key = keys[k];
            /* The last block whose first value is not above key. */
            const Py_ssize_t blk = count_sorted(sample, n_sample, key, 0) - 1;
            if (!(key < INFINITY) || blk < 0) { /* NaN, +inf or below every value */
                PyErr_SetString(PyExc_ValueError,
                                "cuts_below: a midpoint lies below every training value or is not finite");
                goto done;
            }
            int bad = 0;
            const Py_ssize_t at = count_block(col, n_col, srt, n_srt, blk, S, key, 0, &bad) - 1;
            float val = value_at(col, n_col, srt, at, &bad);
            if (val == 0.0f) {
                /* The first of the zeros: in the block before the first whose first
                 * value is not below it (or at the very start). */
                const Py_ssize_t b2 = count_sorted(sample, n_sample, val, 1) - 1;
                const Py_ssize_t first =
                    b2 < 0 ? 0 : count_block(col, n_col, srt, n_srt, b2, S, val, 1, &bad);
                val = value_at(col, n_col, srt, first, &bad);
            }
            if (bad) {
                PyErr_SetString(PyExc_IndexError, "cuts_below: row out of range");
                goto done;
            }
            out[k] = val;
        }
    }
    result = Py_NewRef(Py_None);
done:
    tg_release(b, got);
    return result;
}

/* Keys of k[0..n-1] (ascending, no NaN) below v: numpy's searchsorted(k, v,
 * side="left"), without branches; 0 when n is 0. */
static Py_ssize_t keys_below(const float *k, Py_ssize_t n, float v)
{
    if (n < 1)
        return 0;
    const float *at = k;
    Py_ssize_t len = n;
    while (len > 1) {
        const Py_ssize_t half = len / 2;
        at = at[half] < v ? at + half : at;
        len -= half;
    }
    return (at - k) + (at[0] < v);
}

/* The bucket of x among m equal slices of [lo, lo + m / scale]: monotone in x (each
 * step rounds monotonically), so a key in a lower bucket than v is below v. */
static inline Py_ssize_t bucket_of(float x, float lo, double scale, Py_ssize_t m)
{
    const double at = ((double)x - (double)lo) * scale;
    if (!(at > 0.0))
        return 0;
    return at >= (double)(m - 1) ? m - 1 : (Py_ssize_t)at;
}

/* cuts_by_scan(col, keys, best)
 *
 * col: an attribute's values (float32, NaN unknown), keys: midpoints ascending
 * (float32, finite, at least one), best: one float32 per key, filled by the
 * caller (-inf).  Each known value v raises best[j] for the first key j not below
 * it (values above every key count for none); the largest value not above key j
 * is then the running maximum of best[0..j] (thresholds.cuts_by_scan).  The keys are
 * found through m = 4 x keys equal slices of their range (a binary search in the
 * few keys of v's slice): 11-13 ms for 1M normal values and 6,000 keys, where a
 * binary search in all of them took 28 ms. */
PyObject *tg_cuts_by_scan(PyObject *self, PyObject *args)
{
    enum { NB = 3 };
    PyObject *o[NB];
    (void)self;
    if (!PyArg_ParseTuple(args, "OOO", &o[0], &o[1], &o[2]))
        return NULL;
    Py_buffer b[NB];
    int got = 0;
    PyObject *result = NULL;
    Py_ssize_t n_col, n_keys, *first = NULL;
    if ((n_col = tg_items(o[0], sizeof(float))) < 0 ||
        (n_keys = tg_items(o[1], sizeof(float))) < 0)
        return NULL;
    if (n_keys < 1) {
        PyErr_SetString(PyExc_ValueError, "cuts_by_scan: no keys");
        return NULL;
    }
    const tg_spec spec[NB] = {
        {0, sizeof(float), n_col, "col"},
        {0, sizeof(float), n_keys, "keys"},
        {1, sizeof(float), n_keys, "best"},
    };
    if ((got = tg_views(o, b, spec, NB)) < NB)
        goto done;
    {
        const float *col = b[0].buf, *keys = b[1].buf;
        float *best = b[2].buf;
        for (Py_ssize_t k = 0; k < n_keys; k++) {
            if (!(keys[k] < INFINITY && keys[k] > -INFINITY) || (k && !(keys[k - 1] < keys[k]))) {
                PyErr_SetString(PyExc_ValueError, "cuts_by_scan: keys not finite and ascending");
                goto done;
            }
        }
        const Py_ssize_t m = 4 * n_keys;
        const float lo = keys[0];
        const double span = (double)keys[n_keys - 1] - (double)lo;
        const double scale = span > 0.0 ? (double)m / span : 0.0;
        /* first[s]: the keys in slices below s (first[m]: all of them). */
        first = PyMem_Calloc((size_t)m + 1, sizeof(Py_ssize_t));
        if (first == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        for (Py_ssize_t k = 0; k < n_keys; k++)
            first[bucket_of(keys[k], lo, scale, m) + 1]++;
        for (Py_ssize_t s = 0; s < m; s++)
            first[s + 1] += first[s];
        for (Py_ssize_t i = 0; i < n_col; i++) {
            const float v = col[i];
            if (v != v)
                continue; /* unknown */
            const Py_ssize_t s = bucket_of(v, lo, scale, m);
            const Py_ssize_t j = first[s] + keys_below(keys + first[s], first[s + 1] - first[s], v);
            if (j < n_keys && v > best[j])
                best[j] = v;
        }
    }
    result = Py_NewRef(Py_None);
done:
    PyMem_Free(first);
    tg_release(b, got);
    return result;
}
