/* The packed case lists unpacked end to end in one call (module _crules).
 *
 * The subset search copies each of a class's rules' case lists (held packed by
 * rules/caselists.py: the first row, then the gaps in uint8 or uint16; short or wide
 * lists as int32 rows) into one table; a few numpy calls a list took about 3 us, a
 * fifth of a second at 100k rows over the 19,000 lists of the three classes. */
#include "crules.h"

/* unpack_lists(blocks, block, at, size, kind, which, ptr, rows): for each k, list
 * which[k] (its block's index in blocks (int32, as array('i')), its first byte there
 * (int64), its items and their kind (int8)) unpacked into rows[ptr[k]:ptr[k + 1]]
 * (int32); which[k] < 0 reads as no rows.  ptr (int64, len(which) + 1) must hold each
 * list's row count, as caselists.unpacked_size gives it. */
PyObject *tg_unpack_lists(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *blocks, *o[7];
    if (!PyArg_ParseTuple(args, "O!OOOOOOO", &PyList_Type, &blocks, &o[0], &o[1], &o[2], &o[3],
                          &o[4], &o[5], &o[6]))
        return NULL;
    const Py_ssize_t lists = tg_items(o[0], sizeof(int32_t));
    const Py_ssize_t k1 = tg_items(o[5], sizeof(int64_t));
    const Py_ssize_t total = tg_items(o[6], sizeof(int32_t));
    if (lists < 0 || k1 < 1 || total < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "unpack_lists: empty ptr");
        return NULL;
    }
    const tg_spec spec[7] = {
        {0, sizeof(int32_t), lists, "block"},    {0, sizeof(int64_t), lists, "at"},
        {0, sizeof(int64_t), lists, "size"},     {0, 1, lists, "kind"},
        {0, sizeof(int64_t), k1 - 1, "which"},  {0, sizeof(int64_t), k1, "ptr"},
        {1, sizeof(int32_t), total, "rows"},
    };
    Py_buffer b[7];
    if (!tg_all_views(o, b, spec, 7))
        return NULL;
    const int32_t *block = b[0].buf;
    const int64_t *at = b[1].buf, *size = b[2].buf, *which = b[4].buf, *ptr = b[5].buf;
    const signed char *kind = b[3].buf;
    int32_t *rows = b[6].buf;
    const Py_ssize_t n_blocks = PyList_GET_SIZE(blocks);
    Py_buffer *views = PyMem_Calloc((size_t)(n_blocks > 0 ? n_blocks : 1), sizeof(Py_buffer));
    Py_ssize_t held = 0;
    PyObject *result = NULL;
    if (views == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (; held < n_blocks; held++)
        if (PyObject_GetBuffer(PyList_GET_ITEM(blocks, held), &views[held], PyBUF_C_CONTIGUOUS) <
            0)
            goto done;
    if (ptr[0] != 0 || ptr[k1 - 1] != total) {
        PyErr_SetString(PyExc_ValueError, "unpack_lists: ptr does not span rows");
        goto done;
    }
    for (Py_ssize_t k = 0; k + 1 < k1; k++) {
        const int64_t lo = ptr[k], hi = ptr[k + 1], i = which[k];
        if (hi < lo || hi > total) {
            PyErr_SetString(PyExc_ValueError, "unpack_lists: ptr not ascending");
            goto done;
        }
        if (i < 0) {
            if (hi != lo) {
                PyErr_SetString(PyExc_ValueError, "unpack_lists: rows for an empty entry");
                goto done;
            }
            continue;
        }
        if (i >= lists || block[i] < 0 || block[i] >= n_blocks || kind[i] < 0 ||
            kind[i] >= KIND_N) {
            PyErr_SetString(PyExc_IndexError, "unpack_lists: list out of range");
            goto done;
        }
        /* the list's bytes, and the rows it unpacks to (caselists.unpacked_size) */
        const int item = tg_kind_item((int)kind[i]);
        const int parts = 4 / item; /* the first row's items (one for int32 rows) */
        const int64_t items = size[i], n_rows = items - parts + 1;
        if (at[i] < 0 || items < parts || at[i] + items * item > (int64_t)views[block[i]].len ||
            n_rows != hi - lo) {
            PyErr_SetString(PyExc_ValueError, "unpack_lists: a list does not fit its block");
            goto done;
        }
        const unsigned char *raw = (const unsigned char *)views[block[i]].buf + at[i];
        int32_t *out = rows + lo;
        if (kind[i] == KIND_INT32) {
            memcpy(out, raw, (size_t)n_rows * sizeof(int32_t));
            continue;
        }
        /* the first row, highest part first; then each gap added (np.cumsum in int32) */
        uint32_t row = 0;
        if (kind[i] == KIND_UINT8) {
            for (int j = 0; j < parts; j++)
                row = (row << 8) | raw[j];
            out[0] = (int32_t)row;
            for (int64_t j = 1; j < n_rows; j++) {
                row += raw[parts - 1 + j];
                out[j] = (int32_t)row;
            }
        } else {
            uint16_t g;
            for (int j = 0; j < parts; j++) {
                memcpy(&g, raw + 2 * j, sizeof g);
                row = (row << 16) | g;
            }
            out[0] = (int32_t)row;
            for (int64_t j = 1; j < n_rows; j++) {
                memcpy(&g, raw + 2 * (parts - 1 + j), sizeof g);
                row += g;
                out[j] = (int32_t)row;
            }
        }
    }
    result = Py_None;
    Py_INCREF(result);
done:
    for (Py_ssize_t j = 0; j < held; j++)
        PyBuffer_Release(&views[j]);
    PyMem_Free(views);
    tg_release(b, 7);
    return result;
}
