/* The presort of a float32 column (Context.presort, c45): its known rows in value
 * order, equal values in row order, as context._stable_order's sort of 64-bit keys
 * gives them, by a least-significant-digit radix sort of the 32-bit value keys (three
 * passes of 11, 11 and 10 bits, each stable), which costs a fraction of a comparison
 * sort of 1M keys. */
#include "cscan.h"

#include <stdint.h>
#include <stdlib.h>

#define DIGITS 3
#define RADIX (1 << 11)

/* The order-preserving key of a float32 (not NaN): -0.0 keyed as +0.0 (they compare
 * equal), negative values' bits flipped, positive values' sign bit set. */
static inline uint32_t order_key(float v)
{
    const float z = v + 0.0f; /* -0.0 + 0.0 = +0.0 */
    uint32_t b;
    memcpy(&b, &z, sizeof b);
    return (b >> 31) ? ~b : (b | 0x80000000u);
}

static inline uint32_t radix_digit(uint32_t key, int d)
{
    return (key >> (11 * d)) & (uint32_t)(RADIX - 1);
}

/* stable_order(col, out, scratch) -> m: col float32 (n values, NaN unknown); out
 * int32 (at least n) gets the m known rows in order.  scratch (uint32, at least 4n):
 * the passes' keys and rows, the caller's so that it serves every column (each
 * column's own 16 MB at 1M rows was faulted in afresh). */
PyObject *tg_stable_order(PyObject *self, PyObject *args)
{
    enum { NB = 3 };
    PyObject *o[NB];
    (void)self;
    if (!PyArg_ParseTuple(args, "OOO", &o[0], &o[1], &o[2]))
        return NULL;
    Py_ssize_t n;
    if ((n = tg_items(o[0], sizeof(float))) < 0)
        return NULL;
    if (n >= INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "stable_order: too many rows for int32");
        return NULL;
    }
    const tg_spec spec[NB] = {
        {0, sizeof(float), n, "col"},
        {1, sizeof(int32_t), n, "out"},
        {1, sizeof(uint32_t), 4 * n, "scratch"},
    };
    Py_buffer b[NB];
    int got = 0;
    PyObject *result = NULL;
    Py_ssize_t(*count)[RADIX] = NULL;
    if ((got = tg_views(o, b, spec, NB)) < NB)
        goto done;
    {
        const float *col = b[0].buf;
        int32_t *out = b[1].buf;
        count = calloc(DIGITS, sizeof *count);
        if (count == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        Py_ssize_t m = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            if (col[i] != col[i])
                continue; /* unknown */
            const uint32_t key = order_key(col[i]);
            for (int d = 0; d < DIGITS; d++)
                count[d][radix_digit(key, d)]++;
            m++;
        }
        /* count[d][v]: where digit d's value v starts */
        for (int d = 0; d < DIGITS; d++) {
            Py_ssize_t at = 0;
            for (Py_ssize_t v = 0; v < RADIX; v++) {
                const Py_ssize_t c = count[d][v];
                count[d][v] = at;
                at += c;
            }
        }
        const size_t sz = (size_t)m;
        uint32_t *k0 = b[2].buf, *k1 = k0 + sz;
        int32_t *r0 = (int32_t *)(void *)(k0 + 2 * sz), *r1 = (int32_t *)(void *)(k0 + 3 * sz);
        /* Digit 0 straight from the column (its known rows in row order), digit 1
         * back, digit 2 into out: each pass keeps the order of equal digits. */
        for (Py_ssize_t i = 0; i < n; i++) {
            if (col[i] != col[i])
                continue;
            const uint32_t key = order_key(col[i]);
            const Py_ssize_t at = count[0][radix_digit(key, 0)]++;
            k1[at] = key;
            r1[at] = (int32_t)i;
        }
        for (Py_ssize_t j = 0; j < m; j++) {
            const Py_ssize_t at = count[1][radix_digit(k1[j], 1)]++;
            k0[at] = k1[j];
            r0[at] = r1[j];
        }
        for (Py_ssize_t j = 0; j < m; j++)
            out[count[2][radix_digit(k0[j], 2)]++] = r0[j];
        result = PyLong_FromSsize_t(m);
    }
done:
    free(count);
    tg_release(b, got);
    return result;
}
