/* treegen's C tokenizer for data files (module treegen.data.native._ctok).
 *
 * One pass over the bytes of a data section (CSV rows after the header, ARFF
 * rows after @data, a C4.5 .data/.test file) that writes the float64 value
 * matrix and the int32 class vector directly: no Python object per row or
 * per cell.  The Python readers (treegen/data/readers/) stay the reference.
 *
 * Design: this code accepts only text whose meaning it is sure of, and it
 * never reports an error itself.  On anything else (a quote or escape it
 * does not handle, a sparse ARFF row, a C4.5 continuation line, a control
 * character, a cell that is not a number, an undeclared value, a row of the
 * wrong width, a value out of range, ...) it returns a short reason string
 * and the caller runs the Python reader on the whole file, which gives the
 * same Dataset or the exact one-line error.  So the errors have one
 * implementation, and the fast path can only be slower, never different.
 *
 * This file holds the parse over the columns and the module; a nominal
 * column's value table is in ctokdict.h, the numbers in ctoknum.h, the rows'
 * tokenizer in ctokrow.h (ctok.h what they share), included here so that the
 * parse's loop and its helpers stay in one translation unit. */
#include "ctok.h"
#include "ctokdict.h"
#include "ctoknum.h"
#include "ctokrow.h"

typedef struct {
    int kind;
    int out;          /* X column, -1 = none */
    Py_ssize_t limit; /* K_OPEN: at most this many values, 0 = no limit */
    dict_t d;
    int has_dict;
} col_t;

/* ---- the parse -------------------------------------------------------- */

typedef struct {
    tok_t t;
    col_t *cols;
    Py_ssize_t ncols, n_attr, max_rows;
    double *X;
    int32_t *y;
    double *weights; /* each row's instance weight, or NULL (not read: they fall back) */
    int float32;
    Py_ssize_t data_start;
} parse_t;

/* Turn an infer column into a first-seen one: re-read rows [0, upto) and
 * intern their cells; then re-read row `upto` into cells for the caller. */
static int reopen(parse_t *ps, Py_ssize_t j, Py_ssize_t upto, const char *base, cell_t *cells)
{
    col_t *c = &ps->cols[j];
    c->kind = K_OPEN;
    if (dict_init(&c->d, Py_None) < 0)
        return -2;
    c->has_dict = 1;
    tok_t t = ps->t;
    t.p = base + ps->data_start;
    Py_ssize_t lines = 0;
    for (Py_ssize_t r = 0; r < upto; r++) {
        Py_ssize_t k = next_row(&t, cells, ps->ncols, &lines);
        assert(k == ps->ncols);
        (void)k;
        double *x = ps->X + r * ps->n_attr + c->out;
        if (is_missing(t.fmt, &cells[j]))
            continue;
        Py_ssize_t code = dict_intern(&c->d, cells[j].p, cells[j].n);
        if (code < 0)
            return -2;
        *x = (double)code;
    }
    Py_ssize_t k = next_row(&t, cells, ps->ncols, &lines);
    assert(k == ps->ncols);
    (void)k;
    return 0;
}

static PyObject *tg_parse(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer data, xb, yb, wb;
    Py_ssize_t start, n_attr, max_rows;
    int fmt, sep, float32;
    PyObject *specs, *weights;
    if (!PyArg_ParseTuple(args, "y*niCO!w*w*npnO", &data, &start, &fmt, &sep, &PyList_Type,
                          &specs, &xb, &yb, &n_attr, &float32, &max_rows, &weights))
        return NULL;
    memset(&wb, 0, sizeof wb);
    if (weights != Py_None && PyObject_GetBuffer(weights, &wb, PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&data);
        PyBuffer_Release(&xb);
        PyBuffer_Release(&yb);
        return NULL;
    }
    PyObject *result = NULL;
    parse_t ps;
    memset(&ps, 0, sizeof ps);
    cell_t *cells = NULL;
    const Py_ssize_t ncols = PyList_GET_SIZE(specs);
    ps.ncols = ncols;
    ps.n_attr = n_attr;
    ps.max_rows = max_rows;
    ps.float32 = float32;
    ps.data_start = start;
    ps.X = xb.buf;
    ps.y = yb.buf;
    ps.weights = weights != Py_None ? wb.buf : NULL;
    if (start < 0 || start > data.len || ncols < 1 || fmt < 0 || fmt > 2 ||
        xb.len < max_rows * n_attr * (Py_ssize_t)sizeof(double) ||
        yb.len < max_rows * (Py_ssize_t)sizeof(int32_t) ||
        (ps.weights && wb.len < max_rows * (Py_ssize_t)sizeof(double))) {
        PyErr_SetString(PyExc_ValueError, "parse: bad arguments");
        goto out;
    }
    ps.cols = PyMem_Calloc((size_t)ncols, sizeof(col_t));
    cells = PyMem_Calloc((size_t)ncols, sizeof(cell_t));
    ps.t.scratch = PyMem_Malloc((size_t)(data.len - start) + 1);
    if (!ps.cols || !cells || !ps.t.scratch) {
        PyErr_NoMemory();
        goto out;
    }
    for (Py_ssize_t j = 0; j < ncols; j++) {
        PyObject *spec = PyList_GET_ITEM(specs, j);
        PyObject *values;
        col_t *c = &ps.cols[j];
        if (!PyArg_ParseTuple(spec, "iiOn", &c->kind, &c->out, &values, &c->limit))
            goto out;
        if (c->out >= n_attr || (c->out < 0 && c->kind != K_IGNORE && c->kind < K_CLASS)) {
            PyErr_SetString(PyExc_ValueError, "parse: bad column spec");
            goto out;
        }
        if ((c->kind == K_WEIGHT && !ps.weights) || c->kind > K_WEIGHT) {
            PyErr_SetString(PyExc_ValueError, "parse: bad column spec");
            goto out;
        }
        if (c->kind == K_NOM || c->kind == K_NOM_UNK || c->kind == K_OPEN ||
            (c->kind >= K_CLASS && c->kind <= K_CLASS_OPEN)) {
            if (dict_init(&c->d, values) < 0)
                goto out;
            c->has_dict = 1;
        }
    }
    ps.t.p = (const char *)data.buf + start;
    ps.t.end = (const char *)data.buf + data.len;
    ps.t.fmt = fmt;
    ps.t.sep = (char)sep;
    ps.t.weights = ps.weights != NULL;
    const char *why = NULL;
    Py_ssize_t rows = 0, lines = 0;
    for (;;) {
        Py_ssize_t k = next_row(&ps.t, cells, ncols, &lines);
        if (k == 0)
            break;
        if (k < 0) {
            why = ps.t.why;
            break;
        }
        if (k != ncols) {
            why = "row of the wrong width";
            break;
        }
        if (rows >= max_rows) {
            why = "more rows than expected";
            break;
        }
        double *x = ps.X + rows * n_attr;
        for (Py_ssize_t j = 0; j < ncols && !why; j++) {
            col_t *c = &ps.cols[j];
            const cell_t *cell = &cells[j];
            const int missing = is_missing(fmt, cell);
            Py_ssize_t code;
            switch (c->kind) {
            case K_IGNORE:
                if (c->out >= 0)
                    x[c->out] = Py_NAN;
                break;
            case K_INFER:
            case K_CONT:
                if (missing) {
                    x[c->out] = Py_NAN;
                    break;
                }
                if (!parse_number(cell->p, cell->n, &x[c->out])) {
                    if (c->kind == K_CONT || cell->quoted || non_ascii(cell)) {
                        /* (Python's \d also takes other scripts' digits.) */
                        why = "a cell is not a number";
                        break;
                    }
                    /* Re-reads rows 0..rows, leaving this row in cells. */
                    if (reopen(&ps, j, rows, data.buf, cells) < 0)
                        goto out;
                    j--; /* and encode this cell again, as K_OPEN */
                    continue;
                }
                /* float32: the value that rounds to inf as float (ties to even). */
                if (float32 ? fabs(x[c->out]) >= 0x1.ffffffp127 : isinf(x[c->out]))
                    why = "a value is out of range";
                break;
            case K_NOM:
            case K_NOM_UNK:
                if (missing) {
                    x[c->out] = Py_NAN;
                    break;
                }
                {
                    Py_ssize_t slot;
                    code = dict_find(&c->d, cell->p, cell->n, &slot);
                }
                if (code < 0) {
                    if (c->kind == K_NOM)
                        why = "an undeclared value";
                    else
                        x[c->out] = Py_NAN;
                    break;
                }
                x[c->out] = (double)code;
                break;
            case K_WEIGHT: {
                /* Anything but a finite number at least 0 is the Python reader's to
                 * report (weightcol.py), at its cell. */
                double w;
                if (missing || !parse_number(cell->p, cell->n, &w) || !(w >= 0.0) || isinf(w)) {
                    why = "a weight that is no number at least 0";
                    break;
                }
                ps.t.weight = w;
                ps.t.weighted = 1;
                break;
            }
            case K_OPEN:
                if (missing) {
                    x[c->out] = Py_NAN;
                    break;
                }
                code = dict_intern(&c->d, cell->p, cell->n);
                if (code < -1)
                    goto out;
                if (c->limit && c->d.count > c->limit) {
                    why = "more values than 'discrete N' allows";
                    break;
                }
                x[c->out] = (double)code;
                break;
            default: /* the class */
                if (missing) {
                    if (c->kind != K_CLASS_MISS)
                        why = "a missing class";
                    else
                        ps.y[rows] = -1;
                    break;
                }
                if (c->kind == K_CLASS_OPEN) {
                    code = dict_intern(&c->d, cell->p, cell->n);
                    if (code < -1)
                        goto out;
                } else {
                    Py_ssize_t slot;
                    code = dict_find(&c->d, cell->p, cell->n, &slot);
                    if (code < 0) {
                        why = "an undeclared class";
                        break;
                    }
                }
                if (code > INT32_MAX) {
                    why = "too many classes";
                    break;
                }
                ps.y[rows] = (int32_t)code;
                break;
            }
        }
        if (why)
            break;
        if (ps.weights)
            ps.weights[rows] = ps.t.weight;
        rows++;
    }
    if (why) {
        result = PyUnicode_FromString(why);
        goto out;
    }
    PyObject *opened = PyList_New(ncols);
    if (!opened)
        goto out;
    for (Py_ssize_t j = 0; j < ncols; j++) {
        PyObject *v = Py_None;
        if (ps.cols[j].kind == K_OPEN || ps.cols[j].kind == K_CLASS_OPEN)
            v = ps.cols[j].d.values;
        Py_INCREF(v);
        PyList_SET_ITEM(opened, j, v);
    }
    result = Py_BuildValue("(nnNi)", rows, lines, opened, ps.t.weighted);
out:
    if (ps.cols) {
        for (Py_ssize_t j = 0; j < ncols; j++)
            if (ps.cols[j].has_dict) {
                Py_XDECREF(ps.cols[j].d.values);
                PyMem_Free(ps.cols[j].d.slots);
            }
        PyMem_Free(ps.cols);
    }
    PyMem_Free(cells);
    PyMem_Free(ps.t.scratch);
    PyBuffer_Release(&data);
    PyBuffer_Release(&xb);
    PyBuffer_Release(&yb);
    if (weights != Py_None)
        PyBuffer_Release(&wb);
    return result;
}

static PyObject *tg_parse_number(PyObject *self, PyObject *arg)
{
    (void)self;
    char *p;
    Py_ssize_t n;
    double v;
    if (PyBytes_AsStringAndSize(arg, &p, &n) < 0)
        return NULL;
    if (!parse_number(p, n, &v))
        Py_RETURN_NONE;
    return PyFloat_FromDouble(v);
}

/* line_ends(buffer, n): how many CR and LF bytes buffer[:n] holds.  memchr, not
 * bytes.count's byte loop: the reader counts a file's line ends before it parses
 * (readers/fast.py _line_ends), about 1 ms instead of 16 for a 14 MB file. */
static Py_ssize_t count_byte(const char *p, const char *end, int c)
{
    Py_ssize_t k = 0;
    while (p < end && (p = memchr(p, c, (size_t)(end - p))) != NULL) {
        k++;
        p++;
    }
    return k;
}

static PyObject *tg_line_ends(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer b;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "y*n", &b, &n))
        return NULL;
    if (n < 0 || n > b.len) {
        PyBuffer_Release(&b);
        PyErr_SetString(PyExc_ValueError, "line_ends: n out of range");
        return NULL;
    }
    const char *p = b.buf;
    const Py_ssize_t k = count_byte(p, p + n, '\n') + count_byte(p, p + n, '\r');
    PyBuffer_Release(&b);
    return PyLong_FromSsize_t(k);
}

static PyObject *tg_decimal_point(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyUnicode_FromString(localeconv()->decimal_point);
}

static PyMethodDef methods[] = {
    {"parse", tg_parse, METH_VARARGS,
     "Fill X, y (and weights) from a data section; a str means fall back."},
    {"parse_number", tg_parse_number, METH_O, "One number cell's value (None: not a number)."},
    {"decimal_point", tg_decimal_point, METH_NOARGS, "The C library's decimal point."},
    {"line_ends", tg_line_ends, METH_VARARGS, "How many CR and LF bytes buffer[:n] holds."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_ctok", "treegen's C tokenizer for data files.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__ctok(void)
{
    return PyModule_Create(&module);
}
