/* The C tokenizer's string -> code table of a nominal column (open addressing,
 * FNV-1a): the declared values, or those first seen.  Included by ctok.c alone; its
 * functions static, so that the parse's lookups stay in its translation unit. */
#ifndef TREEGEN_CTOKDICT_H
#define TREEGEN_CTOKDICT_H

#include "ctok.h"

/* A string -> code table (open addressing, FNV-1a).  Keys point into bytes
 * objects held by `values` (declared: the caller's; first-seen: our own). */
typedef struct {
    PyObject *values; /* list of bytes, index = code */
    Py_ssize_t *slots; /* code + 1, 0 = empty */
    Py_ssize_t mask;
    Py_ssize_t count;
} dict_t;

static uint64_t hash_bytes(const char *p, Py_ssize_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static int dict_resize(dict_t *d, Py_ssize_t size)
{
    Py_ssize_t *slots = PyMem_Calloc((size_t)size, sizeof(Py_ssize_t));
    if (!slots) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t c = 0; c < d->count; c++) {
        PyObject *v = PyList_GET_ITEM(d->values, c);
        uint64_t h = hash_bytes(PyBytes_AS_STRING(v), PyBytes_GET_SIZE(v));
        Py_ssize_t i = (Py_ssize_t)(h & (uint64_t)(size - 1));
        while (slots[i])
            i = (i + 1) & (size - 1);
        slots[i] = c + 1;
    }
    PyMem_Free(d->slots);
    d->slots = slots;
    d->mask = size - 1;
    return 0;
}

/* Code of (p, n), or -1 when absent. */
static Py_ssize_t dict_find(const dict_t *d, const char *p, Py_ssize_t n, Py_ssize_t *slot)
{
    Py_ssize_t i = (Py_ssize_t)(hash_bytes(p, n) & (uint64_t)d->mask);
    for (;;) {
        Py_ssize_t s = d->slots[i];
        if (!s) {
            *slot = i;
            return -1;
        }
        PyObject *v = PyList_GET_ITEM(d->values, s - 1);
        if (PyBytes_GET_SIZE(v) == n && memcmp(PyBytes_AS_STRING(v), p, (size_t)n) == 0)
            return s - 1;
        i = (i + 1) & d->mask;
    }
}

/* Code of (p, n), adding it when absent; -2 on a Python error. */
static Py_ssize_t dict_intern(dict_t *d, const char *p, Py_ssize_t n)
{
    Py_ssize_t slot;
    Py_ssize_t code = dict_find(d, p, n, &slot);
    if (code >= 0)
        return code;
    PyObject *v = PyBytes_FromStringAndSize(p, n);
    if (!v || PyList_Append(d->values, v) < 0) {
        Py_XDECREF(v);
        return -2;
    }
    Py_DECREF(v);
    code = d->count++;
    d->slots[slot] = code + 1;
    if (2 * d->count > d->mask + 1 && dict_resize(d, 2 * (d->mask + 1)) < 0)
        return -2;
    return code;
}

static int dict_init(dict_t *d, PyObject *values)
{
    d->slots = NULL;
    d->mask = 0;
    d->count = 0;
    if (values == Py_None) {
        d->values = PyList_New(0);
        if (!d->values)
            return -1;
    } else {
        if (!PyList_Check(values)) {
            PyErr_SetString(PyExc_TypeError, "values must be a list of bytes");
            return -1;
        }
        Py_INCREF(values);
        d->values = values;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(values); i++)
            if (!PyBytes_Check(PyList_GET_ITEM(values, i))) {
                PyErr_SetString(PyExc_TypeError, "values must be a list of bytes");
                return -1;
            }
    }
    d->count = PyList_GET_SIZE(d->values);
    Py_ssize_t size = 16;
    while (size < 4 * d->count)
        size *= 2;
    return dict_resize(d, size);
}

#endif
