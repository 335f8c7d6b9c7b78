/* A rule's cases sorted and packed into CaseLists' open block in one call (module
 * _crules).
 *
 * The walk (rwalk.c's walk_rows) gives a rule's cases as file rows in the leaves'
 * order; rules/caselists.py holds each list ascending, as its first row and the gaps
 * in uint8 or uint16 (short or wide lists as int32 rows).  A copy, a sort and the few
 * numpy calls of caselists.pack took about 8 us a rule, a seventh of a second over
 * the 19,188 rules of 100k rows.  The bytes written are caselists.pack's. */
#include "crules.h"

static int cmp_int32(const void *a, const void *b)
{
    const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* rows[0..count) ascending, through a bitmap of W words (all zero, and left so) where
 * a scan of it is cheaper than a comparison sort.  0, or -1 with an exception set:
 * a row out of [0, 64 W) or a repeated one. */
static int sort_rows(int32_t *rows, Py_ssize_t count, word *marks, Py_ssize_t W)
{
    for (Py_ssize_t j = 0; j < count; j++)
        if (rows[j] < 0 || (int64_t)rows[j] >= (int64_t)W * 64) {
            PyErr_SetString(PyExc_ValueError, "pack_rows: a row out of range");
            return -1;
        }
    Py_ssize_t log2c = 1;
    while (((Py_ssize_t)1 << log2c) < count)
        log2c++;
    if (count <= 16) { /* insertion sort */
        for (Py_ssize_t j = 1; j < count; j++) {
            const int32_t v = rows[j];
            Py_ssize_t i = j;
            for (; i > 0 && rows[i - 1] > v; i--)
                rows[i] = rows[i - 1];
            rows[i] = v;
        }
    } else if (W > 4 * count * log2c) { /* few rows, many words */
        qsort(rows, (size_t)count, sizeof(int32_t), cmp_int32);
    } else {
        Py_ssize_t lo = W, hi = 0;
        for (Py_ssize_t j = 0; j < count; j++) {
            const Py_ssize_t w = rows[j] >> 6;
            marks[w] |= (word)1 << (rows[j] & 63);
            lo = w < lo ? w : lo;
            hi = w > hi ? w : hi;
        }
        Py_ssize_t got = 0;
        for (Py_ssize_t w = lo; w <= hi; w++) {
            word x = marks[w];
            marks[w] = 0;
            while (x) {
                if (got < count)
                    rows[got] = (int32_t)(w * 64 + __builtin_ctzll(x));
                got++;
                x &= x - 1;
            }
        }
        if (got != count) {
            PyErr_SetString(PyExc_ValueError, "pack_rows: a row given twice");
            return -1;
        }
    }
    for (Py_ssize_t j = 1; j < count; j++)
        if (rows[j] == rows[j - 1]) {
            PyErr_SetString(PyExc_ValueError, "pack_rows: a row given twice");
            return -1;
        }
    return 0;
}

/* rows[:count] (int32, distinct, in [0, 64 W); marks: W words, all zero, and left so)
 * sorted in place, then caselists.pack's form of them: under pack_min rows, or with a
 * gap over 0xFFFF, the rows (kind 0); else the first row in 4 bytes, highest part
 * first, and the gaps, in uint8 (kind 1) or uint16 (kind 2); *kind and *items say
 * which.  Written to block (len bytes) from byte at when its items * item size bytes
 * fit there and are at most most: 1; else not written, the rows left sorted: 0.  -1
 * with an exception set (a row out of range or repeated).  pack_rows, and walk_many
 * (rwalk.c) for each rule it walks. */
int tg_pack_into(int32_t *rows, Py_ssize_t count, word *marks, Py_ssize_t W, unsigned char *block,
                 Py_ssize_t len, Py_ssize_t at, Py_ssize_t most, Py_ssize_t pack_min, int *kind_out,
                 Py_ssize_t *items_out)
{
    if (sort_rows(rows, count, marks, W) < 0)
        return -1;
    int kind = KIND_INT32;
    if (count >= pack_min && count > 0) {
        int32_t widest = 0;
        for (Py_ssize_t j = 1; j < count; j++) {
            const int32_t gap = rows[j] - rows[j - 1];
            widest = gap > widest ? gap : widest;
        }
        if (widest <= 0xFF)
            kind = KIND_UINT8;
        else if (widest <= 0xFFFF)
            kind = KIND_UINT16;
    }
    const Py_ssize_t item = tg_kind_item(kind);
    const Py_ssize_t parts = 4 / item; /* the first row's items */
    const Py_ssize_t items = kind == KIND_INT32 ? count : count - 1 + parts;
    const Py_ssize_t nbytes = items * item;
    const int written = nbytes <= most && at <= len - nbytes;
    *kind_out = kind;
    *items_out = items;
    if (written) {
        unsigned char *out = block + at;
        if (kind == KIND_INT32) {
            memcpy(out, rows, (size_t)nbytes);
        } else if (kind == KIND_UINT8) {
            const uint32_t first = (uint32_t)rows[0];
            for (Py_ssize_t j = 0; j < 4; j++)
                out[j] = (unsigned char)(first >> (8 * (3 - j)));
            for (Py_ssize_t j = 1; j < count; j++)
                out[3 + j] = (unsigned char)(rows[j] - rows[j - 1]);
        } else {
            const uint32_t first = (uint32_t)rows[0];
            const uint16_t high = (uint16_t)(first >> 16), low = (uint16_t)(first & 0xFFFF);
            memcpy(out, &high, sizeof high);
            memcpy(out + 2, &low, sizeof low);
            for (Py_ssize_t j = 1; j < count; j++) {
                const uint16_t gap = (uint16_t)(rows[j] - rows[j - 1]);
                memcpy(out + 2 * (j + 1), &gap, sizeof gap);
            }
        }
    }
    return written;
}

/* pack_rows(rows, count, marks, block, at, most, pack_min) -> (kind, items, written):
 * tg_pack_into of rows[:count] (marks: uint64, all zero, and left so; the rows below
 * 64 len(marks)) into block (uint8). */
PyObject *tg_pack_rows(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *o[3];
    Py_ssize_t count, at, most, pack_min;
    if (!PyArg_ParseTuple(args, "OnOOnnn", &o[0], &count, &o[1], &o[2], &at, &most, &pack_min))
        return NULL;
    if (count < 0 || at < 0) {
        PyErr_SetString(PyExc_ValueError, "pack_rows: a negative count or offset");
        return NULL;
    }
    const Py_ssize_t W = tg_items(o[1], sizeof(word));
    if (W < 0)
        return NULL;
    const tg_spec spec[3] = {
        {1, sizeof(int32_t), count, "rows"},
        {1, sizeof(word), W, "marks"},
        {1, 1, 0, "block"},
    };
    Py_buffer b[3];
    if (!tg_all_views(o, b, spec, 3))
        return NULL;
    int kind;
    Py_ssize_t items;
    const int written =
        tg_pack_into(b[0].buf, count, b[1].buf, W, b[2].buf, b[2].len, at, most, pack_min, &kind, &items);
    PyObject *result =
        written < 0 ? NULL : Py_BuildValue("(nni)", (Py_ssize_t)kind, items, written);
    tg_release(b, 3);
    return result;
}
